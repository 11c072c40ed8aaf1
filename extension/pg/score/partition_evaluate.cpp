// gbdt_evaluate of a partitioned model (partition_table.h).  The relation
// is read once, with the caller's rights, by one query without parallel
// workers or a synchronized scan (so in its read order), into a temporary
// table of its rows with their keys' text, a hash of it and their read
// position, indexed on (hash, position).  One aggregate over that copy finds the keys and
// their rows with a target; then each key's rows, through a temporary view
// of the copy in read order, are read by read_eval_rows with the key's
// sub-model, exactly as gbdt_evaluate of that sub-model on a view of the
// relation's rows of the key reads them, and the key's metrics come from
// the same code as gbdt_evaluate's (eval_metrics_json).  The same rows are
// added to the pooled metrics (partition_pool.h).  The temporary objects
// are dropped at the end, or rolled back with the transaction on an error.
#include <string>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "model/model_type.h"
#include "read/category_dict.h"
#include "read/read_order.h"
#include "read/rel_info.h"
#include "score/evaluate_read.h"
#include "score/partition_pool.h"
#include "score/partition_route.h"
#include "score/partition_table.h"
#include "score/scoring.h"

#include "gbdt/train.h"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/snapmgr.h"
}

namespace gbdt_pg {

double threshold_arg(FunctionCallInfo fcinfo, int argno, const char* fn);  // evaluate.cpp

namespace {

uint32 partition_views = 0;

void spi_connect_or_fail() {
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: SPI_connect failed")));
}

// The condition selecting the rows of one key in the copy (text values;
// null: NULL; hash: the key's "gbdt hash", which the index finds).
char* key_condition(int n, char** text, int32 hash) {
  StringInfoData s;
  initStringInfo(&s);
  appendStringInfo(&s, "c.\"gbdt hash\" OPERATOR(pg_catalog.=) %d", hash);
  for (int k = 0; k < n; k++) {
    if (text[k] == nullptr)
      appendStringInfo(&s, " AND c.\"gbdt key %d\" IS NULL", k + 1);
    else
      appendStringInfo(&s, " AND c.\"gbdt key %d\" OPERATOR(pg_catalog.=) %s", k + 1, quote_literal_cstr(text[k]));
  }
  return s.data;
}

// The relation's rows copied once (see the top of the file).
struct RowsCopy {
  const char* qtable;  // pg_temp."gbdt_partition_eval_<pid>_<n>"
  const char* cols;    // the relation's columns, quoted, comma-separated
  int nc;              // key columns: "gbdt key 1" .. "gbdt key <nc>"
};

// Copies rel's rows with the text of key columns cols[0 .. nc) (quoted).
RowsCopy copy_rows(const RelInfo* rel, const char** cols, int nc) {
  RowsCopy c;
  c.nc = nc;
  StringInfoData list, keys, hashed, sql;
  initStringInfo(&list);
  initStringInfo(&keys);
  initStringInfo(&hashed);
  for (int i = 0; i < rel->desc->natts; i++) {
    Form_pg_attribute a = TupleDescAttr(rel->desc, i);
    if (a->attisdropped) continue;
    if (strncmp(NameStr(a->attname), "gbdt key ", 9) == 0 || strcmp(NameStr(a->attname), "gbdt row") == 0 ||
        strcmp(NameStr(a->attname), "gbdt hash") == 0)
      ereport(ERROR, (errcode(ERRCODE_DUPLICATE_COLUMN),
                      errmsg("relation \"%s\" has a column \"%s\", a name gbdt_evaluate of a partitioned "
                             "model gives its copy of the rows",
                             rel->name, NameStr(a->attname)),
                      errhint("Evaluate a view that renames the column.")));
    appendStringInfo(&list, "%s%s", list.len ? ", " : "", quote_identifier(NameStr(a->attname)));
  }
  for (int k = 0; k < nc; k++) {  // the key's text as the training's (train_partition.cpp)
    appendStringInfo(&keys,
                     ", CASE WHEN r.%s IS NULL THEN NULL ELSE pg_catalog.format('%%s', r.%s) END AS \"gbdt key %d\"",
                     cols[k], cols[k], k + 1);
    appendStringInfo(&hashed, "%ss.\"gbdt key %d\"", k ? ", '|', " : "", k + 1);
  }
  c.cols = list.data;
  c.qtable =
      psprintf("pg_temp.%s", quote_identifier(psprintf("gbdt_partition_eval_%d_%u", MyProcPid, ++partition_views)));
  StringInfoData rows;
  initStringInfo(&rows);
  appendStringInfo(&rows,
                   "SELECT s.*, pg_catalog.hashtext(pg_catalog.concat(%s)) AS \"gbdt hash\" FROM "
                   "(SELECT r.*%s, pg_catalog.row_number() OVER () AS \"gbdt row\" FROM %s r) s",
                   hashed.data, keys.data, rel->qualname);
  initStringInfo(&sql);
  appendStringInfo(&sql, "CREATE TEMP TABLE %s AS %s", c.qtable, rows.data);
  // The copy keeps the relation's read order: no parallel scan (its
  // workers' rows interleave) and no synchronized scan (it may start
  // mid-table), for the length of the copy only.
  const int guc_level = begin_read_in_order();
  spi_connect_or_fail();
  if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: could not copy the relation's rows")));
  end_read_in_order(guc_level);
  resetStringInfo(&sql);
  // On the keys' hash (a key's text may be too long for an index entry)
  // and the read position: a key's rows in read order.
  appendStringInfo(&sql, "CREATE INDEX ON %s (\"gbdt hash\", \"gbdt row\")", c.qtable);
  if (SPI_execute(sql.data, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: could not index the copy of the rows")));
  SPI_finish();
  return c;
}

void drop_copy(const RowsCopy& c) {
  char* sql = psprintf("DROP TABLE %s", c.qtable);
  spi_connect_or_fail();
  SPI_execute(sql, false, 0);
  SPI_finish();
}

// The JSON array of a key's values.
char* key_json(char** text, int n) {
  StringInfoData s;
  initStringInfo(&s);
  appendStringInfoChar(&s, '[');
  for (int k = 0; k < n; k++) {
    if (k) appendStringInfoString(&s, ", ");
    if (text[k] == nullptr)
      appendStringInfoString(&s, "null");
    else
      escape_json(&s, text[k]);
  }
  appendStringInfoChar(&s, ']');
  return s.data;
}

void categories_cleanup(void* arg) { delete_model_categories((ModelCategories*)arg); }  // noexcept

// The metrics (gbdt_evaluate's JSON object) of model on the copy's rows
// matching `where`, read through a temporary view in read order; the rows are added to
// pool as model i's.  What the reading allocates goes with a memory
// context of its own (the category lookups, C++ objects, with it).
char* evaluate_where(const RowsCopy& copy, const char* where, const gbdt::Model* model, const char* target,
                     double threshold, PartitionPool* pool, int i) {
  const char* view = psprintf("gbdt_partition_eval_%d_%u", MyProcPid, ++partition_views);
  spi_connect_or_fail();
  char* sql = psprintf("CREATE TEMP VIEW pg_temp.%s AS SELECT %s FROM %s c WHERE %s ORDER BY c.\"gbdt row\"",
                       quote_identifier(view), copy.cols, copy.qtable, where);
  if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: could not make a view of a key's rows")));
  SPI_finish();
  const Oid relid = RangeVarGetRelid(makeRangeVar(pstrdup("pg_temp"), pstrdup(view), -1), NoLock, false);

  MemoryContext outer = CurrentMemoryContext;
  MemoryContext cxt = AllocSetContextCreate(outer, "gbdt partition evaluation", ALLOCSET_DEFAULT_SIZES);
  MemoryContextSwitchTo(cxt);
  ModelCategories* mc = nullptr;
  run_engine([&] { mc = build_model_categories(*model); });
  MemoryContextCallback* cb = (MemoryContextCallback*)palloc(sizeof(MemoryContextCallback));
  cb->func = categories_cleanup;
  cb->arg = mc;
  MemoryContextRegisterResetCallback(cxt, cb);
  EvalRows r;
  read_eval_rows_of(model, mc, relid, target, true, false, &r);
  const char* json = eval_metrics_json(&r, threshold, nullptr);
  MemoryContextSwitchTo(outer);
  char* out = pstrdup(json);
  pool_add(pool, i, &r);
  MemoryContextDelete(cxt);

  spi_connect_or_fail();
  char* drop = psprintf("DROP VIEW pg_temp.%s", quote_identifier(view));
  SPI_execute(drop, false, 0);
  SPI_finish();
  return out;
}

// The keys of the relation's rows (text as the training's, null: NULL),
// with their rows and their rows with a target.
struct KeyRows {
  uint64 n = 0;
  char*** keys = nullptr;
  int64* targets = nullptr;  // rows with a non-NULL target
  int64* rows = nullptr;
  int32* hash = nullptr;  // the key's "gbdt hash"
};

KeyRows read_keys(const RowsCopy& copy, const char* target) {
  StringInfoData sel;
  initStringInfo(&sel);
  for (int k = 0; k < copy.nc; k++) appendStringInfo(&sel, "%sc.\"gbdt key %d\"", k ? ", " : "", k + 1);
  spi_connect_or_fail();
  char* sql = psprintf(
      "SELECT %s, pg_catalog.count(c.%s), pg_catalog.count(*), c.\"gbdt hash\" FROM %s c "
      "GROUP BY %s, c.\"gbdt hash\" ORDER BY %s",
      sel.data, quote_identifier(target), copy.qtable, sel.data, sel.data);
  if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: could not read the keys")));
  const int nc = copy.nc;
  KeyRows kr;
  kr.n = SPI_processed;
  kr.keys = (char***)SPI_palloc(sizeof(char**) * (kr.n + 1));
  kr.targets = (int64*)SPI_palloc(sizeof(int64) * (kr.n + 1));
  kr.rows = (int64*)SPI_palloc(sizeof(int64) * (kr.n + 1));
  kr.hash = (int32*)SPI_palloc(sizeof(int32) * (kr.n + 1));
  for (uint64 i = 0; i < kr.n; i++) {
    kr.keys[i] = (char**)SPI_palloc(sizeof(char*) * nc);
    for (int k = 0; k < nc; k++) {
      char* v = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, k + 1);
      kr.keys[i][k] = v != nullptr ? (char*)SPI_palloc(strlen(v) + 1) : nullptr;
      if (v != nullptr) strcpy(kr.keys[i][k], v);
    }
    bool isnull;
    kr.targets[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, nc + 1, &isnull));
    kr.rows[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, nc + 2, &isnull));
    kr.hash[i] = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, nc + 3, &isnull));
  }
  SPI_finish();
  return kr;
}

// The sub-model index of a key (-1: none).
int find_group(const gbdt::PartitionedModel& pm, char** text, int nc) {
  const char** utf8 = (const char**)palloc(sizeof(char*) * nc);
  for (int k = 0; k < nc; k++) utf8[k] = text[k] != nullptr ? server_to_model_string(text[k]) : nullptr;
  int g = -1;
  run_engine([&] {
    std::vector<std::string> key;
    std::vector<uint8_t> null;
    for (int k = 0; k < nc; k++) {
      key.emplace_back(utf8[k] != nullptr ? utf8[k] : "");
      null.push_back(utf8[k] == nullptr ? 1 : 0);
    }
    g = pm.find(key, null);
  });
  return g;
}

}  // namespace

Datum partition_evaluate(FunctionCallInfo fcinfo, const gbdt::Model* m) {
  const gbdt::PartitionedModel& pm = *m->partitions;
  RelInfo* rel = open_rel_info(PG_GETARG_OID(1));
  const char* target = text_to_cstring(PG_GETARG_TEXT_PP(2));
  const double threshold = threshold_arg(fcinfo, 3, "gbdt_evaluate");
  if (find_column(rel, target) == nullptr) report_missing_column(rel, target);
  const int nc = (int)pm.column_names.size();
  const gbdt::Model* first = pm.models[0].get();  // one training: one objective family
  if (gbdt::objective_info(first->objective).ranking)  // as gbdt_evaluate of one ranking model
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_evaluate: a %s model is evaluated per query group: pass group_column",
                           model_objective_name(first)),
                    errhint("Take one key's model with gbdt_partition_model(model, key): "
                            "gbdt_evaluate(model, relation, target, group_column) takes one model.")));
  const char** cols = partition_key_columns(pm, rel);
  if (XactReadOnly)  // no temporary table then (a standby's sessions included)
    ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                    errmsg("gbdt_evaluate of a partitioned model copies the relation's rows into a temporary "
                           "table, which a read-only transaction cannot create"),
                    errhint("Run it in a read-write transaction, or evaluate one key's model "
                            "(gbdt_partition_model) on a view of its rows.")));
  RowsCopy copy = copy_rows(rel, cols, nc);
  // The reads below (read-only) see the copy as SPI's own commands would:
  // the active snapshot advanced past the command that filled it.
  CommandCounterIncrement();
  PushCopiedSnapshot(GetActiveSnapshot());
  UpdateActiveSnapshotCommandId();
  KeyRows kr = read_keys(copy, target);

  // Which model scores each key's rows (-1: none), checked before reading
  // any: an unseen key is an error with fallback error.
  int* group = (int*)palloc(sizeof(int) * (kr.n + 1));
  const gbdt::Model** models = (const gbdt::Model**)palloc(sizeof(gbdt::Model*) * (kr.n + 1));
  const char** names = (const char**)palloc(sizeof(char*) * (kr.n + 1));
  int nmodels = 0, global_index = -1;
  int64 unseen_rows = 0;
  StringInfoData unseen;
  initStringInfo(&unseen);
  for (uint64 i = 0; i < kr.n; i++) {
    CHECK_FOR_INTERRUPTS();
    group[i] = find_group(pm, kr.keys[i], nc);
    if (kr.targets[i] == 0) continue;  // no row with a target
    if (group[i] >= 0) {
      models[nmodels] = pm.models[group[i]].get();
      names[nmodels++] = psprintf("key %s", key_message(pm, kr.keys[i]));
      continue;
    }
    if (pm.fallback == gbdt::PartitionFallback::kError)
      ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                      errmsg("the partitioned model has no sub-model for key %s", key_message(pm, kr.keys[i])),
                      errhint("Train with \"partition_fallback\": \"global\" or \"null\".")));
    unseen_rows += kr.targets[i];
    appendStringInfo(&unseen, "%s(%s)", unseen.len ? " OR " : "", key_condition(nc, kr.keys[i], kr.hash[i]));
  }
  if (pm.fallback == gbdt::PartitionFallback::kGlobal && unseen.len > 0) {
    global_index = nmodels;
    models[nmodels] = pm.global.get();
    names[nmodels++] = "the global model";
  }
  PartitionPool* pool = pool_start(models, names, nmodels);

  StringInfoData parts;
  initStringInfo(&parts);
  int64 rows = 0;
  int j = 0;
  for (uint64 i = 0; i < kr.n; i++) {
    CHECK_FOR_INTERRUPTS();
    const bool scored = group[i] >= 0 || pm.fallback == gbdt::PartitionFallback::kGlobal;
    if (kr.targets[i] == 0) {  // every target NULL: skipped as gbdt_evaluate skips them
      if (scored) pool_skip(pool, (uint64)kr.rows[i]);
      continue;
    }
    if (group[i] < 0) continue;  // the fallback's
    char* json = evaluate_where(copy, key_condition(nc, kr.keys[i], kr.hash[i]), models[j], target, threshold, pool, j);
    appendStringInfo(&parts, "%s{\"key\": %s, \"metrics\": %s}", j ? ", " : "", key_json(kr.keys[i], nc), json);
    j++;
    rows += kr.targets[i];
  }
  const char* global = nullptr;
  if (global_index >= 0) {
    global = evaluate_where(copy, unseen.data, pm.global.get(), target, threshold, pool, global_index);
    rows += unseen_rows;
    unseen_rows = 0;
  }
  PopActiveSnapshot();
  drop_copy(copy);
  const char* pooled = pool_metrics_json(pool, threshold);
  StringInfoData out;
  initStringInfo(&out);
  appendStringInfo(&out, "{\"partitioned\": true, \"metrics\": %s", pooled != nullptr ? pooled : "null");
  if (pooled == nullptr) {
    appendStringInfoString(&out, ", \"metrics_omitted\": ");
    escape_json(&out, pool_refusal(pool));
  }
  appendStringInfo(&out, ", \"partitions\": [%s]", parts.data);
  if (global != nullptr) appendStringInfo(&out, ", \"global\": %s", global);
  appendStringInfo(&out, ", \"rows\": " INT64_FORMAT ", \"rows_unscored\": " INT64_FORMAT "}", rows, unseen_rows);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

}  // namespace gbdt_pg
