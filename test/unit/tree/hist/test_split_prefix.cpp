// The left sums of a feature's non-empty bins (split_prefix.h): the AVX2
// version gives exactly the plain loop's count and arrays, on
// histograms of 0-300 bins whose cells are empty with probability 0-1,
// with negative gradients, large sums and cells whose g or h alone is 0;
// and they write nothing past the nb entries the caller provides.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tree/hist/split_prefix.h"

using namespace gbdt;

namespace {

struct Arrays {
  std::vector<int64_t> lg, lh;
  std::vector<int32_t> bn;
  int n = 0;
};

constexpr int64_t kGuard = 0x5A5A5A5A5A5A5A5ALL;

// Runs f over h with arrays of exactly nb entries followed by guard words
// that must stay untouched; returns the count and the first n entries.
template <typename F>
Arrays run(F f, const std::vector<GradSum>& h) {
  const int nb = (int)h.size();
  std::vector<int64_t> lg(nb + 16, kGuard), lh(nb + 16, kGuard);
  std::vector<int32_t> bn(nb + 16, (int32_t)kGuard);
  Arrays a;
  a.n = f(h.data(), nb, lg.data(), lh.data(), bn.data());
  if (a.n < 0) return a;
  for (int i = nb; i < nb + 16; ++i) {
    EXPECT_EQ(lg[i], kGuard) << "lg written past nb = " << nb;
    EXPECT_EQ(lh[i], kGuard) << "lh written past nb = " << nb;
    EXPECT_EQ(bn[i], (int32_t)kGuard) << "bn written past nb = " << nb;
  }
  a.lg.assign(lg.begin(), lg.begin() + a.n);
  a.lh.assign(lh.begin(), lh.begin() + a.n);
  a.bn.assign(bn.begin(), bn.begin() + a.n);
  return a;
}

std::vector<GradSum> histogram(std::mt19937_64& rng, int nb, double empty) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int64_t> g(-(1LL << 40), 1LL << 40), hh(0, 1LL << 40);
  std::vector<GradSum> h((size_t)nb, GradSum{0, 0});
  for (GradSum& c : h) {
    if (u(rng) < empty) continue;
    const double k = u(rng);
    c.g = k < 0.1 ? 0 : g(rng);  // g alone or h alone may be 0
    c.h = k > 0.9 ? 0 : hh(rng);
  }
  return h;
}

}  // namespace

TEST(SplitPrefix, PlainLoopKeepsBinZeroAndTheNonEmptyBins) {
  const std::vector<GradSum> h = {{0, 0}, {0, 0}, {3, 2}, {0, 0}, {-1, 0}, {0, 5}, {0, 0}};
  const Arrays a = run(nonempty_prefix_scalar, h);
  ASSERT_EQ(a.n, 4);
  EXPECT_EQ(a.bn, (std::vector<int32_t>{0, 2, 4, 5}));
  EXPECT_EQ(a.lg, (std::vector<int64_t>{0, 3, 2, 2}));
  EXPECT_EQ(a.lh, (std::vector<int64_t>{0, 2, 2, 7}));
  EXPECT_EQ(run(nonempty_prefix_scalar, std::vector<GradSum>{}).n, 0);
}

TEST(SplitPrefix, Avx2VersionGivesThePlainLoopsArrays) {
  std::mt19937_64 rng(15);
  int tried_avx2 = 0;
  for (int nb = 0; nb <= 300; ++nb) {
    for (double empty : {0.0, 0.3, 0.8, 0.97, 1.0}) {
      const std::vector<GradSum> h = histogram(rng, nb, empty);
      const Arrays ref = run(nonempty_prefix_scalar, h);
      const Arrays any = run(nonempty_prefix, h);
      ASSERT_EQ(any.n, ref.n) << "nb " << nb << " empty " << empty;
      EXPECT_EQ(any.lg, ref.lg);
      EXPECT_EQ(any.lh, ref.lh);
      EXPECT_EQ(any.bn, ref.bn);
      {
        const Arrays v = run(nonempty_prefix_avx2, h);
        if (v.n < 0) continue;  // this CPU lacks AVX2
        ++tried_avx2;
        ASSERT_EQ(v.n, ref.n) << "nb " << nb << " empty " << empty;
        ASSERT_EQ(v.lg, ref.lg) << "nb " << nb << " empty " << empty;
        ASSERT_EQ(v.lh, ref.lh) << "nb " << nb << " empty " << empty;
        ASSERT_EQ(v.bn, ref.bn) << "nb " << nb << " empty " << empty;
      }
    }
  }
  if (tried_avx2 == 0) GTEST_SKIP() << "no AVX2 on this CPU: only the plain loop was checked";
}
