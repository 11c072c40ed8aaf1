// Deterministic elementary functions from + - * / (and exact scalings), so
// the CPU and CUDA backends compute the same bits: library exp()/log()
// differ in the last ulp between glibc and CUDA.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "common.h"

namespace gbdt {

#if !defined(__CUDA_ARCH__)
// Host-side, inline and bit-identical replacements for std::nearbyint and
// std::ldexp (library calls at -O2 without SSE4.1): round-to-nearest-even via
// the 2^52 trick (exact for |x| < 2^52; larger doubles are integers already),
// sign of zero kept like nearbyint; ldexp as a multiplication by an exact
// power of two (IEEE multiplication rounds the exact product like ldexp).
inline double host_rint(double x) {
  const double two52 = 4503599627370496.0;
  double a = std::fabs(x);
  if (!(a < two52)) return x;  // integers, inf and NaN
  double t = (a + two52) - two52;
  return std::copysign(t, x);
}
inline double host_ldexp(double p, int k) {
  if (k < -1022 || k > 1023) return std::ldexp(p, k);
  uint64_t bits = (uint64_t)(k + 1023) << 52;
  double s;
  std::memcpy(&s, &bits, sizeof s);
  return p * s;
}
#endif

// Range reduction of det_exp and det_log (and of the vector exp in
// gradient_simd.cpp): 1/ln 2, and ln 2 split into a high part whose last
// 21 bits are zero (k * kLn2Hi is exact for every k these functions use,
// |k| < 2^11) and the rest.
constexpr double kInvLn2 = 1.4426950408889634;
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;

// exp() from + - * / and ldexp only, so host and device give the same bits
// (library exp() differs in the last ulp between glibc and CUDA).
GBDT_HD double det_exp(double x) {
  if (x != x) return x;
  if (x > 709.0) x = 709.0;
  if (x < -740.0) return 0.0;
#if defined(__CUDA_ARCH__)
  double kd = rint(x * kInvLn2);
#else
  double kd = host_rint(x * kInvLn2);
#endif
  double r = (x - kd * kLn2Hi) - kd * kLn2Lo;
  // Taylor series to degree 13 (|r| <= 0.35: truncation error < 1e-17).
  double p = 1.6059043836821613e-10;             // 1/13!
  p = p * r + 2.08767569878681e-09;              // 1/12!
  p = p * r + 2.505210838544172e-08;             // 1/11!
  p = p * r + 2.755731922398589e-07;             // 1/10!
  p = p * r + 2.7557319223985893e-06;            // 1/9!
  p = p * r + 2.48015873015873e-05;              // 1/8!
  p = p * r + 0.0001984126984126984;             // 1/7!
  p = p * r + 0.001388888888888889;              // 1/6!
  p = p * r + 0.008333333333333333;              // 1/5!
  p = p * r + 0.041666666666666664;              // 1/4!
  p = p * r + 0.16666666666666666;               // 1/3!
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
#if defined(__CUDA_ARCH__)
  return ldexp(p, (int)kd);
#else
  return host_ldexp(p, (int)kd);
#endif
}

GBDT_HD double det_sigmoid(double m) { return 1.0 / (1.0 + det_exp(-m)); }

// log(x) for x > 0: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), then
// log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716, by its series
// (terms to s^29: truncation error < 1e-22).  0 -> -inf, x < 0 or NaN -> NaN.
GBDT_HD double det_log(double x) {
  if (x != x || x < 0) return NAN;
  if (x == 0) return -INFINITY;
  if (x > 1.79e308) return x;  // inf
  int e = 0;
  double m = frexp(x, &e);  // m in [0.5, 1): exact
  if (m < 0.70710678118654752) {
    m *= 2.0;
    e -= 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 29.0;
  for (int k = 27; k >= 1; k -= 2) p = p * s2 + 1.0 / (double)k;
  return (double)e * kLn2Hi + (2.0 * s * p + (double)e * kLn2Lo);
}

// log(1 + x) for x > -1, accurate for small |x| (the u - 1 correction).
GBDT_HD double det_log1p(double x) {
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  return det_log(u) * (x / (u - 1.0));
}

}  // namespace gbdt
