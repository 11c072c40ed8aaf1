// Low-cardinality features added to the histogram in groups
// (joint_bins.h).  The grouping, the records (each group's code decodes to
// its features' bins), the marginals (the very per-feature histogram of the
// rows), and training: the same model bytes with the groups on and off
// (cpu_bin_copies), at 1 and 2 threads, with NULLs, weights, several output
// groups and 2-byte bins.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "data/joint_bins.h"
#include "model/model.h"
#include "bin_copies_check.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;
using gbdt_test::unif;

TEST(JointBins, GroupsFitTheCellBound) {
  const uint32_t cells[] = {3, 300, 4, 5, 100, 6, 7, 8, 32, 3};
  const std::vector<JointGroup> g = plan_joint_groups(0, 10, cells);
  // First fit by decreasing cells: {300} {100} {32, 8} {7, 6, 5} {4, 3, 3}.
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0].feat, (std::vector<int>{1}));
  EXPECT_EQ(g[1].feat, (std::vector<int>{4}));
  EXPECT_EQ(g[2].feat, (std::vector<int>{8, 7}));
  EXPECT_EQ(g[3].feat, (std::vector<int>{6, 5, 3}));
  EXPECT_EQ(g[4].feat, (std::vector<int>{2, 0, 9}));
  EXPECT_EQ(g[3].radix, (std::vector<uint32_t>{1, 7, 42}));
  EXPECT_EQ(g[3].total, 210u);
  std::set<int> seen;
  for (const JointGroup& x : g) {
    if (x.feat.size() > 1) {
      EXPECT_LE(x.total, kJointMaxCells);
    }
    for (int f : x.feat) EXPECT_TRUE(seen.insert(f).second) << f;
  }
  EXPECT_EQ(seen.size(), 10u);
}

TEST(JointBins, RecordsAndMarginalsGiveTheHistogram) {
  // 3000 rows x 9 features of 2-12 cells (the last cell: missing).
  const size_t n = 3000;
  const int d = 9;
  std::vector<uint32_t> cells(d), off(d);
  uint32_t at = 0;
  for (int f = 0; f < d; ++f) {
    cells[f] = 2 + (uint32_t)(f * 5 % 11);
    off[f] = at;
    at += cells[f];
  }
  std::vector<uint8_t> bins(n * d);
  for (size_t r = 0; r < n; ++r)
    for (int f = 0; f < d; ++f) bins[r * d + f] = (uint8_t)(unif(11 + f, r) * cells[f]);
  auto yes = [](double) { return true; };
  double bytes = 0;
  const JointBlock jb = build_joint_block(bins.data(), n, d, 0, d, cells.data(), yes, &bytes);
  ASSERT_FALSE(jb.groups.empty());
  EXPECT_EQ(jb.saved, d - (int)jb.groups.size());
  EXPECT_GE(jb.saved, 2);
  EXPECT_EQ(bytes, (double)n * jb.stride + 8.0);
  // Each code decodes to its features' bins.
  for (size_t r = 0; r < n; ++r)
    for (size_t j = 0; j < jb.groups.size(); ++j) {
      const JointGroup& g = jb.groups[j];
      const uint32_t code = jb.rec[r * jb.stride + j];
      for (size_t i = 0; i < g.feat.size(); ++i)
        ASSERT_EQ(code / g.radix[i] % g.cells[i], bins[r * d + g.feat[i]]) << r << " " << j;
    }
  // The rows r % 3 != 0 through the groups and the marginals, against
  // feature by feature.
  std::vector<GradSum> direct(at, GradSum{0, 0}), joint(at, GradSum{0, 0});
  std::vector<GradSum> scratch(jb.cells, GradSum{0, 0});
  for (size_t r = 0; r < n; ++r) {
    if (r % 3 == 0) continue;
    const GradSum gp{(int64_t)(unif(3, r) * 1e9) - 400000000, (int64_t)(unif(4, r) * 1e9)};
    for (int f = 0; f < d; ++f) direct[off[f] + bins[r * d + f]] = gs_add(direct[off[f] + bins[r * d + f]], gp);
    for (size_t j = 0; j < jb.groups.size(); ++j) {
      const JointGroup& g = jb.groups[j];
      const uint32_t code = jb.rec[r * jb.stride + j];
      GradSum* cell = g.feat.size() > 1 ? &scratch[g.at + code] : &joint[off[g.feat[0]] + code];
      *cell = gs_add(*cell, gp);
    }
  }
  add_joint_marginals(joint.data(), jb, scratch.data(), off.data());
  for (uint32_t c = 0; c < at; ++c) {
    EXPECT_EQ(joint[c].g, direct[c].g) << c;
    EXPECT_EQ(joint[c].h, direct[c].h) << c;
  }
}

TEST(JointBins, NotWorthItOrNoMemory) {
  // Two small features among wide ones save one store: no records; a
  // refused charge: none either.
  const size_t n = 100;
  const int d = 6;
  const uint32_t cells[] = {3, 4, 256, 256, 256, 256};
  std::vector<uint8_t> bins(n * d, 1);
  double bytes = 0;
  auto yes = [](double) { return true; };
  auto no = [](double) { return false; };
  EXPECT_TRUE(build_joint_block(bins.data(), n, d, 0, d, cells, yes, &bytes).groups.empty());
  const uint32_t low[] = {3, 4, 5, 2, 2, 6};
  EXPECT_TRUE(build_joint_block(bins.data(), n, d, 0, d, low, no, &bytes).groups.empty());
  EXPECT_EQ(bytes, 0.0);
  EXPECT_FALSE(build_joint_block(bins.data(), n, d, 0, d, low, yes, &bytes).groups.empty());
}

namespace {

// Columns of 2-20 distinct values, some with NULLs, the label from them.
Data lowcard_data(size_t n, int d, Task task, uint64_t seed) {
  Data D = gbdt_test::make_data(n, d, task, 0.0, seed);
  for (int f = 0; f < d; ++f) {
    const int levels = 2 + (f * 7) % 19;
    for (size_t r = 0; r < n; ++r) {
      const double u = unif(seed * 31 + (uint64_t)f, r);
      D.cols[f][r] = (f % 4 == 3 && u < 0.2) ? NAN : (float)std::floor(u * levels);
    }
  }
  for (size_t r = 0; r < n; ++r) {
    double s = 0;
    for (int f = 0; f < d && f < 10; ++f) {
      const float v = D.cols[f][r];
      s += std::isnan(v) ? 0.4 : 0.15 * v * ((f % 2) ? 1 : -1);
    }
    if (task == Task::kBinary) D.y[r] = s + (unif(seed + 5, r) - 0.5) > 0 ? 1.0f : 0.0f;
    else if (task == Task::kMulticlass) D.y[r] = (float)((int)(std::fabs(s) * 2) % 3);
    else D.y[r] = (float)(s + unif(seed + 5, r));
  }
  return D;
}

}  // namespace

TEST(JointBins, SameModelFewFeatures) {
  // 50k rows, 14 features: one block, row parts at 2 threads; no row
  // repeats often enough for row_dedup to take over.
  const Data D = lowcard_data(50000, 14, Task::kRegression, 3);
  for (int nt : {1, 2}) {
    TrainParams p = gbdt_test::params_for(Task::kRegression, 6, nt);
    p.max_depth = 6;
    p.row_dedup = false;
    gbdt_test::expect_same_with_copies_on_and_off(D, p);
  }
}

TEST(JointBins, SameModelManyFeaturesWeightsMulticlass) {
  // 150 features: (node, block of 64) tasks, each block grouped.
  const Data D = lowcard_data(6000, 150, Task::kMulticlass, 4);
  std::vector<float> w(D.n);
  for (size_t r = 0; r < D.n; ++r) w[r] = (float)(0.25 + unif(77, r));
  for (int nt : {1, 2}) {
    TrainParams p = gbdt_test::params_for(Task::kMulticlass, 4, nt);
    p.row_dedup = false;
    gbdt_test::expect_same_with_copies_on_and_off(D, p, &w);
  }
}

TEST(JointBins, SameModelWideBins) {
  // A categorical column of 300 categories (2-byte bins) beside the small ones.
  Data D = lowcard_data(8000, 10, Task::kBinary, 7);
  std::vector<std::vector<std::string>> cats(D.d);
  for (int c = 0; c < 300; ++c) cats[0].push_back("c" + std::to_string(c));
  for (size_t r = 0; r < D.n; ++r) D.cols[0][r] = (float)(int)(unif(99, r) * 300);
  TrainParams p = gbdt_test::params_for(Task::kBinary, 4, 2);
  p.row_dedup = false;
  TrainInput in = D.input();
  in.feature_types[0] = FeatureType::kCategorical;
  in.categories = cats;
  gbdt_test::expect_same_with_copies_on_and_off(in, p);
}
