// Quantile cuts and bin_of semantics (XGBoost hist): v is in bin b iff
// cut[b-1] <= v < cut[b]; NaN goes to the missing bin nbins(f).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "quantile.h"
#include "test_util.h"

using namespace gbdt;

namespace {

Cuts hand_cuts() {
  Cuts c;
  c.ptr = {0, 3, 4};
  c.values = {1.0f, 2.0f, 3.0f, 10.0f};
  c.min_values = {0.0f, 5.0f};
  return c;
}

ColumnInput columns(const std::vector<std::vector<float>>& cols) {
  ColumnInput in;
  in.n_rows = cols.empty() ? 0 : cols[0].size();
  for (const auto& c : cols) in.columns.push_back(c.data());
  return in;
}

void check_semantics(const Cuts& c, int f, const std::vector<float>& col) {
  const float* cut = c.feature_cuts(f);
  int nb = c.nbins(f);
  for (float v : col) {
    int b = c.bin_of(f, v);
    if (std::isnan(v)) {
      EXPECT_EQ(b, nb);
      continue;
    }
    ASSERT_GE(b, 0);
    ASSERT_LT(b, nb) << "value " << v;
    EXPECT_LT(v, cut[b]) << "feature " << f << " value " << v << " bin " << b;
    if (b > 0) {
      EXPECT_LE(cut[b - 1], v) << "feature " << f << " value " << v << " bin " << b;
    }
  }
}

}  // namespace

TEST(Cuts, BinOfOnHandMadeCuts) {
  Cuts c = hand_cuts();
  EXPECT_EQ(c.n_features(), 2);
  EXPECT_EQ(c.nbins(0), 3);
  EXPECT_EQ(c.nbins(1), 1);
  EXPECT_EQ(c.bin_of(0, -5.0f), 0);
  EXPECT_EQ(c.bin_of(0, 0.999f), 0);
  EXPECT_EQ(c.bin_of(0, 1.0f), 1);  // a value equal to a cut is in the bin above it
  EXPECT_EQ(c.bin_of(0, 1.5f), 1);
  EXPECT_EQ(c.bin_of(0, 2.0f), 2);
  EXPECT_EQ(c.bin_of(0, 2.999f), 2);
  EXPECT_EQ(c.bin_of(0, 3.0f), 2);    // at/above the last cut: clamped to the last bin
  EXPECT_EQ(c.bin_of(0, 1e30f), 2);
  EXPECT_EQ(c.bin_of(0, NAN), 3);     // missing bin = nbins(f)
  EXPECT_EQ(c.bin_of(1, 7.0f), 0);
  EXPECT_EQ(c.bin_of(1, NAN), 1);
  EXPECT_EQ(c.hist_offset(0), 0u);
  EXPECT_EQ(c.hist_offset(1), 4u);    // 3 value bins + 1 missing bin before it
  EXPECT_EQ(c.total_hist_bins(), 6u);
}

TEST(Cuts, ComputedCutsSatisfyBinSemantics) {
  gbdt_test::Data D = gbdt_test::make_data(20000, 6, gbdt_test::Task::kRegression, 0.05, 3);
  // Add skew and heavy ties to two columns.
  for (size_t r = 0; r < D.n; ++r) {
    float& a = D.cols[1][r];
    if (!std::isnan(a)) a = std::exp(4.0f * a);
    float& b = D.cols[2][r];
    if (!std::isnan(b)) b = std::round(b * 20.0f);
  }
  for (int max_bin : {2, 16, 64, 255, 256}) {
    Cuts c = compute_cuts(D.input().features, max_bin, 2);
    ASSERT_EQ(c.n_features(), D.d);
    ASSERT_EQ(c.ptr.size(), (size_t)D.d + 1);
    for (int f = 0; f < D.d; ++f) {
      int nb = c.nbins(f);
      EXPECT_GE(nb, 1);
      EXPECT_LE(nb, std::min(max_bin, kMaxValueBins)) << "feature " << f << " max_bin " << max_bin;
      const float* cut = c.feature_cuts(f);
      for (int b = 1; b < nb; ++b) EXPECT_LT(cut[b - 1], cut[b]) << "cuts must be ascending";
      float mx = -INFINITY;
      for (float v : D.cols[f])
        if (!std::isnan(v)) mx = std::max(mx, v);
      EXPECT_GT(cut[nb - 1], mx) << "last cut lies above the maximum";
      check_semantics(c, f, D.cols[f]);
    }
  }
}

TEST(Cuts, FewDistinctValuesGetOneBinEach) {
  std::vector<float> a(1000), b(1000);
  for (int i = 0; i < 1000; ++i) {
    a[i] = (float)(i % 3);          // 0, 1, 2
    b[i] = i % 2 ? 1.0f : 0.0f;     // boolean
  }
  Cuts c = compute_cuts(columns({a, b}), 256, 1);
  std::set<int> bins_a, bins_b;
  for (float v : {0.0f, 1.0f, 2.0f}) bins_a.insert(c.bin_of(0, v));
  for (float v : {0.0f, 1.0f}) bins_b.insert(c.bin_of(1, v));
  EXPECT_EQ(bins_a.size(), 3u);
  EXPECT_EQ(bins_b.size(), 2u);
  check_semantics(c, 0, a);
  check_semantics(c, 1, b);
}

TEST(Cuts, ConstantAndAllMissingColumns) {
  std::vector<float> k(500, 4.25f), miss(500, NAN);
  Cuts c = compute_cuts(columns({k, miss}), 256, 1);
  ASSERT_EQ(c.n_features(), 2);
  EXPECT_GE(c.nbins(0), 1);
  check_semantics(c, 0, k);
  EXPECT_EQ(c.bin_of(1, NAN), c.nbins(1));
}

TEST(Cuts, IndependentOfThreadCount) {
  gbdt_test::Data D = gbdt_test::make_data(30000, 5, gbdt_test::Task::kRegression, 0.02, 9);
  Cuts a = compute_cuts(D.input().features, 256, 1);
  for (int nt : {2, 7}) {
    Cuts b = compute_cuts(D.input().features, 256, nt);
    EXPECT_EQ(a.ptr, b.ptr);
    ASSERT_EQ(a.values.size(), b.values.size());
    EXPECT_EQ(0, std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)));
  }
}
