// Value checks (value_checks.h): distinct values, identifiers (unique per
// row) and columns whose every value has one label, by the counting tables
// and by the sort alike.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/interruptible.h"
#include "data/value_checks.h"

using namespace gbdt;

TEST(ValueChecks, UniqueColumnIsAnIdentifier) {
  std::vector<float> x(500), y(500);
  for (size_t i = 0; i < x.size(); i++) {
    x[i] = (float)(i * 3);
    y[i] = (float)(i % 2);
  }
  const ValueCheck c = check_values(x.data(), y.data(), x.size(), false);
  EXPECT_TRUE(c.checked);
  EXPECT_EQ(c.present, 500u);
  EXPECT_EQ(c.distinct, 500u);
  EXPECT_TRUE(c.unique);
  EXPECT_FALSE(c.determines);  // one row per value says nothing
  EXPECT_EQ(c.lo, 0.0);
  EXPECT_EQ(c.hi, 1497.0);
}

TEST(ValueChecks, NearlyUniqueAndTooFewRows) {
  std::vector<float> x(1000), y(1000, 0.0f);
  for (size_t i = 0; i < x.size(); i++) x[i] = (float)i;
  for (size_t i = 0; i < 10; i++) x[i] = 0.0f;  // 991 distinct of 1000
  EXPECT_TRUE(check_values(x.data(), y.data(), x.size(), false).unique);
  for (size_t i = 0; i < 20; i++) x[i] = 0.0f;  // 981 of 1000: below 0.99
  EXPECT_FALSE(check_values(x.data(), y.data(), x.size(), false).unique);
  // 99 rows, all distinct: fewer than kUniqueMinRows.
  EXPECT_FALSE(check_values(x.data() + 100, y.data(), 99, false).unique);
}

TEST(ValueChecks, DeterminesTheLabel) {
  std::vector<float> x(300), y(300);
  for (size_t i = 0; i < x.size(); i++) {
    x[i] = (float)(i % 5);
    y[i] = x[i] < 2 ? 1.0f : 0.0f;
  }
  ValueCheck c = check_values(x.data(), y.data(), x.size(), false);
  EXPECT_TRUE(c.determines);
  EXPECT_EQ(c.distinct, 5u);
  EXPECT_FALSE(c.unique);
  y[7] = 1.0f - y[7];  // one row of value 2 disagrees
  c = check_values(x.data(), y.data(), x.size(), false);
  EXPECT_FALSE(c.determines);
  // 5 values on 40 rows: 8 rows per value, fewer than kDetermineRowsPerValue.
  y[7] = 1.0f - y[7];
  EXPECT_FALSE(check_values(x.data(), y.data(), 40, false).determines);
  EXPECT_TRUE(check_values(x.data(), y.data(), 50, false).determines);
  // One value only: a constant column, not a determining one.
  std::vector<float> k(300, 4.0f);
  EXPECT_FALSE(check_values(k.data(), y.data(), k.size(), false).determines);
}

// Asked for uniqueness only, a column of few values is not counted.
TEST(ValueChecks, FewValuesSkipTheTables) {
  std::vector<float> x(1000), y(1000);
  for (size_t i = 0; i < x.size(); i++) {
    x[i] = (float)(i % 50);
    y[i] = (float)(i % 50 < 10);
  }
  const ValueCheck u = check_values(x.data(), y.data(), x.size(), false, false);
  EXPECT_TRUE(u.checked);
  EXPECT_FALSE(u.unique);
  EXPECT_EQ(u.distinct, 0u);
  const ValueCheck d = check_values(x.data(), y.data(), x.size(), false, true);
  EXPECT_EQ(d.distinct, 50u);
  EXPECT_TRUE(d.determines);
}

TEST(ValueChecks, MissingValuesAreNotCounted) {
  std::vector<float> x(400, NAN), y(400, 0.0f);
  EXPECT_TRUE(check_values(x.data(), y.data(), x.size(), false).checked);
  EXPECT_EQ(check_values(x.data(), y.data(), x.size(), false).present, 0u);
  for (size_t i = 0; i < 200; i++) x[i * 2] = (float)i;
  const ValueCheck c = check_values(x.data(), y.data(), x.size(), false);
  EXPECT_EQ(c.present, 200u);
  EXPECT_EQ(c.distinct, 200u);
  EXPECT_TRUE(c.unique);
}

// Values too wide for the counting tables: sorted when allowed (the same
// figures as the tables give for the same values shifted into a small
// span), else left unchecked.
TEST(ValueChecks, SortPathAgreesWithTables) {
  std::vector<float> small(2000), wide(2000), y(2000);
  for (size_t i = 0; i < small.size(); i++) {
    small[i] = (float)((i * 7919) % 1500);
    wide[i] = small[i] * 1e6f;  // a span far above max(4 n, 65536)
    y[i] = (float)((i * 7919) % 1500 % 3);
  }
  const ValueCheck a = check_values(small.data(), y.data(), small.size(), false);
  const ValueCheck b = check_values(wide.data(), y.data(), wide.size(), true);
  EXPECT_TRUE(a.checked);
  EXPECT_TRUE(b.checked);
  EXPECT_EQ(a.distinct, b.distinct);
  EXPECT_EQ(a.unique, b.unique);
  EXPECT_EQ(a.determines, b.determines);
  EXPECT_FALSE(check_values(wide.data(), y.data(), wide.size(), false).checked);
  // Fractions and -0/+0 go to the sort too.
  std::vector<float> frac = {0.5f, 0.5f, -0.0f, 0.0f, 1.25f};
  std::vector<float> fy = {1, 1, 0, 0, 1};
  const ValueCheck f = check_values(frac.data(), fy.data(), frac.size(), true);
  EXPECT_TRUE(f.checked);
  EXPECT_EQ(f.distinct, 3u);
}

TEST(ValueChecks, CancelStopsTheCheck) {
  std::vector<float> x(1 << 20), y(1 << 20, 0.0f);
  for (size_t i = 0; i < x.size(); i++) x[i] = (float)i * 1e3f;
  const CancelFn cancel = [] { return true; };
  EXPECT_THROW(check_values(x.data(), y.data(), x.size(), true, true, cancel), Cancelled);
}
