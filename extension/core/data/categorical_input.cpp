#include "categorical_input.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "../model/model_limits.h"
#include "../common/parallel_policy.h"
#include "../common/thread_pool.h"

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
                          const std::vector<uint32_t>& counts, int nthread) {
  std::vector<size_t> fs;
  for (size_t f = 0; f < counts.size() && f < in.columns.size(); ++f)
    if (counts[f] > 0) fs.push_back(f);
  if (fs.empty()) return;
  // Per categorical feature, its first row with a bad code (n_rows: none);
  // the error names the first such feature, whatever the threads.
  std::vector<size_t> bad(fs.size(), in.n_rows);
  const size_t work = in.n_rows * fs.size();  // ~1 ns per value
  ThreadPool pool(threads_for_work(work, std::min<int>(std::max(1, nthread), (int)fs.size())));
  pool.run_sized(work, fs.size(), [&](size_t i, int) {
    const float* col = in.columns[fs[i]];
    const float n = (float)counts[fs[i]];
    for (size_t r = 0; r < in.n_rows; ++r) {
      const float v = col[r];
      // Missing, or in [0, n) (n < 2^32) and an integer: its conversion to
      // one is exact.
      if (v != v || (v >= 0.0f && v < n && (float)(uint32_t)v == v)) continue;
      bad[i] = r;
      return;
    }
  });
  for (size_t i = 0; i < fs.size(); ++i) {
    if (bad[i] == in.n_rows) continue;
    const size_t f = fs[i], r = bad[i];
    std::ostringstream o;
    o.precision(9);
    o << in.columns[f][r];
    throw InvalidInput("categorical feature column \"" + name_of(feature_names, f) + "\" has code " +
                       o.str() + " in row " + std::to_string(r + 1) +
                       ": codes must be integers 0 to " + std::to_string(counts[f] - 1) + " (" +
                       std::to_string(counts[f]) + " categories) or missing");
  }
}

void check_categorical_cuts(const Cuts& cuts, const std::vector<uint32_t>& counts) {
  std::vector<float> want;
  for (size_t f = 0; f < counts.size() && (int)f < cuts.n_features(); ++f) {
    if (counts[f] == 0) continue;
    categorical_cuts(counts[f], &want);
    const int nb = cuts.nbins((int)f);
    if (counts[f] > (uint32_t)kMaxValueBins && nb == kMaxValueBins) {
      // the cuts of an earlier build's model (continued training): codes
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
