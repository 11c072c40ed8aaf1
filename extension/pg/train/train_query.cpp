// gbdt_train_query(query text, target text, features text[] DEFAULT NULL,
//                  objective text DEFAULT NULL, params jsonb DEFAULT '{}',
//                  init_model gbdt_model DEFAULT NULL) -> gbdt_model
//
// Trains on the rows of a SELECT: the query becomes a temporary view of the
// calling role (so it runs with the caller's rights, in the query's order,
// as any view gbdt_train reads) for the length of one gbdt_train call, and
// is dropped after it; on an error the transaction's rollback removes it.
// (A retrain of a stored query finds the view its owner's retrain made.)
// The query must be a single SELECT (no SELECT INTO, no other statement);
// the view's own rules refuse what a view cannot hold (data-modifying WITH,
// parameters).  The caller needs the TEMP privilege on the database.
#include "pg_includes.h"

#include "train/query_source.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_train_query);
Datum gbdt_train(PG_FUNCTION_ARGS);
}

namespace {

// Errors of the training name the view; the context line says it holds the query.
void query_view_context(void* arg) {
  errcontext("gbdt_train_query: relation \"%s\" is the query's rows", (const char*)arg);
}

}  // namespace

extern "C" Datum gbdt_train_query(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("query must not be NULL")));
  const char* query = text_to_cstring(PG_GETARG_TEXT_PP(0));
  gbdt_pg::check_select_query(query);
  bool made = false;
  const Oid view = gbdt_pg::query_view(query, &made);

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
  ctx.arg = (void*)get_rel_name(view);
  ctx.previous = error_context_stack;
  error_context_stack = &ctx;
  Datum model = gbdt_train(call);
  error_context_stack = ctx.previous;
  if (call->isnull)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_train_query: no model")));
  if (made) gbdt_pg::drop_query_view(view);
  PG_RETURN_DATUM(model);
}
