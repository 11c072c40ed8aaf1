// survival:aft (XGBoost 3.x's accelerated failure time loss, see the paper
// "Survival regression with accelerated failure time model in XGBoost",
// arXiv 2006.04920): log(T) = margin + sigma Z with Z normal, logistic or
// extreme-value distributed; every row's likelihood is the density at its
// time (uncensored) or the probability of its interval (censored).
#include <cmath>
#include <limits>
#include <sstream>

#include "../common/common.h"
#include "survival.h"

namespace gbdt {

const char* aft_distribution_name(int d) {
  switch (d) {
    case 1: return "logistic";
    case 2: return "extreme";
    default: return "normal";
  }
}

bool parse_aft_distribution(const std::string& name, int* out) {
  for (int d = 0; d < 3; ++d)
    if (name == aft_distribution_name(d)) {
      *out = d;
      return true;
    }
  return false;
}

namespace {

constexpr double kMinGrad = -15.0, kMaxGrad = 15.0;
constexpr double kMinHess = 1e-16, kMaxHess = 15.0;
constexpr double kEps = 1e-12;  // smallest denominator of the loss and the derivatives

double clip(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

// Density, distribution function and the density's first and second
// derivatives of the standard distributions (0 where exp overflows).
struct Dist {
  int kind;
  double pdf(double z) const {
    if (kind == 0) return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    const double w = std::exp(z);
    if (kind == 1) {
      if (std::isinf(w) || std::isinf(w * w)) return 0.0;
      return w / ((1 + w) * (1 + w));
    }
    return std::isinf(w) ? 0.0 : w * std::exp(-w);
  }
  double cdf(double z) const {
    if (kind == 0) return 0.5 * (1 + std::erf(z / std::sqrt(2.0)));
    const double w = std::exp(z);
    if (kind == 1) return std::isinf(w) ? 1.0 : w / (1 + w);
    return 1 - std::exp(-w);
  }
  double dpdf(double z) const {
    if (kind == 0) return -z * pdf(z);
    const double w = std::exp(z);
    if (std::isinf(w)) return 0.0;
    return kind == 1 ? pdf(z) * (1 - w) / (1 + w) : (1 - w) * pdf(z);
  }
  double d2pdf(double z) const {
    if (kind == 0) return (z * z - 1) * pdf(z);
    const double w = std::exp(z);
    if (std::isinf(w) || std::isinf(w * w)) return 0.0;
    return kind == 1 ? pdf(z) * (w * w - 4 * w + 1) / ((1 + w) * (1 + w))
                     : (w * w - 3 * w + 1) * pdf(z);
  }
};

enum class Censor { kNone, kRight, kLeft, kInterval };

// Limits of the gradient and hessian when the prediction is so far off that
// the fraction degenerates (sign: the z-score is positive).
double limit_grad(int kind, Censor c, bool sign, double sigma) {
  const double inv = 1.0 / sigma;
  switch (c) {
    case Censor::kRight: return sign ? (kind == 1 ? -inv : kMinGrad) : 0.0;
    case Censor::kLeft: return sign ? 0.0 : (kind == 0 ? kMaxGrad : inv);
    default:  // uncensored, interval
      if (kind == 0) return sign ? kMinGrad : kMaxGrad;
      if (kind == 1) return sign ? -inv : inv;
      return sign ? kMinGrad : inv;
  }
}

double limit_hess(int kind, Censor c, bool sign, double sigma) {
  if (kind == 1) return kMinHess;
  if (kind == 0) {
    const double v = 1.0 / (sigma * sigma);
    if (c == Censor::kRight) return sign ? v : kMinHess;
    if (c == Censor::kLeft) return sign ? kMinHess : v;
    return v;
  }
  if (c == Censor::kLeft) return kMinHess;
  return sign ? kMaxHess : kMinHess;
}

}  // namespace

double aft_loss(double lower, double upper, double margin, int dist, double sigma) {
  const Dist D{dist};
  if (lower == upper) {
    const double z = (std::log(lower) - margin) / sigma;
    return -std::log(std::fmax(D.pdf(z) / (sigma * lower), kEps));
  }
  const double cu = std::isinf(upper) ? 1.0 : D.cdf((std::log(upper) - margin) / sigma);
  const double cl = lower <= 0.0 ? 0.0 : D.cdf((std::log(lower) - margin) / sigma);
  return -std::log(std::fmax(cu - cl, kEps));
}

void aft_grad_hess(double lower, double upper, double margin, int dist, double sigma, double* g,
                   double* h) {
  const Dist D{dist};
  double gn, gd, hn, hd;  // numerators and denominators
  Censor c;
  bool sign;
  if (lower == upper) {
    const double z = (std::log(lower) - margin) / sigma;
    const double f = D.pdf(z), df = D.dpdf(z), d2f = D.d2pdf(z);
    c = Censor::kNone;
    sign = z > 0;
    gn = df;
    gd = sigma * f;
    hn = -(f * d2f - df * df);
    hd = sigma * sigma * f * f;
  } else {
    double zu = 0, zl = 0, fu = 0, fl = 0, Fu = 1, Fl = 0, dfu = 0, dfl = 0;
    c = Censor::kInterval;
    if (std::isinf(upper)) {
      c = Censor::kRight;
    } else {
      zu = (std::log(upper) - margin) / sigma;
      fu = D.pdf(zu);
      Fu = D.cdf(zu);
      dfu = D.dpdf(zu);
    }
    if (lower <= 0.0) {
      c = Censor::kLeft;
    } else {
      zl = (std::log(lower) - margin) / sigma;
      fl = D.pdf(zl);
      Fl = D.cdf(zl);
      dfl = D.dpdf(zl);
    }
    sign = zu > 0 || zl > 0;
    const double dF = Fu - Fl, df = fu - fl, ddf = dfu - dfl;
    gn = df;
    gd = sigma * dF;
    hn = -(dF * ddf - df * df);
    hd = (sigma * dF) * (sigma * dF);
  }
  double grad = gn / gd;
  if (gd < kEps && (std::isnan(grad) || std::isinf(grad))) grad = limit_grad(dist, c, sign, sigma);
  double hess = hn / hd;
  if (hd < kEps && (std::isnan(hess) || std::isinf(hess))) hess = limit_hess(dist, c, sign, sigma);
  *g = clip(grad, kMinGrad, kMaxGrad);
  *h = clip(hess, kMinHess, kMaxHess);
}

namespace {
std::string fmtv(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}
}  // namespace

void check_aft_bounds(const float* lower, const float* upper, size_t n,
                      const std::string& lower_column, const std::string& upper_column) {
  for (size_t i = 0; i < n; ++i) {
    const std::string row = " in row " + std::to_string(i + 1);
    if (!(lower[i] >= 0) || std::isinf(lower[i]))
      throw InvalidInput("target column \"" + lower_column + "\" (the lower bound of survival:aft) "
                         "has value " + fmtv(lower[i]) + row +
                         ": lower bounds must be finite and >= 0 (0 = left-censored)");
    if (std::isnan(upper[i]))
      throw InvalidInput("label_upper_bound_column \"" + upper_column + "\" has value NaN" + row +
                         ": upper bounds must be > 0, +Infinity or NULL (right-censored)");
    if (upper[i] < lower[i])
      throw InvalidInput("label_upper_bound_column \"" + upper_column + "\" has value " +
                         fmtv(upper[i]) + row + " below the lower bound " + fmtv(lower[i]) +
                         " of target column \"" + lower_column +
                         "\": the upper bound must be >= the lower bound");
    if (!(upper[i] > 0))
      throw InvalidInput("label_upper_bound_column \"" + upper_column + "\" has value " +
                         fmtv(upper[i]) + row +
                         ": upper bounds must be > 0, +Infinity or NULL (right-censored)");
  }
}

bool is_interval_metric(const std::string& name) {
  return name == "aft-nloglik" || name == "interval-regression-accuracy";
}

double interval_metric(const std::string& name, const double* pred, const float* lower,
                       const float* upper, size_t n, const float* w, int dist, double sigma) {
  double s = 0, sw = 0;
  const bool acc = name == "interval-regression-accuracy";
  for (size_t i = 0; i < n; ++i) {
    const double wi = w ? (double)w[i] : 1.0;
    double v;
    if (acc) {
      const double t = std::exp(pred[i]);
      v = (t >= (double)lower[i] && t <= (double)upper[i]) ? 1.0 : 0.0;
    } else {
      v = aft_loss((double)lower[i], (double)upper[i], pred[i], dist, sigma);
    }
    s += v * wi;
    sw += wi;
  }
  return sw == 0 ? s : s / sw;
}

}  // namespace gbdt
