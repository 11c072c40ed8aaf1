// Quantile cuts and bin_of semantics (XGBoost hist): v is in bin b iff
// cut[b-1] <= v < cut[b]; NaN goes to the missing bin nbins(f).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "data/binned_matrix.h"
#include "data/quantile.h"
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

// The streaming loader's construction (cut sample -> cuts_from_sample, every
// row through a RowBinner -> set_value_range) gives exactly compute_cuts +
// bin_matrix on the same rows, also when the sample misses the extremes.
TEST(Cuts, StreamingBuildEqualsInMemory) {
  gbdt_test::Data D = gbdt_test::make_data(20000, 7, gbdt_test::Task::kRegression, 0.1, 5);
  D.cols[3][12345] = 1e6f;    // a maximum and a minimum outside the sample rows
  D.cols[3][12346] = -1e6f;
  for (size_t r = 0; r < D.n; ++r) D.cols[4][r] = std::fabs(D.cols[4][r]);
  D.cols[4][0] = -0.0f;       // the minimum is zero, with both signs
  D.cols[4][1] = 0.0f;
  for (size_t r = 0; r < D.n; ++r) D.cols[5][r] = r % 7 == 3 ? 2.0f : NAN;  // sample sees none
  for (size_t r = 0; r < D.n; ++r) D.cols[6][r] = (float)(r % 5);          // few distinct
  for (size_t take : {(size_t)3000, (size_t)20000, (size_t)50000}) {
    for (int nt : {1, 3}) {
      const ColumnInput in = D.input().features;
      Cuts expect = compute_cuts(in, 256, nt, take);
      BinnedMatrix expect_bins = bin_matrix(in, expect, nt);

      const size_t m = std::min(take, D.n);
      std::vector<std::vector<float>> sample((size_t)D.d, std::vector<float>(m));
      for (size_t i = 0; i < m; ++i)
        for (int f = 0; f < D.d; ++f) sample[f][i] = D.cols[f][cut_sample_row(i, D.n, m)];
      Cuts got = cuts_from_sample(columns(sample), 256, nt);
      RowBinner rb(got, D.n, nt);
      for (size_t r = 0; r < D.n; ++r) {
        float* x = rb.next_row();
        for (int f = 0; f < D.d; ++f) x[f] = D.cols[f][r];
      }
      ValueRange range;
      BinnedMatrix bins = rb.finish(&range);
      set_value_range(&got, range.lo, range.hi);

      EXPECT_EQ(expect.ptr, got.ptr) << "take " << take;
      ASSERT_EQ(expect.values.size(), got.values.size());
      EXPECT_EQ(0, std::memcmp(expect.values.data(), got.values.data(),
                               got.values.size() * sizeof(float)));
      ASSERT_EQ(expect.min_values.size(), got.min_values.size());
      EXPECT_EQ(0, std::memcmp(expect.min_values.data(), got.min_values.data(),
                               got.min_values.size() * sizeof(float)));
      EXPECT_EQ(expect_bins.bins, bins.bins) << "take " << take << " threads " << nt;
      // Every value lies below its feature's last cut: binning never clamps.
      EXPECT_GT(got.values[got.ptr[4] - 1], 1e6f);
      EXPECT_EQ(got.min_values[3], -1e6f);
      EXPECT_FALSE(std::signbit(got.min_values[4]));
      check_semantics(got, 5, D.cols[5]);
    }
  }
}

TEST(Cuts, SampleRowsBoundTheFloatCopy) {
  EXPECT_EQ(cut_sample_rows(28), 1u << 18);
  EXPECT_EQ(cut_sample_rows(64), 1u << 18);
  EXPECT_EQ(cut_sample_rows(500), (1u << 24) / 500);
  EXPECT_EQ(cut_sample_rows(1600), (1u << 24) / 1600);
  EXPECT_EQ(cut_sample_rows(5000), 1u << 13);
  for (int d : {1, 28, 100, 500, 1600}) EXPECT_LE(cut_sample_rows(d) * d * 4, 64u << 20);
  EXPECT_EQ(cut_sample_row(0, 1000, 10), 0u);
  EXPECT_EQ(cut_sample_row(9, 1000, 10), 900u);
  EXPECT_EQ(cut_sample_row(5, 5, 10), 5u);
}

// Columns with few distinct values take a path that never sorts the column
// (a small table of the distinct values): its cuts are bit for bit those of
// sorting every value, for any number of distinct values around max_bin,
// with infinities, denormals, either zero or both, NaN, runs and any order.
TEST(Cuts, FewValuesPathIsTheSortedPath) {
  std::mt19937 gen(77);
  auto uniform_int = [&gen](int n) { return (int)(gen() % (uint32_t)n); };
  auto uniform = [&gen] { return (double)gen() / 4294967296.0; };
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f};
  int checked = 0;
  for (int max_bin : {2, 3, 16, 255, 256}) {
    for (int k : {1, 2, 3, 15, 16, 17, 200, 254, 255, 256, 300}) {
      for (int variant = 0; variant < 6; ++variant) {
        std::vector<float> pool;
        while ((int)pool.size() < k) {
          float v;
          const int r = uniform_int(10);
          if (r == 0) v = specials[uniform_int(8)];
          else if (r < 4) v = (float)(uniform_int(7) - 3);
          else v = (float)((uniform() - 0.5) * 1e4);
          if (variant == 1 && v == 0.0f) v = 0.0f;    // +0 only
          if (variant == 2 && v == 0.0f) v = -0.0f;   // -0 only
          if (std::find_if(pool.begin(), pool.end(),
                           [v](float p) { return std::memcmp(&p, &v, 4) == 0; }) == pool.end())
            pool.push_back(v);
        }
        if (variant == 3) {  // both zeros
          pool[0] = 0.0f;
          if (k > 1) pool[1] = -0.0f;
        }
        std::vector<float> col(3000);
        for (size_t i = 0; i < col.size(); ++i) {
          // variant 4: long runs (a sorted table); variant 5: NaN mixed in
          const size_t j = variant == 4 ? i * pool.size() / col.size() : (size_t)uniform_int((int)pool.size());
          col[i] = variant == 5 && uniform_int(4) == 0 ? NAN : pool[j];
        }
        const std::vector<std::vector<float>> cols = {col};
        const Cuts c = cuts_from_sample(columns(cols), max_bin, 1);
        std::vector<float> present;
        for (float v : col)
          if (v == v) present.push_back(v);
        std::vector<float> want;
        detail::sorted_feature_cuts(present, max_bin, &want);
        ASSERT_EQ((size_t)c.nbins(0), want.size()) << "max_bin " << max_bin << " k " << k << " variant " << variant;
        EXPECT_EQ(0, std::memcmp(c.feature_cuts(0), want.data(), want.size() * sizeof(float)))
            << "max_bin " << max_bin << " k " << k << " variant " << variant;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 5 * 11 * 6);
}

// compute_cuts' value ranges (8 vector lanes with AVX2) give the cuts and
// minima of cuts_from_sample + set_value_range with a plain scan's range:
// columns of 0-40 and 3001 rows, NaN anywhere (all NaN too), a zero bound
// of either sign, infinities, the extreme at the head, in the lanes or in
// the tail.
TEST(Cuts, ValueRangeLikeAPlainScan) {
  std::mt19937 gen(5);
  std::normal_distribution<float> nd(0.0f, 100.0f);
  int checked = 0;
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 40; ++n) lengths.push_back(n);
  lengths.push_back(3001);
  for (size_t n : lengths)
    for (int variant = 0; variant < 6; ++variant) {
      std::vector<float> col(n);
      for (size_t i = 0; i < n; ++i) {
        float v = nd(gen);
        if (variant == 1) v = gen() % 3 == 0 ? NAN : v;
        if (variant == 2) v = NAN;
        if (variant == 3) v = gen() % 2 ? -0.0f : 0.0f;                // zero bounds of both signs
        if (variant == 4) v = -std::fabs(v);  // all negative, and one -0 below: the maximum is -0
        if (variant == 5 && gen() % 5 == 0) v = gen() % 2 ? INFINITY : -INFINITY;
        col[i] = v;
      }
      if (variant == 4 && n > 0) col[gen() % n] = -0.0f;
      if (variant == 0 && n > 0) col[n - 1] = 1e30f;  // the maximum in the tail
      const std::vector<std::vector<float>> cols = {col};
      const ColumnInput in = columns(cols);
      for (int max_bin : {4, 256}) {
        const Cuts got = compute_cuts(in, max_bin, 1);
        Cuts want = cuts_from_sample(in, max_bin, 1);
        float lo = INFINITY, hi = -INFINITY;
        for (float v : col) {
          lo = v < lo ? v : lo;
          hi = v > hi ? v : hi;
        }
        set_value_range(&want, {lo}, {hi});
        ASSERT_EQ(got.values.size(), want.values.size()) << n << " " << variant;
        EXPECT_EQ(0, std::memcmp(got.values.data(), want.values.data(), want.values.size() * sizeof(float)))
            << n << " " << variant;
        EXPECT_EQ(0, std::memcmp(got.min_values.data(), want.min_values.data(), sizeof(float)))
            << n << " " << variant << " " << got.min_values[0] << " " << want.min_values[0];
        ++checked;
      }
    }
  EXPECT_EQ(checked, 42 * 6 * 2);
}
