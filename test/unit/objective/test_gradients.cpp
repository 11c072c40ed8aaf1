// Deterministic exp, objective gradients, gradient quantization, row sampling.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "objective/gradients.h"

using namespace gbdt;

TEST(Gradients, DetExpMatchesStdExp) {
  double worst = 0;
  for (double x = -700.0; x <= 700.0; x += 0.0137) {
    double a = det_exp(x), b = std::exp(x);
    double rel = std::fabs(a - b) / b;
    worst = std::max(worst, rel);
    ASSERT_LE(rel, 1e-15) << "x = " << x << " det_exp " << a << " exp " << b;
  }
  for (double x : {0.0, 1e-300, -1e-300, 1e-10, 0.5, -0.5, 0.34657359, 0.34657360, 1.0, -1.0,
                   20.0, -20.0, 88.7, -87.3, 709.0, -708.0}) {
    double a = det_exp(x), b = std::exp(x);
    EXPECT_LE(std::fabs(a - b) / b, 1e-15) << "x = " << x;
  }
  EXPECT_EQ(det_exp(0.0), 1.0);
  EXPECT_TRUE(std::isnan(det_exp(NAN)));
  EXPECT_EQ(det_exp(-800.0), 0.0);
  EXPECT_TRUE(std::isfinite(det_exp(1000.0)));  // clamped, never inf
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(Gradients, Sigmoid) {
  EXPECT_EQ(det_sigmoid(0.0), 0.5);
  for (double m = -30; m <= 30; m += 0.25)
    EXPECT_NEAR(det_sigmoid(m), 1.0 / (1.0 + std::exp(-m)), 1e-15) << m;
}

TEST(Gradients, ScalarObjectives) {
  GradHess sq = scalar_gradient(Objective::kSquaredError, 2.5, 1.0, 0.0);
  EXPECT_EQ(sq.g, 1.5);
  EXPECT_EQ(sq.h, 1.0);
  GradHess lg = scalar_gradient(Objective::kLogistic, 0.0, 1.0, 0.0);
  EXPECT_EQ(lg.g, -0.5);
  EXPECT_EQ(lg.h, 0.25);
  GradHess lg2 = scalar_gradient(Objective::kLogistic, 100.0, 1.0, 0.0);
  EXPECT_GE(lg2.h, 1e-16);  // hessian floor
  GradHess po = scalar_gradient(Objective::kPoisson, 0.0, 3.0, 0.7);
  EXPECT_DOUBLE_EQ(po.g, 1.0 - 3.0);
  EXPECT_NEAR(po.h, std::exp(0.7), 1e-15 * std::exp(0.7));
}

TEST(Gradients, SoftmaxGradientsSumToZero) {
  const float m[4] = {0.1f, -1.0f, 2.0f, 0.5f};
  double mx, sum;
  softmax_prepare(m, 4, &mx, &sum);
  EXPECT_EQ(mx, 2.0);
  for (int label = 0; label < 4; ++label) {
    double gs = 0;
    for (int k = 0; k < 4; ++k) {
      GradHess gh = softmax_gradient(m, k, mx, sum, label);
      gs += gh.g;
      EXPECT_GT(gh.h, 0.0);
      double p = std::exp((double)m[k] - 2.0) / sum;
      EXPECT_NEAR(gh.g, p - (k == label), 1e-15);
      EXPECT_NEAR(gh.h, 2.0 * p * (1.0 - p), 1e-15);
    }
    EXPECT_NEAR(gs, 0.0, 1e-15);
  }
}

TEST(Gradients, QuantizerScalesArePowersOfTwoAndSumsFit) {
  for (double mx : {1e-9, 0.25, 1.0, 3.7, 1e6}) {
    for (uint64_t n : {1ULL, 1000ULL, 11000000ULL}) {
      Quantizer q = make_quantizer(mx, mx, n);
      int e;
      EXPECT_EQ(std::frexp(q.g_scale, &e), 0.5) << "power of two";
      EXPECT_EQ(q.g_scale * q.g_inv, 1.0);
      EXPECT_EQ(q.h_scale * q.h_inv, 1.0);
      // n rows at the maximum sum without overflowing int64.
      long double total = (long double)mx * q.g_scale * (long double)n;
      EXPECT_LT(total, 4.7e18L) << "mx " << mx << " n " << n;
      EXPECT_GT(total, 1e17L) << "uses most of the range: mx " << mx << " n " << n;
    }
  }
  EXPECT_EQ(quantize(0.5, 8.0), 4);
  EXPECT_EQ(quantize(-0.5, 8.0), -4);
}

TEST(Gradients, RowSamplingDeterministicAndProportional) {
  for (double frac : {0.1, 0.5, 0.8}) {
    int in = 0;
    const int n = 200000;
    for (int r = 0; r < n; ++r) {
      bool a = row_in_sample(42, 3, (uint64_t)r, frac);
      EXPECT_EQ(a, row_in_sample(42, 3, (uint64_t)r, frac));
      in += a;
    }
    EXPECT_NEAR((double)in / n, frac, 0.01);
  }
  // Different rounds draw different samples.
  int diff = 0;
  for (int r = 0; r < 1000; ++r)
    diff += row_in_sample(1, 0, (uint64_t)r, 0.5) != row_in_sample(1, 1, (uint64_t)r, 0.5);
  EXPECT_GT(diff, 300);
  EXPECT_TRUE(row_in_sample(1, 0, 0, 1.0));
}
