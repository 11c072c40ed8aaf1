// Features whose bin is the same on every row (issue 15: real tables have
// constant columns, e.g. a year column of a one-year extract, and columns
// that are all missing).  Their histogram in any node is one cell holding
// the node's gradient sum, so the CPU backend skips them while accumulating
// rows and writes that cell from the node's sum.  The node's sum is the
// integer sum of its rows' gradient pairs (the root sum, or a split's left
// histogram prefix and parent - left), the very integers accumulation would
// add up: histograms are bit-identical.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gbdt {

// Per feature of the row-major n x d bin matrix (1- or 2-byte entries): the bin every row has, or
// -1 when two rows differ (and for every feature when n == 0).
template <typename BinT>
std::vector<int> constant_feature_bins(const BinT* bins, size_t n, int d) {
  std::vector<int> c((size_t)d, -1);
  if (n == 0) return c;
  std::vector<uint8_t> same((size_t)d, 1);
  for (int f = 0; f < d; ++f) c[f] = bins[f];
  int left = d;  // features still constant
  for (size_t r = 1; r < n && left > 0; ++r) {
    const BinT* rb = bins + r * (size_t)d;
    for (int f = 0; f < d; ++f)
      if (same[f] && rb[f] != (BinT)c[f]) {
        same[f] = 0;
        c[f] = -1;
        --left;
      }
  }
  return c;
}

// The maximal runs [f0, f1) of non-constant features (constant[f] < 0)
// within [0, d); empty when every feature is constant.
inline std::vector<std::pair<int, int>> varying_feature_runs(const std::vector<int>& constant, int d) {
  std::vector<std::pair<int, int>> runs;
  int f = 0;
  while (f < d) {
    while (f < d && constant[f] >= 0) ++f;
    const int f0 = f;
    while (f < d && constant[f] < 0) ++f;
    if (f > f0) runs.emplace_back(f0, f);
  }
  return runs;
}

}  // namespace gbdt
