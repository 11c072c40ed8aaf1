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
#include "pg_includes.h"

extern "C" {
#include "utils/syscache.h"
PG_FUNCTION_INFO_V1(gbdt_registry_retrain_as);
}

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

  // gbdt_retrain_spec lives in this function's schema (the extension's).
  char* nspname = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
  if (nspname == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_SCHEMA),
                    errmsg("gbdt_registry_retrain_as: schema not found")));
  StringInfoData q;
  initStringInfo(&q);
  appendStringInfo(&q, "SELECT %s.gbdt_retrain_spec($1, $2)", quote_identifier(nspname));

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
  int rc = SPI_execute_with_args(q.data, 2, argtypes, args, nullptr, false, 1);
  if (rc != SPI_OK_SELECT || SPI_processed != 1)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_registry_retrain_as: retrain failed: %s",
                           SPI_result_code_string(rc))));
  bool isnull = false;
  Datum v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
  int32 version = isnull ? 0 : DatumGetInt32(v);
  SPI_finish();

  AtEOXact_GUC(false, save_nestlevel);
  SetUserIdAndSecContext(save_userid, save_sec_context);
  if (isnull) PG_RETURN_NULL();
  PG_RETURN_INT32(version);
}
