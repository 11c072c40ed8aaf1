#include "read/array_features.h"

#include <cmath>

namespace gbdt_pg {

ValKind array_element_kind(Oid typid) {
  Oid elem = get_element_type(getBaseType(typid));
  if (!OidIsValid(elem)) return ValKind::kNone;
  switch (elem) {
    case FLOAT4OID: return ValKind::kFloat4;
    case FLOAT8OID: return ValKind::kFloat8;
    case INT2OID: return ValKind::kInt2;
    case INT4OID: return ValKind::kInt4;
    case INT8OID: return ValKind::kInt8;
    default: return ValKind::kNone;
  }
}

bool parse_element_name(const char* name, char** base, int* index) {
  size_t len = strlen(name);
  if (len < 4 || name[len - 1] != ']') return false;
  const char* open = strrchr(name, '[');
  if (open == nullptr || open == name) return false;
  int v = 0;
  for (const char* p = open + 1; p < name + len - 1; p++) {
    if (*p < '0' || *p > '9' || v > 100000000) return false;
    v = v * 10 + (*p - '0');
  }
  if (v < 1 || open + 1 == name + len - 1) return false;
  *base = pnstrdup(name, open - name);
  *index = v;
  return true;
}

char* element_name(const char* base, int index) { return psprintf("%s[%d]", base, index); }

int first_array_length(const RelInfo* rel, const char* col) {
  const char* q = quote_identifier(col);
  // Fully qualified: this runs under the caller's search path (a C function
  // has no SET clause), where another role's public.cardinality could sit.
  // Empty arrays are passed over: an empty first row must not make the
  // column look empty (left out of the default features) when later rows
  // hold values; the reader refuses the empty rows of a kept column.
  char* sql = psprintf(
      "SELECT pg_catalog.cardinality(%s) FROM %s "
      "WHERE pg_catalog.cardinality(%s) OPERATOR(pg_catalog.>) 0 LIMIT 1",
      q, rel->qualname, q);
  if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "gbdt: SPI_connect failed");
  int rc = SPI_execute(sql, true, 1);
  if (rc != SPI_OK_SELECT) elog(ERROR, "gbdt: reading array column \"%s\" failed", col);
  int len = 0;
  if (SPI_processed > 0) {
    bool isnull;
    Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
    len = isnull ? 0 : DatumGetInt32(d);
  }
  SPI_finish();
  return len;
}

void expand_array(Datum d, bool isnull, ValKind elem, int expected, const char* col, float* dst,
                  bool reject_inf) {
  if (isnull) {
    for (int i = 0; i < expected; i++) dst[i] = NAN;
    return;
  }
  ArrayType* a = DatumGetArrayTypeP(d);
  if (ARR_NDIM(a) > 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("array column \"%s\" has a %d-dimensional value: feature arrays must "
                           "be one-dimensional",
                           col, ARR_NDIM(a))));
  const int n = ARR_NDIM(a) == 0 ? 0 : ARR_DIMS(a)[0];
  // The features are named by subscript from 1 (emb[1] .. emb[L]); an
  // array numbered from elsewhere ('[0:2]={...}') would put its element
  // [0] in feature emb[1], in training and scoring alike.
  if (ARR_NDIM(a) == 1 && ARR_LBOUND(a)[0] != 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("array column \"%s\" has a row with subscripts %d..%d: feature arrays "
                           "must start at subscript 1",
                           col, ARR_LBOUND(a)[0], ARR_LBOUND(a)[0] + n - 1),
                    errhint("Its features are named %s[1] .. %s[%d]; renumber the arrays from 1, "
                            "e.g. with a slice (%s[:]) in a view.",
                            col, col, expected, quote_identifier(col))));
  if (n != expected)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("array column \"%s\" has a row of length %d, expected %d (the length "
                           "of %s)",
                           col, n, expected, reject_inf ? "its first non-empty row" : "the model's array"),
                    errhint("Every array of a feature column must have the same length; NULL "
                            "stands for a row of missing values.")));
  int16 typlen;
  bool typbyval;
  char typalign;
  get_typlenbyvalalign(ARR_ELEMTYPE(a), &typlen, &typbyval, &typalign);
  Datum* elems;
  bool* nulls;
  int ne;
  deconstruct_array(a, ARR_ELEMTYPE(a), typlen, typbyval, typalign, &elems, &nulls, &ne);
  for (int i = 0; i < ne; i++) {
    if (nulls[i]) {
      dst[i] = NAN;
      continue;
    }
    const double v = datum_to_double(elems[i], elem);
    const float f = (float)v;
    if (reject_inf && std::isinf(f))
      ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                      errmsg("array column \"%s\" contains %s at element %d", col,
                             std::isinf(v) ? "infinity" : "a value out of range for single precision",
                             i + 1),
                      errhint("Use NULL (or NaN) for a missing value.")));
    dst[i] = f;
  }
  pfree(elems);
  pfree(nulls);
  if ((Pointer)a != DatumGetPointer(d)) pfree(a);
}

}  // namespace gbdt_pg
