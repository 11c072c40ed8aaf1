#include "class_metrics.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>

#include "../common/interruptible.h"

namespace gbdt {

namespace {

bool positive(float y) { return y > 0.5f; }

// Row indices sorted by p descending (ties keep no particular order: every
// use groups equal values).  Polls before and after the sort, which
// cannot be split.
std::vector<size_t> by_score_descending(const double* p, size_t n, CancelPoller* poll) {
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  poll->poll_now();
  std::sort(idx.begin(), idx.end(), [p](size_t a, size_t b) { return p[a] > p[b]; });
  poll->poll_now();
  return idx;
}

double safe_div(double a, double b) { return b > 0 ? a / b : 0.0; }

}  // namespace

double average_precision(const double* p, const float* y, const float* w, size_t n,
                         const CancelFn& cancel) {
  CancelPoller poll(cancel);
  const std::vector<size_t> idx = by_score_descending(p, n, &poll);
  double total_pos = 0;
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    if (positive(y[i])) total_pos += w ? (double)w[i] : 1.0;
  }
  if (!(total_pos > 0)) return NAN;
  // One step per group of equal scores: the cumulative true and false
  // positive weights at the group's end give its precision and recall.
  double tp = 0, fp = 0, prev_recall = 0, ap = 0;
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    do {
      poll.tick();
      const double wi = w ? (double)w[idx[j]] : 1.0;
      (positive(y[idx[j]]) ? tp : fp) += wi;
      ++j;
    } while (j < n && p[idx[j]] == p[idx[i]]);
    const double recall = tp / total_pos;
    ap += (recall - prev_recall) * safe_div(tp, tp + fp);
    prev_recall = recall;
    i = j;
  }
  return ap;
}

BinaryCounts binary_counts(const double* p, const float* y, size_t n, double threshold,
                           const CancelFn& cancel) {
  CancelPoller poll(cancel);
  BinaryCounts c;
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    const bool pred = p[i] > threshold, act = positive(y[i]);
    if (pred) (act ? c.tp : c.fp)++;
    else (act ? c.fn : c.tn)++;
  }
  return c;
}

double precision_of(const BinaryCounts& c) { return safe_div((double)c.tp, (double)(c.tp + c.fp)); }
double recall_of(const BinaryCounts& c) { return safe_div((double)c.tp, (double)(c.tp + c.fn)); }
double f1_of(const BinaryCounts& c) {
  // 2 tp / (2 tp + fp + fn), sklearn's form (0 when there is no tp).
  return safe_div(2.0 * (double)c.tp, 2.0 * (double)c.tp + (double)c.fp + (double)c.fn);
}

double brier(const double* p, const float* y, size_t n, const CancelFn& cancel) {
  CancelPoller poll(cancel);
  if (n == 0) return NAN;
  double s = 0;
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    const double d = p[i] - (positive(y[i]) ? 1.0 : 0.0);
    s += d * d;
  }
  return s / (double)n;
}

std::vector<CurvePoint> roc_points(const double* p, const float* y, size_t n,
                                   const CancelFn& cancel) {
  CancelPoller poll(cancel);
  const std::vector<size_t> idx = by_score_descending(p, n, &poll);
  std::vector<CurvePoint> r;
  r.push_back(CurvePoint{INFINITY, 0, 0});
  uint64_t tp = 0, fp = 0;
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    do {
      poll.tick();
      (positive(y[idx[j]]) ? tp : fp)++;
      ++j;
    } while (j < n && p[idx[j]] == p[idx[i]]);
    r.push_back(CurvePoint{p[idx[i]], tp, fp});
    i = j;
  }
  return r;
}

std::vector<CalibrationBin> calibration_bins(const double* p, const float* y, size_t n, int bins,
                                             const CancelFn& cancel) {
  CancelPoller poll(cancel);
  std::vector<double> sum_p((size_t)bins, 0.0), sum_y((size_t)bins, 0.0);
  std::vector<uint64_t> count((size_t)bins, 0);
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    // p outside [0, 1] (a margin, never from a probability model) is
    // clamped into the first or last bin.
    double b = std::floor(p[i] * bins);
    int k = b < 0 ? 0 : b >= bins ? bins - 1 : (int)b;
    sum_p[k] += p[i];
    sum_y[k] += positive(y[i]) ? 1.0 : 0.0;
    count[k]++;
  }
  std::vector<CalibrationBin> r;
  for (int k = 0; k < bins; ++k)
    if (count[k] > 0)
      r.push_back(CalibrationBin{k, sum_p[k] / (double)count[k], sum_y[k] / (double)count[k],
                                 count[k]});
  return r;
}

double f1_macro_of(const uint64_t* tp, const uint64_t* actual, const uint64_t* predicted, int K) {
  double sum = 0;
  int present = 0;
  for (int k = 0; k < K; ++k) {
    if (actual[k] == 0 && predicted[k] == 0) continue;
    sum += safe_div(2.0 * (double)tp[k], (double)actual[k] + (double)predicted[k]);
    present++;
  }
  return present > 0 ? sum / present : NAN;
}

double f1_micro_of(const uint64_t* tp, size_t n, int K) {
  uint64_t right = 0;
  for (int k = 0; k < K; ++k) right += tp[k];
  return n > 0 ? (double)right / (double)n : NAN;
}

RegressionScores regression_scores(const double* p, const float* y, size_t n,
                                   const CancelFn& cancel) {
  CancelPoller poll(cancel);
  RegressionScores r{NAN, NAN, NAN};
  if (n == 0) return r;
  double sum_y = 0, sum_d = 0, mape = 0;
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    const double t = y[i], d = t - p[i];
    sum_y += t;
    sum_d += d;
    mape += std::fabs(d) / std::max(std::fabs(t), DBL_EPSILON);
  }
  const double mean_y = sum_y / (double)n, mean_d = sum_d / (double)n;
  double ss_res = 0, ss_tot = 0, ss_dev = 0;
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    const double t = y[i], d = t - p[i];
    ss_res += d * d;
    ss_tot += (t - mean_y) * (t - mean_y);
    ss_dev += (d - mean_d) * (d - mean_d);
  }
  // sklearn's force_finite: constant labels give 1 for an exact fit, else 0.
  auto score = [&](double num) { return ss_tot > 0 ? 1.0 - num / ss_tot : num == 0 ? 1.0 : 0.0; };
  r.r2 = score(ss_res);
  r.explained_variance = score(ss_dev);
  r.mape = mape / (double)n;
  return r;
}

}  // namespace gbdt
