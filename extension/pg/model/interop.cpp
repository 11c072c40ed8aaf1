// Interop with other model formats, and the registry lookup gbdt_model(name).
//
//   gbdt_export(model gbdt_model, format text DEFAULT 'xgboost-json') -> jsonb
//   gbdt_import(model jsonb, format text DEFAULT 'xgboost-json') -> gbdt_model
//   gbdt_model(name text) -> gbdt_model   (the deployed version in gbdt_models)
#include <cstring>
#include <string>
#include <vector>

#include "guard.h"
#include "module.h"
#include "model/model_type.h"

#include "gbdt/model.h"
#include "gbdt/interop.h"

extern "C" {
#include "access/xact.h"
#include "mb/pg_wchar.h"
#include "utils/snapmgr.h"
#include "storage/proc.h"
Datum gbdt_model_in(PG_FUNCTION_ARGS);
PG_FUNCTION_INFO_V1(gbdt_export);
PG_FUNCTION_INFO_V1(gbdt_import);
PG_FUNCTION_INFO_V1(gbdt_model_by_name);
PG_FUNCTION_INFO_V1(gbdt_model_by_name_literal);
}

using namespace gbdt_pg;

namespace {

// Canonical name of a supported format; errors for anything else.
const char* check_format(FunctionCallInfo fcinfo, int argno) {
  if (PG_NARGS() <= argno || PG_ARGISNULL(argno)) return "xgboost-json";
  char* f = text_to_cstring(PG_GETARG_TEXT_PP(argno));
  if (pg_strcasecmp(f, "xgboost-json") == 0 || pg_strcasecmp(f, "xgboost") == 0 ||
      pg_strcasecmp(f, "xgboost_json") == 0)
    return "xgboost-json";
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("model format \"%s\" is not supported", f),
                  errhint("Supported formats: xgboost-json.")));
  return nullptr;
}

const char kUnsupportedPrefix[] = "XGBoost model not supported";

}  // namespace

// gbdt_export(model gbdt_model, format text DEFAULT 'xgboost-json') -> jsonb
Datum gbdt_export(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  check_format(fcinfo, 1);
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  char* json = nullptr;
  run_engine([&] {
    json = pstrdup_nothrow(m->partitions != nullptr ? gbdt::export_partitioned_json(*m->partitions)
                                                    : gbdt::export_xgboost_json(*m));
  });
  // The engine writes UTF-8 (model strings are validated UTF-8); jsonb_in
  // reads the database encoding.
  json = pg_any_to_server(json, (int)strlen(json), PG_UTF8);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

// gbdt_import(model jsonb, format text DEFAULT 'xgboost-json') -> gbdt_model
Datum gbdt_import(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  check_format(fcinfo, 1);
  Jsonb* jb = PG_GETARG_JSONB_P(0);
  char* text = JsonbToCString(nullptr, &jb->root, VARSIZE(jb));
  // The steps PostgreSQL runs here (the text, the encoding, the
  // compression below) do not check for interrupts themselves: a pending
  // cancel is honoured between them, and the engine polls while parsing.
  CHECK_FOR_INTERRUPTS();
  // The engine reads UTF-8 only (every model string must be valid UTF-8):
  // convert from the database encoding first (a no-op in a UTF-8 database).
  text = pg_server_to_any(text, (int)strlen(text), PG_UTF8);
  CHECK_FOR_INTERRUPTS();
  struct varlena* result = nullptr;
  EngineError err;
  catch_engine(&err, [&] {
    // The model's arrays count against gbdt.max_memory before they are
    // made, and a long import stops at a cancel.
    gbdt::MemoryBudget budget(max_memory_bytes(), "gbdt.max_memory", "gbdt_import");
    gbdt::XgbImportLimits lim;
    lim.budget = &budget;
    lim.cancel = cancel_callback();
    // An XGBoost model, or gbdt_export's object of a partitioned model.
    result = bytes_to_varlena_nothrow(gbdt::import_model_json(std::string(text), lim));
  });
  if (err.kind == EngineErrKind::kInvalidInput &&
      std::strncmp(err.message, kUnsupportedPrefix, sizeof(kUnsupportedPrefix) - 1) == 0)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED), errmsg("%s", err.message),
                    errhint("gbdt imports gbtree models with numeric splits and the objectives "
                            "reg:squarederror, binary:logistic, multi:softprob, multi:softmax "
                            "and count:poisson.")));
  if (err.kind != EngineErrKind::kNone)
    raise_engine_error(&err, ErrorStyle{ERRCODE_INVALID_PARAMETER_VALUE,
                                        ERRCODE_INVALID_PARAMETER_VALUE, nullptr});
  pfree(text);
  CHECK_FOR_INTERRUPTS();
  PG_RETURN_POINTER(compressed_model_value(result));
}

// ---------------------------------------------------------------------------
// gbdt_model(name text) -> gbdt_model
//
// The deployed version of a registered model.  The lookup runs once per
// statement and call site: the value is kept in fn_extra together with the
// identity of the snapshot it was read under (a new statement, a new command
// in the same transaction or any transaction completing since gives a new
// lookup).  Every call of the statement returns the same datum, so scoring
// functions that cache the decoded model per call site decode it only once.
// ---------------------------------------------------------------------------
namespace {

struct RegistryCache {
  char* name;                 // in fn_mcxt
  Datum value;                // in fn_mcxt (possibly a TOAST pointer)
  LocalTransactionId lxid;
  CommandId curcid;
  TransactionId xmin, xmax;
  uint32 xcnt;
  uint64 xip_hash;
  bool valid;
};

// FNV-1a over the in-progress transaction ids: with xmin, xmax and the
// command id it tells whether two snapshots see the same rows.
uint64 snapshot_hash(Snapshot s) {
  uint64 h = 1469598103934665603ULL;
  auto mix = [&h](uint32 v) {
    for (int i = 0; i < 4; i++) {
      h ^= (v >> (8 * i)) & 0xff;
      h *= 1099511628211ULL;
    }
  };
  for (uint32 i = 0; i < s->xcnt; i++) mix(s->xip[i]);
  mix((uint32)s->subxcnt);
  mix(s->suboverflowed ? 1 : 0);
  if (!s->suboverflowed && !s->takenDuringRecovery)
    for (int32 i = 0; i < s->subxcnt; i++) mix(s->subxip[i]);
  return h;
}

}  // namespace

static Datum model_by_name(FunctionCallInfo fcinfo, char* name, Datum name_text);

Datum gbdt_model_by_name(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  return model_by_name(fcinfo, text_to_cstring(PG_GETARG_TEXT_PP(0)), PG_GETARG_DATUM(0));
}

// gbdt_model(unknown): PostgreSQL parses typename('literal') as a cast of the
// literal to the type, so without this overload gbdt_model('churn') would
// try to read 'churn' as a model text.  An untyped literal matches this
// overload exactly (its value is a cstring): a literal in the model's text
// form ("gbdt1:...") is still read as a model, anything else is a name.
Datum gbdt_model_by_name_literal(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0)) PG_RETURN_NULL();
  char* s = PG_GETARG_CSTRING(0);
  if (strncmp(s, "gbdt1:", 6) == 0)
    return DirectFunctionCall1(gbdt_model_in, CStringGetDatum(s));
  return model_by_name(fcinfo, s, CStringGetTextDatum(s));
}

static Datum model_by_name(FunctionCallInfo fcinfo, char* name, Datum name_text) {
  FmgrInfo* fl = fcinfo->flinfo;
  Snapshot snap = ActiveSnapshotSet() ? GetActiveSnapshot() : nullptr;

  RegistryCache* c = (RegistryCache*)fl->fn_extra;
  if (c != nullptr && c->valid && snap != nullptr && c->lxid == GBDT_MY_LXID &&
      c->curcid == snap->curcid && c->xmin == snap->xmin && c->xmax == snap->xmax &&
      c->xcnt == snap->xcnt && c->xip_hash == snapshot_hash(snap) && strcmp(c->name, name) == 0)
    PG_RETURN_DATUM(c->value);

  // The registry table lives in the extension's schema, which is this
  // function's schema.
  StringInfoData q;
  initStringInfo(&q);
  // The operator is qualified: this runs under the caller's search path,
  // where another role's text = text operator could capture a bare "=".
  appendStringInfo(&q,
                   "SELECT model, deployed FROM %s.gbdt_models WHERE name OPERATOR(pg_catalog.=) $1 "
                   "ORDER BY deployed DESC, version DESC LIMIT 1",
                   extension_schema(fcinfo));

  if (SPI_connect() != SPI_OK_CONNECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("gbdt_model: SPI_connect failed")));
  Oid argtypes[1] = {TEXTOID};
  Datum args[1] = {name_text};
  int rc = SPI_execute_with_args(q.data, 1, argtypes, args, nullptr, true, 1);
  if (rc != SPI_OK_SELECT)
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("gbdt_model: registry lookup failed: %s", SPI_result_code_string(rc))));
  if (SPI_processed == 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                    errmsg("no model named \"%s\" in the gbdt registry", name),
                    errhint("Save one with gbdt_save() or gbdt_train_and_save().")));
  bool isnull = false, dep_null = false;
  Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
  Datum dep = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &dep_null);
  if (dep_null || !DatumGetBool(dep))
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("model \"%s\" has no deployed version", name),
                    errhint("Deploy one with gbdt_deploy(name, version).")));
  if (isnull)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("the deployed version of model \"%s\" is NULL", name)));

  // Keep it where it survives SPI_finish and every call of this statement.
  MemoryContext old = MemoryContextSwitchTo(fl->fn_mcxt);
  if (c == nullptr) {
    c = (RegistryCache*)palloc0(sizeof(RegistryCache));
    fl->fn_extra = c;
  } else {
    // The previous value is left to fn_mcxt: a caller may still hold it.
    c->valid = false;
    if (c->name) pfree(c->name);
  }
  c->value = datumCopy(d, false, -1);
  c->name = pstrdup(name);
  MemoryContextSwitchTo(old);
  SPI_finish();

  if (snap != nullptr) {
    c->lxid = GBDT_MY_LXID;
    c->curcid = snap->curcid;
    c->xmin = snap->xmin;
    c->xmax = snap->xmax;
    c->xcnt = snap->xcnt;
    c->xip_hash = snapshot_hash(snap);
    c->valid = true;
  }
  PG_RETURN_DATUM(c->value);
}
