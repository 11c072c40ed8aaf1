// The CPU backend's fast gradient passes (gradient_pass.h, gradient_simd.cpp)
// give the very bits of scalar_gradient() per row, and the same maxima, for
// margins across the whole range (the vector code's edges at |m| = 700 and
// beyond, NaN, ties at 0), with and without weights, at every tail length;
// and the parallelism policy (parallel_policy.h, ThreadPool::run_sized).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "objective/gradient_pass.h"
#include "common/parallel_policy.h"
#include "common/thread_pool.h"

using namespace gbdt;

namespace {

struct Ref {
  std::vector<double> gh;  // 2 per row
  double mg = 0, mh = 0;
};

Ref reference(Objective obj, const GradParams& gp, const std::vector<float>& m,
              const std::vector<float>& y, const float* w, size_t b, size_t e) {
  Ref r;
  r.gh.assign(2 * m.size(), 0.0);
  for (size_t i = b; i < e; ++i) {
    GradHess gh = weighted(scalar_gradient(obj, (double)m[i], (double)y[i], gp), w, i);
    r.gh[2 * i] = gh.g;
    r.gh[2 * i + 1] = gh.h;
    if (std::fabs(gh.g) > r.mg) r.mg = std::fabs(gh.g);
    if (gh.h > r.mh) r.mh = gh.h;
  }
  return r;
}

void check(Objective obj, const std::vector<float>& m, const std::vector<float>& y,
           const std::vector<float>* w, size_t b, size_t e) {
  GradParams gp;
  const float* wp = w ? w->data() : nullptr;
  Ref ref = reference(obj, gp, m, y, wp, b, e);
  std::vector<double> got(2 * m.size(), 0.0);
  GradMax mx = gradient_pass(obj, gp, m.data(), y.data(), wp, b, e, got.data());
  for (size_t i = b; i < e; ++i)
    ASSERT_EQ(0, std::memcmp(&got[2 * i], &ref.gh[2 * i], 16))
        << "row " << i << " margin " << m[i] << ": " << got[2 * i] << "," << got[2 * i + 1]
        << " vs " << ref.gh[2 * i] << "," << ref.gh[2 * i + 1];
  EXPECT_EQ(0, std::memcmp(&mx.g, &ref.mg, sizeof(double)));
  EXPECT_EQ(0, std::memcmp(&mx.h, &ref.mh, sizeof(double)));
}

std::vector<float> margins(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.f, 4.f);
  std::vector<float> m(n);
  const float edges[] = {0.f, -0.f, 699.9f, 700.f, 700.1f, -700.f, -700.1f, 709.5f, -745.f, 800.f,
                         -800.f, 1e30f, -1e30f, NAN, 36.5f, -36.5f, 1e-30f};
  for (size_t i = 0; i < n; ++i) m[i] = nd(rng);
  for (size_t i = 0; i < sizeof edges / sizeof edges[0] && 3 * i + 5 < n; ++i) m[3 * i + 5] = edges[i];
  return m;
}

}  // namespace

// Pass 2's vector quantization gives quantize()'s integers, and with
// multiplicities quantize_rows()' products: random values at every scale,
// ties (x.5 of both signs: to even), -0, the 2^51 edge of the vector path
// and beyond, values up to 2^62, infinities and NaN, multiplicities up to
// 2^31 - 1, at every block start and tail length; without AVX2 it does
// nothing and says so.
TEST(GradientPass, QuantizeLikeScalar) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> nd(0.0, 1.0);
  const double two51 = std::ldexp(1.0, 51);
  const double edges[] = {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.0, 0.0, 0.49999999999999994, -0.49999999999999994,
                          two51 - 1, -(two51 - 1), two51 - 0.5, two51, -two51, two51 + 1, std::ldexp(1.0, 52) + 1,
                          std::ldexp(1.0, 62), -std::ldexp(1.0, 62), INFINITY, -INFINITY, NAN};
  const double scales[][2] = {{1.0, 1.0}, {std::ldexp(1.0, 40), std::ldexp(1.0, 44)}, {std::ldexp(1.0, 58), 0.5}};
  for (const auto& sc : scales)
    for (size_t n : {0u, 1u, 2u, 3u, 5u, 64u, 1001u}) {
      std::vector<double> v(2 * n);
      for (size_t i = 0; i < 2 * n; ++i) v[i] = nd(rng) * std::ldexp(1.0, (int)(rng() % 60)) / (i % 2 ? sc[1] : sc[0]);
      for (size_t i = 0; i < sizeof edges / sizeof edges[0] && 3 * i + 1 < 2 * n; ++i)
        v[3 * i + 1] = edges[i] / (((3 * i + 1) % 2) ? sc[1] : sc[0]);
      // Multiplicities (row_dedup.h): 1, small, and up to 2^31 - 1.
      std::vector<int32_t> mult(n);
      for (size_t r = 0; r < n; ++r)
        mult[r] = r % 5 == 0 ? 1 : r % 5 == 1 ? 0x7FFFFFFF : (int32_t)(1 + rng() % (r % 2 ? 1000 : 0x7FFFFFFE));
      for (size_t b : {(size_t)0, (size_t)1})
      for (const int32_t* mu : {(const int32_t*)nullptr, (const int32_t*)mult.data()}) {
        if (b > n) continue;
        std::vector<double> got = v;
        int64_t sum[2] = {7, -3}, want_sum[2] = {7, -3};  // added to
        if (!quantize_pass_simd(got.data(), b, n, sc[0], sc[1], mu, sum)) GTEST_SKIP() << "no AVX2";
        // quantize_rows(), modulo 2^64.
        auto want_q = [&](size_t r, int j) {
          return (int64_t)((uint64_t)quantize(v[2 * r + j], sc[j]) * (uint64_t)(mu ? mu[r] : 1));
        };
        for (size_t r = b; r < n; ++r)
          for (int j = 0; j < 2; ++j)
            want_sum[j] = (int64_t)((uint64_t)want_sum[j] + (uint64_t)want_q(r, j));
        EXPECT_EQ(want_sum[0], sum[0]);
        EXPECT_EQ(want_sum[1], sum[1]);
        for (size_t r = 0; r < n; ++r)
          for (int j = 0; j < 2; ++j) {
            int64_t want;
            if (r < b) {
              std::memcpy(&want, &v[2 * r + j], 8);  // untouched
            } else {
              want = want_q(r, j);
            }
            int64_t have;
            std::memcpy(&have, &got[2 * r + j], 8);
            ASSERT_EQ(want, have) << "row " << r << " value " << v[2 * r + j] << " scale " << sc[j]
                                  << " mult " << (mu ? mu[r] : 1);
          }
      }
    }
}

// Each path of the logistic pass (set_gradient_simd_for_tests: 8-row
// AVX-512 steps where the CPU has them, 4-row AVX2 steps, the scalar loop)
// gives the scalar bits and maxima; the level is restored after.
struct GradientSimdLevel {
  explicit GradientSimdLevel(int l) { set_gradient_simd_for_tests(l); }
  ~GradientSimdLevel() { set_gradient_simd_for_tests(2); }
};

TEST(GradientPass, LogisticBitsLikeScalar) {
  for (int level : {2, 1, 0}) {
    GradientSimdLevel at(level);
    SCOPED_TRACE(level);
    for (size_t n : {0u, 1u, 3u, 4u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 64u, 1003u}) {
      std::vector<float> m = margins(n, 11 + (unsigned)n), y(n), w(n);
      for (size_t i = 0; i < n; ++i) {
        y[i] = (float)(i % 3 == 0);
        w[i] = 0.25f + (float)(i % 7);
      }
      for (Objective o : {Objective::kLogistic, Objective::kLogitRaw}) {
        check(o, m, y, nullptr, 0, n);
        check(o, m, y, &w, 0, n);
        if (n > 6) check(o, m, y, &w, 1, n - 2);  // unaligned block starts and tails
      }
    }
  }
}

// reg:squarederror's vector pass: every margin of margins() (NaN, +-1e30,
// -0), labels of both signs and a NaN label, weights of many values, every
// tail length and an unaligned start.
TEST(GradientPass, SquaredErrorBitsLikeScalar) {
  for (size_t n : {0u, 1u, 3u, 4u, 5u, 7u, 64u, 1003u}) {
    std::vector<float> m = margins(n, 21 + (unsigned)n), y(n), w(n);
    for (size_t i = 0; i < n; ++i) {
      y[i] = (float)((int)(i % 11) - 5) * 0.37f;
      w[i] = 0.125f + (float)(i % 9) * 1.7f;
    }
    if (n > 10) y[9] = NAN;
    check(Objective::kSquaredError, m, y, nullptr, 0, n);
    check(Objective::kSquaredError, m, y, &w, 0, n);
    if (n > 6) check(Objective::kSquaredError, m, y, &w, 1, n - 2);
  }
}

TEST(GradientPass, LogisticAllMarginsNaNOrHuge) {
  // Every group of 4 or 8 rows takes the scalar path.
  std::vector<float> m = {NAN, 1e20f, -1e20f, 750.f, NAN, NAN, NAN, NAN, 701.f, -701.f, NAN, 1e30f,
                          NAN, NAN, NAN, -900.f, 702.f};
  std::vector<float> y(m.size(), 1.f);
  for (int level : {2, 1}) {
    GradientSimdLevel at(level);
    check(Objective::kLogistic, m, y, nullptr, 0, m.size());
  }
}

TEST(GradientPass, OtherObjectivesLikeScalar) {
  std::vector<float> m = margins(257, 5), y(257), w(257);
  for (size_t i = 0; i < y.size(); ++i) {
    y[i] = 0.5f + (float)(i % 5);
    w[i] = 1.5f;
  }
  for (size_t i = 0; i < m.size(); ++i)
    if (!(std::fabs(m[i]) < 50.f)) m[i] = 1.f;  // exp-based objectives: finite margins
  for (Objective o : {Objective::kSquaredError, Objective::kPoisson, Objective::kGamma,
                      Objective::kAbsoluteError, Objective::kTweedie}) {
    check(o, m, y, nullptr, 0, m.size());
    check(o, m, y, &w, 3, m.size());
  }
}

TEST(ParallelPolicy, ThreadsFromWork) {
  EXPECT_EQ(1, threads_for_work(0, 8));
  EXPECT_EQ(1, threads_for_work(kMinWorkPerThread - 1, 8));
  EXPECT_EQ(1, threads_for_work(2 * kMinWorkPerThread - 1, 8));
  EXPECT_EQ(2, threads_for_work(2 * kMinWorkPerThread, 8));
  EXPECT_EQ(8, threads_for_work(1000 * kMinWorkPerThread, 8));
  EXPECT_EQ(1, threads_for_work(1000 * kMinWorkPerThread, 0));
}

TEST(ParallelPolicy, BlocksFromWork) {
  EXPECT_EQ(1u, blocks_for_work(kMinWorkPerThread, 8));       // one thread: one block
  EXPECT_EQ(2u, blocks_for_work(2 * kMinWorkPerThread, 8));   // a thread's minimum each
  EXPECT_EQ(5u, blocks_for_work(5 * kMinWorkPerThread, 2));
  EXPECT_EQ(8u, blocks_for_work(1000 * kMinWorkPerThread, 2));  // four per thread at most
  EXPECT_EQ(1u, blocks_for_work(1000 * kMinWorkPerThread, 1));
}

TEST(ParallelPolicy, SmallStepsRunOnTheCallingThread) {
  ThreadPool pool(4);
  std::vector<int> seen(64, -1);
  pool.run_sized(10, seen.size(), [&](size_t t, int tid) { seen[t] = tid; });
  for (int s : seen) EXPECT_EQ(0, s);
  std::vector<std::pair<size_t, size_t>> blocks;
  pool.run_blocks_sized(10, 1000, [&](size_t b, size_t e, int tid) {
    EXPECT_EQ(0, tid);
    blocks.emplace_back(b, e);
  });
  ASSERT_EQ(1u, blocks.size());
  EXPECT_EQ(0u, blocks[0].first);
  EXPECT_EQ(1000u, blocks[0].second);
  // Large steps: every task and row exactly once, in four blocks per thread.
  std::atomic<size_t> rows{0}, nblocks{0};
  pool.run_blocks_sized(100 * kMinWorkPerThread, 1000, [&](size_t b, size_t e, int) {
    rows += e - b;
    ++nblocks;
  });
  EXPECT_EQ(1000u, rows.load());
  EXPECT_EQ(16u, nblocks.load());
  std::vector<std::atomic<int>> hit(100);
  pool.run_sized(100 * kMinWorkPerThread, hit.size(), [&](size_t t, int) { ++hit[t]; });
  for (auto& h : hit) EXPECT_EQ(1, h.load());
  pool.run_blocks_sized(100 * kMinWorkPerThread, 0, [&](size_t, size_t, int) { ADD_FAILURE(); });
}
