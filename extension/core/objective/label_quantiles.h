// Quantiles of labels (or residuals) that stop on cancel: the order of the
// values is found by a merge sort that counts its work through a
// CancelPoller, so sorting millions of rows, or computing many quantiles
// (reg:quantileerror with a quantile_alpha list), polls the cancel callback
// every few milliseconds instead of running to the end.
#pragma once
#include <cstddef>
#include <vector>

#include "../common/interruptible.h"

namespace gbdt {

// The indices 0 .. n-1 ordered by y[i] ascending, ties in index order: the
// order std::stable_sort gives (there is only one), found by sorting runs
// and merging them, ticking *poll per element placed (throws Cancelled).
// poll may be null (never cancelled).  y must hold no NaN.
void stable_value_order(const float* y, size_t n, std::vector<size_t>* idx, CancelPoller* poll);

// XGBoost's alpha-quantile of y given its stable_value_order idx:
// unweighted, linear between order statistics at alpha (n + 1); weighted
// (w not null), the first value whose cumulative weight reaches alpha of
// the total.  cdf: the cumulative weights along idx (weighted only;
// cumulative_weights()).
double quantile_from_order(const float* y, size_t n, const std::vector<size_t>& idx,
                           const std::vector<double>* cdf, double alpha);

// The cumulative weights w[idx[0]], w[idx[0]] + w[idx[1]], ... into *cdf.
void cumulative_weights(const float* w, const std::vector<size_t>& idx, std::vector<double>* cdf);

// The alpha-quantile of y (the rule of quantile_from_order), ticking *poll
// while sorting (null: never cancelled).
double label_quantile_polled(const float* y, const float* w, size_t n, double alpha,
                             CancelPoller* poll);

// The alpha-quantile of y for every alpha, from one sort (each the value
// label_quantile gives for it alone).  Polls cancel (throws Cancelled).
std::vector<double> label_quantiles(const float* y, const float* w, size_t n,
                                    const std::vector<double>& alphas, const CancelFn& cancel);

}  // namespace gbdt
