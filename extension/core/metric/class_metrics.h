// Threshold, ranking-curve, calibration and regression metrics of
// gbdt_evaluate and its curve functions, defined as scikit-learn defines
// them (average_precision_score, precision/recall/f1 with zero_division=0,
// brier_score_loss, r2_score, explained_variance_score,
// mean_absolute_percentage_error, f1_score macro/micro, roc_curve,
// calibration_curve with uniform bins).
//
// Binary inputs: p[i] is P(class 1) of row i (finite), y[i] its label
// (class 1 when y > 0.5).  Every loop over the rows polls `cancel` through
// a CancelPoller.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/common.h"

namespace gbdt {

// Average precision as sklearn's average_precision_score: the rows sorted
// by p descending, one step per distinct value of p (ties are one step),
// AP = sum over steps of (recall_k - recall_{k-1}) * precision_k.  w: row
// weights (null = 1 each).  NaN when there is no positive row (weight).
double average_precision(const double* p, const float* y, const float* w, size_t n,
                         const CancelFn& cancel);

// Counts of a binary prediction at a threshold: a row is predicted
// positive when p > threshold (the rule of the accuracy metric, XGBoost's
// "error").
struct BinaryCounts {
  uint64_t tp = 0, fp = 0, tn = 0, fn = 0;
};
BinaryCounts binary_counts(const double* p, const float* y, size_t n, double threshold,
                           const CancelFn& cancel);
// sklearn's zero_division = 0: precision 0 without predicted positives,
// recall 0 without positives, f1 0 when precision + recall is 0.
double precision_of(const BinaryCounts& c);
double recall_of(const BinaryCounts& c);
double f1_of(const BinaryCounts& c);

// Mean of (p - y)^2 (y as 0/1).
double brier(const double* p, const float* y, size_t n, const CancelFn& cancel);

// One point of the ROC / precision-recall curve: the rows with
// p >= threshold predicted positive.  The first point has threshold
// +Infinity (nothing positive), then one point per distinct p, descending.
struct CurvePoint {
  double threshold;
  uint64_t tp, fp;
};
std::vector<CurvePoint> roc_points(const double* p, const float* y, size_t n,
                                   const CancelFn& cancel);

// Calibration: `bins` equal-width bins of [0, 1] (p in [k/bins, (k+1)/bins)
// is bin k, p = 1 the last bin), as sklearn's calibration_curve with
// strategy "uniform".  Only the bins holding rows are returned.
struct CalibrationBin {
  int bin;              // 0-based
  double mean_predicted;
  double observed_rate; // share of rows labelled 1
  uint64_t count;
};
std::vector<CalibrationBin> calibration_bins(const double* p, const float* y, size_t n, int bins,
                                             const CancelFn& cancel);

// Multiclass F1 from per-class counts (K each): tp[k] rows of class k
// predicted k, actual[k] rows of class k, predicted[k] rows predicted k.
// macro = mean of the per-class F1 = 2 tp / (actual + predicted) over the
// classes that occur as an actual or a predicted class (sklearn's
// labels = unique(y_true, y_pred)); micro = the share of the n rows
// predicted right (single-label micro F1 = accuracy).
double f1_macro_of(const uint64_t* tp, const uint64_t* actual, const uint64_t* predicted, int K);
double f1_micro_of(const uint64_t* tp, size_t n, int K);

// Regression, as sklearn (force_finite): r2 = 1 - SS_res / SS_tot and
// explained_variance = 1 - Var(y - p) / Var(y), both 1 when the labels are
// constant and the predictions exact, else 0 when the labels are constant;
// mape = mean(|y - p| / max(|y|, DBL_EPSILON)) (a zero label makes a huge
// term, as sklearn's mean_absolute_percentage_error; it is a fraction, not
// a percentage).
struct RegressionScores {
  double r2, explained_variance, mape;
};
RegressionScores regression_scores(const double* p, const float* y, size_t n,
                                   const CancelFn& cancel);

}  // namespace gbdt
