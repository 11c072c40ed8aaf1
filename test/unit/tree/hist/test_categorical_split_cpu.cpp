// The CPU backend's categorical split scan (categorical_split_cpu.h, issue
// 11) against the reference shared with the CUDA kernels
// (best_categorical_split_words): the same candidate to the bit (gain,
// default direction, left sums) and the same right set, on histograms with
// thousands of categories, few of them non-empty, many weight ties, zero
// hessians, missing values, and every parameter that changes the search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "tree/categorical_split.h"
#include "tree/hist/evaluate_categorical.h"

using namespace gbdt;

namespace {

struct Case {
  int nb;
  double fill;     // fraction of non-empty categories
  int distinct_g;  // gradients drawn from this many values (ties), 0 = wide
  int miss;        // 0 none, 1 sums, 2 gradient only (zero hessian)
};

std::vector<GradSum> make_hist(const Case& c, std::mt19937_64& rng, GradSum* parent) {
  std::vector<GradSum> h((size_t)c.nb + 1, GradSum{0, 0});
  std::uniform_real_distribution<double> u(0.0, 1.0);
  *parent = GradSum{0, 0};
  for (int b = 0; b < c.nb; ++b) {
    if (u(rng) >= c.fill) continue;
    const int64_t rows = 1 + (int64_t)(u(rng) < 0.7 ? 0 : u(rng) * 20);
    int64_t g;
    if (c.distinct_g > 0)
      g = rows * ((int64_t)(u(rng) * c.distinct_g) - c.distinct_g / 2) * 1000;
    else
      g = (int64_t)((u(rng) - 0.5) * 1e9);
    int64_t hh = rows * 1000;
    if (u(rng) < 0.03) hh = 0;  // gradient without hessian (weight 0)
    if (u(rng) < 0.02) g = 0;
    h[(size_t)b] = GradSum{g, hh};
    *parent = gs_add(*parent, h[(size_t)b]);
  }
  if (c.miss == 1) h[(size_t)c.nb] = GradSum{(int64_t)((u(rng) - 0.5) * 1e7), 7000};
  if (c.miss == 2) h[(size_t)c.nb] = GradSum{12345, 0};
  *parent = gs_add(*parent, h[(size_t)c.nb]);
  return h;
}

// Compares the two scans on one histogram; returns the reference's feature
// (-1: no split) so that callers can check the cases are not all trivial.
int compare_one(const std::vector<GradSum>& h, int nb, GradSum parent, const SplitParams& sp,
                const Quantizer& q, const CatSplitParams& cp, CatScanScratch& s,
                const std::string& what) {
  const int nw = cat_set_words(nb);
  std::vector<uint32_t> ref_set((size_t)nw, 0xdeadbeefu), set((size_t)nw, 0xdeadbeefu);
  std::vector<int> order((size_t)std::max(nb, 256)), order_tmp(order.size());
  std::vector<double> wt(order.size()), wt_tmp(order.size());
  const SplitCandidate r = best_categorical_split_words(
      h.data(), nb, 3, parent, sp, q, cp, ref_set.data(), nw, order.data(), wt.data(),
      order_tmp.data(), wt_tmp.data());
  const SplitCandidate c = best_categorical_split_cpu(
      h.data(), nb, 3, parent, sp, q, cp, set.data(), nw, s,
      CatScalarGains{sp, q, parent, parent_gain(sp, q, parent)});
  EXPECT_EQ(c.feature, r.feature) << what;
  EXPECT_EQ(std::memcmp(&c.gain, &r.gain, sizeof(double)), 0) << what << " " << c.gain << " " << r.gain;
  EXPECT_EQ(c.bin, r.bin) << what;
  EXPECT_EQ(c.default_left, r.default_left) << what;
  EXPECT_EQ(c.left.g, r.left.g) << what;
  EXPECT_EQ(c.left.h, r.left.h) << what;
  EXPECT_TRUE(set == ref_set) << what;
  return r.feature;
}

}  // namespace

TEST(CategoricalSplitCpu, SameCandidateAndSetAsTheReference) {
  std::mt19937_64 rng(20261124);
  const Case cases[] = {
      {3, 1.0, 3, 0},     {10, 0.8, 0, 1},    {100, 0.5, 5, 1},   {256, 0.9, 0, 0},
      {256, 0.3, 5, 2},   {300, 0.6, 4, 1},   {1000, 0.1, 5, 1},  {1000, 0.9, 2, 0},
      {2972, 0.4, 5, 1},  {2972, 0.05, 5, 0}, {4000, 0.8, 0, 2},  {700, 0.2, 1, 1},
  };
  const SplitParams params[] = {
      {1.0, 0.0, 0.0, 1.0, 0.0, 0.1},  // defaults
      {0.5, 3.0, 0.0, 0.0, 0.0, 0.1},  // L1 (threshold_l1 branches)
      {1.0, 0.0, 2.0, 5.0, 0.0, 0.1},  // gamma, min_child_weight (zero weights, -1 gains)
      {0.0, 0.0, 0.0, 0.0, 0.7, 0.1},  // max_delta_step clipping, no lambda
  };
  const CatSplitParams cps[] = {{4, 64}, {4, 1}, {4, 2}, {4, 8}, {4, 5000}, {50, 64}, {5000, 64}, {1, 300}};
  CatScanScratch s;
  s.reserve(4000);
  int splits = 0, runs = 0;
  for (const Case& c : cases)
    for (int rep = 0; rep < 3; ++rep) {
      GradSum parent;
      const std::vector<GradSum> h = make_hist(c, rng, &parent);
      const Quantizer q{1e3, 1e3, 1e-3, 1e-3};
      for (size_t pi = 0; pi < sizeof params / sizeof params[0]; ++pi)
        for (const CatSplitParams& cp : cps) {
          const std::string what = "nb " + std::to_string(c.nb) + " fill " + std::to_string(c.fill) +
                                   " rep " + std::to_string(rep) + " params " + std::to_string(pi) +
                                   " onehot " + std::to_string(cp.max_cat_to_onehot) + " threshold " +
                                   std::to_string(cp.max_cat_threshold);
          splits += compare_one(h, c.nb, parent, params[pi], q, cp, s, what) >= 0;
          ++runs;
        }
    }
  // Most cases split (the comparison is not between two no_split()s).
  EXPECT_GT(splits, runs * 3 / 4);
}

// Categories tied on the weight on both ends of the order, more of them than
// max_cat_threshold, in bin orders that put the ties first, last and
// interleaved: the set must take the ties of the lowest bins at the low end
// and of the highest bins at the high end, as a stable sort does.
TEST(CategoricalSplitCpu, WeightTiesAtTheSelectionBoundary) {
  const SplitParams sp{1.0, 0.0, 0.0, 0.0, 0.0, 0.1};
  const Quantizer q{1.0, 1.0, 1.0, 1.0};
  CatScanScratch s;
  s.reserve(3000);
  int splits = 0;
  for (int layout = 0; layout < 3; ++layout)
    for (int threshold : {3, 16, 64, 200}) {
      const int nb = 3000;
      std::vector<GradSum> h((size_t)nb + 1, GradSum{0, 0});
      GradSum parent{0, 0};
      for (int b = 0; b < nb; ++b) {
        if (b % 3 == 1) continue;
        // Three weights only: -5, 0, +5 per unit hessian.
        const int cls = layout == 0 ? b % 3 == 0 ? (b / 3) % 3 : 2 - (b / 3) % 3
                        : layout == 1 ? (b < nb / 3 ? 0 : b < 2 * nb / 3 ? 1 : 2)
                                      : (b < nb / 3 ? 2 : b < 2 * nb / 3 ? 1 : 0);
        h[(size_t)b] = GradSum{(int64_t)(cls - 1) * 5, 1};
        parent = gs_add(parent, h[(size_t)b]);
      }
      splits += compare_one(h, nb, parent, sp, q, CatSplitParams{4, threshold}, s,
                            "layout " + std::to_string(layout) + " threshold " +
                                std::to_string(threshold)) >= 0;
    }
  EXPECT_EQ(splits, 12);
}

// cat_select_ends alone: the first and the last lim of a stable sort by
// weight; and cat_sort: the stable sort.
TEST(CategoricalSplitCpu, SelectEndsAndSortGiveTheStableOrder) {
  std::mt19937_64 rng(7);
  int selected = 0, runs = 0;
  for (int m : {1, 2, 3, 10, 129, 300, 2000, 5000})
    for (int lim : {1, 4, 64, 100})
      for (int distinct : {2, 7, 1000000})
        for (int layout = 0; layout < 4; ++layout) {
          std::vector<CatItem> it((size_t)m);
          for (int i = 0; i < m; ++i) {
            // Random weights, or rising / falling with the bin; layout 3:
            // weights that differ below float precision (equal as floats).
            const double v = layout == 0 ? (double)(int64_t)(rng() % (uint64_t)distinct)
                             : layout == 1 ? (double)((int64_t)i * distinct / m)
                             : layout == 2 ? (double)(-(int64_t)i * distinct / m)
                                           : distinct / 2.0 + 1.0 + (double)(rng() % 1000) * 1e-13 -
                                                 (i % 2 ? 2e-13 : 0.0);
            it[(size_t)i] = CatItem{v - distinct / 2.0, i * 2 + 1, 0};
          }
          if (distinct == 2) it[0].w = -0.0;  // -0.0 ties with 0.0
          std::vector<CatItem> ref = it;
          std::stable_sort(ref.begin(), ref.end(), [](const CatItem& a, const CatItem& b) { return a.w < b.w; });
          std::vector<CatItem> sorted = it, tmp((size_t)m);
          cat_sort(sorted.data(), m, tmp.data());
          for (int k = 0; k < m; ++k) ASSERT_EQ(sorted[(size_t)k].bin, ref[(size_t)k].bin) << m << " " << k;
          if (8 * lim >= m) continue;
          std::vector<CatItem> bl(2 * (size_t)m), bh(2 * (size_t)m), sel(2 * (size_t)lim);
          ++runs;
          if (!cat_select_ends(it.data(), m, lim, bl.data(), bh.data(), sel.data())) continue;
          ++selected;
          for (int k = 0; k < lim; ++k) {
            EXPECT_EQ(sel[(size_t)k].bin, ref[(size_t)k].bin) << m << " " << lim << " " << distinct << " lo " << k;
            EXPECT_EQ(sel[(size_t)(lim + k)].bin, ref[(size_t)(m - lim + k)].bin)
                << m << " " << lim << " " << distinct << " hi " << k;
          }
        }
  EXPECT_GT(selected, runs * 3 / 4);
}

// cat_nonempty_bins: the vector path's bins are the scalar loop's and the
// definition's (g or h non-zero), for densities from none to all, sums
// non-zero in g only or in h only (and in their high bits only), and every
// length around the 16-bin steps.
TEST(CategoricalSplitCpu, NonemptyBinsAreTheDefinition) {
  std::mt19937 rng(23);
  for (int nb : {0, 1, 15, 16, 17, 31, 32, 33, 255, 300, 2972})
    for (int density : {0, 1, 50, 99, 100}) {
      std::vector<GradSum> h((size_t)nb + 1, GradSum{0, 0});
      for (int b = 0; b < nb; ++b) {
        if ((int)(rng() % 100) >= density) continue;
        switch (rng() % 4) {
          case 0: h[b] = GradSum{(int64_t)(rng() % 1000) + 1, 0}; break;
          case 1: h[b] = GradSum{0, (int64_t)(rng() % 1000) + 1}; break;
          case 2: h[b] = GradSum{(int64_t)1 << 40, 0}; break;  // high bits only
          default: h[b] = GradSum{-(int64_t)(rng() % 1000) - 1, (int64_t)1 << 33}; break;
        }
      }
      h[(size_t)nb] = GradSum{7, 7};  // the missing bin: never a value bin
      std::vector<int32_t> want;
      for (int b = 0; b < nb; ++b)
        if (h[b].g != 0 || h[b].h != 0) want.push_back(b);
      for (bool scalar : {false, true}) {
        std::vector<int32_t> out((size_t)nb + kCatNonemptySlack, -1);
        const int m = cat_nonempty_bins(h.data(), nb, out.data(), scalar);
        ASSERT_EQ((int)want.size(), m) << "nb " << nb << " density " << density << " scalar " << scalar;
        EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin()))
            << "nb " << nb << " density " << density << " scalar " << scalar;
      }
    }
}
