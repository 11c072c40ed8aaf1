// Row-major batches into columns (row_columns.h): rows_to_columns gives
// the one-value-at-a-time copy's columns for 1-45 columns, any row range
// and offset, and writes nothing outside [at, at + rows) of each column;
// any_infinite finds a single +-inf anywhere in 0-70 values and ignores
// NaN and the largest finite floats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "data/row_columns.h"

using namespace gbdt;

namespace {
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

TEST(RowColumns, VectorCopyGivesTheScalarCopysColumns) {
  std::mt19937 rng(15);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  const float guard = -12345.5f;
  for (size_t ncols = 1; ncols <= 45; ++ncols) {
    for (int trial = 0; trial < 6; ++trial) {
      const size_t rows = 1 + rng() % 60;
      std::vector<float> x(rows * ncols);
      for (float& v : x) v = rng() % 17 == 0 ? NAN : u(rng);
      const size_t m = 1 + rng() % ncols;
      const size_t r0 = rng() % rows, r1 = r0 + rng() % (rows - r0 + 1);
      const size_t at = rng() % 9, len = at + (r1 - r0) + 8;
      std::vector<std::vector<float>> want(m, std::vector<float>(len, guard)), got = want;
      std::vector<float*> pw(m), pg(m);
      for (size_t j = 0; j < m; ++j) {
        pw[j] = want[j].data();
        pg[j] = got[j].data();
      }
      rows_to_columns_scalar(x.data(), ncols, r0, r1, m, pw.data(), at);
      rows_to_columns(x.data(), ncols, r0, r1, m, pg.data(), at);
      for (size_t j = 0; j < m; ++j)
        for (size_t i = 0; i < len; ++i) {
          const bool inside = i >= at && i < at + (r1 - r0);
          const float w = want[j][i], g = got[j][i];
          if (!inside) {
            ASSERT_EQ(g, guard) << "written outside the rows: column " << j << " index " << i;
            continue;
          }
          ASSERT_TRUE(same_bits(w, x[(r0 + i - at) * ncols + j]));
          ASSERT_TRUE(same_bits(w, g)) << "ncols " << ncols << " m " << m << " rows " << r0 << "-" << r1
                                       << " column " << j << " index " << i;
        }
    }
  }
}

TEST(RowColumns, AnyInfiniteFindsOneInfinityAnywhere) {
  for (size_t n = 0; n <= 70; ++n) {
    std::vector<float> x(n, 1.0f);
    for (size_t i = 0; i < n; ++i) x[i] = i % 3 == 0 ? NAN : (i % 3 == 1 ? std::numeric_limits<float>::max()
                                                                          : -std::numeric_limits<float>::max());
    EXPECT_FALSE(any_infinite(x.data(), n)) << n;
    for (size_t at = 0; at < n; ++at)
      for (float inf : {INFINITY, -INFINITY}) {
        std::vector<float> y = x;
        y[at] = inf;
        ASSERT_TRUE(any_infinite(y.data(), n)) << "n " << n << " at " << at;
      }
  }
}
