#include "convert.h"

#include <algorithm>
#include <cstring>

#include "gbdt/load_internals.h"

namespace gbdt_pg {

// numeric's stored form (PostgreSQL's numeric.c, the same since 9.1): after
// the varlena header a uint16 word; its top two bits 10 mark the short form
// (0x2000 the sign, 0x0040 the weight's sign, 0x003F the weight's low
// bits; the digits follow), 00 / 01 the long form (positive / negative; an
// int16 weight and then the digits follow), 11 a special value (NaN,
// +-Infinity).  Digits are int16 in base 10000, most significant first.
bool numeric_value_to_double(const void* value, double* out) {
  const char* p;
  size_t len;
  if (!inline_varlena(value, &p, &len) || len < sizeof(uint16)) return false;
  uint16 h;
  std::memcpy(&h, p, sizeof h);
  const uint16 form = h & 0xC000;
  bool negative = false;
  int weight = 0;
  size_t at = sizeof(uint16);
  if (form == 0x8000) {
    negative = (h & 0x2000) != 0;
    weight = (int)(h & 0x003F) - ((h & 0x0040) ? 64 : 0);
  } else if (form != 0xC000 && len >= 2 * sizeof(uint16)) {
    negative = form == 0x4000;
    int16 w;
    std::memcpy(&w, p + at, sizeof w);
    weight = w;
    at += sizeof(int16);
  } else {
    return false;  // NaN, +-Infinity, or too short: the text route says
  }
  const size_t bytes = len - std::min(len, at);
  // At most 5 digits: 16 significant decimal digits, the most that fit.
  if (bytes % sizeof(int16) != 0 || bytes > 5 * sizeof(int16)) return false;
  uint16_t digits[5];
  const int nd = (int)(bytes / sizeof(int16));
  std::memcpy(digits, p + at, bytes);  // int16 0..9999; others are refused
  return gbdt::nbase_decimal_to_double(negative, weight, digits, nd, out);
}

double numeric_datum_to_double(Datum d) {
  double out;
  if (numeric_value_to_double(DatumGetPointer(d), &out)) return out;
  return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow, d));
}

ValKind kind_for_type(Oid typid) {
  switch (getBaseType(typid)) {
    case FLOAT8OID: return ValKind::kFloat8;
    case FLOAT4OID: return ValKind::kFloat4;
    case INT2OID: return ValKind::kInt2;
    case INT4OID: return ValKind::kInt4;
    case INT8OID: return ValKind::kInt8;
    case NUMERICOID: return ValKind::kNumeric;
    case BOOLOID: return ValKind::kBool;
    case DATEOID: return ValKind::kDate;
    case TIMESTAMPOID:
    case TIMESTAMPTZOID: return ValKind::kTimestamp;
    case INTERVALOID: return ValKind::kInterval;
    default: return ValKind::kNone;
  }
}

void report_nonfinite(const char* colname, bool is_target, Datum d, ValKind k, double v) {
  bool is_inf = std::isinf(v);
  if (is_inf && k == ValKind::kNumeric) is_inf = numeric_is_inf(DatumGetNumeric(d));
  const char* what = is_target ? "target column" : "column";
  if (is_inf && (k == ValKind::kDate || k == ValKind::kTimestamp))
    ereport(ERROR,
            (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
             errmsg("%s \"%s\" contains an infinite %s", what, colname,
                    k == ValKind::kDate ? "date" : "timestamp"),
             errhint("Use NULL for a missing value; 'infinity' and '-infinity' are not valid "
                     "%s values.", is_target ? "target" : "feature")));
  if (is_inf)
    ereport(ERROR,
            (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
             errmsg("%s \"%s\" contains infinity", what, colname),
             errhint("Use NULL (or NaN) for a missing value; infinity is not a valid %s value.",
                     is_target ? "target" : "feature")));
  if (std::isinf(v))  // a numeric beyond the double range
    ereport(ERROR,
            (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
             errmsg("%s \"%s\" contains a value out of range for single precision", what,
                    colname),
             errhint("gbdt works on float4 values (magnitude below 3.4e38).")));
  ereport(ERROR,
          (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
           errmsg("%s \"%s\" contains a value out of range for single precision: %g", what,
                  colname, v),
           errhint("gbdt works on float4 values (magnitude below 3.4e38).")));
}

}  // namespace gbdt_pg
