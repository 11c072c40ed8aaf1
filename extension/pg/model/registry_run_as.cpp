// gbdt_registry_retrain_as(owner regrole, name text, spec jsonb) -> int
//
// Runs <extension schema>.gbdt_retrain_spec(name, spec) as the role `owner`
// inside a security-restricted operation, the way PostgreSQL itself runs
// another role's code (REFRESH MATERIALIZED VIEW, VACUUM/ANALYZE index
// expressions): the user id is switched to the owner, so every privilege
// check of the training (the relation, RLS, schema USAGE) is the owner's, and
// the owner's code reached through the relation (a view calling its
// functions) can neither SET ROLE / RESET ROLE / SET SESSION AUTHORIZATION
// back to the caller (SET LOCAL ROLE alone would let it: the session user of a
// superuser's cron job is a superuser), nor leave temporary objects, WITH HOLD
// cursors or listeners behind in the caller's session.  GUC changes made
// inside are rolled back.  On an error the transaction (or the caller's
// subtransaction) abort restores the user id and security context.
//
// The caller must be a member of `owner` (superusers are members of every
// role): running as the owner then gives nothing the caller could not do
// with SET ROLE, only less.  No C++ object lives in this function, so an
// ereport may leave it at any point.
//
// A spec holding a query trains from a temporary view of it, which no
// security-restricted operation may make: the view is made first, as the
// owner (train/query_source.h), and dropped after the retrain.
#include "pg_includes.h"

#include "module.h"
#include "train/query_source.h"

extern "C" {
#include "utils/jsonb.h"
#include "utils/syscache.h"
PG_FUNCTION_INFO_V1(gbdt_registry_retrain_as);
}

namespace {

// The spec's "query" string, or null.
const char* spec_query(Jsonb* spec) {
  if (!JB_ROOT_IS_OBJECT(spec)) return nullptr;
  JsonbValue buf;
  JsonbValue* v = getKeyJsonValueFromContainer(&spec->root, "query", 5, &buf);
  if (v == nullptr || v->type != jbvString) return nullptr;
  return pnstrdup(v->val.string.val, v->val.string.len);
}

// Runs <schema>.gbdt_retrain_spec(name, spec) (schema quoted) as owner
// inside a security-restricted operation; the version saved, or -1 for NULL.
int32 run_restricted(Oid owner, const char* schema, Datum name, Datum spec) {
  StringInfoData sql;
  initStringInfo(&sql);
  appendStringInfo(&sql, "SELECT %s.gbdt_retrain_spec($1, $2)", schema);
  Oid save_userid;
  int save_sec_context;
  GetUserIdAndSecContext(&save_userid, &save_sec_context);
  SetUserIdAndSecContext(owner, save_sec_context | SECURITY_RESTRICTED_OPERATION);
  int save_nestlevel = NewGUCNestLevel();

  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_registry_retrain_as: SPI_connect failed")));
  Oid argtypes[2] = {TEXTOID, JSONBOID};
  Datum args[2] = {name, spec};
  int rc = SPI_execute_with_args(sql.data, 2, argtypes, args, nullptr, false, 1);
  if (rc != SPI_OK_SELECT || SPI_processed != 1)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_registry_retrain_as: retrain failed: %s",
                           SPI_result_code_string(rc))));
  bool isnull = false;
  Datum v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
  int32 version = isnull ? -1 : DatumGetInt32(v);
  SPI_finish();

  AtEOXact_GUC(false, save_nestlevel);
  SetUserIdAndSecContext(save_userid, save_sec_context);
  return version;
}

}  // namespace

extern "C" Datum gbdt_registry_retrain_as(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("gbdt_registry_retrain_as: owner, name and spec must not be NULL")));
  Oid owner = PG_GETARG_OID(0);
  Datum name = PG_GETARG_DATUM(1);
  Datum spec = PG_GETARG_DATUM(2);

  if (!SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(owner)))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                    errmsg("the owner of model \"%s\" (role OID %u) does not exist",
                           TextDatumGetCString(name), owner),
                    errhint("A superuser can give the name a new owner: "
                            "UPDATE gbdt_model_names SET owner = ... WHERE name = ...")));
  if (!is_member_of_role(GetUserId(), owner))
    ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
                    errmsg("permission denied for model \"%s\"", TextDatumGetCString(name)),
                    errdetail("Model \"%s\" is owned by role %s; only members of that role may "
                              "retrain it.",
                              TextDatumGetCString(name), GetUserNameFromId(owner, false))));

  const char* schema = gbdt_pg::extension_schema(fcinfo);
  const char* spec_text = spec_query(DatumGetJsonbP(spec));
  if (spec_text != nullptr) gbdt_pg::prepare_query_view(spec_text, owner);
  volatile int32 version = -1;
  PG_TRY();
  {
    version = run_restricted(owner, schema, name, spec);
  }
  PG_CATCH();
  {
    gbdt_pg::forget_query_view();
    PG_RE_THROW();
  }
  PG_END_TRY();
  if (spec_text != nullptr) gbdt_pg::release_query_view();
  if (version < 0) PG_RETURN_NULL();
  PG_RETURN_INT32(version);
}
