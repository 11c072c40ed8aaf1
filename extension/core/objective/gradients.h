// Per-row gradient/hessian of each objective, the deterministic exp they use,
// gradient quantization and row sampling: shared by the CPU and CUDA backends.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "../common/common.h"
#include "../common/det_math.h"
#include "elementwise_grad.h"
#include "../gbm/params.h"
#include "../tree/split_math.h"

namespace gbdt {

// Objectives with one output per class (softmax over K margins).
GBDT_HD bool objective_is_multiclass(Objective obj) {
  return obj == Objective::kSoftprob || obj == Objective::kSoftmax;
}

// Single-output objectives: gradient of the loss at margin m for label y.
// The one dispatch from objective code to its gradient (objective_grad.h).
GBDT_HD GradHess scalar_gradient(Objective obj, double m, double y, const GradParams& gp) {
  switch (obj) {
    case Objective::kLogistic:
    case Objective::kLogitRaw: return grad_logistic(m, y);
    case Objective::kPoisson: return grad_poisson(m, y, gp.max_delta_step);
    case Objective::kAbsoluteError: return grad_absolute_error(m, y);
    case Objective::kPseudoHuber: return grad_pseudo_huber(m, y, gp.huber_slope);
    case Objective::kQuantile: return grad_quantile(m, y, gp.quantile_alpha);
    case Objective::kSquaredLog: return grad_squared_log(m, y);
    case Objective::kGamma: return grad_gamma(m, y);
    case Objective::kTweedie: return grad_tweedie(m, y, gp.tweedie_variance_power);
    case Objective::kHinge: return grad_hinge(m, y);
    case Objective::kSquaredError:
    default: return grad_squared_error(m, y);
  }
}

GBDT_HD GradHess scalar_gradient(Objective obj, double m, double y, double max_delta_step) {
  GradParams gp;
  gp.max_delta_step = max_delta_step;
  return scalar_gradient(obj, m, y, gp);
}

// A row's weight (null: unweighted, and the pair is left untouched).
GBDT_HD GradHess weighted(GradHess gh, const float* w, size_t r) {
  if (w) {
    gh.g *= (double)w[r];
    gh.h *= (double)w[r];
  }
  return gh;
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

// the quantized pair of a row that stands for `mult` identical training
// rows (row_dedup.h): exactly the sum of their `mult` equal pairs, as the
// histograms of all the rows would add them (the quantizer's scale is made
// for the rows represented, so the sum fits as it does without compression).
GBDT_HD GradSum quantize_rows(double g, double h, const Quantizer& q, int64_t mult) {
  return GradSum{quantize(g, q.g_scale) * mult, quantize(h, q.h_scale) * mult};
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
