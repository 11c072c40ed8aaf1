// Relation-level scoring of a partitioned model (partition_table.h): SQL
// through SPI with the caller's rights, gbdt_predict, gbdt_predict_proba or
// gbdt_explain per row (fetched through a cursor, so memory stays bounded).
// gbdt_evaluate's is in partition_evaluate.cpp.
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

void spi_connect_or_fail() {
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: SPI_connect failed")));
}

}  // namespace

const char** partition_key_columns(const gbdt::PartitionedModel& pm, const RelInfo* rel) {
  const char** cols = (const char**)palloc(sizeof(char*) * pm.column_names.size());
  for (size_t k = 0; k < pm.column_names.size(); k++) {
    const char* name = model_to_server_string(pm.column_names[k].c_str());
    const char* type = model_to_server_string(pm.column_types[k].c_str());
    Form_pg_attribute a = find_column(rel, name);
    if (a == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("relation \"%s\" has no column \"%s\", a partition_by key of the model",
                             rel->name, name)));
    if (strcmp(format_type_be(a->atttypid), type) != 0)  // as partition_route's check of a row
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("partition_by key column \"%s\" is of type %s, the model was trained "
                             "on type %s",
                             name, format_type_be(a->atttypid), type),
                      errhint("Cast the column to %s: keys are matched by their text form.", type)));
    cols[k] = quote_identifier(name);
  }
  return cols;
}

namespace {

// Streams the rows of an open cursor (its columns those of the function's
// result, at most 5) into the result of set-returning function fcinfo
// (InitMaterializedSRF done; caller: the memory context before
// SPI_connect), 10,000 rows a fetch so that memory stays bounded; closes
// the cursor and SPI.
void cursor_to_result(FunctionCallInfo fcinfo, Portal portal, MemoryContext caller) {
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  const int ncols = rsinfo->setDesc->natts;  // gbdt_explain_table: 4 in the 0.2 declaration (no value_text)
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
}

// The relation of argument 1 with its key column (argument 2) and the
// model's key columns checked to exist; *key gets the key column's name.
RelInfo* scored_relation(FunctionCallInfo fcinfo, const gbdt::Model* m, const char** key) {
  RelInfo* rel = open_rel_info(PG_GETARG_OID(1));
  *key = text_to_cstring(PG_GETARG_TEXT_PP(2));
  if (find_column(rel, *key) == nullptr) report_missing_column(rel, *key);
  partition_key_columns(*m->partitions, rel);  // each must exist
  return rel;
}

}  // namespace

Datum partition_predict_table(FunctionCallInfo fcinfo, const gbdt::Model* m, const char* output) {
  if (output != nullptr && strcmp(output, "value") != 0 && strcmp(output, "class") != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_predict_table: output \"%s\" is not one of value, class", output)));
  const char* key;
  RelInfo* rel = scored_relation(fcinfo, m, &key);
  const char* score = output == nullptr              ? "%s.gbdt_predict($1, r)"
                      : strcmp(output, "value") == 0 ? "%s.gbdt_predict($1, r)::pg_catalog.text"
                                                     : "%s.gbdt_predict_class($1, r)";
  char* sql = psprintf("SELECT (r.%s)::pg_catalog.text, %s FROM %s r", quote_identifier(key),
                       psprintf(score, extension_schema(fcinfo)), rel->qualname);
  Oid argtypes[1] = {get_fn_expr_argtype(fcinfo->flinfo, 0)};
  Datum args[1] = {PG_GETARG_DATUM(0)};
  InitMaterializedSRF(fcinfo, 0);
  MemoryContext caller = CurrentMemoryContext;
  spi_connect_or_fail();
  cursor_to_result(fcinfo, SPI_cursor_open_with_args(nullptr, sql, 1, argtypes, args, nullptr, true, 0), caller);
  return (Datum)0;
}

Datum partition_predict_proba_table(FunctionCallInfo fcinfo, const gbdt::Model* m) {
  const char* key;
  RelInfo* rel = scored_relation(fcinfo, m, &key);
  // Per row, gbdt_predict_proba's rows (class order): class name and probability.
  char* sql = psprintf(
      "SELECT (r.%s)::pg_catalog.text, p.class_name, p.probability "
      "FROM %s r, %s.gbdt_predict_proba($1, r) p",
      quote_identifier(key), rel->qualname, extension_schema(fcinfo));
  Oid argtypes[1] = {get_fn_expr_argtype(fcinfo->flinfo, 0)};
  Datum args[1] = {PG_GETARG_DATUM(0)};
  InitMaterializedSRF(fcinfo, 0);
  MemoryContext caller = CurrentMemoryContext;
  spi_connect_or_fail();
  cursor_to_result(fcinfo, SPI_cursor_open_with_args(nullptr, sql, 1, argtypes, args, nullptr, true, 0), caller);
  return (Datum)0;
}

Datum partition_explain_table(FunctionCallInfo fcinfo, const gbdt::Model* m, int top_k) {
  const char* key;
  RelInfo* rel = scored_relation(fcinfo, m, &key);
  char* sql = psprintf("SELECT (r.%s)::pg_catalog.text, e.feature, e.contribution, e.class, e.value_text "
                       "FROM %s r, %s.gbdt_explain($1, r, $2) e",
                       quote_identifier(key), rel->qualname, extension_schema(fcinfo));
  Oid argtypes[2] = {get_fn_expr_argtype(fcinfo->flinfo, 0), INT4OID};
  Datum args[2] = {PG_GETARG_DATUM(0), Int32GetDatum(top_k)};
  const char argnulls[3] = {' ', top_k < 0 ? 'n' : ' ', '\0'};
  InitMaterializedSRF(fcinfo, 0);
  MemoryContext caller = CurrentMemoryContext;
  spi_connect_or_fail();
  cursor_to_result(fcinfo, SPI_cursor_open_with_args(nullptr, sql, 2, argtypes, args, argnulls, true, 0), caller);
  return (Datum)0;
}

}  // namespace gbdt_pg
