// Evaluation metrics (XGBoost's names) on transformed predictions.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "params.h"

namespace gbdt {

// pred: n x K in prediction space (probabilities for classification; for
// binary K == 1 and pred is P(class 1)); labels: n values.  Never loops on
// bad values: NaN predictions or labels for auc, and labels that are not a
// class index for mlogloss/merror, throw InvalidInput naming the metric;
// the other metrics return NaN when a value is NaN.
double compute_metric(const std::string& name, Objective obj, int K, const double* pred,
                      const float* labels, size_t n);
// The metric XGBoost uses by default for the objective.
std::string default_metric(Objective obj);
// Whether larger is better (auc) or smaller is better (the rest).
bool metric_higher_is_better(const std::string& name);
// gbdt_evaluate: rmse/mae (+ poisson-nloglik) for regression, auc/logloss/
// accuracy for binary, mlogloss/accuracy for multiclass.
std::vector<std::pair<std::string, double>> evaluate_all(Objective obj, int K, const double* pred,
                                                         const float* labels, size_t n);

}  // namespace gbdt
