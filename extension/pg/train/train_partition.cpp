// gbdt_train with params "partition_by": one sub-model per distinct key.
//
// The relation is read once, by one query, into a temporary table: the key
// columns' text forms, the other columns, and the read order; clustered by
// key (and read order within a key) and indexed on the key.  Each key's
// rows are then trained by gbdt_train itself through a temporary view
// selecting that key's rows in read order, with the same arguments and
// the parameters minus the partition ones, so each sub-model is exactly a
// gbdt_train of that key's rows alone (its own cuts, classes, feature
// checks).  The keys are trained one after another, each with all the
// training's threads.  An error of a key's training is re-raised with the
// key in front of its message.  The temporary objects go with the
// function's end, or with the transaction's rollback on an error.
#include "train/train_partition.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "module.h"
#include "model/model_type.h"
#include "read/rel_info.h"
#include "train/feature_selection.h"
#include "train/train_partition_args.h"

#include "gbdt/model.h"

extern "C" {
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

extern "C" Datum gbdt_train(PG_FUNCTION_ARGS);

namespace gbdt_pg {
namespace {

uint32 partition_objects = 0;  // numbers this backend's temporary tables and views

struct Group {
  char** key;      // per key column: text form (database encoding), null when NULL
  int64 rows;
  struct varlena* model;  // the sub-model (plain bytes)
};

struct PartitionRun {
  const PartitionArgs* pa;
  const RelInfo* rel;
  const char* table;     // pg_temp's table of the relation's rows (its name)
  const char* qtable;    // the same, schema-qualified and quoted
  StringInfoData cols;   // the non-key columns, quoted, comma-separated
  int ngroups;
  Group* groups;
};

// An internal query's result code checked (the query text at the call,
// where scripts/check-sql-safety.sh reads it).
void spi_check(int rc, int expect) {
  if (rc != expect)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_train partition_by: internal query failed (%s)",
                           SPI_result_code_string(rc))));
}

// A CREATE of one of gbdt's own temporary objects (the copy's empty
// table, a key's view), also inside a security-restricted operation, where
// a retrain runs as the model's owner, runs unrestricted.  PostgreSQL refuses temporary
// relations there so that the owner's code cannot plant objects in the
// caller's pg_temp; these statements run none of the owner's code (the
// table is made WITH NO DATA, its rows are copied in afterwards, restricted
// as before), make only gbdt's own names, and the objects are dropped
// before the training returns.
//
// Lifts the restriction until restore_restriction(the value returned); an
// error in between leaves the restoring to the transaction's abort.
int allow_own_temp_objects() {
  Oid user;
  int context;
  GetUserIdAndSecContext(&user, &context);
  SetUserIdAndSecContext(user, context & ~SECURITY_RESTRICTED_OPERATION);
  return context;
}

void restore_restriction(int context) {
  SetUserIdAndSecContext(GetUserId(), context);
}

void spi_begin() {
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_train partition_by: SPI_connect failed")));
}

// "store=3, plan=basic": a key for messages.
char* key_text(const PartitionArgs* pa, char** key) {
  StringInfoData s;
  initStringInfo(&s);
  for (int c = 0; c < pa->ncols; c++)
    appendStringInfo(&s, "%s%s=%s", c ? ", " : "", pa->cols[c], key[c] != nullptr ? key[c] : "NULL");
  return s.data;
}

// The key columns: each a column of the relation, neither the target nor
// a feature named in features.
void check_key_columns(const PartitionArgs* pa, const RelInfo* rel, const char* target,
                       ArrayType* features) {
  for (int c = 0; c < pa->ncols; c++) {
    const char* k = pa->cols[c];
    if (find_column(rel, k) == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("partition_by column \"%s\" does not exist in relation \"%s\"", k,
                             rel->name)));
    if (strcmp(k, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("column \"%s\" is the target and cannot also be a partition_by key", k)));
  }
  if (features == nullptr) return;
  Datum* elems;
  bool* nulls;
  int n;
  deconstruct_array(features, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
  for (int i = 0; i < n; i++) {
    if (nulls[i]) continue;  // gbdt_train's own error
    const char* f = TextDatumGetCString(elems[i]);
    for (int c = 0; c < pa->ncols; c++)
      if (strcmp(f, pa->cols[c]) == 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("column \"%s\" is a partition_by key and cannot also be a feature", f),
                        errhint("Each key's rows are trained alone; a key column is constant there.")));
  }
}

bool is_key(const PartitionArgs* pa, const char* name) {
  for (int c = 0; c < pa->ncols; c++)
    if (strcmp(pa->cols[c], name) == 0) return true;
  return false;
}

// The relation's rows into the temporary table, clustered by key, then
// the keys and their row counts (at most max_groups of them).
void read_relation(PartitionRun* run, bool default_features) {
  const PartitionArgs* pa = run->pa;
  const RelInfo* rel = run->rel;
  initStringInfo(&run->cols);
  for (int i = 0; i < rel->desc->natts; i++) {
    Form_pg_attribute a = TupleDescAttr(rel->desc, i);
    if (a->attisdropped || is_key(pa, NameStr(a->attname))) continue;
    // The default feature list leaves generated keys out (feature_selection.h);
    // a copy of the column would not say it is one.
    if (default_features && generated_key_kind(rel, a) != nullptr) continue;
    appendStringInfo(&run->cols, "%s%s", run->cols.len ? ", " : "", quote_identifier(NameStr(a->attname)));
  }
  StringInfoData keys, order, sql;
  initStringInfo(&keys);
  initStringInfo(&order);
  for (int c = 0; c < pa->ncols; c++) {
    // The key's text is its type's output (as scoring reads it: format's
    // %s), NULL for NULL; a cast to text may differ (bool: true, not t).
    const char* col = quote_identifier(pa->cols[c]);
    appendStringInfo(&keys,
                     "%sCASE WHEN %s IS NULL THEN NULL ELSE pg_catalog.format('%%s', %s) END AS "
                     "\"gbdt key %d\"",
                     c ? ", " : "", col, col, c + 1);
    appendStringInfo(&order, "%s\"gbdt key %d\" COLLATE \"C\" NULLS LAST", c ? ", " : "", c + 1);
  }
  run->table = psprintf("gbdt_partition_%d_%u", MyProcPid, ++partition_objects);
  run->qtable = psprintf("pg_temp.%s", quote_identifier(run->table));
  StringInfoData rows;
  initStringInfo(&rows);
  appendStringInfo(&rows,
                   "SELECT * FROM (SELECT %s%s%s, pg_catalog.row_number() OVER () AS \"gbdt row\" "
                   "FROM %s) r ORDER BY %s, \"gbdt row\"",
                   keys.data, run->cols.len ? ", " : "", run->cols.data, rel->qualname, order.data);
  initStringInfo(&sql);
  appendStringInfo(&sql, "CREATE TEMP TABLE %s AS %s WITH NO DATA", run->qtable, rows.data);
  StringInfoData fill;
  initStringInfo(&fill);
  appendStringInfo(&fill, "INSERT INTO %s %s", run->qtable, rows.data);
  // The copy keeps the relation's read order: no parallel scan (its
  // workers' rows interleave) and no synchronized scan (it may start
  // mid-table), for the length of the copy only.
  const int guc_level = NewGUCNestLevel();
  set_config_option("max_parallel_workers_per_gather", "0", PGC_USERSET, PGC_S_SESSION,
                    GUC_ACTION_SAVE, true, 0, false);
  set_config_option("synchronize_seqscans", "off", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
                    true, 0, false);
  spi_begin();
  int context = allow_own_temp_objects();
  spi_check(SPI_execute(sql.data, false, 0), SPI_OK_UTILITY);
  restore_restriction(context);
  spi_check(SPI_execute(fill.data, false, 0), SPI_OK_INSERT);
  AtEOXact_GUC(true, guc_level);
  // the keys and their row counts
  resetStringInfo(&sql);
  StringInfoData pos;
  initStringInfo(&pos);
  for (int c = 0; c < pa->ncols; c++) appendStringInfo(&pos, "%s\"gbdt key %d\"", c ? ", " : "", c + 1);
  appendStringInfo(&sql, "SELECT %s, pg_catalog.count(*) FROM %s GROUP BY %s ORDER BY %s LIMIT %d",
                   pos.data, run->qtable, pos.data, order.data, pa->max_groups + 1);
  spi_check(SPI_execute(sql.data, false, 0), SPI_OK_SELECT);
  const uint64 n = SPI_processed;
  if (n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND), errmsg("relation \"%s\" has no rows", rel->name)));
  if (n > (uint64)pa->max_groups)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("partition_by gives more than %d groups (partition_max_groups)", pa->max_groups),
                    errhint("Raise partition_max_groups (at most %d) or partition by fewer values.",
                            (int)gbdt::kMaxPartitionGroups)));
  // SPI_palloc: in the caller's context, kept after SPI_finish.
  run->ngroups = (int)n;
  run->groups = (Group*)SPI_palloc(sizeof(Group) * n);
  for (uint64 g = 0; g < n; g++) {
    HeapTuple t = SPI_tuptable->vals[g];
    Group* gr = &run->groups[g];
    gr->key = (char**)SPI_palloc(sizeof(char*) * pa->ncols);
    for (int c = 0; c < pa->ncols; c++) {
      char* v = SPI_getvalue(t, SPI_tuptable->tupdesc, c + 1);
      gr->key[c] = nullptr;
      if (v != nullptr && strlen(v) > gbdt::kMaxStringBytes)  // before any training
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("a value of partition_by column \"%s\" is longer than %d bytes",
                               pa->cols[c], (int)gbdt::kMaxStringBytes),
                        errhint("Partition by a shorter key (a hash or an id of the value).")));
      if (v != nullptr) {
        gr->key[c] = (char*)SPI_palloc(strlen(v) + 1);
        strcpy(gr->key[c], v);
      }
    }
    bool isnull;
    gr->rows = DatumGetInt64(SPI_getbinval(t, SPI_tuptable->tupdesc, pa->ncols + 1, &isnull));
    gr->model = nullptr;
  }
  resetStringInfo(&sql);
  appendStringInfo(&sql, "CREATE INDEX ON %s (%s)", run->qtable, pos.data);
  spi_check(SPI_execute(sql.data, false, 0), SPI_OK_UTILITY);
  resetStringInfo(&sql);
  appendStringInfo(&sql, "ANALYZE %s", run->qtable);
  spi_check(SPI_execute(sql.data, false, 0), SPI_OK_UTILITY);
  SPI_finish();
}

// A temporary view of the rows of one key (key null: every row), in read order.
Oid make_view(const PartitionRun* run, char** key, const char** name_out) {
  const char* name = psprintf("gbdt_partition_%d_%u", MyProcPid, ++partition_objects);
  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql, "CREATE TEMP VIEW pg_temp.%s AS SELECT %s FROM %s", quote_identifier(name),
                   run->cols.data, run->qtable);
  for (int c = 0; key != nullptr && c < run->pa->ncols; c++) {
    appendStringInfo(&sql, "%s", c ? " AND " : " WHERE ");
    if (key[c] == nullptr)
      appendStringInfo(&sql, "\"gbdt key %d\" IS NULL", c + 1);
    else
      appendStringInfo(&sql, "\"gbdt key %d\" OPERATOR(pg_catalog.=) %s", c + 1, quote_literal_cstr(key[c]));
  }
  appendStringInfo(&sql, " ORDER BY \"gbdt row\"");
  spi_begin();
  int context = allow_own_temp_objects();
  spi_check(SPI_execute(sql.data, false, 0), SPI_OK_UTILITY);
  restore_restriction(context);
  SPI_finish();
  CommandCounterIncrement();
  *name_out = name;
  return RangeVarGetRelid(makeRangeVar(pstrdup("pg_temp"), pstrdup(name), -1), NoLock, false);
}

void drop_object(const char* kind, const char* name) {
  spi_begin();
  char* sql;
  if (strcmp(kind, "VIEW") == 0)
    sql = psprintf("DROP VIEW pg_temp.%s", quote_identifier(name));
  else
    sql = psprintf("DROP TABLE %s", name);  // name: already qualified and quoted
  spi_check(SPI_execute(sql, false, 0), SPI_OK_UTILITY);
  SPI_finish();
}

// gbdt_train on one key's view (key null: every row), its error prefixed by
// the key; the model's plain bytes in `into`.
struct varlena* train_view(FunctionCallInfo fcinfo, const PartitionRun* run, char** key,
                           MemoryContext into) {
  const char* view = nullptr;
  const Oid relid = make_view(run, key, &view);
  MemoryContext work = AllocSetContextCreate(CurrentMemoryContext, "gbdt partition training",
                                             ALLOCSET_DEFAULT_SIZES);
  MemoryContext old = MemoryContextSwitchTo(work);
  LOCAL_FCINFO(call, 6);
  InitFunctionCallInfoData(*call, nullptr, 6, PG_GET_COLLATION(), nullptr, nullptr);
  call->args[0].value = ObjectIdGetDatum(relid);
  call->args[0].isnull = false;
  for (int a = 1; a < 4; a++) {
    call->args[a].value = PG_NARGS() > a ? PG_GETARG_DATUM(a) : (Datum)0;
    call->args[a].isnull = PG_NARGS() <= a || PG_ARGISNULL(a);
  }
  call->args[4].value = JsonbPGetDatum(run->pa->rest);
  call->args[4].isnull = false;
  call->args[5].value = (Datum)0;
  call->args[5].isnull = true;
  Datum model = (Datum)0;
  PG_TRY();
  {
    model = gbdt_train(call);
  }
  PG_CATCH();
  {
    MemoryContextSwitchTo(old);
    ErrorData* ed = CopyErrorData();
    FlushErrorState();
    const char* what = key != nullptr ? psprintf("partition %s", key_text(run->pa, key)) : "global model";
    ed->message = psprintf("%s: %s", what, ed->message);
    ReThrowError(ed);
  }
  PG_END_TRY();
  struct varlena* plain = pg_detoast_datum_copy((struct varlena*)DatumGetPointer(model));
  MemoryContextSwitchTo(into);
  struct varlena* out = (struct varlena*)palloc(VARSIZE(plain));
  memcpy(out, plain, VARSIZE(plain));
  MemoryContextSwitchTo(old);
  MemoryContextDelete(work);
  drop_object("VIEW", view);
  return out;
}

// The container of the sub-models (and the global model) as a gbdt_model.
struct varlena* build_container(const PartitionRun* run, struct varlena* global) {
  const PartitionArgs* pa = run->pa;
  // Names, types and key texts in UTF-8 (converted here: run_engine may not ereport).
  const char** names = (const char**)palloc(sizeof(char*) * pa->ncols);
  const char** types = (const char**)palloc(sizeof(char*) * pa->ncols);
  for (int c = 0; c < pa->ncols; c++) {
    names[c] = server_to_model_string(pa->cols[c]);
    types[c] = format_type_be(find_column(run->rel, pa->cols[c])->atttypid);
  }
  const char*** keys = (const char***)palloc(sizeof(char**) * run->ngroups);
  double total = 0;
  for (int g = 0; g < run->ngroups; g++) {
    keys[g] = (const char**)palloc(sizeof(char*) * pa->ncols);
    for (int c = 0; c < pa->ncols; c++) {
      keys[g][c] = run->groups[g].key[c] != nullptr ? server_to_model_string(run->groups[g].key[c]) : nullptr;
      if (keys[g][c] != nullptr && strlen(keys[g][c]) > gbdt::kMaxStringBytes)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("a value of partition_by column \"%s\" is longer than %d bytes",
                               pa->cols[c], (int)gbdt::kMaxStringBytes),
                        errhint("Partition by a shorter key (a hash or an id of the value).")));
    }
    total += VARSIZE(run->groups[g].model);
  }
  if (global != nullptr) total += VARSIZE(global);
  if (total > (double)MaxAllocSize / 2 || total > max_memory_bytes())
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("the partitioned model's %d sub-models take %s, over the limit of %s",
                           run->ngroups, format_bytes(total),
                           format_bytes(std::min((double)MaxAllocSize / 2, max_memory_bytes()))),
                    errhint("Partition by fewer values or train smaller models.")));
  struct varlena* result = nullptr;
  run_engine([&] {
    gbdt::PartitionedModel pm;
    pm.fallback = pa->fallback;
    for (int c = 0; c < pa->ncols; c++) {
      pm.column_names.push_back(names[c]);
      pm.column_types.push_back(types[c]);
    }
    auto bytes_of = [](const struct varlena* v) {
      const uint8_t* p = (const uint8_t*)VARDATA(v);
      return std::vector<uint8_t>(p, p + VARSIZE(v) - VARHDRSZ);
    };
    for (int g = 0; g < run->ngroups; g++) {
      gbdt::PartitionGroup pg;
      for (int c = 0; c < pa->ncols; c++) {
        pg.key.push_back(keys[g][c] != nullptr ? keys[g][c] : "");
        pg.key_null.push_back(keys[g][c] == nullptr ? 1 : 0);
      }
      pg.rows = (uint64_t)run->groups[g].rows;
      pg.bytes = bytes_of(run->groups[g].model);
      const gbdt::Model sub = gbdt::deserialize_model(pg.bytes.data(), pg.bytes.size());
      pg.metric = std::nan("");
      if (!sub.report.validation_metric.empty()) {
        pg.metric_name = sub.report.eval_metric;
        pg.metric = sub.report.validation_metric.back();
        if (sub.report.best_iteration >= 0 &&
            (size_t)sub.report.best_iteration < sub.report.validation_metric.size())
          pg.metric = sub.report.validation_metric[sub.report.best_iteration];
      }
      pm.groups.push_back(std::move(pg));
    }
    if (global != nullptr) pm.global_bytes = bytes_of(global);
    result = bytes_to_varlena_nothrow(gbdt::serialize_partitioned(pm));
  });
  return result;
}

}  // namespace

bool partition_requested(FunctionCallInfo fcinfo) {
  return PG_NARGS() > 4 && !PG_ARGISNULL(4) && params_have_key(PG_GETARG_JSONB_P(4), "partition_by");
}

Datum train_partitioned(FunctionCallInfo fcinfo) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("relation must not be NULL")));
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("target must not be NULL")));
  if (PG_NARGS() > 5 && !PG_ARGISNULL(5))
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("partition_by does not take an init_model")));
  PartitionArgs pa;
  partition_args_from_params(PG_GETARG_JSONB_P(4), &pa);
  RelInfo* rel = open_rel_info(PG_GETARG_OID(0));
  const char* target = text_to_cstring(PG_GETARG_TEXT_PP(1));
  ArrayType* features = PG_ARGISNULL(2) ? nullptr : PG_GETARG_ARRAYTYPE_P(2);
  check_key_columns(&pa, rel, target, features);
  PartitionRun run;
  run.pa = &pa;
  run.rel = rel;
  read_relation(&run, features == nullptr);
  MemoryContext keep = CurrentMemoryContext;
  for (int g = 0; g < run.ngroups; g++) {
    CHECK_FOR_INTERRUPTS();
    run.groups[g].model = train_view(fcinfo, &run, run.groups[g].key, keep);
  }
  struct varlena* global = nullptr;
  if (pa.fallback == gbdt::PartitionFallback::kGlobal) global = train_view(fcinfo, &run, nullptr, keep);
  drop_object("TABLE", run.qtable);
  struct varlena* result = build_container(&run, global);
  PG_RETURN_POINTER(compressed_model_value(result));
}

}  // namespace gbdt_pg
