// Quantile bin boundaries per feature ("cuts"), XGBoost hist semantics:
// bin(v) = number of cuts <= v, so a value v is in bin b iff
// cut[b-1] <= v < cut[b]; the last cut lies above the feature's maximum.
// Missing values (NaN) get the extra bin index nbins(f).
#pragma once
#include <cstddef>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../common/common.h"

namespace gbdt {

// Value bins per feature are limited to 255 so that bin indices including the
// missing bin fit one byte.
constexpr int kMaxValueBins = 255;
// A categorical feature gets one bin per category up to this many (bin
// indices including the missing bin fit two bytes: binned_matrix.h).
constexpr int kMaxCatBins = 65535;

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
  uint32_t bin_of(int f, float v) const {
    int nb = nbins(f);
    if (v != v) return (uint32_t)nb;
    const float* c = feature_cuts(f);
    int lo = 0, hi = nb;  // first cut > v
    while (lo < hi) {
      int mid = (lo + hi) >> 1;
      if (c[mid] <= v) lo = mid + 1; else hi = mid;
    }
    if (lo >= nb) lo = nb - 1;  // above the last cut (only for unseen values)
    return (uint32_t)lo;
  }
};

// Column-major float input: columns[f][r], NaN = missing.
struct ColumnInput {
  size_t n_rows = 0;
  std::vector<const float*> columns;
  // The columns are the caller's scratch, freed after binning: bin_matrix()
  // (all rows) gives their pages back as it bins them (page_release.h), and
  // their values are unspecified afterwards.
  bool release_binned = false;
};

// How many rows the cuts are computed from: every row up to this count,
// else an evenly spaced sample of this many rows.  Bounded so that the
// sample's float copy stays within 64 MiB: clamp(2^24 / d, 2^13, 2^18) rows
// for d features (2^18 rows up to 64 features).  The streaming loader keeps
// only this sample as floats, never the whole table.
size_t cut_sample_rows(int n_features);

// Index of sample row i when `take` of `n` rows are sampled (evenly spaced,
// row 0 first; the identity when take >= n).
inline size_t cut_sample_row(size_t i, size_t n, size_t take) {
  return take >= n ? i : (size_t)((double)i * (double)n / (double)take);
}

// Equal-frequency cuts from the rows of `sample` only, at most
// min(max_bin, 255) bins per feature; the last cut lies above the sample's
// maximum.  Call set_value_range() with the whole data's range afterwards.
// n_categories (null: none): per feature its number of categories when it
// is categorical with at least one category (0 otherwise); such a feature
// gets categorical_cuts(), not sketched from the data, whatever max_bin.
Cuts cuts_from_sample(const ColumnInput& sample, int max_bin, int nthread,
                      const std::vector<uint32_t>* n_categories = nullptr);

// Cuts of a categorical feature with n categories (codes 0 .. n-1): 1, 2,
// ..., n when n <= kMaxCatBins (65535), so that bin(c) = c (more than 255
// bins make the matrix 2 bytes per entry); else 1, ..., 65534, n: codes >=
// 65534 share the "other" bin 65534 (see categorical_split.h; only n = 65536,
// max_categories' largest value, gets there).  n == 0: {1}.
void categorical_cuts(uint32_t n, std::vector<float>* out);

// Per-feature range of all rows (NaN/+-inf for a feature without values):
// the last cut is moved above the true maximum (so that every row's value
// lies below it and binning never clamps) and min_values is set.
void set_value_range(Cuts* cuts, const std::vector<float>& mins, const std::vector<float>& maxs);

// Running per-feature min/max.  NaN is ignored.
struct ValueRange {
  std::vector<float> lo, hi;
  explicit ValueRange(int d = 0) : lo((size_t)d, INFINITY), hi((size_t)d, -INFINITY) {}
  void add(int f, float v) {
    if (v < lo[f]) lo[f] = v;
    if (v > hi[f]) hi[f] = v;
  }
  void merge(const ValueRange& o) {
    for (size_t f = 0; f < lo.size(); ++f) {
      if (o.lo[f] < lo[f]) lo[f] = o.lo[f];
      if (o.hi[f] > hi[f]) hi[f] = o.hi[f];
    }
  }
};

// Cuts of an in-memory input: cuts_from_sample() of cut_sample_row(i, n,
// take) for i < take = min(n, sample_rows) (0 = cut_sample_rows(d)), then
// set_value_range() over all rows.  The streaming loader builds the same
// cuts from the same sample rows.
Cuts compute_cuts(const ColumnInput& in, int max_bin, int nthread, size_t sample_rows = 0,
                  const std::vector<uint32_t>* n_categories = nullptr);

namespace detail {
// Tests: the cuts of one feature's non-NaN values by sorting them all (the
// path cuts_from_sample takes for columns with many distinct values).
void sorted_feature_cuts(std::vector<float> values, int max_bins, std::vector<float>* out);
}  // namespace detail

}  // namespace gbdt
