// The metrics of class_metrics.h against values scikit-learn 1.x gives for
// the same inputs (computed with sklearn.metrics, quoted here).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "metric/class_metrics.h"
#include "metric/metrics.h"

namespace {

using gbdt::CancelFn;

TEST(ClassMetrics, AveragePrecisionMatchesSklearn) {
  // average_precision_score([0,0,1,1], [0.1,0.4,0.35,0.8]) (sklearn's doc example)
  const double p[] = {0.1, 0.4, 0.35, 0.8};
  const float y[] = {0, 0, 1, 1};
  EXPECT_DOUBLE_EQ(gbdt::average_precision(p, y, nullptr, 4, CancelFn()), 0.8333333333333333);
}

TEST(ClassMetrics, AveragePrecisionTiesAreOneStep) {
  // tied scores count as one threshold: ([1,0,1,0], [.5,.5,.5,.1]) -> 2/3
  const double p[] = {0.5, 0.5, 0.5, 0.1};
  const float y[] = {1, 0, 1, 0};
  EXPECT_DOUBLE_EQ(gbdt::average_precision(p, y, nullptr, 4, CancelFn()), 0.6666666666666666);
  // weighted: sample_weight=[1,2,3,1,0.5]
  const double p5[] = {0.5, 0.5, 0.5, 0.1, 0.2};
  const float y5[] = {1, 0, 1, 0, 1};
  const float w5[] = {1, 2, 3, 1, 0.5f};
  EXPECT_NEAR(gbdt::average_precision(p5, y5, w5, 5, CancelFn()), 0.6695156695156695, 1e-15);
}

TEST(ClassMetrics, AveragePrecisionWithoutPositivesIsNaN) {
  const double p[] = {0.2, 0.7};
  const float y[] = {0, 0};
  EXPECT_TRUE(std::isnan(gbdt::average_precision(p, y, nullptr, 2, CancelFn())));
}

TEST(ClassMetrics, AucprIsAKnownTrainingMetric) {
  const double p[] = {0.1, 0.4, 0.35, 0.8};
  const float y[] = {0, 0, 1, 1};
  EXPECT_DOUBLE_EQ(gbdt::compute_metric("aucpr", gbdt::Objective::kLogistic, 1, p, y, 4),
                   0.8333333333333333);
  EXPECT_TRUE(gbdt::metric_higher_is_better("aucpr"));
}

TEST(ClassMetrics, ThresholdCountsAndZeroDivision) {
  const double p[] = {0.9, 0.6, 0.4, 0.2, 0.5};
  const float y[] = {1, 0, 1, 0, 1};
  gbdt::BinaryCounts c = gbdt::binary_counts(p, y, 5, 0.5, CancelFn());  // p > 0.5 positive
  EXPECT_EQ(c.tp, 1u);
  EXPECT_EQ(c.fp, 1u);
  EXPECT_EQ(c.fn, 2u);
  EXPECT_EQ(c.tn, 1u);
  EXPECT_DOUBLE_EQ(gbdt::precision_of(c), 0.5);
  EXPECT_DOUBLE_EQ(gbdt::recall_of(c), 1.0 / 3);
  EXPECT_DOUBLE_EQ(gbdt::f1_of(c), 0.4);
  c = gbdt::binary_counts(p, y, 5, 1.0, CancelFn());  // nothing predicted positive
  EXPECT_EQ(gbdt::precision_of(c), 0.0);
  EXPECT_EQ(gbdt::f1_of(c), 0.0);
}

TEST(ClassMetrics, RocTrapezoidEqualsAuc) {
  const double p[] = {0.1, 0.4, 0.35, 0.8, 0.4, 0.4, 0.9, 0.05};
  const float y[] = {0, 0, 1, 1, 1, 0, 0, 1};
  const std::vector<gbdt::CurvePoint> pts = gbdt::roc_points(p, y, 8, CancelFn());
  ASSERT_EQ(pts.size(), 7u);  // +Infinity and 6 distinct scores
  EXPECT_TRUE(std::isinf(pts[0].threshold));
  const double P = pts.back().tp, N = pts.back().fp;
  double area = 0;
  for (size_t i = 1; i < pts.size(); ++i)
    area += (pts[i].fp - pts[i - 1].fp) / N * (pts[i].tp + pts[i - 1].tp) / (2 * P);
  EXPECT_NEAR(area, gbdt::compute_metric("auc", gbdt::Objective::kLogistic, 1, p, y, 8), 1e-15);
}

TEST(ClassMetrics, CalibrationUniformBins) {
  const double p[] = {0.05, 0.15, 0.12, 0.95, 1.0, 0.5};
  const float y[] = {0, 1, 0, 1, 1, 0};
  const std::vector<gbdt::CalibrationBin> b = gbdt::calibration_bins(p, y, 6, 10, CancelFn());
  ASSERT_EQ(b.size(), 4u);  // bins 0, 1, 5, 9 hold rows
  EXPECT_EQ(b[1].bin, 1);
  EXPECT_EQ(b[1].count, 2u);
  EXPECT_DOUBLE_EQ(b[1].mean_predicted, (0.15 + 0.12) / 2);
  EXPECT_DOUBLE_EQ(b[1].observed_rate, 0.5);
  EXPECT_EQ(b[3].bin, 9);  // p = 1 falls in the last bin
  EXPECT_EQ(b[3].count, 2u);
}

TEST(ClassMetrics, MulticlassF1MatchesSklearn) {
  // f1_score([0,1,2,0,1,2], [0,2,1,0,0,1], average=macro / micro)
  const int yt[] = {0, 1, 2, 0, 1, 2}, yp[] = {0, 2, 1, 0, 0, 1};
  uint64_t tp[4] = {0}, act[4] = {0}, pred[4] = {0};
  for (int i = 0; i < 6; ++i) {
    act[yt[i]]++;
    pred[yp[i]]++;
    tp[yt[i]] += yt[i] == yp[i];
  }
  EXPECT_NEAR(gbdt::f1_macro_of(tp, act, pred, 4), 0.26666666666666666, 1e-15);  // class 3 absent
  EXPECT_NEAR(gbdt::f1_micro_of(tp, 6, 4), 0.3333333333333333, 1e-15);
}

TEST(ClassMetrics, RegressionScoresMatchSklearn) {
  // r2_score / explained_variance_score / mean_absolute_percentage_error
  // of ([3,-0.5,2,7], [2.5,0,2,8])
  const double p[] = {2.5, 0.0, 2, 8};
  const float y[] = {3, -0.5f, 2, 7};
  const gbdt::RegressionScores r = gbdt::regression_scores(p, y, 4, CancelFn());
  EXPECT_NEAR(r.r2, 0.9486081370449679, 1e-15);
  EXPECT_NEAR(r.explained_variance, 0.9571734475374732, 1e-15);
  EXPECT_NEAR(r.mape, 0.3273809523809524, 1e-15);
  // a zero label divides by DBL_EPSILON: ([0,1], [0.5,1]) -> 1125899906842624
  const double pz[] = {0.5, 1};
  const float yz[] = {0, 1};
  EXPECT_DOUBLE_EQ(gbdt::regression_scores(pz, yz, 2, CancelFn()).mape, 1125899906842624.0);
  // constant labels: 1 for an exact fit, else 0 (force_finite)
  const double pc[] = {2, 2}, pc2[] = {2, 3};
  const float yc[] = {2, 2};
  EXPECT_EQ(gbdt::regression_scores(pc, yc, 2, CancelFn()).r2, 1.0);
  EXPECT_EQ(gbdt::regression_scores(pc2, yc, 2, CancelFn()).r2, 0.0);
}

TEST(ClassMetrics, CancelIsPolled) {
  std::vector<double> p(1 << 18, 0.5);
  std::vector<float> y(1 << 18, 1);
  CancelFn cancel = [] { return true; };
  EXPECT_THROW(gbdt::average_precision(p.data(), y.data(), nullptr, p.size(), cancel),
               gbdt::Cancelled);
}

}  // namespace
