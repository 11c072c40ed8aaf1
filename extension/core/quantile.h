// Quantile bin boundaries per feature ("cuts"), XGBoost hist semantics:
// bin(v) = number of cuts <= v, so a value v is in bin b iff
// cut[b-1] <= v < cut[b]; the last cut lies above the feature's maximum.
// Missing values (NaN) get the extra bin index nbins(f).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common.h"

namespace gbdt {

// Value bins per feature are limited to 255 so that bin indices including the
// missing bin fit one byte.
constexpr int kMaxValueBins = 255;

struct Cuts {
  std::vector<uint32_t> ptr;    // n_features + 1 offsets into values
  std::vector<float> values;    // cut values per feature, ascending
  std::vector<float> min_values;// smallest value seen per feature (NaN if none)

  int n_features() const { return (int)ptr.size() - 1; }
  int nbins(int f) const { return (int)(ptr[f + 1] - ptr[f]); }
  // Histogram slots of feature f: nbins(f) value bins + 1 missing bin.
  uint32_t hist_offset(int f) const { return ptr[f] + (uint32_t)f; }
  uint32_t total_hist_bins() const { return (uint32_t)values.size() + (uint32_t)n_features(); }
  const float* feature_cuts(int f) const { return values.data() + ptr[f]; }

  // Bin index of v for feature f (missing bin for NaN).
  uint8_t bin_of(int f, float v) const {
    int nb = nbins(f);
    if (v != v) return (uint8_t)nb;
    const float* c = feature_cuts(f);
    int lo = 0, hi = nb;  // first cut > v
    while (lo < hi) {
      int mid = (lo + hi) >> 1;
      if (c[mid] <= v) lo = mid + 1; else hi = mid;
    }
    if (lo >= nb) lo = nb - 1;  // above the last cut (only for unseen values)
    return (uint8_t)lo;
  }
};

// Column-major float input: columns[f][r], NaN = missing.
struct ColumnInput {
  size_t n_rows = 0;
  std::vector<const float*> columns;
};

// Equal-frequency cuts from (a deterministic sample of at most
// `sample_rows` rows of) the input, at most min(max_bin, 255) bins per feature.
Cuts compute_cuts(const ColumnInput& in, int max_bin, int nthread, size_t sample_rows = 1u << 18);

}  // namespace gbdt
