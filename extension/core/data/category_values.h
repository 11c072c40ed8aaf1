// The one rule for a categorical value that is not a code of its feature.
//
// A categorical feature with n categories (Model::categories[f]) has the
// codes 0 .. n - 1; a split sends a code in its set right and every other
// code left (a non-integer code is truncated toward zero, as XGBoost's).
// Any other value - a category never seen in training (the dictionary
// gives it the code n), a negative code, a code >= n, +-Infinity - is
// treated as MISSING: it follows default_left at every split, exactly
// like NULL.  Every scoring path applies it before walking the trees
// (prediction, TreeSHAP, continued training's init model, validation
// rows), so they all agree; gbdt_export writes the trees so that XGBoost
// routes such values the same way (xgb_json_categorical.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "../model/model.h"

namespace gbdt {

// Whether v is one of the codes of a feature with n categories.
inline bool is_category_code(float v, size_t n) { return v >= 0.0f && v < (float)n; }

// The categorical features of a model and their numbers of categories.
struct CategoryCodes {
  std::vector<int32_t> feature;
  std::vector<float> count;

  CategoryCodes() = default;
  explicit CategoryCodes(const Model& m) {
    for (size_t f = 0; f < m.categories.size(); ++f)
      if (!m.categories[f].empty()) {
        feature.push_back((int32_t)f);
        count.push_back((float)m.categories[f].size());
      }
  }
  bool empty() const { return feature.empty(); }

  // Sets every categorical value of row-major rows x[0 .. rows * d) that
  // is not a code to NaN (missing).
  void mark_missing(float* x, size_t rows, size_t d) const {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t r = 0; r < rows; ++r) {
      float* row = x + r * d;
      for (size_t i = 0; i < feature.size(); ++i) {
        const float v = row[feature[i]];
        if (v == v && !(v >= 0.0f && v < count[i])) row[feature[i]] = nan;
      }
    }
  }
};

// x itself when no categorical value of the row needs it, else a copy in
// *buf with the values that are not codes made missing (one row, without
// building CategoryCodes' lists).
inline const float* row_with_codes(const Model& m, const float* x, std::vector<float>* buf) {
  const size_t d = (size_t)m.n_features();
  bool any = false;
  for (size_t f = 0; f < m.categories.size() && f < d && !any; ++f) {
    const size_t n = m.categories[f].size();
    any = n > 0 && x[f] == x[f] && !is_category_code(x[f], n);
  }
  if (!any) return x;
  buf->assign(x, x + d);
  for (size_t f = 0; f < m.categories.size() && f < d; ++f) {
    const size_t n = m.categories[f].size();
    if (n > 0 && !is_category_code((*buf)[f], n)) (*buf)[f] = std::numeric_limits<float>::quiet_NaN();
  }
  return buf->data();
}

}  // namespace gbdt
