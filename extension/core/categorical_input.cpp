#include "categorical_input.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "model_limits.h"

namespace gbdt {

namespace {
std::string name_of(const std::vector<std::string>& names, size_t f) {
  return f < names.size() ? names[f] : "#" + std::to_string(f);
}
}  // namespace

std::vector<uint32_t> category_counts(const std::vector<std::string>& feature_names,
                                      const std::vector<FeatureType>& feature_types,
                                      const std::vector<std::vector<std::string>>& categories) {
  if (categories.empty()) return {};
  const size_t d = feature_names.size();
  if (categories.size() != d)
    throw InvalidInput("categories has " + std::to_string(categories.size()) + " entries for " +
                       std::to_string(d) + " feature columns: need one per feature (empty for numeric ones)");
  std::vector<uint32_t> counts(d, 0);
  bool any = false;
  for (size_t f = 0; f < d; ++f) {
    const size_t n = categories[f].size();
    if (n == 0) continue;
    if (f >= feature_types.size() || feature_types[f] != FeatureType::kCategorical)
      throw InvalidInput("feature column \"" + name_of(feature_names, f) +
                         "\" has category names but is not of the categorical feature type");
    if (n > (size_t)kMaxCategories)
      throw InvalidInput("feature column \"" + name_of(feature_names, f) + "\" has " +
                         std::to_string(n) + " categories: at most " +
                         std::to_string(kMaxCategories) + " are supported");
    counts[f] = (uint32_t)n;
    any = true;
  }
  if (!any) return {};
  return counts;
}

void check_category_codes(const ColumnInput& in, const std::vector<std::string>& feature_names,
                          const std::vector<uint32_t>& counts) {
  for (size_t f = 0; f < counts.size() && f < in.columns.size(); ++f) {
    if (counts[f] == 0) continue;
    const float* col = in.columns[f];
    const float n = (float)counts[f];
    for (size_t r = 0; r < in.n_rows; ++r) {
      const float v = col[r];
      if (v != v) continue;
      if (!(v >= 0.0f && v < n && v == std::floor(v))) {
        std::ostringstream o;
        o.precision(9);
        o << v;
        throw InvalidInput("categorical feature column \"" + name_of(feature_names, f) +
                           "\" has code " + o.str() + " in row " + std::to_string(r + 1) +
                           ": codes must be integers 0 to " + std::to_string(counts[f] - 1) +
                           " (" + std::to_string(counts[f]) + " categories) or missing");
      }
    }
  }
}

void check_categorical_cuts(const Cuts& cuts, const std::vector<uint32_t>& counts) {
  std::vector<float> want;
  for (size_t f = 0; f < counts.size() && (int)f < cuts.n_features(); ++f) {
    if (counts[f] == 0) continue;
    categorical_cuts(counts[f], &want);
    const int nb = cuts.nbins((int)f);
    if (counts[f] > (uint32_t)kMaxValueBins && nb == kMaxValueBins) {
      // W: the cuts of an earlier build's model (continued training): codes
      // 0 .. 253 one bin each, the rest in bin 254.
      want.clear();
      for (int c = 1; c < kMaxValueBins; ++c) want.push_back((float)c);
      want.push_back((float)counts[f]);
    }
    bool ok = nb == (int)want.size();
    // set_value_range never moves the last cut for valid codes (all below
    // it): a moved one means a code >= the number of categories.
    for (int b = 0; ok && b < nb; ++b) ok = cuts.feature_cuts((int)f)[b] == want[b];
    if (!ok)
      throw std::logic_error("categorical feature " + std::to_string(f) +
                             ": cuts not made by categorical_cuts (pass the category counts "
                             "to cuts_from_sample / compute_cuts) or codes >= the number of "
                             "categories");
  }
}

}  // namespace gbdt
