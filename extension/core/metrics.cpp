#include "metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common.h"

namespace gbdt {

std::string default_metric(Objective obj) {
  switch (obj) {
    case Objective::kLogistic: return "logloss";
    case Objective::kSoftprob: return "mlogloss";
    case Objective::kPoisson: return "poisson-nloglik";
    default: return "rmse";
  }
}

bool metric_higher_is_better(const std::string& name) { return name == "auc"; }

namespace {

// NaN predictions or labels have no rank (and would break the sort's
// ordering): an error naming the metric, never a loop.
void check_no_nan(const char* metric, const double* p, size_t stride, const float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(p[i * stride]))
      throw InvalidInput(std::string("metric \"") + metric + "\": prediction of row " +
                         std::to_string(i + 1) + " is NaN (the model's scores are not finite)");
    if (std::isnan(y[i]))
      throw InvalidInput(std::string("metric \"") + metric + "\": label of row " +
                         std::to_string(i + 1) + " is NaN");
  }
}

// A class label that indexes the K probabilities of a row.
int class_index(const char* metric, float y, int K, size_t row) {
  if (!(y >= 0 && y < (float)K) || y != std::floor(y))
    throw InvalidInput(std::string("metric \"") + metric + "\": label " + std::to_string(y) +
                       " of row " + std::to_string(row + 1) + " is not a class in 0 .. " +
                       std::to_string(K - 1));
  return (int)y;
}

double auc(const double* p, const float* y, size_t n) {
  check_no_nan("auc", p, 1, y, n);
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  // Mann-Whitney U with average ranks for ties.
  double pos = 0, neg = 0, rank_sum = 0;
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;  // always advances, whatever the values
    while (j < n && p[idx[j]] == p[idx[i]]) ++j;
    double avg = (double)(i + j + 1) / 2.0;  // ranks are 1-based
    for (size_t t = i; t < j; ++t)
      if (y[idx[t]] > 0.5) rank_sum += avg;
    i = j;
  }
  for (size_t t = 0; t < n; ++t) (y[t] > 0.5 ? pos : neg) += 1;
  if (pos == 0 || neg == 0) return NAN;
  return (rank_sum - pos * (pos + 1) / 2.0) / (pos * neg);
}

}  // namespace

double compute_metric(const std::string& name, Objective obj, int K, const double* p,
                      const float* y, size_t n) {
  if (n == 0) return NAN;
  if (K < 1) throw InvalidInput("metric \"" + name + "\": bad number of outputs " + std::to_string(K));
  const double eps = 1e-15;
  double s = 0;
  if (name == "rmse" || name == "mae") {
    for (size_t i = 0; i < n; ++i) {
      double e = p[i * K] - y[i];
      s += name == "rmse" ? e * e : std::fabs(e);
    }
    return name == "rmse" ? std::sqrt(s / n) : s / n;
  }
  if (name == "logloss") {
    for (size_t i = 0; i < n; ++i) {
      double q = std::min(std::max(p[i], eps), 1 - eps);
      s -= y[i] * std::log(q) + (1 - y[i]) * std::log(1 - q);
    }
    return s / n;
  }
  if (name == "error") {
    for (size_t i = 0; i < n; ++i) s += ((p[i] > 0.5) != (y[i] > 0.5));
    return s / n;
  }
  if (name == "auc") return auc(p, y, n);
  if (name == "mlogloss") {
    for (size_t i = 0; i < n; ++i)
      s -= std::log(std::max(p[i * K + class_index("mlogloss", y[i], K, i)], eps));
    return s / n;
  }
  if (name == "merror") {
    for (size_t i = 0; i < n; ++i) {
      const double* r = p + i * K;
      int best = (int)(std::max_element(r, r + K) - r);
      s += best != class_index("merror", y[i], K, i);
    }
    return s / n;
  }
  if (name == "poisson-nloglik") {
    for (size_t i = 0; i < n; ++i) {
      double mu = std::max(p[i], eps);
      s += mu - y[i] * std::log(mu) + std::lgamma(y[i] + 1.0);
    }
    return s / n;
  }
  throw InvalidInput("unknown metric \"" + name + "\"");
}

std::vector<std::pair<std::string, double>> evaluate_all(Objective obj, int K, const double* p,
                                                         const float* y, size_t n) {
  std::vector<std::pair<std::string, double>> r;
  auto add = [&](const char* m) { r.emplace_back(m, compute_metric(m, obj, K, p, y, n)); };
  switch (obj) {
    case Objective::kLogistic:
      add("auc");
      add("logloss");
      r.emplace_back("accuracy", 1.0 - compute_metric("error", obj, K, p, y, n));
      break;
    case Objective::kSoftprob:
      add("mlogloss");
      r.emplace_back("accuracy", 1.0 - compute_metric("merror", obj, K, p, y, n));
      break;
    case Objective::kPoisson:
      add("rmse");
      add("mae");
      add("poisson-nloglik");
      break;
    default:
      add("rmse");
      add("mae");
  }
  return r;
}

}  // namespace gbdt
