// Models with categorical splits and trees of depth <= 10 are
// scored 16 rows per step in AVX-512 lanes (predict.cpp,
// perfect_trees_avx512<true>) where the CPU has them.  Every kernel gives
// the same bits: kernel 0 (the fastest available) against kernel 2 (the
// categorical node table walked row group by row group) and against the
// row walk (Tree::leaf_of), on random trees mixing numeric and
// categorical nodes (code sets of 1 to 4 words, leaves above the maximum
// depth), hostile values and enough rows for full 64-row steps and a tail.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "model/model.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "tree/tree.h"

using namespace gbdt;

namespace {

void grow_mixed(Tree& t, int32_t nd, int depth, int d, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  if (depth == 0 || (nd != 0 && rng() % 6 == 0)) return;
  const int32_t l = t.add_node(nd, u(rng), 1.0);
  const int32_t r = t.add_node(nd, u(rng), 1.0);
  t.left[nd] = l;
  t.right[nd] = r;
  t.feature[nd] = (int32_t)(rng() % (uint32_t)d);
  t.default_left[nd] = (uint8_t)(rng() & 1u);
  t.threshold[nd] = (float)(rng() % 50) - 5.5f;
  if (rng() % 2 == 0) {
    const uint32_t nw = 1 + rng() % 4;
    std::vector<uint32_t> w(nw);
    for (uint32_t& x : w) x = (uint32_t)rng() ^ ((uint32_t)rng() << 7);
    t.set_categorical(nd, w.data(), nw);
  }
  grow_mixed(t, l, depth - 1, d, rng);
  grow_mixed(t, r, depth - 1, d, rng);
}

Model mixed_model(int ntrees, int d, int K, int max_depth, uint32_t seed) {
  std::mt19937 rng(seed);
  Model m;
  m.num_output_group = K;
  m.objective = K > 1 ? Objective::kSoftprob : Objective::kSquaredError;
  m.base_margin.assign((size_t)K, 0.5);
  for (int f = 0; f < d; ++f) {
    m.feature_names.push_back("c" + std::to_string(f));
    m.feature_types.push_back(f % 2 ? FeatureType::kCategorical : FeatureType::kFloat);
  }
  for (int i = 0; i < ntrees; ++i) {
    Tree t;
    t.add_node(-1, 0.0f, 1.0);
    grow_mixed(t, 0, 1 + (int)(rng() % (uint32_t)max_depth), d, rng);
    m.trees.push_back(t);
    m.tree_group.push_back(i % K);
  }
  return m;
}

std::vector<float> mixed_rows(size_t n, int d, uint32_t seed) {
  std::mt19937 rng(seed);
  const float special[] = {NAN,   -1.0f, -0.0f,  0.0f,  -0.5f,    2.5f,      31.0f, 31.99f,
                           32.0f, 63.0f, 64.0f,  95.0f, 127.99f,  128.0f,    1e9f,  INFINITY,
                           -INFINITY, 4.5f, 5.5f, 4294967296.0f};
  std::vector<float> x(n * (size_t)d);
  for (float& v : x) {
    const uint32_t r = rng() % 4;
    v = r == 0 ? special[rng() % (sizeof special / sizeof special[0])]
        : r == 1 ? (float)(rng() % 300) * 0.5f - 10.0f
                 : (float)(rng() % 140);
  }
  return x;
}

}  // namespace

TEST(PredictCatSimd, KernelsGiveTheSameBits) {
  gbdt_test::KernelRestore restore;
  for (int K : {1, 3}) {
    for (int max_depth : {3, 6, 9}) {
      const int d = 7;
      const Model m = mixed_model(40, d, K, max_depth, 100u + (uint32_t)(K * 10 + max_depth));
      const size_t n = 64 * 5 + 37;  // full 64-row steps and a tail
      const std::vector<float> x = mixed_rows(n, d, 5u + (uint32_t)max_depth);
      std::vector<double> fast(n * (size_t)K), table(n * (size_t)K), avx2(n * (size_t)K);
      set_predict_kernel_for_tests(0);
      predict_batch(m, x.data(), n, fast.data(), 2);
      set_predict_kernel_for_tests(3);  // the AVX2 lanes where the CPU has AVX2
      predict_batch(m, x.data(), n, avx2.data(), 2);
      set_predict_kernel_for_tests(2);
      predict_batch(m, x.data(), n, table.data(), 1);
      set_predict_kernel_for_tests(0);
      for (size_t i = 0; i < n * (size_t)K; ++i) {
        ASSERT_EQ(std::memcmp(&fast[i], &table[i], sizeof(double)), 0)
            << "K " << K << " depth " << max_depth << " row " << i / K << ": " << fast[i] << " vs "
            << table[i];
        ASSERT_EQ(std::memcmp(&avx2[i], &table[i], sizeof(double)), 0)
            << "AVX2: K " << K << " depth " << max_depth << " row " << i / K << ": " << avx2[i] << " vs "
            << table[i];
      }
      if (K != 1) continue;
      for (size_t i = 0; i < n; ++i) {
        // The row walk: tree by tree in float.
        float a = (float)m.base_margin[0];
        for (const Tree& t : m.trees) a += t.value[t.leaf_of(&x[i * d])];
        ASSERT_EQ((double)a, fast[i]) << "depth " << max_depth << " row " << i;
      }
    }
  }
}
