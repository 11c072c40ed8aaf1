// gbdt_evaluate of a partitioned model (partition_table.h).  One aggregate
// over the relation through SPI, with the caller's rights, finds the keys
// present and their rows with a target; then each key's rows are read
// through a temporary view of them (one scan of the relation per key
// present) by read_eval_rows with the key's sub-model, exactly as
// gbdt_evaluate of that sub-model on the view reads them, and the key's
// metrics come from the same code as gbdt_evaluate's (eval_metrics_json).
// The same rows are added to the pooled metrics (partition_pool.h).
#include <string>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "model/model_type.h"
#include "read/category_dict.h"
#include "read/rel_info.h"
#include "score/evaluate_read.h"
#include "score/partition_pool.h"
#include "score/partition_route.h"
#include "score/partition_table.h"

extern "C" {
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/json.h"
}

namespace gbdt_pg {

double threshold_arg(FunctionCallInfo fcinfo, int argno, const char* fn);  // evaluate.cpp

namespace {

uint32 partition_views = 0;

void spi_connect_or_fail() {
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: SPI_connect failed")));
}

// The condition selecting the rows of one key (text values; null: NULL).
char* key_condition(const char** cols, int n, char** text) {
  StringInfoData s;
  initStringInfo(&s);
  for (int k = 0; k < n; k++) {
    if (k) appendStringInfoString(&s, " AND ");
    if (text[k] == nullptr)
      appendStringInfo(&s, "r.%s IS NULL", cols[k]);
    else
      appendStringInfo(&s, "pg_catalog.format('%%s', r.%s) OPERATOR(pg_catalog.=) %s", cols[k],
                       quote_literal_cstr(text[k]));
  }
  return s.data;
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

// The metrics (gbdt_evaluate's JSON object) of model on the rows of rel
// matching `where`, read through a temporary view; the rows are added to
// pool as model i's.  What the reading allocates goes with a memory
// context of its own (the category lookups, C++ objects, with it).
char* evaluate_where(const RelInfo* rel, const char* where, const gbdt::Model* model, const char* target,
                     double threshold, PartitionPool* pool, int i) {
  const char* view = psprintf("gbdt_partition_eval_%d_%u", MyProcPid, ++partition_views);
  spi_connect_or_fail();
  char* sql = psprintf("CREATE TEMP VIEW pg_temp.%s AS SELECT * FROM %s r WHERE %s", quote_identifier(view),
                       rel->qualname, where);
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
};

KeyRows read_keys(const RelInfo* rel, const char** cols, int nc, const char* target) {
  StringInfoData sel;
  initStringInfo(&sel);
  for (int k = 0; k < nc; k++)  // the key's text as the training's (train_partition.cpp)
    appendStringInfo(&sel, "%sCASE WHEN r.%s IS NULL THEN NULL ELSE pg_catalog.format('%%s', r.%s) END",
                     k ? ", " : "", cols[k], cols[k]);
  spi_connect_or_fail();
  char* sql = psprintf("SELECT %s, pg_catalog.count(r.%s), pg_catalog.count(*) FROM %s r GROUP BY %s ORDER BY %s",
                       sel.data, quote_identifier(target), rel->qualname, sel.data, sel.data);
  if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: could not read the keys")));
  KeyRows kr;
  kr.n = SPI_processed;
  kr.keys = (char***)SPI_palloc(sizeof(char**) * (kr.n + 1));
  kr.targets = (int64*)SPI_palloc(sizeof(int64) * (kr.n + 1));
  kr.rows = (int64*)SPI_palloc(sizeof(int64) * (kr.n + 1));
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
  const char** cols = partition_key_columns(pm, rel);
  KeyRows kr = read_keys(rel, cols, nc, target);

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
    appendStringInfo(&unseen, "%s(%s)", unseen.len ? " OR " : "", key_condition(cols, nc, kr.keys[i]));
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
    char* json = evaluate_where(rel, key_condition(cols, nc, kr.keys[i]), models[j], target, threshold, pool, j);
    appendStringInfo(&parts, "%s{\"key\": %s, \"metrics\": %s}", j ? ", " : "", key_json(kr.keys[i], nc), json);
    j++;
    rows += kr.targets[i];
  }
  const char* global = nullptr;
  if (global_index >= 0) {
    global = evaluate_where(rel, unseen.data, pm.global.get(), target, threshold, pool, global_index);
    rows += unseen_rows;
    unseen_rows = 0;
  }
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
