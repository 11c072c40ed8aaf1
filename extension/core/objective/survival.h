// Survival analysis (XGBoost 3.x survival:cox and survival:aft): the
// gradients, computed on the host for both backends (handed to them through
// BoostData::external_gradients, as ranking's), the label rules and the
// metrics cox-nloglik, aft-nloglik and interval-regression-accuracy.
//
// survival:cox: the label is the survival time, negative = right-censored
// (XGBoost's convention); predictions are hazard ratios exp(margin).
// survival:aft: every row has an interval [lower, upper] of its survival
// time: lower = upper uncensored, upper = +inf right-censored, lower = 0
// left-censored; predictions are times exp(margin).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../gbm/params.h"

namespace gbdt {

// ---- parameters ----
// aft_loss_distribution: "normal" (0), "logistic" (1), "extreme" (2).
const char* aft_distribution_name(int d);
bool parse_aft_distribution(const std::string& name, int* out);

// ---- survival:aft ----
// Negative log likelihood of one row (margin = log of the predicted time).
double aft_loss(double lower, double upper, double margin, int dist, double sigma);
// Its gradient and hessian in the margin, clipped as XGBoost's.
void aft_grad_hess(double lower, double upper, double margin, int dist, double sigma, double* g,
                   double* h);
// Bounds: lower >= 0 and finite, upper >= lower and > 0 (+inf allowed), no
// NaN; throws InvalidInput naming the column, the row and the value.
void check_aft_bounds(const float* lower, const float* upper, size_t n,
                      const std::string& lower_column, const std::string& upper_column);

// ---- survival:cox ----
// Rows by |label|, ties in row order (XGBoost's LabelAbsSort).
std::vector<size_t> cox_order(const float* y, size_t n);
// Breslow gradients of the negative partial log likelihood (XGBoost's
// CoxRegression) at the margins (w null = unweighted).
void cox_gradients(const float* y, const float* w, const std::vector<size_t>& order,
                   const float* margins, double* g, double* h);
// Labels: finite and not 0 (negative = censored at |label|).
void check_cox_labels(const float* y, size_t n, const TrainParams& p, const std::string& target);
// cox-nloglik of hazard ratios `pred` (= exp(margin)), normalised by the
// number of events; NaN without events.
double cox_nloglik(const double* pred, const float* y, size_t n);

// ---- both ----
// The host gradients of a survival objective (BoostData::external_gradients):
// y = labels (cox) or lower bounds (aft), y_upper the upper bounds (aft).
std::function<void(int round, const float* margins, double* g, double* h)> survival_gradients(
    Objective o, const float* y, const float* y_upper, const float* w, size_t n,
    const TrainParams& p);

// cox-nloglik, aft-nloglik, interval-regression-accuracy.
bool is_survival_metric(const std::string& name);
// The metrics that need the labels' upper bounds (aft-nloglik,
// interval-regression-accuracy).
bool is_interval_metric(const std::string& name);
// Throws InvalidInput when the metric does not go with the objective
// (cox-nloglik: survival:cox; the interval metrics: survival:aft).
void check_survival_metric(const std::string& name, Objective o);
// aft-nloglik (pred = margins), interval-regression-accuracy (exp(margin)
// within the bounds), weighted as XGBoost.
double interval_metric(const std::string& name, const double* pred, const float* lower,
                       const float* upper, size_t n, const float* w, int dist, double sigma);

struct Model;
// gbdt_evaluate of a survival:aft model: aft-nloglik and
// interval-regression-accuracy of its predicted times `pred` (exp(margin))
// on rows with intervals [lower, upper] (checked as the training's, errors
// naming `target` and `upper_column`), with the model's recorded
// aft_loss_distribution and aft_loss_distribution_scale.
std::vector<std::pair<std::string, double>> evaluate_aft(const Model& m, const double* pred,
                                                         const float* lower,
                                                         const float* upper, size_t n,
                                                         const std::string& target,
                                                         const std::string& upper_column);

}  // namespace gbdt
