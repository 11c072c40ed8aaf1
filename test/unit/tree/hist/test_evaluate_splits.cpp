// SplitEvaluator (tree/hist/evaluate_splits.h) against a brute-force
// reference: every feature not masked out, every bin b (rows with bin <= b
// left) and both directions of the missing values, the gain of
// split_math.h's split_gain_given_parent, the first largest one kept (in
// the order feature, bin, missing right before missing left) when it is
// worth splitting.  Small random histograms (from random rows, so that
// every feature's cells add up to the node's sum), with empty bins,
// missing values, zero hessians and min_child_weight, on the vectorized
// scan (max_delta_step 0) and the scalar one, one node and sibling pairs
// whose larger sibling still holds its parent's histogram (the pending
// subtraction).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <random>
#include <vector>

#include "common/thread_pool.h"
#include "objective/gradients.h"
#include "tree/hist/evaluate_splits.h"

using namespace gbdt;

namespace {

struct Hists {
  Cuts cuts;
  std::vector<std::vector<GradSum>> node;  // per node: its histogram
  std::vector<GradSum> sum;                // per node: its sum
};

// `nodes` histograms over d features of 1..maxb value bins, from `rows`
// random rows each (a fraction of the bins left empty, some missing values,
// some zero hessians).
Hists make_hists(int nodes, int d, int maxb, size_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Hists h;
  h.cuts.ptr.push_back(0);
  for (int f = 0; f < d; ++f) {
    const int nb = 1 + (int)(u(rng) * maxb);
    for (int b = 0; b < nb; ++b) h.cuts.values.push_back((float)b);
    h.cuts.ptr.push_back((uint32_t)h.cuts.values.size());
    h.cuts.min_values.push_back(0.0f);
  }
  const size_t T = h.cuts.total_hist_bins();
  for (int i = 0; i < nodes; ++i) {
    std::vector<GradSum> hist(T, GradSum{0, 0});
    GradSum sum{0, 0};
    for (size_t r = 0; r < rows; ++r) {
      // about (-0.8, 1.2) and (0, 2) in real units (kQ: 2^41 per unit)
      const GradSum g{(int64_t)((u(rng) - 0.4) * 4e12), u(rng) < 0.05 ? 0 : (int64_t)(u(rng) * 4e12)};
      sum = gs_add(sum, g);
      for (int f = 0; f < d; ++f) {
        const int nb = h.cuts.nbins(f);
        // bins in the upper half are rare, so that some stay empty
        int b = (int)(u(rng) * (u(rng) < 0.8 ? (nb + 1) / 2 : nb));
        if (f % 3 == 2 && u(rng) < 0.3) b = nb;  // missing
        GradSum& c = hist[h.cuts.hist_offset(f) + (uint32_t)b];
        c = gs_add(c, g);
      }
    }
    h.node.push_back(hist);
    h.sum.push_back(sum);
  }
  return h;
}

SplitCandidate reference(const Cuts& cuts, const GradSum* h, GradSum sum, const SplitParams& sp,
                         const Quantizer& q, const std::vector<uint8_t>& mask) {
  SplitCandidate best = no_split();
  const double pg = parent_gain(sp, q, sum);
  for (int f = 0; f < cuts.n_features(); ++f) {
    if (!mask[f]) continue;
    const GradSum* hf = h + cuts.hist_offset(f);
    const int nb = cuts.nbins(f);
    const GradSum miss = hf[nb];
    GradSum acc{0, 0};
    for (int b = 0; b < nb; ++b) {
      acc = gs_add(acc, hf[b]);
      for (int dl = 0; dl < 2; ++dl) {
        if (dl == 1 && miss.g == 0 && miss.h == 0) continue;
        const GradSum left = dl ? gs_add(acc, miss) : acc;
        const double gain = split_gain_given_parent(sp, q, sum, left, pg);
        if (split_is_useful(sp, gain) && (best.feature < 0 || gain > best.gain))
          best = SplitCandidate{gain, f, b, dl, left};
      }
    }
  }
  return best;
}

void expect_same(const SplitCandidate& ref, const SplitCandidate& got, const std::string& what) {
  ASSERT_EQ(ref.feature, got.feature) << what;
  if (ref.feature < 0) return;
  EXPECT_EQ(std::memcmp(&ref.gain, &got.gain, sizeof(double)), 0) << what << ": gain " << got.gain << " vs " << ref.gain;
  EXPECT_EQ(ref.bin, got.bin) << what;
  EXPECT_EQ(ref.default_left, got.default_left) << what;
  EXPECT_EQ(ref.left.g, got.left.g) << what;
  EXPECT_EQ(ref.left.h, got.left.h) << what;
}

SplitParams params(double mds, double mcw, double gamma) {
  SplitParams sp{};
  sp.reg_lambda = 1.0;
  sp.reg_alpha = 0.3;
  sp.gamma = gamma;
  sp.min_child_weight = mcw;
  sp.max_delta_step = mds;
  sp.eta = 0.3;
  return sp;
}

const Quantizer kQ = make_quantizer(1.0, 1.0, 1u << 20);

}  // namespace

// The evaluator of the cuts of h, and the level of h's nodes.
struct EvalSetup {
  SplitEvaluator ev;
  std::vector<uint32_t> off;
  std::vector<std::vector<GradSum>> hist;
  std::vector<LevelNode> level;
  EvalSetup(const Hists& h, const SplitParams& sp, int nthread) : hist(h.node) {
    for (int f = 0; f < h.cuts.n_features(); ++f) off.push_back(h.cuts.hist_offset(f));
    ev.init(&h.cuts, off.data(), h.cuts.total_hist_bins(), sp, CatSplitParams{4, 64}, nullptr, nthread);
    for (size_t i = 0; i < hist.size(); ++i) level.push_back(LevelNode{(int32_t)i, 0, 0, h.sum[i], hist[i].data()});
  }
};

TEST(SplitEvaluator, OneNodeMatchesBruteForce) {
  ThreadPool pool(3);
  int splits = 0, cases = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed)
    for (double mds : {0.0, 0.7}) {
      const int d = 1 + (int)(seed % 7);
      const Hists h = make_hists(1, d, 24, 20 + seed * 5, seed);
      const SplitParams sp = params(mds, seed % 4 == 0 ? 30.0 : 1.0, seed % 5 == 0 ? 2.0 : 0.0);
      std::vector<uint8_t> mask((size_t)d, 1);
      if (seed % 3 == 0) mask[seed % d] = 0;
      EvalSetup s(h, sp, pool.size());
      std::vector<SplitCandidate> best;
      std::vector<CatWords> sets;
      s.ev.evaluate(s.level, 0, kQ, mask.data(), &pool, &best, &sets);
      ASSERT_EQ(best.size(), 1u);
      const SplitCandidate ref = reference(h.cuts, h.node[0].data(), h.sum[0], sp, kQ, mask);
      expect_same(ref, best[0], "seed " + std::to_string(seed) + " max_delta_step " + std::to_string(mds));
      EXPECT_EQ(sets[0].words, nullptr);
      splits += ref.feature >= 0;
      ++cases;
    }
  // both outcomes occur: the comparison is not only of "no split"
  EXPECT_GT(splits, cases / 4);
  EXPECT_LT(splits, cases);
}

TEST(SplitEvaluator, SiblingPairsWithPendingSubtraction) {
  ThreadPool pool(2);
  int splits = 0;
  for (uint64_t seed = 100; seed < 130; ++seed)
    for (double mds : {0.0, 0.5}) {
      // nodes 0, 1: the siblings; node 2: their parent (0 + 1).
      const int d = 5;
      Hists h = make_hists(2, d, 16, 50 + seed, seed);
      std::vector<GradSum> parent(h.node[0].size());
      for (size_t x = 0; x < parent.size(); ++x) parent[x] = gs_add(h.node[0][x], h.node[1][x]);
      const SplitParams sp = params(mds, 1.0, 0.0);
      std::vector<uint8_t> mask((size_t)d, 1);
      mask[seed % d] = 0;  // masked features are still subtracted
      EvalSetup s(h, sp, pool.size());
      // node 1 holds the parent's histogram, to become parent - node 0
      s.hist[1] = parent;
      s.level[1].hist = s.hist[1].data();
      s.level[1].pending_small = s.hist[0].data();
      std::vector<SplitCandidate> best;
      std::vector<CatWords> sets;
      s.ev.evaluate(s.level, 1, kQ, mask.data(), &pool, &best, &sets);
      ASSERT_EQ(best.size(), 2u);
      for (int i = 0; i < 2; ++i) splits += best[i].feature >= 0;
      for (int i = 0; i < 2; ++i)
        expect_same(reference(h.cuts, h.node[i].data(), h.sum[i], sp, kQ, mask), best[i],
                    "seed " + std::to_string(seed) + " node " + std::to_string(i));
      EXPECT_EQ(s.level[1].pending_small, nullptr);
      for (size_t x = 0; x < parent.size(); ++x) {
        ASSERT_EQ(s.hist[1][x].g, h.node[1][x].g) << "cell " << x;
        ASSERT_EQ(s.hist[1][x].h, h.node[1][x].h) << "cell " << x;
      }
    }
  EXPECT_GT(splits, 30);
}
