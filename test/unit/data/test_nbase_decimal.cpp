// nbase_decimal_to_double: a base-10000 decimal (PostgreSQL numeric) to the
// double a correctly rounded parser gives for its printed digits (strtod),
// bit for bit, whenever it answers; and it answers for the usual values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "data/nbase_decimal.h"

using namespace gbdt;

namespace {

// The decimal text of sign * sum digit[i] * 10000^(weight - i), every digit
// written out (no exponent), as numeric_out does.
std::string decimal_text(bool neg, int weight, const std::vector<uint16_t>& d) {
  std::string s = neg ? "-" : "";
  char b[8];
  if (weight < 0) {
    s += "0.";
    for (int i = -1; i > weight; --i) s += "0000";
    for (uint16_t x : d) {
      std::snprintf(b, sizeof b, "%04u", (unsigned)x);
      s += b;
    }
    return s;
  }
  const int nd = (int)d.size();
  for (int i = 0; i <= std::max(weight, nd - 1); ++i) {
    if (i == weight + 1) s += ".";
    std::snprintf(b, sizeof b, i == 0 ? "%u" : "%04u", i < nd ? (unsigned)d[i] : 0u);
    s += b;
  }
  return s;
}

uint64_t bits(double v) {
  uint64_t u;
  std::memcpy(&u, &v, 8);
  return u;
}

// Checks one decimal: when the fast conversion answers, it is strtod's
// double of the text.  Returns whether it answered.
bool check(bool neg, int weight, const std::vector<uint16_t>& d) {
  double got = -1;
  const bool ok = nbase_decimal_to_double(neg, weight, d.data(), (int)d.size(), &got);
  if (ok) {
    const std::string t = decimal_text(neg, weight, d);
    const double want = std::strtod(t.c_str(), nullptr);
    EXPECT_EQ(bits(want), bits(got)) << t;
  }
  return ok;
}

}  // namespace

TEST(NbaseDecimal, TextOfDigits) {
  EXPECT_EQ(decimal_text(false, 0, {12, 5000}), "12.5000");
  EXPECT_EQ(decimal_text(true, -2, {1234}), "-0.00001234");
  EXPECT_EQ(decimal_text(false, 2, {7}), "700000000");
}

TEST(NbaseDecimal, EveryAnswerIsStrtods) {
  std::mt19937_64 gen(5);
  int answered = 0, total = 0;
  for (int it = 0; it < 200000; ++it) {
    const int nd = 1 + (int)(gen() % 5);
    std::vector<uint16_t> d((size_t)nd);
    for (auto& x : d) x = (uint16_t)(gen() % 10000);
    if (d[0] == 0) d[0] = 1 + (uint16_t)(gen() % 9999);            // no leading zero digit
    if (d.back() == 0) d.back() = 1 + (uint16_t)(gen() % 9999);    // nor trailing
    const int weight = (int)(gen() % 16) - 9;
    answered += check(gen() & 1, weight, d);
    ++total;
  }
  // Up to 4 digits and |exponent| <= 22 answer: most of these.
  EXPECT_GT(answered, total / 2);
}

TEST(NbaseDecimal, Edges) {
  // Zero.
  double v = 1;
  EXPECT_TRUE(nbase_decimal_to_double(false, 0, nullptr, 0, &v));
  EXPECT_EQ(bits(v), bits(0.0));
  // Around 2^53 = 9007199254740992 (digits 9007 1992 5474 0992).
  EXPECT_TRUE(check(false, 3, {9007, 1992, 5474, 992}));
  EXPECT_TRUE(check(false, 3, {9007, 1992, 5474, 991}));
  EXPECT_FALSE(check(false, 3, {9007, 1992, 5474, 993}));  // above 2^53: the text route
  EXPECT_FALSE(check(false, 4, {1, 0, 0, 0, 1}));           // 17 significant digits
  EXPECT_TRUE(check(false, 0, {23, 4567, 8901, 2345, 6000}));  // 15 in 5 base-10000 digits
  EXPECT_TRUE(check(true, -1, {2345, 6789, 123, 4560}));
  EXPECT_FALSE(check(false, 4, {9999, 9999, 9999, 9999, 9999, 9999}));  // beyond 64 bits
  EXPECT_TRUE(check(true, 0, {0}));   // a stored zero, both signs
  EXPECT_TRUE(check(false, 0, {0, 0}));
  // Exponents at and past 10^22 / 10^-22 (weight - ndigits + 1 = +-5 -> e = +-20; +-6 -> +-24).
  EXPECT_TRUE(check(false, 5, {3}));
  EXPECT_TRUE(check(true, -5, {1234}));
  EXPECT_FALSE(check(false, 6, {3}));
  EXPECT_FALSE(check(false, -6, {1234}));
  // Ties and values that are not exact in binary.
  EXPECT_TRUE(check(false, -1, {1000}));            // 0.1
  EXPECT_TRUE(check(false, 0, {0, 3333}));          // 0.3333 with a zero leading digit
  EXPECT_TRUE(check(true, 3, {9007, 1992, 5474, 992}));
  EXPECT_FALSE(check(false, -5, {9007, 1992, 5474, 992}));  // e = -32: the text route
  // A digit above 9999 (a corrupt value) is refused.
  EXPECT_FALSE(nbase_decimal_to_double(false, 0, std::vector<uint16_t>{10000}.data(), 1, &v));
}
