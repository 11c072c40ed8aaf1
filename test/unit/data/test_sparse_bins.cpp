// The CPU backend's histograms skip the dominant bin of features
// that are mostly one value (sparse_bins.h) and fill it from the node's sum,
// and rows are routed from a feature-major copy of the bins.  The row
// records themselves, and training: the same model bytes with these copies
// on and off (cpu_bin_copies), on the row-parts path (few features) and the
// feature-block path (many), with NULLs, weights, sampling, several output
// groups, duplicate rows (row_dedup) and 2-byte bins.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "model/model.h"
#include "common/memory_budget.h"
#include "data/sparse_bins.h"
#include "bin_copies_check.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;
using gbdt_test::unif;

TEST(SparseBins, SlotsHoldTheOtherCells) {
  // 64 rows x 5 features, 4 cells each: f0-f3 mostly bin 0, f4 spread out.
  // Row 1: f0 bin 2; row 2: f2 bin 1; row 5: f1 bin 1 and f3 bin 2.
  const int n = 64, d = 5;
  std::vector<uint8_t> bins(n * d, 0);
  for (int r = 0; r < n; ++r) bins[r * d + 4] = (uint8_t)(r % 4);
  bins[1 * d + 0] = 2;
  bins[2 * d + 2] = 1;
  bins[5 * d + 1] = 1;
  bins[5 * d + 3] = 2;
  const uint32_t off[] = {0, 4, 8, 12, 16}, cells[] = {4, 4, 4, 4, 4};
  auto yes = [](double) { return true; };
  SparseBins s = build_sparse_bins(bins.data(), n, d, off, cells, 0.5, yes);
  ASSERT_EQ(s.blocks.size(), 1u);
  const SparseBlock& b = s.blocks[0];
  EXPECT_TRUE(s.any_elided);
  EXPECT_EQ(s.dominant, (std::vector<int>{0, 0, 0, 0, -1}));
  EXPECT_EQ(b.dense, (std::vector<int>{4}));
  EXPECT_EQ(b.elided, (std::vector<int>{0, 1, 2, 3}));
  // One slot: 1 row in 64 has two entries (<= 1/32 of the rows), and
  // 4 features elided for 1 slot + 1 saves cells.
  ASSERT_EQ(b.K, 1);
  // Records: f4's bin, then one slot (padding: f0's dominant cell 0).
  ASSERT_EQ(b.stride, 3u);
  ASSERT_EQ(b.slot_at, 1u);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(b.rec[r * 3], r % 4) << r;
    uint16_t v;
    std::memcpy(&v, &b.rec[r * 3 + 1], 2);
    EXPECT_EQ(v, r == 1 ? 2 : r == 2 ? 8 + 1 : r == 5 ? kOverflowSlot : 0) << r;
  }
  EXPECT_EQ(b.over_rows, (std::vector<uint32_t>{5}));
  EXPECT_EQ(b.over_cells, (std::vector<uint16_t>{4 + 1, 12 + 2}));
  EXPECT_EQ(s.bytes, 3.0 * n + 8.0 + 4.0 + 2.0 * 2);

  // Nothing elided: min_share above 1, a refused memory charge, or too
  // few features for the slots (two features of the four).
  std::vector<uint8_t> two = bins;
  for (int r = 0; r < n; ++r) two[r * d + 0] = two[r * d + 1] = (uint8_t)(r % 3);
  for (SparseBins r : {build_sparse_bins(bins.data(), n, d, off, cells, 2.0, yes),
                       build_sparse_bins(bins.data(), n, d, off, cells, 0.5, [](double) { return false; }),
                       build_sparse_bins(two.data(), n, d, off, cells, 0.5, yes)}) {
    EXPECT_FALSE(r.any_elided);
    EXPECT_EQ(r.blocks[0].dense, (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(r.dominant, (std::vector<int>{-1, -1, -1, -1, -1}));
  }

  // fill_dominant_cells: node sum - the other cells, whatever padding left.
  GradSum hist[20] = {};
  hist[0] = GradSum{1000, 1000};  // padding
  hist[2] = GradSum{5, 1};
  hist[1] = GradSum{-3, 2};
  hist[9] = GradSum{7, 4};
  hist[10] = GradSum{1, 1};
  fill_dominant_cells(hist, b, s.dominant, off, cells, GradSum{100, 50});
  EXPECT_EQ(hist[0].g, 100 - 5 + 3);
  EXPECT_EQ(hist[0].h, 50 - 1 - 2);
  EXPECT_EQ(hist[4].g, 100);
  EXPECT_EQ(hist[8].g, 100 - 7 - 1);
  EXPECT_EQ(hist[8].h, 50 - 4 - 1);
  EXPECT_EQ(hist[12].h, 50);
}

TEST(SparseBins, OverflowRowsKeepTheirEntries) {
  // 200 rows x 6 features (cells 3): all mostly bin 0; rows 7 and 150 have
  // entries in every feature (more than K slots).
  const int d = 6;
  std::vector<uint8_t> bins(200 * d, 0);
  for (int r = 0; r < 200; ++r) {
    if (r % 10 == 3) bins[r * d + r % d] = 1;
    if (r == 7 || r == 150)
      for (int f = 0; f < d; ++f) bins[r * d + f] = (uint8_t)(1 + f % 2);
  }
  std::vector<uint32_t> off(d), cells(d, 3);
  for (int f = 0; f < d; ++f) off[f] = 3 * f;
  SparseBins s = build_sparse_bins(bins.data(), 200, d, off.data(), cells.data(), 0.5,
                                   [](double) { return true; });
  const SparseBlock& b = s.blocks[0];
  ASSERT_EQ((int)b.elided.size(), d);
  ASSERT_EQ(b.K, 1);
  EXPECT_EQ(b.over_rows, (std::vector<uint32_t>{7, 150}));
  ASSERT_EQ(b.stride, 2u);  // no dense feature: one slot
  EXPECT_EQ(b.rec[14] | b.rec[15] << 8, kOverflowSlot);
  const uint16_t* end;
  const uint16_t* c = overflow_cells(b, 150, &end);
  EXPECT_EQ(std::vector<uint16_t>(c, end), (std::vector<uint16_t>{1, 5, 7, 11, 13, 17}));
  EXPECT_EQ(b.rec[26] | b.rec[27] << 8, 1 + 3 * 1);  // row 13: feature 1, bin 1
}

namespace {

// Columns like real ones: mostly zero (share 0.9-0.99), rare flags,
// mostly missing, constant, a skewed code, and plain uniform ones.
Data sparse_data(size_t n, int d, Task task, uint64_t seed) {
  Data D = gbdt_test::make_data(n, d, task, 0.0, seed);
  for (int f = 0; f < d; ++f) {
    const int kind = f % 6;
    std::vector<float>& c = D.cols[f];
    for (size_t r = 0; r < n; ++r) {
      const double u = unif(seed * 97 + (uint64_t)f, r);
      switch (kind) {
        case 0: c[r] = u < 0.9 + 0.015 * (f % 7) ? 0.0f : (float)(1 + 10 * u); break;
        case 1: c[r] = u < 0.05 ? 1.0f : 0.0f; break;
        case 2: c[r] = u < 0.8 ? NAN : (float)std::floor(8 * u); break;
        case 3: c[r] = 2.5f; break;
        case 4: c[r] = (float)std::floor(-std::log(1.0 - u * 0.999) * 2); break;  // skewed code
        default: break;                                                        // uniform
      }
    }
  }
  // The label reads the sparse columns too.
  for (size_t r = 0; r < n; ++r) {
    double s = 0;
    for (int f = 0; f < d && f < 12; ++f) {
      const float v = D.cols[f][r];
      s += std::isnan(v) ? 0.3 : 0.2 * v * ((f % 2) ? 1 : -1);
    }
    if (task == Task::kBinary) D.y[r] = s + (unif(seed + 5, r) - 0.5) > 0 ? 1.0f : 0.0f;
    else if (task == Task::kMulticlass) D.y[r] = (float)((int)(std::fabs(s) * 2) % 3);
    else D.y[r] = (float)(s + unif(seed + 5, r));
  }
  return D;
}

}  // namespace

TEST(SparseBins, SameModelFewFeatures) {
  // 60k rows, 14 features: one block, row parts at 2 threads.
  const Data D = sparse_data(60000, 14, Task::kBinary, 3);
  for (int nt : {1, 2}) {
    TrainParams p = gbdt_test::params_for(Task::kBinary, 6, nt);
    p.max_depth = 6;
    gbdt_test::expect_same_with_copies_on_and_off(D, p);
  }
}

TEST(SparseBins, SameModelManyFeatures) {
  // 200 features: (node, block of 64) tasks; sparse columns in every block.
  const Data D = sparse_data(4000, 200, Task::kRegression, 4);
  for (int nt : {1, 2}) {
    TrainParams p = gbdt_test::params_for(Task::kRegression, 5, nt);
    p.max_depth = 5;
    gbdt_test::expect_same_with_copies_on_and_off(D, p);
  }
}

TEST(SparseBins, SameModelWeightsSamplingMulticlass) {
  const Data D = sparse_data(20000, 20, Task::kMulticlass, 5);
  std::vector<float> w(D.n);
  for (size_t r = 0; r < D.n; ++r) w[r] = (float)(0.25 + unif(77, r));
  TrainParams p = gbdt_test::params_for(Task::kMulticlass, 4, 2);
  gbdt_test::expect_same_with_copies_on_and_off(D, p, &w);
  p.subsample = 0.6;
  p.reg_alpha = 0.5;
  p.max_delta_step = 0.7;  // the scalar split scan
  gbdt_test::expect_same_with_copies_on_and_off(D, p);
}

TEST(SparseBins, SameModelWithDuplicateRows) {
  // Few levels per column: row_dedup trains the distinct rows with counts.
  Data D = sparse_data(30000, 6, Task::kRegression, 6);
  for (size_t r = 0; r < D.n; ++r) D.cols[5][r] = std::floor(D.cols[5][r] * 2);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 5, 2);
  gbdt_test::expect_same_with_copies_on_and_off(D, p);
}

TEST(SparseBins, SameModelWideBins) {
  // A categorical column of 300 categories, one of them on 95% of the rows:
  // 2-byte bins, and its dominant bin elided.
  Data D = sparse_data(8000, 10, Task::kBinary, 7);
  std::vector<std::vector<std::string>> cats(D.d);
  for (int c = 0; c < 300; ++c) cats[0].push_back("c" + std::to_string(c));
  for (size_t r = 0; r < D.n; ++r) {
    const double u = unif(99, r);
    D.cols[0][r] = u < 0.95 ? 7.0f : (float)(int)(u * 6000 - 5700);
    if (D.cols[0][r] > 7 && unif(100, r) < 0.5) D.y[r] = 1.0f - D.y[r];
  }
  TrainParams p = gbdt_test::params_for(Task::kBinary, 4, 2);
  TrainInput in = D.input();
  in.feature_types[0] = FeatureType::kCategorical;
  in.categories = cats;
  gbdt_test::expect_same_with_copies_on_and_off(in, p);
}

// The trainer restarts the backend with new margins after every round of
// an objective with refit leaves, and after every tree of a forest: a
// restart on the same data keeps the histograms and the bin copies and
// charges nothing more, so the budget's peak grows with the rounds only by
// the trees, and everything is released at the end.
TEST(SparseBins, BackendRestartsChargeOnce) {
  const Data D = sparse_data(20000, 30, Task::kRegression, 8);
  auto peak_for = [&](int rounds, int parallel) {
    TrainParams p = gbdt_test::params_for(Task::kRegression, rounds, 2);
    p.objective = Objective::kAbsoluteError;
    p.num_parallel_tree = parallel;
    MemoryBudget b(1e12, "limit");
    TrainHooks hooks;
    hooks.default_device = "cpu";
    hooks.budget = &b;
    train_model(D.input(), p, hooks, "label");
    EXPECT_EQ(b.used(), 0.0) << "everything charged is released at the end";
    return b.peak();
  };
  for (int parallel : {1, 3}) {
    const double p5 = peak_for(5, parallel), p25 = peak_for(25, parallel);
    // 20 more rounds: at most their trees (depth 6: 127 nodes each), and a
    // few more histograms live at once in some later tree (16 bytes a bin).
    const double hist = 16.0 * 30 * 257;
    EXPECT_LE(p25 - p5, 20.0 * parallel * 127 * kTreeNodeBytes + 4 * hist) << "num_parallel_tree " << parallel;
  }
}
