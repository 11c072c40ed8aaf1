// Batch scoring of models with categorical splits (predict.cpp's flat
// categorical layout, walked in lock-step groups of rows) gives the same
// bits as the row walk (Tree::leaf_of / goes_left) on random trees mixing
// numeric and categorical nodes and on hostile values: negative, -0,
// fractional, infinite and unseen codes, codes at the edge of a node's
// code set, NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "model/model.h"
#include "predictor/predict.h"
#include "tree/tree.h"

using namespace gbdt;

namespace {

// A random subtree under node nd, at most `depth` more levels.
void grow(Tree& t, int32_t nd, int depth, int d, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  if (depth == 0 || (nd != 0 && rng() % 5 == 0)) return;  // a leaf (some above the max depth)
  const int32_t l = t.add_node(nd, u(rng), 1.0);
  const int32_t r = t.add_node(nd, u(rng), 1.0);
  t.left[nd] = l;
  t.right[nd] = r;
  t.feature[nd] = (int32_t)(rng() % (uint32_t)d);
  t.default_left[nd] = (uint8_t)(rng() & 1u);
  t.threshold[nd] = (float)(rng() % 40) - 4.5f;
  if (rng() % 3 != 0) {  // categorical: a random code set of 1 to 3 words
    const uint32_t nw = 1 + rng() % 3;
    std::vector<uint32_t> w(nw);
    for (uint32_t& x : w) x = (uint32_t)rng() & (uint32_t)rng();
    t.set_categorical(nd, w.data(), nw);
  }
  grow(t, l, depth - 1, d, rng);
  grow(t, r, depth - 1, d, rng);
}

Model random_model(int ntrees, int d, int K, uint32_t seed) {
  std::mt19937 rng(seed);
  Model m;
  m.num_output_group = K;
  m.objective = K > 1 ? Objective::kSoftprob : Objective::kSquaredError;
  m.base_margin.assign((size_t)K, 0.25);
  for (int f = 0; f < d; ++f) {
    m.feature_names.push_back("f" + std::to_string(f));
    m.feature_types.push_back(FeatureType::kCategorical);
  }
  for (int i = 0; i < ntrees; ++i) {
    Tree t;
    t.add_node(-1, 0.0f, 1.0);
    grow(t, 0, 1 + (int)(rng() % 7), d, rng);
    m.trees.push_back(t);
    m.tree_group.push_back(i % K);
  }
  return m;
}

std::vector<float> hostile_rows(size_t n, int d, uint32_t seed) {
  std::mt19937 rng(seed);
  const float special[] = {NAN,   -1.0f, -0.0f, 0.0f,  -0.5f, 2.5f,   31.0f, 31.99f, 32.0f,
                           63.0f, 64.0f, 95.0f, 96.0f, 1e9f,  INFINITY, -INFINITY, 4.5f, 5.5f};
  std::vector<float> x(n * (size_t)d);
  for (float& v : x) {
    const uint32_t r = rng() % 4;
    v = r == 0 ? special[rng() % (sizeof special / sizeof special[0])]
        : r == 1 ? (float)(rng() % 100) * 0.5f - 3.0f
                 : (float)(rng() % 100);
  }
  return x;
}

}  // namespace

TEST(PredictCategorical, BatchEqualsRowWalkOnHostileValues) {
  for (int K : {1, 3}) {
    const int d = 5;
    Model m = random_model(60, d, K, 7u + (uint32_t)K);
    ASSERT_TRUE(m.trees[0].has_categorical() || m.trees[1].has_categorical());
    // 203 rows: full lock-step groups and a tail.
    const size_t n = 203;
    std::vector<float> x = hostile_rows(n, d, 11u);
    for (int nthread : {1, 2}) {
      std::vector<double> batch(n * (size_t)K);
      predict_batch(m, x.data(), n, batch.data(), nthread);
      for (size_t i = 0; i < n; ++i) {
        // The row walk, tree by tree in float as predict_margin_row adds.
        std::vector<float> a((size_t)K);
        for (int k = 0; k < K; ++k) a[k] = (float)m.base_margin[k];
        for (size_t t = 0; t < m.trees.size(); ++t)
          a[m.tree_group[t]] += m.trees[t].value[m.trees[t].leaf_of(&x[i * d])];
        std::vector<double> row((size_t)K);
        predict_margin_row(m, &x[i * d], row.data());
        for (int k = 0; k < K; ++k) ASSERT_EQ((double)a[k], row[k]) << i << " " << k;
        if (K == 1) {
          ASSERT_EQ(batch[i], row[0]) << "row " << i << " nthread " << nthread;
        } else {
          // Softmax outputs: the lock-step groups equal the same row scored
          // alone (the layout's single-row walk), whose margins are checked
          // against the row walk with K = 1 above.
          std::vector<double> got(batch.begin() + i * K, batch.begin() + (i + 1) * K);
          std::vector<double> one((size_t)K);
          predict_batch(m, &x[i * d], 1, one.data(), 1);
          ASSERT_EQ(got, one) << "row " << i << " nthread " << nthread;
        }
      }
    }
  }
}
