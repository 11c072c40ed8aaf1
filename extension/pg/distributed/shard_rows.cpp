// read_shard_rows (shard_rows.h): the relation named by the coordinator,
// resolved in this server's catalog and read through the training
// loader's reader (read_relation, datum_to_double's per-type conversion).
#include "distributed/shard_rows.h"

#include <cmath>

#include "module.h"
#include "read/relation_reader.h"

extern "C" {
#include "utils/regproc.h"
}

namespace gbdt_pg {
namespace {

// The relation of a qualified name ("s"."t"), as the caller may read it:
// schema USAGE (the name lookup) and SELECT (open_rel_info) checked.
RelInfo* open_named_relation(const char* relation) {
  List* names = gbdt_qualified_name_list(relation);
  Oid relid = RangeVarGetRelid(makeRangeVarFromNameList(names), AccessShareLock, true);
  if (!OidIsValid(relid))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                    errmsg("relation \"%s\" of the gbdt shard training does not exist on this "
                           "server",
                           relation)));
  return open_rel_info(relid);
}

// The conversion of column `name`: a plain number, boolean, date or time;
// anything else (text, categorical, arrays) is an error naming it.
ValKind shard_column_kind(const RelInfo* rel, const char* name, const char* role) {
  Form_pg_attribute att = find_column(rel, name);
  if (att == nullptr) report_missing_column(rel, name);
  const ValKind k = kind_for_type(att->atttypid);
  if (k == ValKind::kNone)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("%s column \"%s\" of relation \"%s\" has type %s: training across "
                           "servers reads only numeric columns",
                           role, name, rel->name, format_type_be(att->atttypid)),
                    errhint("Supported types: " GBDT_SUPPORTED_TYPES ".")));
  return k;
}

struct RowSink {
  ShardRows* rows;
  MemoryContext cxt;
  size_t cap;
  const char* weight;  // column name, null: none
  double max_bytes;    // gbdt.max_memory
};

void sink_grow(RowSink* s) {
  ShardRows* r = s->rows;
  const size_t cap = s->cap == 0 ? 1024 : s->cap * 2;
  const double bytes = (double)cap * sizeof(float) * (r->nf + 2);
  if (bytes > s->max_bytes)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("the rows of this gbdt shard training exceed gbdt.max_memory (%.0f "
                           "MB)",
                           s->max_bytes / 1048576.0),
                    errhint("Raise gbdt.max_memory on the shard server.")));
  const size_t size = sizeof(float) * cap;
  if (s->cap == 0) {
    r->labels = (float*)MemoryContextAllocHuge(s->cxt, size);
    if (s->weight != nullptr) r->weights = (float*)MemoryContextAllocHuge(s->cxt, size);
    r->cols = (float**)MemoryContextAllocZero(s->cxt, sizeof(float*) * (r->nf > 0 ? r->nf : 1));
    for (int f = 0; f < r->nf; f++) r->cols[f] = (float*)MemoryContextAllocHuge(s->cxt, size);
  } else {
    r->labels = (float*)repalloc_huge(r->labels, size);
    if (r->weights != nullptr) r->weights = (float*)repalloc_huge(r->weights, size);
    for (int f = 0; f < r->nf; f++) r->cols[f] = (float*)repalloc_huge(r->cols[f], size);
  }
  s->cap = cap;
}

// One row: label first, then the weight (when there is one), then the
// features.  The weight checks and messages are the local loader's.
void take_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  RowSink* s = (RowSink*)arg;
  ShardRows* r = s->rows;
  if (nulls[0] || std::isnan(vals[0])) {  // no target: left out
    r->skipped++;
    return;
  }
  int first = 1;
  if (s->weight != nullptr) {
    if (nulls[1])
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("weight column \"%s\" contains NULL", s->weight),
                      errhint("Every row with a target needs a weight >= 0 (0 leaves the row "
                              "out of the training).")));
    if (!(vals[1] >= 0) || !std::isfinite(vals[1]))
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight column \"%s\" contains %g: weights must be finite and >= 0",
                             s->weight, (double)vals[1])));
    first = 2;
  }
  if (r->n == s->cap) sink_grow(s);
  const size_t i = r->n++;
  r->labels[i] = vals[0];
  if (r->weights != nullptr) r->weights[i] = vals[1];
  for (int f = 0; f < r->nf; f++) r->cols[f][i] = vals[first + f];
}

}  // namespace

void read_shard_rows(const char* relation, const char* target, const char* weight,
                     const char* const* features, int nf, MemoryContext cxt, ShardRows* out) {
  RelInfo* rel = open_named_relation(relation);
  const int first = weight != nullptr ? 2 : 1;
  ReaderColumn* cols = (ReaderColumn*)palloc0(sizeof(ReaderColumn) * (nf + first));
  cols[0] = ReaderColumn{target, shard_column_kind(rel, target, "target"), true, true};
  if (weight != nullptr)
    cols[1] = ReaderColumn{weight, shard_column_kind(rel, weight, "weight"), true, false};
  for (int f = 0; f < nf; f++)
    cols[first + f] =
        ReaderColumn{features[f], shard_column_kind(rel, features[f], "feature"), true, false};
  *out = ShardRows();
  out->nf = nf;
  RowSink sink{out, cxt, 0, weight, max_memory_bytes()};
  sink_grow(&sink);
  read_relation(rel, cols, nf + first, take_row, &sink, false);
  pfree(cols);
}

}  // namespace gbdt_pg
