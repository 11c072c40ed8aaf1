// survival:cox (XGBoost 3.x's CoxRegression): Cox proportional hazards with
// Breslow's handling of ties; the label is the time, negative when the row
// is right-censored.  The risk sets need the rows in time order, so the
// gradients are computed on the host (once per round) for both backends.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>

#include "../common/common.h"
#include "survival.h"

namespace gbdt {

std::vector<size_t> cox_order(const float* y, size_t n) {
  std::vector<size_t> o(n);
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(),
                   [y](size_t a, size_t b) { return std::fabs(y[a]) < std::fabs(y[b]); });
  return o;
}

void cox_gradients(const float* y, const float* w, const std::vector<size_t>& order,
                   const float* margins, double* g, double* h) {
  const size_t n = order.size();
  // Sum of exp(margin) over the rows still at risk (time >= the current).
  double at_risk = 0;
  for (size_t i = 0; i < n; ++i) at_risk += std::exp((double)margins[order[i]]);
  double r = 0, s = 0;  // sums of 1/at_risk and 1/at_risk^2 over the events so far
  double prev_exp = 0, prev_time = 0, pending = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t k = order[i];
    const double e = std::exp((double)margins[k]);
    const double t = std::fabs((double)y[k]);
    // Rows leave the risk set only once the time moves on (ties: Breslow).
    pending += prev_exp;
    if (prev_time < t) {
      at_risk -= pending;
      pending = 0;
    }
    if (y[k] > 0) {
      r += 1.0 / at_risk;
      s += 1.0 / (at_risk * at_risk);
    }
    const double wk = w ? (double)w[k] : 1.0;
    g[k] = (e * r - (y[k] > 0 ? 1.0 : 0.0)) * wk;
    h[k] = (e * r - e * e * s) * wk;
    prev_time = t;
    prev_exp = e;
  }
}

void check_cox_labels(const float* y, size_t n, const TrainParams&, const std::string& target) {
  for (size_t i = 0; i < n; ++i)
    if (!(y[i] != 0) || !std::isfinite(y[i])) {
      std::ostringstream v;
      v << y[i];
      throw InvalidInput("target column \"" + target + "\" has value " + v.str() + " in row " +
                         std::to_string(i + 1) +
                         ": survival:cox needs survival times != 0 (positive: the event was "
                         "observed at that time, negative: right-censored at its absolute value)");
    }
}

double cox_nloglik(const double* pred, const float* y, size_t n) {
  const std::vector<size_t> order = cox_order(y, n);
  double at_risk = 0;
  for (size_t i = 0; i < n; ++i) at_risk += pred[i];
  double out = 0, pending = 0;
  size_t events = 0;
  for (size_t i = 0; i < n; ++i) {
    const size_t k = order[i];
    if (y[k] > 0) {
      out -= std::log(pred[k]) - std::log(at_risk);
      ++events;
    }
    pending += pred[k];
    if (i + 1 == n || std::fabs(y[k]) < std::fabs(y[order[i + 1]])) {
      at_risk -= pending;
      pending = 0;
    }
  }
  return events ? out / (double)events : NAN;
}

std::function<void(int, const float*, double*, double*)> survival_gradients(
    Objective o, const float* y, const float* y_upper, const float* w, size_t n,
    const TrainParams& p) {
  if (o == Objective::kSurvivalCox) {
    auto order = std::make_shared<std::vector<size_t>>(cox_order(y, n));
    return [order, y, w](int, const float* m, double* g, double* h) {
      cox_gradients(y, w, *order, m, g, h);
    };
  }
  const int dist = p.aft_distribution;
  const double sigma = p.aft_scale;
  return [y, y_upper, w, n, dist, sigma](int, const float* m, double* g, double* h) {
    for (size_t i = 0; i < n; ++i) {
      aft_grad_hess((double)y[i], (double)y_upper[i], (double)m[i], dist, sigma, &g[i], &h[i]);
      if (w) {
        g[i] *= (double)w[i];
        h[i] *= (double)w[i];
      }
    }
  };
}

bool is_survival_metric(const std::string& name) {
  return name == "cox-nloglik" || is_interval_metric(name);
}

void check_survival_metric(const std::string& name, Objective o) {
  if (name == "cox-nloglik" && o != Objective::kSurvivalCox)
    throw InvalidInput("parameter \"eval_metric\" = \"cox-nloglik\" needs objective survival:cox");
  if (is_interval_metric(name) && o != Objective::kSurvivalAft)
    throw InvalidInput("parameter \"eval_metric\" = \"" + name +
                       "\" needs objective survival:aft (labels with lower and upper bounds)");
}

}  // namespace gbdt
