// Column checks (column_checks.h): the AVX2 loops give the scalar loops'
// bits, and the checks find constant columns and columns that copy the
// target.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "data/column_checks.h"

using namespace gbdt;

namespace {

void expect_same(const ColumnCheck& a, const ColumnCheck& b, const char* what) {
  EXPECT_EQ(a.constant, b.constant) << what;
  EXPECT_EQ(a.near_target, b.near_target) << what;
  EXPECT_EQ(0, std::memcmp(&a.equal, &b.equal, sizeof(double))) << what << " " << a.equal << " " << b.equal;
  EXPECT_EQ(0, std::memcmp(&a.corr, &b.corr, sizeof(double))) << what << " " << a.corr << " " << b.corr;
}

}  // namespace

// Columns of every length 0-19 and long ones, at unaligned starts: random
// values, NaN runs and scattered NaN, ties with the label, -0 and +0,
// infinities, all-missing and constant columns.
TEST(ColumnChecks, VectorPathGivesTheScalarBits) {
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 20; ++n) lengths.push_back(n);
  for (size_t n : {1000u, 4097u, 65539u}) lengths.push_back(n);
  for (size_t n : lengths)
    for (int kind = 0; kind < 7; ++kind) {
      std::vector<float> x(n + 1), y(n + 1);
      for (size_t i = 0; i <= n; ++i) {
        y[i] = (float)(rng() % 3);
        switch (kind) {
          case 0: x[i] = nd(rng); break;
          case 1: x[i] = rng() % 4 == 0 ? NAN : nd(rng); break;                         // scattered NaN
          case 2: x[i] = i < n / 2 ? NAN : y[i]; break;                                  // a NaN run, then the label
          case 3: x[i] = rng() % 2 ? -0.0f : 0.0f; break;                               // both zeros
          case 4: x[i] = rng() % 7 == 0 ? (rng() % 2 ? INFINITY : -INFINITY) : nd(rng); break;
          case 5: x[i] = NAN; break;                                                     // all missing
          default: x[i] = rng() % 9 == 0 ? NAN : 2.5f; break;                           // constant where present
        }
        if (kind == 2 && rng() % 50 == 0) x[i] = y[i] + 1.0f;
      }
      for (size_t off : {(size_t)0, (size_t)1}) {
        if (off > n) continue;
        const float* xc = x.data() + off;
        ColumnCheck vec, sca;
        check_columns(&xc, 1, y.data() + off, n - off, &vec, true);
        check_columns(&xc, 1, y.data() + off, n - off, &sca, false);
        expect_same(vec, sca, ("n " + std::to_string(n - off) + " kind " + std::to_string(kind)).c_str());
      }
    }
}

TEST(ColumnChecks, ConstantAndLeakingColumns) {
  const size_t n = 1003;
  std::vector<float> y(n), same(n), cst(n, 4.0f), part(n), lin(n), noise(n);
  std::mt19937 rng(9);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (size_t i = 0; i < n; ++i) {
    y[i] = nd(rng);
    same[i] = y[i];
    part[i] = i % 3 ? 4.0f : NAN;  // constant where present, missing on some rows
    lin[i] = 2.0f * y[i] + 1.0f;
    noise[i] = nd(rng);
  }
  const float* cols[] = {same.data(), cst.data(), part.data(), lin.data(), noise.data()};
  for (bool vec : {true, false}) {
    ColumnCheck c[5];
    check_columns(cols, 5, y.data(), n, c, vec);
    EXPECT_TRUE(c[0].near_target);
    EXPECT_EQ(c[0].equal, 1.0);
    EXPECT_TRUE(c[1].constant);
    EXPECT_FALSE(c[1].near_target);
    EXPECT_FALSE(c[2].constant);  // the missingness may tell something
    EXPECT_TRUE(c[3].near_target);
    EXPECT_GT(c[3].corr, 0.999);
    EXPECT_FALSE(c[4].near_target);
    EXPECT_FALSE(c[4].constant);
    EXPECT_LT(std::fabs(c[4].corr), 0.2);
  }
}
