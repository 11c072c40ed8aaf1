// Relation-level scoring of a partitioned model (partition_table.h).
// Both run SQL through SPI with the caller's rights: gbdt_predict per row
// for gbdt_predict_table (fetched through a cursor, so memory stays
// bounded), and, for gbdt_evaluate, one aggregate over the relation (the
// keys present and their rows with a target) and then gbdt_evaluate of
// each key's sub-model on a temporary view of that key's rows (one scan
// of the relation per key present).
#include "score/partition_table.h"
#include "score/partition_route.h"

#include <string>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "module.h"
#include "model/model_type.h"
#include "read/rel_info.h"

extern "C" {
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
}

namespace gbdt_pg {
namespace {

uint32 partition_views = 0;

void spi_connect_or_fail() {
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: SPI_connect failed")));
}

// The key columns of m in rel (database encoding, quoted), each checked to exist.
const char** key_columns(const gbdt::PartitionedModel& pm, const RelInfo* rel) {
  const char** cols = (const char**)palloc(sizeof(char*) * pm.column_names.size());
  for (size_t k = 0; k < pm.column_names.size(); k++) {
    const char* name = model_to_server_string(pm.column_names[k].c_str());
    if (find_column(rel, name) == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("relation \"%s\" has no column \"%s\", a partition_by key of the model",
                             rel->name, name)));
    cols[k] = quote_identifier(name);
  }
  return cols;
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
      appendStringInfo(&s, "pg_catalog.format('%%s', r.%s) OPERATOR(pg_catalog.=) %s", cols[k], quote_literal_cstr(text[k]));
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

// gbdt_evaluate of model bytes on the rows of rel matching `where`, as jsonb text.
char* evaluate_view(FunctionCallInfo fcinfo, const RelInfo* rel, const char* where,
                    const std::vector<uint8_t>& bytes, const char* target) {
  struct varlena* v = nullptr;
  run_engine([&] { v = bytes_to_varlena_nothrow(bytes); });
  const char* view = psprintf("gbdt_partition_eval_%d_%u", MyProcPid, ++partition_views);
  spi_connect_or_fail();
  char* sql = psprintf("CREATE TEMP VIEW pg_temp.%s AS SELECT * FROM %s r WHERE %s", quote_identifier(view),
                       rel->qualname, where);
  if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: could not make a view of a key's rows")));
  Oid argtypes[2] = {get_fn_expr_argtype(fcinfo->flinfo, 0), TEXTOID};
  Datum args[2] = {PointerGetDatum(v), CStringGetTextDatum(target)};
  sql = psprintf("SELECT %s.gbdt_evaluate($1, 'pg_temp.%s'::pg_catalog.regclass, $2)::pg_catalog.text",
                 extension_schema(fcinfo), quote_identifier(view));
  if (SPI_execute_with_args(sql, 2, argtypes, args, nullptr, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: a key's evaluation failed")));
  char* json = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
  char* out = (char*)SPI_palloc(strlen(json) + 1);
  strcpy(out, json);
  char* drop = psprintf("DROP VIEW pg_temp.%s", quote_identifier(view));
  SPI_execute(drop, false, 0);
  SPI_finish();
  return out;
}

}  // namespace

Datum partition_predict_table(FunctionCallInfo fcinfo, const gbdt::Model* m, const char* output) {
  RelInfo* rel = open_rel_info(PG_GETARG_OID(1));
  const char* key = text_to_cstring(PG_GETARG_TEXT_PP(2));
  if (output != nullptr && strcmp(output, "value") != 0 && strcmp(output, "class") != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_predict_table: output \"%s\" is not one of value, class", output)));
  if (find_column(rel, key) == nullptr) report_missing_column(rel, key);
  key_columns(*m->partitions, rel);  // each must exist
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  MemoryContext caller = CurrentMemoryContext;
  const char* score = output == nullptr ? "%s.gbdt_predict($1, r)"
                      : strcmp(output, "value") == 0 ? "%s.gbdt_predict($1, r)::pg_catalog.text"
                                                      : "%s.gbdt_predict_class($1, r)";
  spi_connect_or_fail();
  char* sql = psprintf("SELECT (r.%s)::pg_catalog.text, %s FROM %s r", quote_identifier(key),
                       psprintf(score, extension_schema(fcinfo)), rel->qualname);
  Oid argtypes[1] = {get_fn_expr_argtype(fcinfo->flinfo, 0)};
  Datum args[1] = {PG_GETARG_DATUM(0)};
  Portal portal = SPI_cursor_open_with_args(nullptr, sql, 1, argtypes, args, nullptr, true, 0);
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    SPI_cursor_fetch(portal, true, 10000);
    if (SPI_processed == 0) break;
    for (uint64 i = 0; i < SPI_processed; i++) {
      Datum values[2];
      bool nulls[2];
      values[0] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &nulls[0]);
      values[1] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &nulls[1]);
      MemoryContext old = MemoryContextSwitchTo(caller);
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
      MemoryContextSwitchTo(old);
    }
    SPI_freetuptable(SPI_tuptable);
  }
  SPI_cursor_close(portal);
  SPI_finish();
  return (Datum)0;
}

Datum partition_explain_table(FunctionCallInfo fcinfo, const gbdt::Model* m, int top_k) {
  RelInfo* rel = open_rel_info(PG_GETARG_OID(1));
  const char* key = text_to_cstring(PG_GETARG_TEXT_PP(2));
  if (find_column(rel, key) == nullptr) report_missing_column(rel, key);
  key_columns(*m->partitions, rel);  // each must exist
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  const int ncols = rsinfo->setDesc->natts;  // 4 in the 0.2 declaration (no value_text)
  MemoryContext caller = CurrentMemoryContext;
  spi_connect_or_fail();
  char* sql = psprintf("SELECT (r.%s)::pg_catalog.text, e.feature, e.contribution, e.class, e.value_text "
                       "FROM %s r, %s.gbdt_explain($1, r, $2) e",
                       quote_identifier(key), rel->qualname, extension_schema(fcinfo));
  Oid argtypes[2] = {get_fn_expr_argtype(fcinfo->flinfo, 0), INT4OID};
  Datum args[2] = {PG_GETARG_DATUM(0), Int32GetDatum(top_k)};
  const char argnulls[3] = {' ', top_k < 0 ? 'n' : ' ', '\0'};
  Portal portal = SPI_cursor_open_with_args(nullptr, sql, 2, argtypes, args, argnulls, true, 0);
  for (;;) {
    CHECK_FOR_INTERRUPTS();
    SPI_cursor_fetch(portal, true, 10000);
    if (SPI_processed == 0) break;
    for (uint64 i = 0; i < SPI_processed; i++) {
      Datum values[5];
      bool nulls[5];
      for (int c = 0; c < ncols && c < 5; c++)
        values[c] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, c + 1, &nulls[c]);
      MemoryContext old = MemoryContextSwitchTo(caller);
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
      MemoryContextSwitchTo(old);
    }
    SPI_freetuptable(SPI_tuptable);
  }
  SPI_cursor_close(portal);
  SPI_finish();
  return (Datum)0;
}

Datum partition_evaluate(FunctionCallInfo fcinfo, const gbdt::Model* m) {
  const gbdt::PartitionedModel& pm = *m->partitions;
  RelInfo* rel = open_rel_info(PG_GETARG_OID(1));
  const char* target = text_to_cstring(PG_GETARG_TEXT_PP(2));
  if (PG_NARGS() > 3)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("gbdt_evaluate: a partitioned model takes no threshold")));
  if (find_column(rel, target) == nullptr) report_missing_column(rel, target);
  const int nc = (int)pm.column_names.size();
  const char** cols = key_columns(pm, rel);
  // The keys present and their rows with a target.
  StringInfoData sel;
  initStringInfo(&sel);
  for (int k = 0; k < nc; k++)  // the key's text as the training's (train_partition.cpp)
    appendStringInfo(&sel, "%sCASE WHEN r.%s IS NULL THEN NULL ELSE pg_catalog.format('%%s', r.%s) END",
                     k ? ", " : "", cols[k], cols[k]);
  spi_connect_or_fail();
  char* sql = psprintf("SELECT %s, pg_catalog.count(r.%s) FROM %s r GROUP BY %s ORDER BY %s", sel.data,
                       quote_identifier(target), rel->qualname, sel.data, sel.data);
  if (SPI_execute(sql, true, 0) != SPI_OK_SELECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_evaluate: could not read the keys")));
  const uint64 nkeys = SPI_processed;
  char*** keys = (char***)SPI_palloc(sizeof(char**) * (nkeys + 1));
  int64* counts = (int64*)SPI_palloc(sizeof(int64) * (nkeys + 1));
  for (uint64 i = 0; i < nkeys; i++) {
    keys[i] = (char**)SPI_palloc(sizeof(char*) * nc);
    for (int k = 0; k < nc; k++) {
      char* v = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, k + 1);
      keys[i][k] = v != nullptr ? (char*)SPI_palloc(strlen(v) + 1) : nullptr;
      if (v != nullptr) strcpy(keys[i][k], v);
    }
    bool isnull;
    counts[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, nc + 1, &isnull));
  }
  SPI_finish();
  StringInfoData out, unseen;
  initStringInfo(&out);
  initStringInfo(&unseen);
  appendStringInfoString(&out, "{\"partitioned\": true, \"partitions\": [");
  int64 rows = 0, unscored = 0;
  int listed = 0;
  for (uint64 i = 0; i < nkeys; i++) {
    CHECK_FOR_INTERRUPTS();
    if (counts[i] == 0) continue;  // no row with a target
    const char** utf8 = (const char**)palloc(sizeof(char*) * nc);
    for (int k = 0; k < nc; k++) utf8[k] = keys[i][k] != nullptr ? server_to_model_string(keys[i][k]) : nullptr;
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
    const char* where = key_condition(cols, nc, keys[i]);
    if (g < 0) {
      if (pm.fallback == gbdt::PartitionFallback::kError)
        ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                        errmsg("the partitioned model has no sub-model for key %s", key_message(pm, keys[i])),
                        errhint("Train with \"partition_fallback\": \"global\" or \"null\".")));
      unscored += counts[i];
      appendStringInfo(&unseen, "%s(%s)", unseen.len ? " OR " : "", where);
      continue;
    }
    char* json = evaluate_view(fcinfo, rel, where, pm.groups[g].bytes, target);
    appendStringInfo(&out, "%s{\"key\": %s, \"metrics\": %s}", listed++ ? ", " : "", key_json(keys[i], nc), json);
    rows += counts[i];
  }
  appendStringInfoString(&out, "]");
  if (pm.fallback == gbdt::PartitionFallback::kGlobal && unseen.len > 0) {
    char* json = evaluate_view(fcinfo, rel, unseen.data, pm.global_bytes, target);
    appendStringInfo(&out, ", \"global\": %s", json);
    rows += unscored;
    unscored = 0;
  }
  appendStringInfo(&out, ", \"rows\": " INT64_FORMAT ", \"rows_unscored\": " INT64_FORMAT "}", rows, unscored);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

}  // namespace gbdt_pg
