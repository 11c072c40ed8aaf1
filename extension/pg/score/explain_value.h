// The text of a feature's value beside its contribution (the value_text
// column of gbdt_explain and gbdt_explain_table) when the row's own column
// text is not at hand: the feature is an element of an array column, or
// absent from the row (gbdt.missing_features = 'missing').
#pragma once

#include <cmath>

#include "convert.h"
#include "pg_includes.h"

#include "gbdt/model.h"

namespace gbdt_pg {

// From the value as read, x (NaN: missing): a categorical feature's
// category text by its code in the model's dictionary, else the number as
// float8 text; *isnull for a missing value or a code the dictionary lacks.
inline Datum feature_value_text(const gbdt::Model* m, int f, float x, bool* isnull) {
  *isnull = std::isnan(x);
  if (*isnull) return (Datum)0;
  if ((size_t)f < m->feature_types.size() &&
      m->feature_types[f] == gbdt::FeatureType::kCategorical) {
    const bool has = (size_t)f < m->categories.size() && x >= 0 &&
                     (double)x < (double)m->categories[f].size();
    *isnull = !has;
    if (!has) return (Datum)0;
    return CStringGetTextDatum(model_to_server_string(m->categories[f][(size_t)x].c_str()));
  }
  return CStringGetTextDatum(
      DatumGetCString(DirectFunctionCall1(float8out, Float8GetDatum((double)x))));
}

}  // namespace gbdt_pg
