// Conversion of SQL values of the supported feature/label types to floats.
#pragma once
#include <cmath>

#include "pg_includes.h"

extern "C" {
#include "mb/pg_wchar.h"
}

#include "gbdt/model.h"

namespace gbdt_pg {

enum class ValKind : uint8_t {
  kNone = 0,  // unsupported type
  kFloat8,
  kFloat4,
  kInt2,
  kInt4,
  kInt8,
  kNumeric,
  kBool,
  kCategory,  // categorical feature: code from ReaderColumn::cat (category_dict.h)
  // Dates and times as days since 1970-01-01 (with fraction): see
  // datetime_features.h.
  kDate,
  kTimestamp,    // timestamp and timestamptz (both UTC microseconds)
  kInterval,     // days (a month is 30 days)
  kArray,        // a numeric array column: several features (array_features.h)
};

// For hints: the types kind_for_type accepts.
#define GBDT_SUPPORTED_TYPES                                                              \
  "smallint, integer, bigint, real, double precision, numeric, boolean, date, timestamp, " \
  "timestamptz and interval"

// Kind for a column type (domains resolved to their base type); kNone if
// the type is not a supported feature/label type.
ValKind kind_for_type(Oid typid);

inline gbdt::FeatureType feature_type_for(ValKind k) {
  switch (k) {
    case ValKind::kBool: return gbdt::FeatureType::kBool;
    case ValKind::kInt2:
    case ValKind::kInt4:
    case ValKind::kInt8: return gbdt::FeatureType::kInt;
    case ValKind::kCategory: return gbdt::FeatureType::kCategorical;
    default: return gbdt::FeatureType::kFloat;
  }
}

// Dates/times as days since 1970-01-01 (datetime_features.cpp); +-infinity
// for infinite values.
double datetime_to_days(Datum d, ValKind k);

// A numeric as the nearest double, as numeric -> float8 gives it (NaN ->
// NaN; too large -> +-HUGE_VAL).  Values of up to 16 significant digits
// and magnitudes 1e-22 .. 1e22 are read from their base-10000 digits in
// place (nbase_decimal.h); the others, and compressed or out-of-line
// values, take numeric_float8_no_overflow (printed, then parsed), which may
// allocate in CurrentMemoryContext.
double numeric_datum_to_double(Datum d);
// The bytes of a varlena value stored inline and uncompressed (a 1-byte or
// 4-byte header; its header's size is trusted); false for a compressed or
// out-of-line value.  No PostgreSQL call (any thread).
inline bool inline_varlena(const void* value, const char** p, size_t* len) {
  const char* v = (const char*)value;
  if (VARATT_IS_1B_E(v)) return false;
  if (VARATT_IS_1B(v)) {
    *p = VARDATA_1B(v);
    *len = VARSIZE_1B(v) - VARHDRSZ_SHORT;
    return true;
  }
  if (!VARATT_IS_4B_U(v)) return false;
  *p = VARDATA_4B(v);
  *len = VARSIZE_4B(v) - VARHDRSZ;
  return true;
}

// Its first route alone, without any PostgreSQL call (any thread): value
// points to a numeric's varlena, stored inline and uncompressed (its
// header's size is trusted); false when the value takes the text route
// (or is compressed, out of line, NaN or an infinity).
bool numeric_value_to_double(const void* value, double* out);

// The value as double (NaN numeric -> NaN; numeric too large -> +-HUGE_VAL).
// May allocate (numeric detoasting) in CurrentMemoryContext.
inline double datum_to_double(Datum d, ValKind k) {
  switch (k) {
    case ValKind::kFloat8: return DatumGetFloat8(d);
    case ValKind::kFloat4: return (double)DatumGetFloat4(d);
    case ValKind::kInt2: return (double)DatumGetInt16(d);
    case ValKind::kInt4: return (double)DatumGetInt32(d);
    case ValKind::kInt8: return (double)DatumGetInt64(d);
    case ValKind::kBool: return DatumGetBool(d) ? 1.0 : 0.0;
    case ValKind::kNumeric: return numeric_datum_to_double(d);
    case ValKind::kDate:
    case ValKind::kTimestamp:
    case ValKind::kInterval: return datetime_to_days(d, k);
    case ValKind::kArray:  // expanded by the caller (array_features.h)
    case ValKind::kCategory:  // coded by the caller (category_dict.h)
    case ValKind::kNone: break;
  }
  return NAN;
}

// Raises the error for a non-finite value (infinity, or a finite value
// outside the float4 range) of column `colname`.
GBDT_NORETURN void report_nonfinite(const char* colname, bool is_target, Datum d, ValKind k,
                                  double v);

// Strings inside a model (feature names, ...) are UTF-8 whatever the
// database encoding (the model validator checks it).  These convert at the
// boundary; they may ereport (a character with no equivalent in the target
// encoding), so call them outside run_engine.  The result is the argument
// itself when no conversion is needed, else palloc'd.
inline const char* server_to_model_string(const char* s) {
  return pg_server_to_any(s, (int)strlen(s), PG_UTF8);
}
inline const char* model_to_server_string(const char* s) {
  return pg_any_to_server(s, (int)strlen(s), PG_UTF8);
}

}  // namespace gbdt_pg
