#include "column_checks.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gbdt_pg {

namespace {

// A missing value (NaN) as 0.0, with no branch: the double's bits masked.
inline double or_zero(double v, uint64_t keep) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  b &= keep;
  std::memcpy(&v, &b, 8);
  return v;
}

// All-ones when x is present (not NaN), else 0.
inline uint64_t present_mask(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return (b & 0x7fffffffu) > 0x7f800000u ? 0 : ~(uint64_t)0;
}

// The sums run in kLanes independent accumulators (one running double sum
// is one add per 4 cycles) and without a branch per row (missing values
// come and go at random in real columns).
constexpr int kLanes = 4;

ColumnCheck check_one(const float* x, const float* y, size_t n) {
  double sx[kLanes] = {}, sy[kLanes] = {};
  size_t m[kLanes] = {}, eq[kLanes] = {};
  // The first present value, then whether another present value differs.
  size_t r0 = 0;
  while (r0 < n && std::isnan(x[r0])) r0++;
  const float first = r0 < n ? x[r0] : 0.0f;
  size_t differ = 0;
  size_t r = 0;
  for (; r + kLanes <= n; r += kLanes)
    for (int l = 0; l < kLanes; l++) {
      const float v = x[r + l];
      const uint64_t keep = present_mask(v);
      const size_t ok = keep & 1;
      differ |= ok & (size_t)(v != first);
      eq[l] += ok & (size_t)(v == y[r + l]);
      sx[l] += or_zero((double)v, keep);
      sy[l] += or_zero((double)y[r + l], keep);
      m[l] += ok;
    }
  for (; r < n; r++) {
    const float v = x[r];
    const uint64_t keep = present_mask(v);
    const size_t ok = keep & 1;
    differ |= ok & (size_t)(v != first);
    eq[0] += ok & (size_t)(v == y[r]);
    sx[0] += or_zero((double)v, keep);
    sy[0] += or_zero((double)y[r], keep);
    m[0] += ok;
  }
  const size_t tm = m[0] + m[1] + m[2] + m[3];
  const size_t te = eq[0] + eq[1] + eq[2] + eq[3];
  double corr = 0;
  if (tm > 1) {
    const double mx = (sx[0] + sx[1] + sx[2] + sx[3]) / (double)tm;
    const double my = (sy[0] + sy[1] + sy[2] + sy[3]) / (double)tm;
    double cxy[kLanes] = {}, cxx[kLanes] = {}, cyy[kLanes] = {};
    auto add = [&](int l, size_t k) {
      const uint64_t keep = present_mask(x[k]);
      // A missing row adds 0 to each sum (dx = dy = 0).
      const double dx = or_zero((double)x[k] - mx, keep), dy = or_zero((double)y[k] - my, keep);
      cxy[l] += dx * dy;
      cxx[l] += dx * dx;
      cyy[l] += dy * dy;
    };
    size_t k = 0;
    for (; k + kLanes <= n; k += kLanes)
      for (int l = 0; l < kLanes; l++) add(l, k + l);
    for (; k < n; k++) add(0, k);
    const double a = cxy[0] + cxy[1] + cxy[2] + cxy[3];
    const double b = cxx[0] + cxx[1] + cxx[2] + cxx[3];
    const double c = cyy[0] + cyy[1] + cyy[2] + cyy[3];
    if (b > 0 && c > 0) corr = a / std::sqrt(b * c);
  }
  ColumnCheck out;
  // Missing on some rows only: the missingness may tell something.
  out.constant = tm == 0 || (differ == 0 && tm == n);
  out.equal = n > 0 ? (double)te / (double)n : 0;
  out.corr = corr;
  out.near_target = n > 0 && (out.equal >= 0.99 || std::fabs(corr) > 0.999);
  return out;
}

}  // namespace

void check_columns(const float* const* cols, int nf, const float* labels, size_t n,
                   ColumnCheck* out) {
  for (int f = 0; f < nf; f++) out[f] = check_one(cols[f], labels, n);
}

}  // namespace gbdt_pg
