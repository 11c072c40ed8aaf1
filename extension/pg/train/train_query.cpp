// gbdt_train_query(query text, target text, features text[] DEFAULT NULL,
//                  objective text DEFAULT NULL, params jsonb DEFAULT '{}',
//                  init_model gbdt_model DEFAULT NULL) -> gbdt_model
//
// Trains on the rows of a SELECT: the query becomes a temporary view of the
// calling role (so it runs with the caller's rights, in the query's order,
// as any view gbdt_train reads) for the length of one gbdt_train call, and
// is dropped after it; on an error the transaction's rollback removes it.
// The query must be a single SELECT (no SELECT INTO, no other statement);
// the view's own rules refuse what a view cannot hold (data-modifying WITH,
// parameters).  The caller needs the TEMP privilege on the database.
#include "pg_includes.h"

extern "C" {
#include "catalog/namespace.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_train_query);
Datum gbdt_train(PG_FUNCTION_ARGS);
}

namespace {

uint32 query_views = 0;  // numbers this backend's query views

// The query is exactly one SELECT statement; else an error quoting it.
void check_select(const char* query) {
  List* stmts = raw_parser(query, RAW_PARSE_DEFAULT);
  bool ok = list_length(stmts) == 1;
  if (ok) {
    Node* s = ((RawStmt*)linitial(stmts))->stmt;
    ok = IsA(s, SelectStmt) && ((SelectStmt*)s)->intoClause == nullptr;
  }
  if (!ok)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("query must be a single SELECT statement: \"%s\"", query),
                    errhint("Pass the rows to train on as SELECT ... FROM ...; for another "
                            "statement, store its rows in a table first.")));
}

// Errors of the training name the view; the context line says it holds the query.
void query_view_context(void* arg) {
  errcontext("gbdt_train_query: relation \"%s\" is the query's rows", (const char*)arg);
}

}  // namespace

extern "C" Datum gbdt_train_query(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("query must not be NULL")));
  const char* query = text_to_cstring(PG_GETARG_TEXT_PP(0));
  check_select(query);
  const char* name = psprintf("gbdt_query_%d_%u", MyProcPid, ++query_views);
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_train_query: SPI_connect failed")));
  char* create_sql = psprintf("CREATE TEMP VIEW pg_temp.%s AS %s", quote_identifier(name), query);
  if (SPI_execute(create_sql, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_train_query: could not make a view of the query")));
  SPI_finish();
  CommandCounterIncrement();
  const Oid view = RangeVarGetRelid(makeRangeVar(pstrdup("pg_temp"), pstrdup(name), -1), NoLock, false);

  LOCAL_FCINFO(call, 6);
  InitFunctionCallInfoData(*call, nullptr, 6, PG_GET_COLLATION(), nullptr, nullptr);
  call->args[0].value = ObjectIdGetDatum(view);
  call->args[0].isnull = false;
  for (int a = 1; a < 6; a++) {
    call->args[a].value = PG_NARGS() > a ? PG_GETARG_DATUM(a) : (Datum)0;
    call->args[a].isnull = PG_NARGS() <= a || PG_ARGISNULL(a);
  }
  ErrorContextCallback ctx;
  ctx.callback = query_view_context;
  ctx.arg = (void*)name;
  ctx.previous = error_context_stack;
  error_context_stack = &ctx;
  Datum model = gbdt_train(call);
  error_context_stack = ctx.previous;
  if (call->isnull)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_train_query: no model")));

  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_train_query: SPI_connect failed")));
  char* drop_sql = psprintf("DROP VIEW pg_temp.%s", quote_identifier(name));
  if (SPI_execute(drop_sql, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_train_query: could not drop the query's view")));
  SPI_finish();
  PG_RETURN_DATUM(model);
}
