#include "convert.h"

namespace gbdt_pg {

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
