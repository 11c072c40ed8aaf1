// The perfect layout marks pass-through nodes (a leaf above the
// tree's depth, repeated below) with a NaN threshold, and the AVX2 kernel
// stops walking a group of rows once all of them are at pass-through
// nodes, going right to the last level (predict.cpp, place_perfect).
// Every kernel gives the row walk's bits on unbalanced trees (leaves at
// every level), rows in runs of equal values (whole groups stop early,
// at different levels) and rows that differ (groups that never stop),
// splits with NaN thresholds (hostile models: laid out as -Infinity, never
// taken for pass-through nodes) and categorical nodes.  The same kernel
// reads the values of nodes 0, 1 and 2 from columns of the 64 features
// they test most (FlatForest::head_feat), the others by gathers: models
// with more such features than that give the same bits too.  Every
// kernel scores a block in chunks of rows sized to the L1 cache (192 rows
// of 40 features, 32 of 300, 64 where the AVX-512 kernel runs: its single
// 16-row groups then take a chunk's last rows): several output groups and
// row counts that end inside a chunk give the same bits as well.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/cpu_features.h"
#include "model/model.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "tree/tree.h"

using namespace gbdt;

namespace {

// A subtree below nd of at most `depth` levels: a third of the children are
// leaves at once (leaves at every level), one split in eight has a NaN
// threshold, and with `cat` one in three is categorical.
void grow(Tree& t, int32_t nd, int depth, int d, bool cat, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  if (depth == 0) return;
  const int32_t l = t.add_node(nd, u(rng), 1.0);
  const int32_t r = t.add_node(nd, u(rng), 1.0);
  t.left[nd] = l;
  t.right[nd] = r;
  t.feature[nd] = (int32_t)(rng() % (uint32_t)d);
  t.default_left[nd] = (uint8_t)(rng() & 1u);
  t.threshold[nd] = rng() % 8 == 0 ? NAN : (float)(rng() % 20) - 9.5f;
  if (cat && rng() % 3 == 0) {
    const uint32_t w = (uint32_t)rng() ^ ((uint32_t)rng() << 9);
    t.set_categorical(nd, &w, 1);
  }
  if (rng() % 3 != 0) grow(t, l, depth - 1, d, cat, rng);
  if (rng() % 3 != 0) grow(t, r, depth - 1, d, cat, rng);
}

// K > 1: K output groups (multi:softprob), tree i in group i % K.
Model unbalanced_model(int ntrees, int d, int max_depth, bool cat, uint32_t seed, int K = 1) {
  std::mt19937 rng(seed);
  Model m;
  m.num_output_group = K;
  m.objective = K > 1 ? Objective::kSoftprob : Objective::kSquaredError;
  m.base_margin.assign((size_t)K, 0.5);
  for (int f = 0; f < d; ++f) {
    m.feature_names.push_back("c" + std::to_string(f));
    m.feature_types.push_back(cat && f % 2 ? FeatureType::kCategorical : FeatureType::kFloat);
  }
  for (int i = 0; i < ntrees; ++i) {
    Tree t;
    t.add_node(-1, 0.0f, 1.0);
    grow(t, 0, 1 + (int)(rng() % (uint32_t)max_depth), d, cat, rng);
    m.trees.push_back(t);
    m.tree_group.push_back(i % K);
  }
  return m;
}

// Runs of 8 to 64 equal rows (one group or several on the same path), and
// runs of rows that each differ; NaN, infinities and small codes among them.
std::vector<float> runs_of_rows(size_t n, int d, uint32_t seed) {
  std::mt19937 rng(seed);
  const float special[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 3.0f, 31.0f, -9.5f};
  auto value = [&] {
    return rng() % 5 == 0 ? special[rng() % 8] : (float)(rng() % 40) * 0.5f - 10.0f;
  };
  std::vector<float> x(n * (size_t)d);
  size_t r = 0;
  while (r < n) {
    const size_t len = std::min(n - r, (size_t)(8 + rng() % 57));
    const bool equal = rng() % 3 != 0;
    std::vector<float> row((size_t)d);
    for (float& v : row) v = value();
    for (size_t k = 0; k < len; ++k, ++r)
      for (int f = 0; f < d; ++f) x[r * d + f] = equal ? row[(size_t)f] : value();
  }
  return x;
}

void expect_kernels_agree(const Model& m, const std::vector<float>& x, size_t n, const char* what) {
  gbdt_test::KernelRestore restore;
  const int d = m.n_features();
  const size_t K = (size_t)m.num_output_group;
  std::vector<double> ref(n * K);
  for (size_t r = 0; r < n; ++r) {
    predict_margin_row(m, x.data() + r * d, &ref[r * K]);
    transform_margins(m, &ref[r * K]);
  }
  for (int kernel = 0; kernel <= 3; ++kernel) {
    set_predict_kernel_for_tests(kernel);
    for (int nt : {1, 2}) {
      std::vector<double> out(n * K);
      predict_batch(m, x.data(), n, out.data(), nt);
      size_t bad = 0;
      for (size_t i = 0; i < n * K; ++i) bad += std::memcmp(&out[i], &ref[i], sizeof(double)) != 0;
      EXPECT_EQ(bad, 0u) << what << ": kernel " << kernel << ", " << nt << " threads";
    }
  }
}

}  // namespace

TEST(PredictEarlyExit, UnbalancedNumericTreesGiveTheRowWalksBits) {
  for (int depth : {3, 6, 9}) {
    const Model m = unbalanced_model(40, 6, depth, false, 100 + (uint32_t)depth);
    const std::vector<float> x = runs_of_rows(2003, 6, 7 + (uint32_t)depth);
    expect_kernels_agree(m, x, 2003, "numeric");
  }
}

TEST(PredictEarlyExit, UnbalancedCategoricalTreesGiveTheRowWalksBits) {
  for (int depth : {4, 7}) {
    const Model m = unbalanced_model(40, 6, depth, true, 200 + (uint32_t)depth);
    const std::vector<float> x = runs_of_rows(1501, 6, 9 + (uint32_t)depth);
    expect_kernels_agree(m, x, 1501, "categorical");
  }
}

TEST(PredictEarlyExit, MoreHeadFeaturesThanColumnsGiveTheRowWalksBits) {
  // 300 trees over 200 features: far more than 64 distinct features at
  // nodes 0-2, so some trees read columns and others gather.
  for (bool cat : {false, true}) {
    const Model m = unbalanced_model(300, 200, 4, cat, 300 + (uint32_t)cat);
    const std::vector<float> x = runs_of_rows(777, 200, 11);
    expect_kernels_agree(m, x, 777, cat ? "categorical, 200 features" : "numeric, 200 features");
  }
}

TEST(PredictEarlyExit, RowsScoredInCacheSizedChunksGiveTheRowWalksBits) {
  // 40 features: chunks of 192 rows (a 256-row block is 192 + 64); 300
  // features: chunks of 32 (64 with AVX-512).  1,000 rows end inside a
  // chunk (the last block's 232 rows: 192 + 40, or 3 x 64 + 40 with
  // AVX-512, whose 40 are two 16-row groups and 8 rows walked one by one);
  // three output groups put each row's sums 3 apart.
  for (int d : {40, 300})
    for (bool cat : {false, true})
      for (int K : {1, 3}) {
        const Model m = unbalanced_model(60, d, 6, cat, 400 + (uint32_t)d + (uint32_t)cat, K);
        const std::vector<float> x = runs_of_rows(1000, d, 13 + (uint32_t)d);
        const std::string what = std::to_string(d) + " features, " + (cat ? "categorical" : "numeric") +
                                 ", " + std::to_string(K) + " groups";
        expect_kernels_agree(m, x, 1000, what.c_str());
      }
}

TEST(PredictEarlyExit, VectorKernelsLeaveOnlyABatchsLastRowsToTheRowWalk) {
  // The bits above cannot tell a vector kernel from the row walk.  Since
  // the L1-sized chunks, rows of 300-500 features came in chunks of 32,
  // under the AVX-512 kernel's 64-row step, and on AVX-512 CPUs every row
  // was walked one by one (same bits, 5 times slower).  Kernel 0 on whole
  // 256-row blocks must leave no row to the walk, and on 1,000 rows only
  // the last block's tail (8 rows) per tree.
  if (!cpu_has_avx2()) GTEST_SKIP() << "no AVX2: the row walk is the kernel here";
  gbdt_test::KernelRestore restore;
  set_predict_kernel_for_tests(0);
  const int ntrees = 30;
  for (int d : {20, 40, 300, 500})
    for (bool cat : {false, true}) {
      const Model m = unbalanced_model(ntrees, d, 6, cat, 500 + (uint32_t)d + (uint32_t)cat);
      for (size_t n : {(size_t)2048, (size_t)1000}) {
        const std::vector<float> x = runs_of_rows(n, d, 17 + (uint32_t)d);
        for (int nt : {1, 2}) {
          std::vector<double> out(n);
          const size_t before = scoring_rows_walked_for_tests();
          predict_batch(m, x.data(), n, out.data(), nt);
          const size_t walked = scoring_rows_walked_for_tests() - before;
          const std::string what = std::to_string(d) + " features, " + (cat ? "categorical" : "numeric") +
                                   ", " + std::to_string(n) + " rows, " + std::to_string(nt) + " threads";
          if (n == 2048) {
            EXPECT_EQ(walked, 0u) << what;
          } else {
            EXPECT_LE(walked, (size_t)(8 * ntrees)) << what;
          }
        }
      }
    }
}

TEST(PredictEarlyExit, NaNThresholdSplitIsNotAPassThrough) {
  // Root: a NaN threshold (every value right, NaN by its default) over a
  // right subtree that splits again; every row at the root's right child
  // must still take that split.
  Model m;
  m.num_output_group = 1;
  m.objective = Objective::kSquaredError;
  m.base_margin.assign(1, 0.0);
  m.feature_names = {"a", "b"};
  m.feature_types = {FeatureType::kFloat, FeatureType::kFloat};
  Tree t;
  t.add_node(-1, 0.0f, 1.0);
  const int32_t l = t.add_node(0, 100.0f, 1.0);
  const int32_t r = t.add_node(0, 0.0f, 1.0);
  t.left[0] = l;
  t.right[0] = r;
  t.feature[0] = 0;
  t.threshold[0] = NAN;
  t.default_left[0] = 1;
  const int32_t rl = t.add_node(r, 1.0f, 1.0);
  const int32_t rr = t.add_node(r, 2.0f, 1.0);
  t.left[r] = rl;
  t.right[r] = rr;
  t.feature[r] = 1;
  t.threshold[r] = 0.5f;
  m.trees.push_back(t);
  m.tree_group.push_back(0);
  const size_t n = 96;
  std::vector<float> x(n * 2);
  for (size_t i = 0; i < n; ++i) {
    x[2 * i] = i % 40 == 39 ? NAN : (float)i;
    x[2 * i + 1] = i < 64 ? 0.0f : 1.0f;  // two groups of 32 left of 0.5, one right
  }
  expect_kernels_agree(m, x, n, "NaN threshold");
  std::vector<double> out(n);
  predict_batch(m, x.data(), n, out.data(), 1);
  EXPECT_EQ(out[0], 1.0);    // right, then left (b = 0 < 0.5)
  EXPECT_EQ(out[70], 2.0);   // right, then right
  EXPECT_EQ(out[39], 100.0); // NaN: default left
}
