// The rows of a SELECT query as a relation gbdt_train can read, and the
// stored form of a query (query_source.h).
#include "train/query_source.h"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "parser/analyze.h"
#include "parser/parser.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"
}

namespace gbdt_pg {

namespace {

uint32 query_views = 0;  // numbers this backend's query views

// The view prepare_query_view made (InvalidOid: none), its query's text and
// the role that owns it.
Oid prepared_view = InvalidOid;
char* prepared_query = nullptr;
Oid prepared_owner = InvalidOid;

// Finds a temporary relation or function a query reads; the walk covers
// subqueries, WITH queries and sublinks (query_tree_walker).
bool find_temp_object(Node* node, void* context) {
  if (node == nullptr) return false;
  const char** found = (const char**)context;
  if (IsA(node, RangeTblEntry)) {
    const RangeTblEntry* rte = (const RangeTblEntry*)node;
    if (rte->rtekind == RTE_RELATION && get_rel_persistence(rte->relid) == RELPERSISTENCE_TEMP) {
      *found = psprintf("relation %s", get_rel_name(rte->relid));
      return true;
    }
    return false;
  }
  if (IsA(node, FuncExpr)) {
    Oid fn = ((const FuncExpr*)node)->funcid;
    if (isTempNamespace(get_func_namespace(fn))) {
      *found = psprintf("function pg_temp.%s", get_func_name(fn));
      return true;
    }
  }
  if (IsA(node, Query))
    return gbdt_query_walker((Query*)node, find_temp_object, context, QTW_EXAMINE_RTES_BEFORE);
  return gbdt_expression_walker(node, find_temp_object, context);
}

Oid make_view(const char* query) {
  const char* name = psprintf("gbdt_query_%d_%u", MyProcPid, ++query_views);
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: SPI_connect failed")));
  char* create_sql = psprintf("CREATE TEMP VIEW pg_temp.%s AS %s", quote_identifier(name), query);
  if (SPI_execute(create_sql, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: could not make a view of the query")));
  SPI_finish();
  CommandCounterIncrement();
  return RangeVarGetRelid(makeRangeVar(pstrdup("pg_temp"), pstrdup(name), -1), NoLock, false);
}

}  // namespace

void check_select_query(const char* query) {
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

char* canonical_query(const char* query) {
  check_select_query(query);
  RawStmt* raw = (RawStmt*)linitial(raw_parser(query, RAW_PARSE_DEFAULT));
  Query* q = parse_analyze_fixedparams(raw, query, nullptr, 0, nullptr);
  if (q->hasModifyingCTE)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("query must not modify data: \"%s\"", query),
                    errdetail("Its WITH clause holds an INSERT, UPDATE, DELETE or MERGE.")));
  const char* temp = nullptr;
  if (find_temp_object((Node*)q, &temp))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("the query of a training spec reads the temporary %s", temp),
                    errdetail("A temporary object exists only in the session that made it; a "
                              "retrain of the spec would not find it."),
                    errhint("Train from permanent tables, views and functions.")));
  // Written back as a retrain will read it: under the search path every
  // gbdt function runs with, so each other name comes out schema-qualified.
  int nest = NewGUCNestLevel();
  (void)set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
                          GUC_ACTION_SAVE, true, 0, false);
  char* text = pg_get_querydef(q, false);
  AtEOXact_GUC(true, nest);
  return text;
}

Oid query_view(const char* query, bool* made) {
  if (OidIsValid(prepared_view) && strcmp(prepared_query, query) == 0) {
    *made = false;
    return prepared_view;
  }
  *made = true;
  return make_view(query);
}

void drop_query_view(Oid view) {
  const char* name = get_rel_name(view);
  if (name == nullptr) return;  // already gone
  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: SPI_connect failed")));
  char* drop_sql = psprintf("DROP VIEW pg_temp.%s", quote_identifier(name));
  if (SPI_execute(drop_sql, false, 0) != SPI_OK_UTILITY)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt: could not drop the query's view")));
  SPI_finish();
}

void prepare_query_view(const char* query, Oid owner) {
  forget_query_view();
  // As the owner (so the view reads with the owner's rights), but not yet
  // restricted: a security-restricted operation may make no temporary view.
  Oid save_user;
  int save_context;
  GetUserIdAndSecContext(&save_user, &save_context);
  SetUserIdAndSecContext(owner, save_context | SECURITY_LOCAL_USERID_CHANGE);
  Oid view = make_view(query);
  SetUserIdAndSecContext(save_user, save_context);
  prepared_query = MemoryContextStrdup(TopMemoryContext, query);
  prepared_view = view;
  prepared_owner = owner;
}

void release_query_view() {
  if (OidIsValid(prepared_view)) {
    Oid save_user;
    int save_context;
    GetUserIdAndSecContext(&save_user, &save_context);
    SetUserIdAndSecContext(prepared_owner, save_context | SECURITY_LOCAL_USERID_CHANGE);
    drop_query_view(prepared_view);
    SetUserIdAndSecContext(save_user, save_context);
  }
  forget_query_view();
}

void forget_query_view() {
  if (prepared_query != nullptr) pfree(prepared_query);
  prepared_query = nullptr;
  prepared_view = InvalidOid;
  prepared_owner = InvalidOid;
}

}  // namespace gbdt_pg
