#include "quantile.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../common/cpu_features.h"
#include "../common/thread_pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace gbdt {

namespace {

// Ascending sort of non-NaN floats.  When the values do not mix -0.0 and
// +0.0, values that compare equal are bit-identical, so the sorted sequence
// is unique and any correct sort gives std::sort's exact result: then an LSD
// radix sort (3 passes of 11 bits on order-preserving keys) is used; with
// both zeros present, std::sort itself (its placement of -0/+0 is kept).
void sort_values(std::vector<float>& s) {
  const size_t n = s.size();
  bool neg0 = false, pos0 = false;
  for (float v : s)
    if (v == 0.0f) (std::signbit(v) ? neg0 : pos0) = true;
  if (n < 1024 || (neg0 && pos0)) {
    std::sort(s.begin(), s.end());
    return;
  }
  std::vector<uint32_t> a(n), b(n);
  size_t cnt[3][2048] = {};
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, &s[i], 4);
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    a[i] = u;
    ++cnt[0][u & 2047];
    ++cnt[1][(u >> 11) & 2047];
    ++cnt[2][u >> 22];
  }
  for (int pass = 0; pass < 3; ++pass) {
    const int shift = pass * 11;
    size_t* c = cnt[pass];
    if (c[(a[0] >> shift) & 2047] == n) continue;  // one bucket: nothing moves
    size_t sum = 0;
    for (int k = 0; k < 2048; ++k) {
      size_t t = c[k];
      c[k] = sum;
      sum += t;
    }
    for (size_t i = 0; i < n; ++i) b[c[(a[i] >> shift) & 2047]++] = a[i];
    a.swap(b);
  }
  for (size_t i = 0; i < n; ++i) {
    uint32_t u = a[i];
    u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    std::memcpy(&s[i], &u, 4);
  }
}

// The last cut of a feature whose maximum is hi: strictly above it.
float last_cut_above(float hi) {
  float last = hi + std::fabs(hi) * 1e-5f + 1e-5f;
  if (!(last > hi)) last = std::nextafter(hi, INFINITY);
  return last;
}

// Cuts of one feature from its non-missing sample values (sorted here):
// each distinct value starts a bin when there are at most max_bins of them,
// else equal-frequency quantiles above the sample's minimum; the last cut
// lies above the sample's maximum.
void feature_cuts(std::vector<float>& s, int max_bins, std::vector<float>* out) {
  out->clear();
  if (s.empty()) {
    out->push_back(1.0f);
    return;
  }
  sort_values(s);
  size_t m = s.size();
  const float lo = s[0], hi = s[m - 1];
  // Count distinct values (early exit once above max_bins).
  size_t distinct = 1;
  for (size_t i = 1; i < m && distinct <= (size_t)max_bins; ++i)
    if (s[i] != s[i - 1]) ++distinct;
  if (distinct <= (size_t)max_bins) {
    for (size_t i = 1; i < m; ++i)
      if (s[i] != s[i - 1]) out->push_back(s[i]);  // each distinct value starts a bin
  } else {
    for (int i = 1; i < max_bins; ++i) {
      float c = s[(size_t)((double)i * (double)m / (double)max_bins)];
      if (c > lo && (out->empty() || c > out->back())) out->push_back(c);
    }
  }
  out->push_back(last_cut_above(hi));  // every candidate is <= hi < it
}

// The distinct non-NaN values of a column while there are at most `limit`
// (<= kMaxValueBins) of them, as bit patterns in a small open-addressing
// table: most real columns hold few distinct values, whose cuts are then
// found without copying and sorting the column.  A column holding both -0
// and +0 does not count as few (the sorted path decides which zero starts
// their bin).
class FewValues {
 public:
  explicit FewValues(int limit) : limit_(limit) { std::fill(slot_, slot_ + kSlots, kEmpty); }

  // Adds a non-NaN value; false once more than `limit` distinct values were added.
  bool add(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    uint32_t s = (u * 0x9E3779B1u) >> (32 - kBits);
    for (;;) {
      const uint32_t e = slot_[s];
      if (e == u) return true;
      if (e == kEmpty) break;
      s = (s + 1) & (kSlots - 1);
    }
    if (n_ == limit_) return false;
    slot_[s] = u;
    values_[n_++] = v;
    return true;
  }

  // The cuts feature_cuts() gives for these values (when they are the
  // column's), or false for a column with both zeros.
  bool cuts(std::vector<float>* out) {
    out->clear();
    if (n_ == 0) {
      out->push_back(1.0f);
      return true;
    }
    int zeros = 0;
    for (int i = 0; i < n_; ++i) zeros += values_[i] == 0.0f;
    if (zeros > 1) return false;
    // Values that compare equal are bit-identical here: one order.
    std::sort(values_, values_ + n_);
    out->assign(values_ + 1, values_ + n_);  // each distinct value starts a bin
    out->push_back(last_cut_above(values_[n_ - 1]));
    return true;
  }

 private:
  static constexpr int kBits = 9;  // 512 slots for at most 255 values
  static constexpr uint32_t kSlots = 1u << kBits;
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;  // a NaN: never added
  static_assert(2 * kMaxValueBins < (int)kSlots, "the table stays under half full");
  int limit_;
  int n_ = 0;
  uint32_t slot_[kSlots];
  float values_[kMaxValueBins];
};

}  // namespace

namespace detail {

void sorted_feature_cuts(std::vector<float> values, int max_bins, std::vector<float>* out) {
  feature_cuts(values, std::min(max_bins, kMaxValueBins), out);
}

}  // namespace detail

void categorical_cuts(uint32_t n, std::vector<float>* out) {
  out->clear();
  if (n <= (uint32_t)kMaxCatBins) {
    for (uint32_t c = 1; c <= n; ++c) out->push_back((float)c);
  } else {
    // Codes 0 .. 65533 one bin each, codes >= 65534 the "other" bin [65534, n).
    for (uint32_t c = 1; c < (uint32_t)kMaxCatBins; ++c) out->push_back((float)c);
    out->push_back((float)n);
  }
  if (out->empty()) out->push_back(1.0f);  // no categories: one (empty) bin
}

namespace {

Cuts cuts_impl(const ColumnInput& in, const std::vector<size_t>* rows, int max_bin, int nthread,
               const std::vector<uint32_t>* n_categories) {
  const int d = (int)in.columns.size();
  const size_t m = rows ? rows->size() : in.n_rows;
  const int max_bins = std::min(max_bin, kMaxValueBins);
  std::vector<std::vector<float>> per_feature(d);
  ThreadPool pool(nthread);
  pool.run((size_t)d, [&](size_t f, int) {
    if (n_categories && f < n_categories->size() && (*n_categories)[f] > 0) {
      categorical_cuts((*n_categories)[f], &per_feature[f]);  // never sketched
      return;
    }
    const float* col = in.columns[f];
    // Few distinct values: their cuts straight away (the same as sorting).
    FewValues few(max_bins);
    bool is_few = true;
    for (size_t i = 0; i < m && is_few; ++i) {
      const float v = col[rows ? (*rows)[i] : i];
      if (v == v) is_few = few.add(v);
    }
    if (is_few && few.cuts(&per_feature[f])) return;
    std::vector<float> s;
    s.reserve(m);
    for (size_t i = 0; i < m; ++i) {
      float v = col[rows ? (*rows)[i] : i];
      if (v == v) s.push_back(v);
    }
    feature_cuts(s, max_bins, &per_feature[f]);
  });
  Cuts c;
  c.ptr.resize(d + 1);
  c.ptr[0] = 0;
  for (int f = 0; f < d; ++f) c.ptr[f + 1] = c.ptr[f] + (uint32_t)per_feature[f].size();
  c.values.reserve(c.ptr[d]);
  for (int f = 0; f < d; ++f)
    c.values.insert(c.values.end(), per_feature[f].begin(), per_feature[f].end());
  c.min_values.assign((size_t)d, NAN);
  return c;
}

}  // namespace

namespace {

// The smallest and largest non-NaN value of col[0, n) (INFINITY and
// -INFINITY when there is none).  With AVX2, in 8 lanes combined at the
// end: the same values, except that a zero bound may come out as either
// zero, which set_value_range() does not tell apart (it adds +0 to the
// minimum, and last_cut_above() of -0 and +0 are the same).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The rows of whole groups of 8 into *lo, *hi; returns the rows done.
__attribute__((target("avx2"))) size_t column_range_avx2(const float* col, size_t n, float* lo, float* hi) {
  __m256 l = _mm256_set1_ps(INFINITY), h = _mm256_set1_ps(-INFINITY);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(col + i);
    l = _mm256_min_ps(v, l);  // v < l ? v : l (a NaN v keeps l)
    h = _mm256_max_ps(v, h);  // v > h ? v : h
  }
  float ls[8], hs[8];
  _mm256_storeu_ps(ls, l);
  _mm256_storeu_ps(hs, h);
  for (int k = 0; k < 8; ++k) {
    *lo = ls[k] < *lo ? ls[k] : *lo;
    *hi = hs[k] > *hi ? hs[k] : *hi;
  }
  return i;
}
#endif

void column_range(const float* col, size_t n, float* lo, float* hi) {
  float a = INFINITY, b = -INFINITY;
  size_t i = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (cpu_has_avx2()) i = column_range_avx2(col, n, &a, &b);
#endif
  for (; i < n; ++i) {
    a = col[i] < a ? col[i] : a;
    b = col[i] > b ? col[i] : b;
  }
  *lo = a;
  *hi = b;
}

}  // namespace

size_t cut_sample_rows(int n_features) {
  const size_t d = (size_t)std::max(n_features, 1);
  return std::min<size_t>(1u << 18, std::max<size_t>(1u << 13, (1u << 24) / d));
}

Cuts cuts_from_sample(const ColumnInput& sample, int max_bin, int nthread,
                      const std::vector<uint32_t>* n_categories) {
  return cuts_impl(sample, nullptr, max_bin, nthread, n_categories);
}

void set_value_range(Cuts* c, const std::vector<float>& mins, const std::vector<float>& maxs) {
  for (int f = 0; f < c->n_features(); ++f) {
    if (!(mins[f] <= maxs[f])) continue;  // no values: cuts and NaN minimum stay
    c->min_values[f] = mins[f] + 0.0f;  // -0 and +0: +0, whichever was seen first
    float& last = c->values[c->ptr[f + 1] - 1];
    last = std::max(last, last_cut_above(maxs[f]));
  }
}

Cuts compute_cuts(const ColumnInput& in, int max_bin, int nthread, size_t sample_rows,
                  const std::vector<uint32_t>* n_categories) {
  const int d = (int)in.columns.size();
  const size_t n = in.n_rows;
  if (sample_rows == 0) sample_rows = cut_sample_rows(d);
  const size_t take = std::min(n, sample_rows);
  Cuts c;
  if (take == n) {
    c = cuts_impl(in, nullptr, max_bin, nthread, n_categories);
  } else {
    std::vector<size_t> rows(take);
    for (size_t i = 0; i < take; ++i) rows[i] = cut_sample_row(i, n, take);
    c = cuts_impl(in, &rows, max_bin, nthread, n_categories);
  }
  std::vector<float> mins((size_t)d, INFINITY), maxs((size_t)d, -INFINITY);
  ThreadPool pool(nthread);
  pool.run((size_t)d, [&](size_t f, int) { column_range(in.columns[f], n, &mins[f], &maxs[f]); });
  set_value_range(&c, mins, maxs);
  return c;
}

}  // namespace gbdt
