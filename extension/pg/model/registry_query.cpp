// Training specs that hold a query instead of a relation (docs/registry.md).
//
// gbdt_train_query_and_save(name, query, target, features, objective, params,
//                           deploy) -> int
//   trains on the query's rows and saves the model with the spec
//   {"query": ..., "target": ...}; gbdt_retrain re-runs the query with the
//   owner's rights, as it re-reads a relation.  The query is stored in its
//   canonical form (query_source.h): resolved here with the caller's
//   search_path, written back with each name schema-qualified, so the
//   retrain (which runs with search_path = pg_catalog, pg_temp) reads the
//   same tables.  A C function because a SQL function would resolve the
//   query's names under its own pinned search path.
//
// gbdt_registry_check_query(query text) -> text
//   the spec check of a query (gbdt_registry_check_spec): one SELECT, nothing
//   temporary, and readable by the current role (it is planned and started
//   with LIMIT 0, so every privilege check of the query runs and no row is
//   read); returns the canonical form.
#include "pg_includes.h"

#include "module.h"
#include "train/query_source.h"

extern "C" {
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"
PG_FUNCTION_INFO_V1(gbdt_train_query_and_save);
PG_FUNCTION_INFO_V1(gbdt_registry_check_query);
}

using gbdt_pg::extension_schema;

namespace {

// Errors of the check (an unknown table, a missing privilege) say how a
// spec's query is resolved.
void spec_query_context(void*) {
  errcontext("the query of a training spec, resolved with search_path = pg_catalog, pg_temp "
             "(name its tables with their schema)");
}

}  // namespace

extern "C" Datum gbdt_registry_check_query(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("query must not be NULL")));
  ErrorContextCallback ctx;
  ctx.callback = spec_query_context;
  ctx.arg = nullptr;
  ctx.previous = error_context_stack;
  error_context_stack = &ctx;
  const char* canonical = gbdt_pg::canonical_query(text_to_cstring(PG_GETARG_TEXT_PP(0)));
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_registry_check_query: SPI_connect failed")));
  const char* probe = psprintf("SELECT 1 FROM (\n%s\n) AS gbdt_query LIMIT 0", canonical);
  if (SPI_execute(probe, true, 0) != SPI_OK_SELECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_registry_check_query: the query did not run")));
  SPI_finish();
  error_context_stack = ctx.previous;
  PG_RETURN_TEXT_P(cstring_to_text(canonical));
}

extern "C" Datum gbdt_train_query_and_save(PG_FUNCTION_ARGS) {
  for (int a = 0; a < 3; a++)
    if (PG_ARGISNULL(a))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("%s must not be NULL", a == 0 ? "model name" : a == 1 ? "query" : "target")));
  const char* canonical = gbdt_pg::canonical_query(text_to_cstring(PG_GETARG_TEXT_PP(1)));

  // gbdt_retrain_spec checks the spec, trains from its query and saves.
  const char* sql = psprintf(
      "SELECT %s.gbdt_retrain_spec($1, pg_catalog.jsonb_build_object('query', $2, 'target', $3, "
      "'features', pg_catalog.to_jsonb($4), 'objective', $5, 'params', COALESCE($6, '{}'), "
      "'deploy', COALESCE($7, 'always')))",
      extension_schema(fcinfo));
  Oid types[7] = {TEXTOID, TEXTOID, TEXTOID, TEXTARRAYOID, TEXTOID, JSONBOID, TEXTOID};
  Datum values[7];
  char nulls[7];
  values[1] = CStringGetTextDatum(canonical);
  nulls[1] = ' ';
  for (int a = 0; a < 7; a++) {
    if (a == 1) continue;
    bool given = PG_NARGS() > a && !PG_ARGISNULL(a);
    values[a] = given ? PG_GETARG_DATUM(a) : (Datum)0;
    nulls[a] = given ? ' ' : 'n';
  }
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_train_query_and_save: SPI_connect failed")));
  int rc = SPI_execute_with_args(sql, 7, types, values, nulls, false, 1);
  if (rc != SPI_OK_SELECT || SPI_processed != 1)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_train_query_and_save: %s", SPI_result_code_string(rc))));
  bool isnull = false;
  Datum v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
  int32 version = isnull ? 0 : DatumGetInt32(v);
  SPI_finish();
  if (isnull) PG_RETURN_NULL();
  PG_RETURN_INT32(version);
}
