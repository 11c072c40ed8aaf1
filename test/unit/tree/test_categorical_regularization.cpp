// LightGBM's categorical regularization of partition splits (cat_smooth,
// cat_l2, min_data_per_group; categorical_split.h): hand-computed cases on
// four categories, and the CPU backend's scan (evaluate_categorical.h)
// against the reference shared with the CUDA kernels on random histograms
// with the regularization on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tree/categorical_split.h"
#include "tree/hist/evaluate_categorical.h"

using namespace gbdt;

namespace {

// Four categories, every row with hessian 0.25 (4 rows per unit):
//   bin 0 "A": G -6,  H 2  (8 rows)   weight  3     G/(H+8) -0.6
//   bin 1 "B": G -12, H 10 (40 rows)  weight  1.2   G/(H+8) -0.667
//   bin 2 "C": G 5,   H 2  (8 rows)   weight -2.5   G/(H+8)  0.5
//   bin 3 "D": G 12,  H 10 (40 rows)  weight -1.2   G/(H+8)  0.667
// By weight the order is C D B A; by the smoothed ratio (cat_smooth 8,
// negated) D C A B.  Parent: G -1, H 24, 96 rows.
struct FourCats {
  std::vector<GradSum> h{{-6, 2}, {-12, 10}, {5, 2}, {12, 10}, {0, 0}};
  GradSum parent{-1, 24};
  Quantizer q{1.0, 1.0, 1.0, 1.0};
  SplitParams sp;  // lambda 0, no min_child_weight, at_node with 96 rows
  FourCats() {
    SplitParams p{0.0, 0.0, 0.0, 0.0, 0.0, 0.1};
    p.count_rows = true;
    sp = at_node(p, q, parent, 96.0);
  }
  // The reference's split and its right set (as bins).
  SplitCandidate split(const CatSplitParams& cp, std::vector<int>* right) const {
    uint32_t set[kCatSetWords];
    CatBinSet bs;
    const SplitCandidate c = best_categorical_split(h.data(), 4, 0, parent, sp, q, cp, &bs);
    std::memcpy(set, bs.w, sizeof set);
    right->clear();
    for (int b = 0; b < 4; ++b)
      if (cat_words_has(set, kCatSetWords, (unsigned)b)) right->push_back(b);
    return c;
  }
};

// The gain of right set R with children's lambda l (parent: lambda 0).
double hand_gain(double gr, double hr, double gl, double hl, double l) {
  return gr * gr / (hr + l) + gl * gl / (hl + l) - 1.0 / 24.0;
}

}  // namespace

TEST(CategoricalRegularization, CatSmoothReordersTheCategories) {
  FourCats f;
  std::vector<int> right;
  // One category per set: by weight the ends are C and A; A wins.
  SplitCandidate c = f.split(CatSplitParams{4, 1}, &right);
  ASSERT_EQ(c.feature, 0);
  EXPECT_EQ(right, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(c.gain, hand_gain(-6, 2, 5, 22, 0));
  // Smoothed, the ends are D and B; D wins.
  c = f.split(CatSplitParams{4, 1, 8.0}, &right);
  ASSERT_EQ(c.feature, 0);
  EXPECT_EQ(right, std::vector<int>{3});
  EXPECT_DOUBLE_EQ(c.gain, hand_gain(12, 10, -13, 14, 0));
  // cat_smooth 9: A and C (8 rows each) never enter a set; the order of
  // B and D is D B; the gain is still that of D against the whole rest.
  c = f.split(CatSplitParams{4, 64, 9.0}, &right);
  ASSERT_EQ(c.feature, 0);
  EXPECT_EQ(right, std::vector<int>{3});
  EXPECT_DOUBLE_EQ(c.gain, hand_gain(12, 10, -13, 14, 0));
  // Without the limit on the set size, by weight: {C, D} (or its mirror).
  c = f.split(CatSplitParams{4, 64}, &right);
  EXPECT_EQ(right, (std::vector<int>{2, 3}));
  EXPECT_DOUBLE_EQ(c.gain, hand_gain(17, 12, -18, 12, 0));
}

TEST(CategoricalRegularization, CatL2AddsToTheChildrensLambda) {
  FourCats f;
  std::vector<int> right;
  const SplitCandidate c = f.split(CatSplitParams{4, 1, 8.0, 2.0}, &right);
  ASSERT_EQ(c.feature, 0);
  EXPECT_EQ(right, std::vector<int>{3});
  // Children with lambda 2, the parent with lambda 0 (LightGBM's).
  EXPECT_DOUBLE_EQ(c.gain, 144.0 / 12.0 + 169.0 / 16.0 - 1.0 / 24.0);
  // One-hot splits (4 bins < max_cat_to_onehot 5) keep lambda.
  const SplitCandidate o = f.split(CatSplitParams{5, 1, 0.0, 2.0}, &right);
  EXPECT_EQ(right, std::vector<int>{3});
  EXPECT_DOUBLE_EQ(o.gain, hand_gain(12, 10, -13, 14, 0));
}

TEST(CategoricalRegularization, MinDataPerGroup) {
  FourCats f;
  std::vector<int> right;
  // Order C D B A.  20: C (8 rows) alone is no candidate, C D (48) is,
  // C D B leaves 8 < 20 rows outside: the scan stops; A B from the other
  // end.  The best is {C, D}.
  SplitCandidate c = f.split(CatSplitParams{4, 64, 0.0, 0.0, 20.0}, &right);
  ASSERT_EQ(c.feature, 0);
  EXPECT_EQ(right, (std::vector<int>{2, 3}));
  // With sets of one category, C and A are too small: no candidate.
  c = f.split(CatSplitParams{4, 1, 0.0, 0.0, 20.0}, &right);
  EXPECT_EQ(c.feature, -1);
  // 50: no set gains 50 rows before fewer than 50 are left outside.
  c = f.split(CatSplitParams{4, 64, 0.0, 0.0, 50.0}, &right);
  EXPECT_EQ(c.feature, -1);
  // 40: from C, C D (48 rows) is offered and C D B (8 rows left) stops;
  // from A, A B: the same partition, found first as {C, D}.
  c = f.split(CatSplitParams{4, 64, 0.0, 0.0, 40.0}, &right);
  EXPECT_EQ(right, (std::vector<int>{2, 3}));
}

// The CPU scan equals the reference (gain bits, sums, direction, set) with
// the regularization on, on wide random histograms with missing values.
TEST(CategoricalRegularization, CpuScanEqualsTheReference) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Quantizer q{1e3, 1e3, 1e-3, 1e-3};
  const CatSplitParams cps[] = {{4, 64, 10.0, 0.0, 0.0},  {4, 64, 0.0, 10.0, 0.0},
                                {4, 64, 0.0, 0.0, 100.0}, {4, 64, 10.0, 10.0, 100.0},
                                {4, 8, 3.0, 1.0, 30.0},   {4, 5000, 10.0, 10.0, 100.0},
                                {1, 1, 0.5, 0.0, 5.0}};
  CatScanScratch s;
  s.reserve(6000);
  int splits = 0, runs = 0;
  for (int nb : {10, 200, 300, 2972, 6000})
    for (double fill : {0.05, 0.5, 1.0})
      for (int rep = 0; rep < 2; ++rep) {
        std::vector<GradSum> h((size_t)nb + 1, GradSum{0, 0});
        GradSum parent{0, 0};
        int64_t rows = 0;
        for (int b = 0; b < nb; ++b) {
          if (u(rng) >= fill) continue;
          const int64_t r = 1 + (int64_t)(u(rng) < 0.5 ? u(rng) * 5 : u(rng) * 300);
          rows += r;
          h[(size_t)b] = GradSum{(int64_t)((u(rng) - 0.5) * 2000.0 * (double)r), r * 250};
          parent = gs_add(parent, h[(size_t)b]);
        }
        if (rep == 1) {
          h[(size_t)nb] = GradSum{(int64_t)((u(rng) - 0.5) * 1e5), 40 * 250};
          rows += 40;
          parent = gs_add(parent, h[(size_t)nb]);
        }
        for (const CatSplitParams& cp : cps)
          for (double lambda : {0.0, 1.0}) {
            SplitParams p{lambda, 0.0, 0.0, 1.0, 0.0, 0.1};
            p.count_rows = cat_counts_rows(cp);
            const SplitParams sp = at_node(p, q, parent, (double)rows);
            const int nw = cat_set_words(nb);
            std::vector<uint32_t> ref_set((size_t)nw), set((size_t)nw);
            std::vector<int> order((size_t)std::max(nb, 256)), order_tmp(order.size());
            std::vector<double> wt(order.size()), wt_tmp(order.size());
            const SplitCandidate r = best_categorical_split_words(
                h.data(), nb, 1, parent, sp, q, cp, ref_set.data(), nw, order.data(), wt.data(),
                order_tmp.data(), wt_tmp.data());
            const SplitParams spc = nb >= cp.max_cat_to_onehot ? cat_partition_params(sp, cp) : sp;
            const SplitCandidate c = best_categorical_split_cpu(
                h.data(), nb, 1, parent, sp, q, cp, set.data(), nw, s,
                CatScalarGains{spc, q, parent, parent_gain(sp, q, parent)});
            const std::string what = "nb " + std::to_string(nb) + " fill " + std::to_string(fill) +
                                     " rep " + std::to_string(rep) + " smooth " +
                                     std::to_string(cp.cat_smooth) + " l2 " + std::to_string(cp.cat_l2) +
                                     " group " + std::to_string(cp.min_data_per_group);
            ASSERT_EQ(c.feature, r.feature) << what;
            EXPECT_EQ(std::memcmp(&c.gain, &r.gain, sizeof(double)), 0) << what;
            EXPECT_EQ(c.default_left, r.default_left) << what;
            EXPECT_EQ(c.left.g, r.left.g) << what;
            EXPECT_EQ(c.left.h, r.left.h) << what;
            EXPECT_TRUE(set == ref_set) << what;
            splits += r.feature >= 0;
            ++runs;
          }
      }
  EXPECT_GT(splits, runs / 2);
}
