// gbdt_model: varlena payload = the bytes of gbdt::serialize_model.
// Text form: the engine's "gbdt1:" + base64.  Input and receive validate by
// decoding fully; corrupt values are errors, never crashes.
#include "model/model_type.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "read/category_dict.h"
#include "guard.h"
#include "model/model_cache_pg.h"
#include "gbdt/model.h"

extern "C" {
#include "access/detoast.h"
#include "access/heaptoast.h"
#include "access/toast_compression.h"
#include "access/toast_internals.h"
#include "utils/lsyscache.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_model_in);
PG_FUNCTION_INFO_V1(gbdt_model_out);
PG_FUNCTION_INFO_V1(gbdt_model_recv);
PG_FUNCTION_INFO_V1(gbdt_model_send);
}

namespace gbdt_pg {

namespace {

void cache_cleanup(void* arg) {
  CallCache* c = (CallCache*)arg;
  model_cache_release(c->shared);  // noexcept
  c->shared = nullptr;
  c->model = nullptr;
  c->categories = nullptr;
  c->has_toast_key = false;
}

// Whether the on-disk TOAST pointer raw is the one the cached model came from.
//
// Why a TOAST pointer may stand for the bytes it points to: it names
// (va_toastrelid, va_valueid) plus the value's raw and stored sizes.
// toast_save_datum gives every new value an OID not present in the TOAST
// relation's index (GetNewOidWithIndex; dead entries not yet vacuumed count
// as present), and a stored TOAST value is never modified in place: an
// UPDATE that changes the value writes a new one under a new OID.  So two
// pointers with equal fields name the same bytes, unless the first value
// was deleted, vacuumed away, and the cluster-wide OID counter wrapped
// around (2^32 assignments) to hand out that very OID again in that same
// TOAST relation, all while this call site (one query, or one transaction
// of a PL/pgSQL expression) stays alive.  No user can pick the OID a value
// gets, so this cannot be forged the way a sample of bytes can.  (The
// backend's cache across call sites, model_cache_pg.h, compares all the
// stored bytes instead.)
bool toast_key_matches(const CallCache* c, const struct varlena* raw) {
  uint32_t n = (uint32_t)VARSIZE_EXTERNAL(raw);
  return c->model != nullptr && c->has_toast_key && n <= sizeof(c->toast_key) &&
         c->toast_key_len == n && std::memcmp(c->toast_key, raw, n) == 0;
}

}  // namespace

CallCache* get_call_cache(FunctionCallInfo fcinfo) {
  FmgrInfo* fl = fcinfo->flinfo;
  if (fl != nullptr && fl->fn_extra != nullptr) return (CallCache*)fl->fn_extra;
  MemoryContext mcxt = fl != nullptr ? fl->fn_mcxt : CurrentMemoryContext;
  CallCache* c = (CallCache*)MemoryContextAllocZero(mcxt, sizeof(CallCache));
  c->mcxt = mcxt;
  c->cleanup.func = cache_cleanup;
  c->cleanup.arg = c;
  MemoryContextRegisterResetCallback(mcxt, &c->cleanup);
  if (fl != nullptr) fl->fn_extra = c;
  return c;
}

struct varlena* compressed_model_value(struct varlena* v) {
#ifdef USE_LZ4
  if (v != nullptr && !VARATT_IS_EXTENDED(v) && VARSIZE(v) > TOAST_TUPLE_THRESHOLD) {
    const Datum c = toast_compress_datum(PointerGetDatum(v), TOAST_LZ4_COMPRESSION);
    if (DatumGetPointer(c) != nullptr) {  // null: it did not compress
      pfree(v);
      return (struct varlena*)DatumGetPointer(c);
    }
  }
#endif
  return v;
}

const gbdt::Model* get_model_arg(FunctionCallInfo fcinfo, int argno) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, argno);
  if (m->partitions != nullptr) {
    const Oid fn = fcinfo->flinfo != nullptr ? fcinfo->flinfo->fn_oid : InvalidOid;
    const char* name = OidIsValid(fn) ? get_func_name(fn) : nullptr;
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("%s does not take a partitioned model (one sub-model per partition_by key)",
                           name != nullptr ? name : "this function"),
                    errhint("Take one key's model with gbdt_partition_model(model, key); "
                            "gbdt_predict(_proba, _class, _table, _proba_table), gbdt_evaluate (without "
                            "group_column), gbdt_explain(_table, _interactions), gbdt_model_info and "
                            "gbdt_export take the partitioned model.")));
  }
  return m;
}

const gbdt::Model* get_model_arg_any(FunctionCallInfo fcinfo, int argno) {
  CallCache* c = get_call_cache(fcinfo);
  struct varlena* raw = (struct varlena*)DatumGetPointer(PG_GETARG_DATUM(argno));
  const bool ondisk = VARATT_IS_EXTERNAL_ONDISK(raw);
  if (ondisk && toast_key_matches(c, raw)) return c->model;  // no fetching on a hit

  // The stored form (fetched from TOAST, not decompressed) identifies the
  // model: this call site's entry, else the backend's cache, else decoded.
  struct varlena* stored = VARATT_IS_EXTERNAL(raw) ? detoast_external_attr(raw) : raw;
  if (c->model == nullptr || !model_cache_entry_is(c->shared, stored)) {
    gbdt::ModelCacheEntry* e = model_cache_acquire(stored);  // pinned; an ERROR leaves c as it was
    model_cache_release(c->shared);
    c->shared = e;
    c->model = e->model.get();
    c->categories = (const ModelCategories*)e->extra;
    c->has_toast_key = false;
    c->generation++;
  }
  if (ondisk) {
    // The bytes behind this pointer are the cached ones (just compared or decoded).
    uint32_t n = (uint32_t)VARSIZE_EXTERNAL(raw);
    c->has_toast_key = n <= sizeof(c->toast_key);
    if (c->has_toast_key) {
      c->toast_key_len = n;
      std::memcpy(c->toast_key, raw, n);
    }
  }
  if (stored != raw) pfree(stored);
  return c->model;
}

}  // namespace gbdt_pg

using namespace gbdt_pg;

// gbdt_model_in(cstring) -> gbdt_model
Datum gbdt_model_in(PG_FUNCTION_ARGS) {
  const char* str = PG_GETARG_CSTRING(0);
  struct varlena* result = nullptr;
  ErrorStyle style{ERRCODE_INVALID_TEXT_REPRESENTATION, ERRCODE_INVALID_TEXT_REPRESENTATION,
                   "invalid gbdt_model: "};
  run_engine(
      [&] {
        std::vector<uint8_t> bytes = gbdt::text_to_bytes(std::string(str));
        gbdt::Model m = gbdt::deserialize_model(bytes.data(), bytes.size());  // validates
        (void)m;
        result = bytes_to_varlena_nothrow(bytes);
      },
      style);
  PG_RETURN_POINTER(compressed_model_value(result));
}

// gbdt_model_out(gbdt_model) -> cstring
// The stored bytes themselves, never a decoded (cached) model written again:
// model::text, COPY TO and pg_dump write exactly what is stored.
Datum gbdt_model_out(PG_FUNCTION_ARGS) {
  struct varlena* v = PG_GETARG_VARLENA_PP(0);
  const uint8_t* data = (const uint8_t*)VARDATA_ANY(v);
  size_t len = VARSIZE_ANY_EXHDR(v);
  char* out = nullptr;
  run_engine([&] { out = pstrdup_nothrow(gbdt::bytes_to_text(data, len)); });
  PG_RETURN_CSTRING(out);
}

// gbdt_model_recv(internal) -> gbdt_model
Datum gbdt_model_recv(PG_FUNCTION_ARGS) {
  StringInfo buf = (StringInfo)PG_GETARG_POINTER(0);
  int len = buf->len - buf->cursor;
  struct varlena* result = (struct varlena*)palloc(len + VARHDRSZ);
  SET_VARSIZE(result, len + VARHDRSZ);
  pq_copymsgbytes(buf, VARDATA(result), len);
  const uint8_t* data = (const uint8_t*)VARDATA(result);
  ErrorStyle style{ERRCODE_INVALID_BINARY_REPRESENTATION, ERRCODE_INVALID_BINARY_REPRESENTATION,
                   "invalid gbdt_model: "};
  run_engine([&] { gbdt::Model m = gbdt::deserialize_model(data, (size_t)len); (void)m; }, style);
  PG_RETURN_POINTER(compressed_model_value(result));
}

// gbdt_model_send(gbdt_model) -> bytea
Datum gbdt_model_send(PG_FUNCTION_ARGS) {
  struct varlena* v = PG_GETARG_VARLENA_P(0);
  StringInfoData buf;
  pq_begintypsend(&buf);
  pq_sendbytes(&buf, VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
  PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
