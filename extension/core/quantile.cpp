#include "quantile.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "thread_pool.h"

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

// Cuts of one feature from its sorted non-missing sample values and its true
// minimum/maximum over all rows.
void feature_cuts(std::vector<float>& s, float lo, float hi, int max_bins, std::vector<float>* out) {
  out->clear();
  if (s.empty()) {
    out->push_back(1.0f);
    return;
  }
  sort_values(s);
  size_t m = s.size();
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
  // The last cut lies strictly above the maximum over all rows.
  float last = hi + std::fabs(hi) * 1e-5f + 1e-5f;
  if (!(last > hi)) last = std::nextafter(hi, INFINITY);
  while (!out->empty() && out->back() >= last) out->pop_back();
  out->push_back(last);
}

}  // namespace

Cuts compute_cuts(const ColumnInput& in, int max_bin, int nthread, size_t sample_rows) {
  const int d = (int)in.columns.size();
  const size_t n = in.n_rows;
  const int max_bins = std::min(max_bin, kMaxValueBins);
  const size_t take = std::min(n, std::max<size_t>(sample_rows, 1));
  std::vector<std::vector<float>> per_feature(d);
  std::vector<float> mins(d, NAN);
  ThreadPool pool(nthread);
  pool.run((size_t)d, [&](size_t f, int) {
    const float* col = in.columns[f];
    float lo = INFINITY, hi = -INFINITY;
    for (size_t r = 0; r < n; ++r) {
      float v = col[r];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    std::vector<float> s;
    s.reserve(take);
    for (size_t i = 0; i < take; ++i) {
      size_t r = (take == n) ? i : (size_t)((double)i * (double)n / (double)take);
      float v = col[r];
      if (v == v) s.push_back(v);
    }
    if (s.empty() && lo <= hi) {  // sample saw only missing values: take any value
      for (size_t r = 0; r < n; ++r)
        if (col[r] == col[r]) s.push_back(col[r]);
    }
    if (lo <= hi) mins[f] = lo;
    feature_cuts(s, lo, hi, max_bins, &per_feature[f]);
  });
  Cuts c;
  c.ptr.resize(d + 1);
  c.ptr[0] = 0;
  for (int f = 0; f < d; ++f) c.ptr[f + 1] = c.ptr[f] + (uint32_t)per_feature[f].size();
  c.values.reserve(c.ptr[d]);
  for (int f = 0; f < d; ++f)
    c.values.insert(c.values.end(), per_feature[f].begin(), per_feature[f].end());
  c.min_values = mins;
  return c;
}

}  // namespace gbdt
