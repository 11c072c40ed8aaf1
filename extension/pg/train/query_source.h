// The rows of a SELECT query as a relation gbdt_train can read, and the form
// of a query a registry spec stores.
//
// gbdt_train reads a relation; a query's rows become a temporary view of it
// (the calling role's, so the query runs with that role's rights, in its
// order) for the length of one training.  A retrain runs inside a
// security-restricted operation, where no temporary object may be made, so
// gbdt_registry_retrain_as makes the view first, as the model's owner, and
// the training finds it here (prepare_query_view).
#pragma once

#include "pg_includes.h"

namespace gbdt_pg {

// The query is exactly one SELECT statement (no SELECT INTO, no other
// statement); else an error quoting it.
void check_select_query(const char* query);

// The query as a spec stores it: checked (one SELECT, no data-modifying WITH,
// no parameter, no temporary relation or function: a retrain in another
// session would not find one) and written back by PostgreSQL's deparser with
// every name qualified that search_path = pg_catalog, pg_temp would not find,
// so a retrain resolves each name as the saver's session did.
char* canonical_query(const char* query);

// The view holding the query's rows: the one prepare_query_view made for
// this exact text, else a new temporary view (*made = true: the caller drops
// it with drop_query_view after the training).
Oid query_view(const char* query, bool* made);
void drop_query_view(Oid view);

// Makes the view of query as role owner, before a security-restricted
// retrain; release_query_view drops it and forgets it; after an error,
// forget_query_view only forgets it (the transaction's abort drops it).
void prepare_query_view(const char* query, Oid owner);
void release_query_view();
void forget_query_view();

}  // namespace gbdt_pg
