#include "metrics.h"
#include "../gbm/multi_quantile.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <sstream>

#include "../common/common.h"
#include "../model/model.h"
#include "../objective/objective.h"
#include "../objective/lambdarank.h"
#include "../objective/survival.h"  // survival metrics
#include "class_metrics.h"

namespace gbdt {

std::string default_metric(Objective obj) { return objective_info(obj).default_metric; }

// auc and the ranking metrics ndcg, map, pre (ranking_metrics.cpp).
bool metric_higher_is_better(const std::string& name) {
  return name == "auc" || name == "aucpr" || is_rank_metric(name) || name == "interval-regression-accuracy";
}

namespace {

// NaN predictions or labels have no rank (and would break the sort's
// ordering): an error naming the metric, never a loop.
// pred(i): row i's prediction.
template <class Pred>
void check_no_nan_of(const char* metric, Pred&& pred, const float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (std::isnan(pred(i)))
      throw InvalidInput(std::string("metric \"") + metric + "\": prediction of row " +
                         std::to_string(i + 1) + " is NaN (the model's scores are not finite)");
    if (std::isnan(y[i]))
      throw InvalidInput(std::string("metric \"") + metric + "\": label of row " +
                         std::to_string(i + 1) + " is NaN");
  }
}

void check_no_nan(const char* metric, const double* p, size_t stride, const float* y, size_t n) {
  check_no_nan_of(metric, [&](size_t i) { return p[i * stride]; }, y, n);
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

// Weighted AUC: the weight of (positive, negative) pairs ranked right, ties
// counting one half, over the weight of all such pairs.
double weighted_auc(const double* p, const float* y, const float* w, size_t n) {
  check_no_nan("auc", p, 1, y, n);
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  double neg_below = 0, area = 0, pos = 0, neg = 0;
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && p[idx[j]] == p[idx[i]]) ++j;
    double tp = 0, tn = 0;
    for (size_t t = i; t < j; ++t) (y[idx[t]] > 0.5 ? tp : tn) += w[idx[t]];
    area += tp * (neg_below + 0.5 * tn);
    neg_below += tn;
    pos += tp;
    neg += tn;
    i = j;
  }
  if (pos == 0 || neg == 0) return NAN;
  return area / (pos * neg);
}

// The number after '@' in a metric name (error@0.7), or `dflt` without one.
double metric_arg(const std::string& name, double dflt) {
  size_t at = name.find('@');
  if (at == std::string::npos) return dflt;
  return std::strtod(name.c_str() + at + 1, nullptr);
}

}  // namespace

namespace {

// Where the metric loops find row i's K predictions and its loss term.
// DirectRows: n x K predictions, each row's term computed in turn.
struct DirectRows {
  static constexpr bool kDirect = true;
  const double* p;
  int K;
  const double* at(size_t i) const { return p + i * (size_t)K; }
  template <class F>
  double term(size_t i, F&& f) { return f(i); }
};

// row i stands for distinct row row_of[i] (row_dedup): its predictions
// are that row's, and a term that depends only on the predictions and the
// label (equal within a distinct row: the label is part of its key) is
// computed at the first row of each distinct row and reused after.  Sums
// still run over the n rows in order, so the metric is the same double.
struct DistinctRows {
  static constexpr bool kDirect = false;
  const double* p;
  int K;
  const uint32_t* row_of;
  std::vector<double> value;
  std::vector<uint8_t> known;
  const double* at(size_t i) const { return p + (size_t)row_of[i] * K; }
  template <class F>
  double term(size_t i, F&& f) {
    const uint32_t d = row_of[i];
    if (!known[d]) {
      value[d] = f(i);
      known[d] = 1;
    }
    return value[d];
  }
};

// auc() over rows that stand for distinct rows: the distinct rows are
// sorted instead of every row, and the tie groups (equal predictions), their
// ranks and the rank sum, added once per positive row, are auc()'s: the
// same double.
double distinct_auc(const DistinctRows& rows, const float* y, size_t n) {
  check_no_nan_of("auc", [&](size_t i) { return rows.at(i)[0]; }, y, n);
  const size_t D = rows.value.size();
  std::vector<uint64_t> count(D, 0), positive(D, 0);
  double pos = 0, neg = 0;
  for (size_t i = 0; i < n; ++i) {
    count[rows.row_of[i]]++;
    positive[rows.row_of[i]] += y[i] > 0.5;
    (y[i] > 0.5 ? pos : neg) += 1;
  }
  std::vector<uint32_t> idx;
  for (size_t d = 0; d < D; ++d)
    if (count[d] > 0) idx.push_back((uint32_t)d);
  auto pred = [&](uint32_t d) { return rows.p[(size_t)d * rows.K]; };
  std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) { return pred(a) < pred(b); });
  double rank_sum = 0;
  size_t i = 0;  // rows ranked so far
  for (size_t a = 0; a < idx.size();) {
    size_t b = a, rows_in = 0;
    uint64_t pos_in = 0;
    while (b < idx.size() && pred(idx[b]) == pred(idx[a])) {
      rows_in += count[idx[b]];
      pos_in += positive[idx[b]];
      ++b;
    }
    const size_t j = i + rows_in;
    const double avg = (double)(i + j + 1) / 2.0;
    for (uint64_t t = 0; t < pos_in; ++t) rank_sum += avg;
    i = j;
    a = b;
  }
  if (pos == 0 || neg == 0) return NAN;
  return (rank_sum - pos * (pos + 1) / 2.0) / (pos * neg);
}

template <class Rows>
double unweighted_metric(const std::string& name, Objective obj, int K, Rows& rows, const float* y,
                         size_t n, bool* supported);

template <class Rows>
double weighted_metric(const std::string& name, Objective obj, int K, Rows& rows, const float* y,
                       size_t n, const float* w, const MetricParams& mp, bool* supported) {
  // Per-row losses of the elementwise metrics added with the 0.2
  // objectives, averaged with the weights.
  const std::string base = name.substr(0, name.find('@'));
  // The metrics that are not a sum of per-row terms read the n x K
  // predictions as they are; with distinct rows the caller expands them.
  auto not_per_row = [&]() {
    *supported = false;
    return (double)NAN;
  };
  // several quantiles: the pinball loss over every output.
  if (base == "quantile" && mp.quantile_alphas != nullptr && mp.quantile_alphas->size() > 1 &&
      (size_t)K == mp.quantile_alphas->size()) {
    if constexpr (Rows::kDirect) return multi_quantile_metric(rows.p, y, n, w, *mp.quantile_alphas);
    return not_per_row();
  }
  auto mean_of = [&](auto loss) {
    double s = 0, sw = 0;
    for (size_t i = 0; i < n; ++i) {
      const double wi = w ? (double)w[i] : 1.0;
      s += wi * rows.term(i, [&](size_t j) { return loss(rows.at(j)[0], (double)y[j]); });
      sw += wi;
    }
    return s / sw;
  };
  if (n == 0) return NAN;
  if (base == "rmsle")
    return std::sqrt(mean_of([](double q, double t) {
      double d = std::log1p(q) - std::log1p(t);
      return d * d;
    }));
  if (base == "mape") return mean_of([](double q, double t) { return std::fabs((t - q) / t); });
  if (base == "mphe") {
    const double s = mp.huber_slope;
    return mean_of([s](double q, double t) {
      double z = (t - q) / s;
      return s * s * (std::sqrt(1 + z * z) - 1);
    });
  }
  if (base == "quantile") {
    const double a = mp.quantile_alpha;
    return mean_of([a](double q, double t) {
      double d = t - q;
      return d >= 0 ? a * d : (a - 1) * d;
    });
  }
  if (base == "gamma-deviance")
    return 2 * mean_of([](double q, double t) {
      double r = t / (q + 1e-16);
      return r - std::log(r) - 1;
    });
  if (base == "gamma-nloglik")
    return mean_of([](double q, double t) {
      // psi = 1: theta = -1/mu, b = -log(-theta), c = log(t) - log(t) - lgamma(1)
      double theta = -1.0 / q;
      return -((t * theta + std::log(-theta)) + 0.0);
    });
  if (base == "tweedie-nloglik") {
    const double rho = metric_arg(name, 1.5);
    return mean_of([rho](double q, double t) {
      double a = t * std::exp((1 - rho) * std::log(q)) / (1 - rho);
      double b = std::exp((2 - rho) * std::log(q)) / (2 - rho);
      return -a + b;
    });
  }
  // survival metrics (survival.h).
  if (name == "cox-nloglik") {
    if constexpr (Rows::kDirect) return cox_nloglik(rows.p, y, n);
    return not_per_row();
  }
  if (is_interval_metric(name)) {
    if constexpr (!Rows::kDirect) return not_per_row();
    if (mp.label_upper == nullptr)
      throw InvalidInput("metric \"" + name + "\" needs the labels' upper bounds "
                         "(survival:aft with label_upper_bound_column)");
    return interval_metric(name, rows.p, y, mp.label_upper, n, w, mp.aft_distribution,
                           mp.aft_scale);
  }
  if (base == "error" && name != "error") {
    const double t = metric_arg(name, 0.5);
    return mean_of([t](double q, double yy) { return (double)((q > t) != (yy > 0.5)); });
  }
  // average precision (sklearn's average_precision_score), weighted or not;
  // a sort of every row, so distinct rows are expanded by the caller.
  if (name == "aucpr") {
    if constexpr (!Rows::kDirect) return not_per_row();
    check_no_nan("aucpr", rows.p, (size_t)K, y, n);
    return average_precision(rows.p, y, w, n, CancelFn());
  }
  const bool classic = name == "rmse" || name == "mae" || name == "logloss" || name == "error" ||
                       name == "auc" || name == "mlogloss" || name == "merror" ||
                       name == "poisson-nloglik";
  if (!classic) throw InvalidInput("unknown metric \"" + name + "\"");
  if (!w) return unweighted_metric(name, obj, K, rows, y, n, supported);
  if (name == "auc") {
    if constexpr (Rows::kDirect) return weighted_auc(rows.p, y, w, n);
    return not_per_row();
  }
  if (name == "mlogloss" || name == "merror") {
    double s = 0, sw = 0;
    for (size_t i = 0; i < n; ++i) {
      const double l = rows.term(i, [&](size_t j) {
        const double* r = rows.at(j);
        const int c = class_index(name.c_str(), y[j], K, j);
        if (name == "mlogloss") return -std::log(std::max(r[c], 1e-15));
        return (double)((int)(std::max_element(r, r + K) - r) != c);
      });
      s += w[i] * l;
      sw += w[i];
    }
    return s / sw;
  }
  if (name == "rmse")
    return std::sqrt(mean_of([](double q, double t) { return (q - t) * (q - t); }));
  if (name == "mae") return mean_of([](double q, double t) { return std::fabs(q - t); });
  if (name == "logloss")
    return mean_of([](double q, double t) {
      q = std::min(std::max(q, 1e-15), 1 - 1e-15);
      return -(t * std::log(q) + (1 - t) * std::log(1 - q));
    });
  if (name == "error") return mean_of([](double q, double t) { return (double)((q > 0.5) != (t > 0.5)); });
  if (name == "poisson-nloglik")
    return mean_of([](double q, double t) {
      double mu = std::max(q, 1e-15);
      return mu - t * std::log(mu) + std::lgamma(t + 1.0);
    });
  throw InvalidInput("unknown metric \"" + name + "\"");
}

template <class Rows>
double unweighted_metric(const std::string& name, Objective obj, int K, Rows& rows, const float* y,
                         size_t n, bool* supported) {
  if (n == 0) return NAN;
  if (K < 1) throw InvalidInput("metric \"" + name + "\": bad number of outputs " + std::to_string(K));
  const double eps = 1e-15;
  // Sum of row i's term over the rows, in order.
  auto sum_of = [&](auto term) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += rows.term(i, term);
    return s;
  };
  if (name == "rmse" || name == "mae") {
    const bool sq = name == "rmse";
    const double s = sum_of([&](size_t i) {
      double e = rows.at(i)[0] - y[i];
      return sq ? e * e : std::fabs(e);
    });
    return sq ? std::sqrt(s / n) : s / n;
  }
  if (name == "logloss") {
    double s = 0;
    for (size_t i = 0; i < n; ++i)
      s -= rows.term(i, [&](size_t j) {
        double q = std::min(std::max(rows.at(j)[0], eps), 1 - eps);
        return y[j] * std::log(q) + (1 - y[j]) * std::log(1 - q);
      });
    return s / n;
  }
  if (name == "error")
    return sum_of([&](size_t i) { return (double)((rows.at(i)[0] > 0.5) != (y[i] > 0.5)); }) / n;
  if (name == "auc") {
    if constexpr (Rows::kDirect) return auc(rows.p, y, n);
    else return distinct_auc(rows, y, n);
  }
  if (name == "mlogloss") {
    double s = 0;
    for (size_t i = 0; i < n; ++i)
      s -= rows.term(i, [&](size_t j) {
        return std::log(std::max(rows.at(j)[class_index("mlogloss", y[j], K, j)], eps));
      });
    return s / n;
  }
  if (name == "merror")
    return sum_of([&](size_t i) {
             const double* r = rows.at(i);
             int best = (int)(std::max_element(r, r + K) - r);
             return (double)(best != class_index("merror", y[i], K, i));
           }) / n;
  if (name == "poisson-nloglik")
    return sum_of([&](size_t i) {
             double mu = std::max(rows.at(i)[0], eps);
             return mu - y[i] * std::log(mu) + std::lgamma(y[i] + 1.0);
           }) / n;
  return weighted_metric(name, obj, K, rows, y, n, nullptr, MetricParams(), supported);
}

}  // namespace

double compute_metric(const std::string& name, Objective obj, int K, const double* p,
                      const float* y, size_t n, const float* w, const MetricParams& mp) {
  DirectRows rows{p, K};
  bool supported = true;
  return weighted_metric(name, obj, K, rows, y, n, w, mp, &supported);
}

double compute_metric(const std::string& name, Objective obj, int K, const double* p,
                      const float* y, size_t n) {
  DirectRows rows{p, K};
  bool supported = true;
  return unweighted_metric(name, obj, K, rows, y, n, &supported);
}

bool compute_metric_distinct(const std::string& name, Objective obj, int K,
                             const double* distinct_pred, size_t n_distinct,
                             const uint32_t* row_of, const float* y, size_t n, const float* w,
                             const MetricParams& mp, double* out) {
  DistinctRows rows{distinct_pred, K, row_of, std::vector<double>(n_distinct),
                    std::vector<uint8_t>(n_distinct, 0)};
  bool supported = true;
  const double v = weighted_metric(name, obj, K, rows, y, n, w, mp, &supported);
  if (supported) *out = v;
  return supported;
}

std::vector<std::pair<std::string, double>> evaluate_model(const Model& m, const double* pred,
                                                           const float* y, size_t n,
                                                           double threshold,
                                                           const CancelFn& cancel) {
  const ObjectiveInfo& oi = objective_info(m.objective);
  if (m.objective == Objective::kQuantile && m.num_output_group > 1)  // K outputs per row
    return {{"quantile", multi_quantile_metric(pred, y, n, nullptr, model_quantile_alphas(m))}};
  std::vector<double> ev;
  if (oi.eval_transform && !oi.multiclass) {  // transform is the identity here
    ev.assign(pred, pred + n);
    for (double& v : ev) oi.eval_transform(&v, 1);
    pred = ev.data();
  }
  if (oi.binary) {
    std::vector<std::pair<std::string, double>> r;
    if (m.objective != Objective::kHinge) {
      r.emplace_back("auc", compute_metric("auc", m.objective, 1, pred, y, n));
      r.emplace_back("logloss", compute_metric("logloss", m.objective, 1, pred, y, n));
    }
    const BinaryCounts c = binary_counts(pred, y, n, threshold, cancel);
    // 1 - error, the very double of the "error" metric at 0.5.
    r.emplace_back("accuracy", 1.0 - (double)(c.fp + c.fn) / (double)n);
    // the threshold metrics (sklearn's definitions, class_metrics.h);
    // hinge predicts 0/1, not a probability: no ranking or Brier score.
    if (m.objective != Objective::kHinge)
      r.emplace_back("aucpr", average_precision(pred, y, nullptr, n, cancel));
    r.emplace_back("precision", precision_of(c));
    r.emplace_back("recall", recall_of(c));
    r.emplace_back("f1", f1_of(c));
    if (m.objective != Objective::kHinge) r.emplace_back("brier", brier(pred, y, n, cancel));
    return r;
  }
  if (oi.multiclass)
    return evaluate_all(m.objective, m.num_output_group, pred, y, n);
  // survival:cox is scored by its partial likelihood only (its
  // predictions are hazard ratios, not times).
  if (oi.code == Objective::kSurvivalCox)
    return {{"cox-nloglik", cox_nloglik(pred, y, n)}};
  std::vector<std::pair<std::string, double>> r = regression_metrics(m, pred, y, n, cancel);
  return r;
}

std::vector<std::pair<std::string, double>> regression_metrics(const Model& m, const double* pred,
                                                               const float* y, size_t n,
                                                               const CancelFn& cancel) {
  const ObjectiveInfo& oi = objective_info(m.objective);
  auto param = [&m](const char* k, double dflt) {
    for (const auto& kv : m.params)
      if (kv.first == k) return std::strtod(kv.second.c_str(), nullptr);
    return dflt;
  };
  std::vector<std::pair<std::string, double>> r =
      evaluate_all(Objective::kSquaredError, m.num_output_group, pred, y, n);
  // r2, mape and explained_variance as sklearn (class_metrics.h), after
  // rmse and mae.
  const RegressionScores rs = regression_scores(pred, y, n, cancel);
  r.emplace_back("r2", rs.r2);
  r.emplace_back("mape", rs.mape);
  r.emplace_back("explained_variance", rs.explained_variance);
  if (oi.code == Objective::kSquaredError || oi.code == Objective::kAbsoluteError) return r;
  // survival:aft's metrics need the upper bounds, read by gbdt_evaluate
  // (evaluate_aft): rmse and mae of the predicted times against the target
  // (the lower bound) here.
  if (oi.interval_labels) return r;
  MetricParams mp;
  mp.huber_slope = param("huber_slope", 1.0);
  mp.quantile_alpha = param("quantile_alpha", 0.5);
  std::string name = oi.default_metric;
  if (oi.code == Objective::kTweedie) {
    std::ostringstream o;
    o << name << '@' << param("tweedie_variance_power", 1.5);
    name = o.str();
  }
  r.emplace_back(name, compute_metric(name, m.objective, 1, pred, y, n, nullptr, mp));
  return r;
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
