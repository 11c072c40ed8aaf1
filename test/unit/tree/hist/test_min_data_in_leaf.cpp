// min_data_in_leaf (split_math.h's at_node / too_few_rows) in the CPU split
// evaluator (tree/hist/evaluate_splits.h).  With a hessian of exactly 1 per
// row (squared error) LightGBM's estimate of a child's rows from its hessian
// sum is the true count, so the evaluator must pick exactly what a brute
// force over the candidates with true row counts picks.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "objective/gradients.h"
#include "tree/hist/evaluate_splits.h"

using namespace gbdt;

namespace {

const Quantizer kQ = make_quantizer(1.0, 1.0, 1u << 20);

// A node's histogram over d features with per-cell row counts; every row has
// hessian 1 (kQ.h_scale in fixed point) and a random gradient.
struct CountedHist {
  Cuts cuts;
  std::vector<GradSum> hist;
  std::vector<int> count;  // rows per cell
  GradSum sum{0, 0};
  size_t rows = 0;
};

CountedHist make_counted(int d, int maxb, size_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  CountedHist h;
  h.rows = rows;
  h.cuts.ptr.push_back(0);
  for (int f = 0; f < d; ++f) {
    const int nb = 1 + (int)(u(rng) * maxb);
    for (int b = 0; b < nb; ++b) h.cuts.values.push_back((float)b);
    h.cuts.ptr.push_back((uint32_t)h.cuts.values.size());
    h.cuts.min_values.push_back(0.0f);
  }
  const size_t T = h.cuts.total_hist_bins();
  h.hist.assign(T, GradSum{0, 0});
  h.count.assign(T, 0);
  const int64_t one = (int64_t)kQ.h_scale;
  for (size_t r = 0; r < rows; ++r) {
    const GradSum g{(int64_t)((u(rng) - 0.4) * 4e12), one};
    h.sum = gs_add(h.sum, g);
    for (int f = 0; f < d; ++f) {
      const int nb = h.cuts.nbins(f);
      // skewed bins, so that the extreme bins hold few rows
      int b = (int)(u(rng) * u(rng) * nb);
      if (f % 3 == 2 && u(rng) < 0.2) b = nb;  // missing
      const size_t c = h.cuts.hist_offset(f) + (uint32_t)b;
      h.hist[c] = gs_add(h.hist[c], g);
      ++h.count[c];
    }
  }
  return h;
}

SplitParams params(double mds, double min_data) {
  SplitParams sp{};
  sp.reg_lambda = 1.0;
  sp.reg_alpha = 0.0;
  sp.gamma = 0.0;
  sp.min_child_weight = 0.0;
  sp.max_delta_step = mds;
  sp.eta = 0.3;
  sp.min_data_in_leaf = min_data;
  return sp;
}

// Brute force: every candidate whose true left and right row counts are at
// least min_data, gains by split_gain_given_parent WITHOUT the limit.
SplitCandidate reference(const CountedHist& h, double mds, int min_data) {
  const SplitParams sp = params(mds, 0.0);
  SplitCandidate best = no_split();
  const double pg = parent_gain(sp, kQ, h.sum);
  for (int f = 0; f < h.cuts.n_features(); ++f) {
    const size_t o = h.cuts.hist_offset(f);
    const int nb = h.cuts.nbins(f);
    const GradSum miss = h.hist[o + nb];
    const int miss_n = h.count[o + nb];
    GradSum acc{0, 0};
    int acc_n = 0;
    for (int b = 0; b < nb; ++b) {
      acc = gs_add(acc, h.hist[o + b]);
      acc_n += h.count[o + b];
      for (int dl = 0; dl < 2; ++dl) {
        if (dl == 1 && miss.h == 0) continue;
        const GradSum left = dl ? gs_add(acc, miss) : acc;
        const int ln = dl ? acc_n + miss_n : acc_n;
        if (ln < min_data || (int)h.rows - ln < min_data) continue;
        const double gain = split_gain_given_parent(sp, kQ, h.sum, left, pg);
        if (split_is_useful(sp, gain) && (best.feature < 0 || gain > best.gain))
          best = SplitCandidate{gain, f, b, dl, left};
      }
    }
  }
  return best;
}

// The evaluator's best split of the one node h with the limit min_data.
SplitCandidate evaluate(const CountedHist& h, double mds, int min_data, ThreadPool* pool) {
  std::vector<uint32_t> off;
  for (int f = 0; f < h.cuts.n_features(); ++f) off.push_back(h.cuts.hist_offset(f));
  SplitEvaluator ev;
  ev.init(&h.cuts, off.data(), h.cuts.total_hist_bins(), params(mds, min_data), CatSplitParams{4, 64},
          nullptr, pool->size());
  std::vector<GradSum> hist = h.hist;
  std::vector<LevelNode> level{LevelNode{0, 0, h.rows, h.sum, hist.data()}};
  std::vector<uint8_t> mask((size_t)h.cuts.n_features(), 1);
  std::vector<SplitCandidate> best;
  std::vector<CatWords> sets;
  ev.evaluate(level, 0, kQ, mask.data(), pool, &best, &sets);
  return best.at(0);
}

}  // namespace

TEST(MinDataInLeaf, EstimateIsTheRowCountWithUnitHessians) {
  SplitParams sp = params(0.0, 5.0);
  const GradSum parent{0, 40 * (int64_t)kQ.h_scale};
  sp = at_node(sp, kQ, parent, 40.0);
  EXPECT_TRUE(too_few_rows(sp, 4.0));
  EXPECT_FALSE(too_few_rows(sp, 5.0));
  EXPECT_FALSE(too_few_rows(sp, 35.0));
  EXPECT_TRUE(too_few_rows(sp, 36.0));
  // the limit 0 never rejects (and at_node leaves the node fields alone)
  const SplitParams off = at_node(params(0.0, 0.0), kQ, parent, 40.0);
  EXPECT_FALSE(too_few_rows(off, 0.5));
  EXPECT_EQ(off.cnt_factor, 0.0);
}

// One feature: bin 0 holds 2 rows with a large negative gradient, bin 1
// 20 rows with a positive one; the split between them is the best one
// without a limit and is refused with min_data_in_leaf 3.
TEST(MinDataInLeaf, SplitLeavingTooFewRowsIsRejected) {
  CountedHist h;
  h.cuts.ptr = {0, 2};
  h.cuts.values = {0.0f, 1.0f};
  h.cuts.min_values = {0.0f};
  h.hist.assign(3, GradSum{0, 0});
  h.count.assign(3, 0);
  const int64_t one = (int64_t)kQ.h_scale;
  h.hist[0] = GradSum{(int64_t)(-2 * 3.0 * kQ.g_scale), 2 * one};
  h.hist[1] = GradSum{(int64_t)(20 * 0.5 * kQ.g_scale), 20 * one};
  h.count[0] = 2;
  h.count[1] = 20;
  h.sum = gs_add(h.hist[0], h.hist[1]);
  h.rows = 22;
  ThreadPool pool(1);
  for (double mds : {0.0, 0.7}) {
    const SplitCandidate free = evaluate(h, mds, 0, &pool);
    ASSERT_EQ(free.feature, 0);
    EXPECT_EQ(free.bin, 0);
    EXPECT_EQ(evaluate(h, mds, 2, &pool).feature, 0);   // 2 rows: enough
    EXPECT_EQ(evaluate(h, mds, 3, &pool).feature, -1);  // 2 rows: too few
  }
}

TEST(MinDataInLeaf, MatchesBruteForceWithTrueCounts) {
  ThreadPool pool(2);
  int limited = 0, splits = 0, cases = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed)
    for (double mds : {0.0, 0.6})
      for (int m : {1, 4, 15, 40}) {
        const CountedHist h = make_counted(1 + (int)(seed % 6), 24, 30 + seed * 3, seed);
        const SplitCandidate ref = reference(h, mds, m);
        const SplitCandidate got = evaluate(h, mds, m, &pool);
        const std::string what = "seed " + std::to_string(seed) + " mds " + std::to_string(mds) + " m " +
                                 std::to_string(m);
        ASSERT_EQ(ref.feature, got.feature) << what;
        ++cases;
        if (ref.feature < 0) continue;
        ++splits;
        EXPECT_EQ(std::memcmp(&ref.gain, &got.gain, sizeof(double)), 0) << what;
        EXPECT_EQ(ref.bin, got.bin) << what;
        EXPECT_EQ(ref.default_left, got.default_left) << what;
        EXPECT_EQ(ref.left.h, got.left.h) << what;
        const SplitCandidate unlimited = reference(h, mds, 0);
        limited += unlimited.bin != ref.bin || unlimited.feature != ref.feature;
      }
  // the limit changes the winner in a fair share of the cases, and both
  // outcomes (split, none) occur
  EXPECT_GT(limited, cases / 10);
  EXPECT_GT(splits, cases / 4);
  EXPECT_LT(splits, cases);
}
