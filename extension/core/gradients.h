// Per-row gradient/hessian of each objective, the deterministic exp they use,
// gradient quantization and row sampling: shared by the CPU and CUDA backends.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "common.h"
#include "params.h"
#include "split_math.h"

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

// exp() from + - * / and ldexp only, so host and device give the same bits
// (library exp() differs in the last ulp between glibc and CUDA).
GBDT_HD double det_exp(double x) {
  if (x != x) return x;
  if (x > 709.0) x = 709.0;
  if (x < -740.0) return 0.0;
  const double inv_ln2 = 1.4426950408889634;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
#if defined(__CUDA_ARCH__)
  double kd = rint(x * inv_ln2);
#else
  double kd = host_rint(x * inv_ln2);
#endif
  double r = (x - kd * ln2_hi) - kd * ln2_lo;
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

struct GradHess {
  double g;
  double h;
};

// Single-output objectives: gradient of the loss at margin m for label y.
GBDT_HD GradHess scalar_gradient(Objective obj, double m, double y, double max_delta_step) {
  switch (obj) {
    case Objective::kLogistic: {
      double p = det_sigmoid(m);
      double h = p * (1.0 - p);
      return GradHess{p - y, h < 1e-16 ? 1e-16 : h};
    }
    case Objective::kPoisson:
      return GradHess{det_exp(m) - y, det_exp(m + max_delta_step)};
    case Objective::kSquaredError:
    default:
      return GradHess{m - y, 1.0};
  }
}

// multi:softprob: gradient for class k of a row with margins m[0..K-1] and
// class label `label`.  `mx` and `sum` come from softmax_prepare.
GBDT_HD void softmax_prepare(const float* m, int K, double* mx, double* sum) {
  double a = (double)m[0];
  for (int k = 1; k < K; ++k)
    if ((double)m[k] > a) a = (double)m[k];
  double s = 0.0;
  for (int k = 0; k < K; ++k) s += det_exp((double)m[k] - a);
  *mx = a;
  *sum = s;
}

GBDT_HD GradHess softmax_gradient(const float* m, int k, double mx, double sum, int label) {
  double p = det_exp((double)m[k] - mx) / sum;
  double h = 2.0 * p * (1.0 - p);
  return GradHess{p - (label == k ? 1.0 : 0.0), h < 1e-16 ? 1e-16 : h};
}

// Scales chosen from the largest |g| and h so that the sum over all rows fits
// in 62 bits; powers of two, so dequantizing is exact.  Depends only on the
// maxima (order-independent reductions), never on summation order.
inline Quantizer make_quantizer(double max_abs_g, double max_h, uint64_t n_rows) {
  auto scale_for = [n_rows](double mx) {
    if (!(mx > 0.0)) return std::ldexp(1.0, 40);
    int e = 0;
    std::frexp(mx * (double)(n_rows ? n_rows : 1), &e);  // value < 2^e
    int s = 62 - e;
    if (s > 1000) s = 1000;
    return std::ldexp(1.0, s);
  };
  Quantizer q;
  q.g_scale = scale_for(max_abs_g);
  q.h_scale = scale_for(max_h);
  q.g_inv = 1.0 / q.g_scale;
  q.h_inv = 1.0 / q.h_scale;
  return q;
}

GBDT_HD int64_t quantize(double v, double scale) {
#if defined(__CUDA_ARCH__)
  return __double2ll_rn(v * scale);
#else
  return (int64_t)host_rint(v * scale);
#endif
}

// Deterministic per-(seed, round, row) uniform draw in [0, 1).
GBDT_HD uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

GBDT_HD bool row_in_sample(uint64_t seed, int round, uint64_t row, double subsample) {
  if (subsample >= 1.0) return true;
  uint64_t h = mix64(mix64(seed ^ 0x5851F42D4C957F2DULL) ^ mix64((uint64_t)round * 0x2545F4914F6CDD1DULL) ^ row);
  double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
  return u < subsample;
}

}  // namespace gbdt
