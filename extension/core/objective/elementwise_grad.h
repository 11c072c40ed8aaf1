// Gradient and hessian of each single-output objective at margin m for
// label y (XGBoost 3.x's formulas), one GBDT_HD function per objective, used
// by both backends through scalar_gradient (gradients.h).  The host-side
// description of each objective (names, label check, base margin, transform,
// metric, JSON) is in objective_<family>.cpp.
#pragma once
#include "../common/common.h"
#include "../common/det_math.h"

namespace gbdt {

struct GradHess {
  double g;
  double h;
};

// The objective parameters the gradients read (TrainParams' values).
struct GradParams {
  double max_delta_step = 0.0;          // count:poisson
  double huber_slope = 1.0;             // reg:pseudohubererror
  double quantile_alpha = 0.5;          // reg:quantileerror
  double tweedie_variance_power = 1.5;  // reg:tweedie
};

// ---- regression ----
GBDT_HD GradHess grad_squared_error(double m, double y) { return GradHess{m - y, 1.0}; }

// reg:absoluteerror: sign of the residual, unit hessian.
GBDT_HD GradHess grad_absolute_error(double m, double y) {
  const double d = m - y;
  return GradHess{d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0), 1.0};
}

// reg:pseudohubererror: z / sqrt(1 + (z/slope)^2), hessian 1 / scale^1.5.
GBDT_HD GradHess grad_pseudo_huber(double m, double y, double slope) {
  const double z = m - y;
  const double scale = 1.0 + (z * z) / (slope * slope);
  const double r = sqrt(scale);
  return GradHess{z / r, 1.0 / (scale * r)};
}

// reg:quantileerror (pinball loss): 1 - alpha above the label, -alpha below.
GBDT_HD GradHess grad_quantile(double m, double y, double alpha) {
  return GradHess{m - y >= 0 ? 1.0 - alpha : -alpha, 1.0};
}

// reg:squaredlogerror: 1/2 (log1p(m) - log1p(y))^2, m clamped above -1.
GBDT_HD GradHess grad_squared_log(double m, double y) {
  const double p = m < -1.0 + 1e-6 ? -1.0 + 1e-6 : m;
  const double lp = det_log1p(p), ly = det_log1p(y);
  const double h = (-lp + ly + 1.0) / ((p + 1.0) * (p + 1.0));
  return GradHess{(lp - ly) / (p + 1.0), h < 1e-6 ? 1e-6 : h};
}

// ---- counts and positive targets (log link) ----
GBDT_HD GradHess grad_poisson(double m, double y, double max_delta_step) {
  return GradHess{det_exp(m) - y, det_exp(m + max_delta_step)};
}

GBDT_HD GradHess grad_gamma(double m, double y) {
  const double e = y * det_exp(-m);
  return GradHess{1.0 - e, e};
}

GBDT_HD GradHess grad_tweedie(double m, double y, double rho) {
  const double a = det_exp((1.0 - rho) * m), b = det_exp((2.0 - rho) * m);
  return GradHess{-y * a + b, -y * (1.0 - rho) * a + (2.0 - rho) * b};
}

// ---- binary ----
// binary:logistic and binary:logitraw (the same loss; only the output
// transform differs).
GBDT_HD GradHess grad_logistic(double m, double y) {
  const double p = det_sigmoid(m);
  const double h = p * (1.0 - p);
  return GradHess{p - y, h < 1e-16 ? 1e-16 : h};
}

// binary:hinge with labels 0/1 as -1/+1; a zero-gradient row keeps the
// smallest positive float as hessian (as XGBoost).
GBDT_HD GradHess grad_hinge(double m, double y) {
  const double s = 2.0 * y - 1.0;
  if (m * s < 1.0) return GradHess{-s, 1.0};
  return GradHess{0.0, 1.1754943508222875e-38};
}

// ---- multiclass (multi:softprob, multi:softmax) ----
// Gradient for class k of a row with margins m[0..K-1] and class label
// `label`; `mx` and `sum` come from softmax_prepare.
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

}  // namespace gbdt
