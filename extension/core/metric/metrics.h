// Evaluation metrics (XGBoost's names) on transformed predictions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../common/common.h"
#include "../gbm/params.h"

namespace gbdt {

// pred: n x K in prediction space (probabilities for classification; for
// binary K == 1 and pred is P(class 1)); labels: n values.  Never loops on
// bad values: NaN predictions or labels for auc, and labels that are not a
// class index for mlogloss/merror, throw InvalidInput naming the metric;
// the other metrics return NaN when a value is NaN.
double compute_metric(const std::string& name, Objective obj, int K, const double* pred,
                      const float* labels, size_t n);

// The parameters some metrics take (mphe, quantile).
struct MetricParams {
  double huber_slope = 1.0;
  double quantile_alpha = 0.5;
  // several quantiles (one output each, n x K predictions): the
  // quantile metric averages over them; null = the one quantile_alpha.
  const std::vector<double>* quantile_alphas = nullptr;
  // survival:aft's metrics (aft-nloglik, interval-regression-accuracy):
  // the labels' upper bounds (n values; null: none) and the distribution.
  const float* label_upper = nullptr;
  int aft_distribution = 0;
  double aft_scale = 1.0;
};
// Weighted as XGBoost (sum of w * loss / sum of w; weighted ranks for auc);
// w null = unweighted (the same bits as the overload above).  error@t and
// tweedie-nloglik@p take their number from the name.
double compute_metric(const std::string& name, Objective obj, int K, const double* pred,
                      const float* labels, size_t n, const float* w, const MetricParams& mp);
// the same metric over n rows of which row i has the K predictions of
// distinct row row_of[i] (distinct_pred: n_distinct x K) and its own label
// and weight; labels must be equal within a distinct row (row_dedup.h).
// Each distinct row's loss is computed once and the sums run over the n
// rows in order (auc without weights: the distinct rows sorted, ranks and
// ties as over every row): *out is the very double compute_metric gives on
// the expanded predictions.  Returns false, *out untouched, for the metrics
// that are not so computed (weighted auc, whose sums within a tie follow
// the sort; cox-nloglik, the interval metrics, several quantiles): expand
// the predictions for those.
bool compute_metric_distinct(const std::string& name, Objective obj, int K,
                             const double* distinct_pred, size_t n_distinct,
                             const uint32_t* row_of, const float* labels, size_t n,
                             const float* w, const MetricParams& mp, double* out);
// The metric XGBoost uses by default for the objective.
std::string default_metric(Objective obj);
// Whether larger is better (auc, ndcg, map, pre) or smaller is better (the rest).
bool metric_higher_is_better(const std::string& name);
// gbdt_evaluate: rmse/mae (+ poisson-nloglik) for regression, auc/logloss/
// accuracy for binary, mlogloss/accuracy for multiclass.
std::vector<std::pair<std::string, double>> evaluate_all(Objective obj, int K, const double* pred,
                                                         const float* labels, size_t n);
// gbdt_evaluate of a single-output model on its predictions: evaluate_all
// plus the objective's own metric (mphe, quantile, rmsle, gamma-deviance,
// tweedie-nloglik@p with the model's parameters); binary:logitraw's margins
// are turned into probabilities for logloss.  Binary models add aucpr,
// precision, recall, f1 (a row is positive when P(class 1) > threshold;
// accuracy follows the same threshold) and brier; regression models add
// r2, mape and explained_variance after rmse and mae (class_metrics.h).
struct Model;
std::vector<std::pair<std::string, double>> evaluate_model(const Model& m, const double* pred,
                                                           const float* labels, size_t n,
                                                           double threshold = 0.5,
                                                           const CancelFn& cancel = CancelFn());
// The regression part of evaluate_model.
std::vector<std::pair<std::string, double>> regression_metrics(const Model& m, const double* pred,
                                                               const float* labels, size_t n,
                                                               const CancelFn& cancel);

}  // namespace gbdt
