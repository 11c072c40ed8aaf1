// The topk pair loop of rank:ndcg and rank:pairwise on large query groups
// (lambdarank_topk.h: partner lists, pair terms four at a time with AVX2)
// against a plain pair loop written here from the formulas (XGBoost 3.x's
// LambdaGrad / DeltaNDCG / lambda normalization): every gradient and
// hessian has the same bits, for groups up to 9,000 documents (partner
// blocks of 4,096), graded and binary labels, ties, margin differences
// beyond det_exp's vector range, each parameter that changes the loop, and
// 1 or 3 threads.  Run also with GBDT_CPU_ISA=scalar in the environment for
// the path without AVX2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "common/det_math.h"
#include "objective/lambdarank.h"

namespace {

using gbdt::Objective;

// The plain loop: for each group, rank by margin (descending, ties in row
// order); each of the first k rank positions with every one below it whose
// label differs, in that order.
void reference(Objective obj, const gbdt::RankParams& rp, const std::vector<uint32_t>& sizes,
               const std::vector<float>& y, const std::vector<float>& m, std::vector<double>* g,
               std::vector<double>* h) {
  auto gain = [&](float v) { return rp.exp_gain ? std::ldexp(1.0, (int)v) - 1.0 : (double)v; };
  size_t base = 0;
  for (uint32_t cnt : sizes) {
    std::vector<uint32_t> rank(cnt);
    std::iota(rank.begin(), rank.end(), 0u);
    std::stable_sort(rank.begin(), rank.end(),
                     [&](uint32_t a, uint32_t b) { return m[base + a] > m[base + b]; });
    std::vector<float> ys(y.begin() + base, y.begin() + base + cnt);
    std::sort(ys.begin(), ys.end(), [](float a, float b) { return a > b; });
    const size_t top = std::min((size_t)cnt, (size_t)rp.num_pair);
    double idcg = 0;
    for (size_t i = 0; i < top; ++i) idcg += gain(ys[i]) * (1.0 / std::log2((double)i + 2.0));
    const double inv = idcg == 0.0 ? 0.0 : 1.0 / idcg;
    const bool spread = m[base + rank.front()] != m[base + rank.back()];
    std::vector<double> lg(cnt, 0.0), lh(cnt, 0.0);
    double sum = 0;
    for (size_t i = 0; i < top; ++i)
      for (size_t j = i + 1; j < cnt; ++j) {
        size_t hi = i, lo = j;
        float yh = y[base + rank[hi]], yl = y[base + rank[lo]];
        if (yh == yl) continue;
        if (yh < yl) {
          std::swap(hi, lo);
          std::swap(yh, yl);
        }
        const uint32_t ih = rank[hi], il = rank[lo];
        const double sh = m[base + ih], sl = m[base + il];
        const double sig = gbdt::det_sigmoid(sh - sl);
        double dm = 1.0;
        if (obj == Objective::kRankNDCG) {
          const double dh = 1.0 / std::log2((double)hi + 2.0), dl = 1.0 / std::log2((double)lo + 2.0);
          dm = std::fabs(((gain(yh) * dh + gain(yl) * dl) - (gain(yl) * dh + gain(yh) * dl)) * inv);
        }
        if (rp.score_normalization && spread) dm /= std::fabs(sh - sl) + 0.01;
        const double lam = (sig - 1.0) * dm;
        const double hes = std::max(sig * (1.0 - sig), 1e-16) * dm * 2.0;
        lg[ih] += lam;
        lh[ih] += hes;
        lg[il] -= lam;
        lh[il] += hes;
        sum += -2.0 * lam;
      }
    const double norm = rp.normalization && sum > 0.0 ? std::log2(1.0 + sum) / sum : 1.0;
    for (size_t l = 0; l < cnt; ++l) {
      (*g)[base + l] = lg[l] * norm;
      (*h)[base + l] = lh[l] * norm;
    }
    base += cnt;
  }
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

struct Case {
  std::vector<uint32_t> sizes;
  std::vector<uint32_t> codes;
  std::vector<float> y, m;
};

// Contiguous groups of the given sizes; labels 0..levels-1 (mostly low
// ones), margins on a coarse grid (ties) with a few far outliers (margin
// differences > 700 take det_exp's scalar path), or all equal (round 0).
Case make_case(const std::vector<uint32_t>& sizes, int levels, bool equal_margins, uint64_t seed) {
  Case c;
  c.sizes = sizes;
  uint64_t s = seed;
  auto next = [&]() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(s >> 11) / 9007199254740992.0;
  };
  for (size_t gi = 0; gi < sizes.size(); ++gi)
    for (uint32_t r = 0; r < sizes[gi]; ++r) {
      c.codes.push_back((uint32_t)gi);
      const double u = next();
      c.y.push_back((float)std::min(levels - 1, (int)(u * u * levels)));
      double v = std::round(next() * 400.0) / 100.0 - 2.0 + 0.5 * c.y.back();
      if (next() < 0.002) v = next() < 0.5 ? 800.0 : -800.0;
      c.m.push_back(equal_margins ? 0.25f : (float)v);
    }
  return c;
}

void check(Objective obj, const gbdt::RankParams& rp, const Case& c, int nthread, const char* what) {
  const size_t n = c.y.size();
  std::vector<double> g(n), h(n), rg(n), rh(n);
  gbdt::LambdaRank lr(obj, rp, gbdt::make_query_groups(c.codes.data(), n), c.y.data(), 0, nthread);
  lr.gradients(1, c.m.data(), g.data(), h.data());
  reference(obj, rp, c.sizes, c.y, c.m, &rg, &rh);
  EXPECT_TRUE(same_bits(g, rg)) << what << ": gradients differ from the plain loop";
  EXPECT_TRUE(same_bits(h, rh)) << what << ": hessians differ from the plain loop";
  size_t nonzero = 0;
  for (double v : g) nonzero += v != 0.0;
  EXPECT_GT(nonzero, n / 10) << what;
}

TEST(RankingTopk, LargeGroupsMatchThePlainLoopBitForBit) {
  const Case graded = make_case({700, 1500, 9000, 3, 1, 2100}, 5, false, 7);
  const Case binary = make_case({760, 1200, 5000}, 2, false, 8);
  const Case round0 = make_case({900, 4500}, 5, true, 9);
  gbdt::RankParams base;
  for (const Case* c : {&graded, &binary, &round0}) {
    check(Objective::kRankNDCG, base, *c, 1, "ndcg");
    check(Objective::kRankNDCG, base, *c, 3, "ndcg 3 threads");
    check(Objective::kRankPairwise, base, *c, 1, "pairwise");
    gbdt::RankParams p = base;
    p.score_normalization = false;
    check(Objective::kRankNDCG, p, *c, 1, "no score normalization");
    p = base;
    p.exp_gain = false;
    p.num_pair = 5;
    check(Objective::kRankNDCG, p, *c, 1, "linear gain, 5 pairs");
    p = base;
    p.normalization = false;
    p.num_pair = 100;
    check(Objective::kRankNDCG, p, *c, 1, "no lambda normalization, 100 pairs");
  }
}

}  // namespace
