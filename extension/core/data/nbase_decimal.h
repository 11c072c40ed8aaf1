// A decimal held as base-10000 digits (PostgreSQL's numeric: value =
// sign * sum of digit[i] * 10000^(weight - i)) to the nearest double, without
// printing it and parsing the text back (what numeric -> float8 does).
//
// Exact when it answers: the digits, less their trailing decimal zeros,
// form an integer M <= 2^53 (a double holds it exactly) and the value is
// M * 10^e with |e| <= 22 (10^|e| is an exact double too), so one IEEE multiplication or division rounds the
// exact value to nearest-even, which is what a correctly rounded decimal
// parser (glibc strtod) gives.  Anything else (17 or more significant
// digits, very large or very small magnitudes) returns false and the caller
// takes the text route.
#pragma once
#include <cstdint>

namespace gbdt {

inline bool nbase_decimal_to_double(bool negative, int weight, const uint16_t* digits, int ndigits,
                                    double* out) {
  static const double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (ndigits < 0) return false;
  uint64_t m = 0;
  for (int i = 0; i < ndigits; ++i) {
    if (digits[i] > 9999) return false;                      // not a valid digit
    if (m > (UINT64_MAX - 9999) / 10000) return false;        // 20 or more digits
    m = m * 10000 + digits[i];
  }
  if (m == 0) {  // zero (the text of a stored negative zero parses as -0.0)
    *out = negative ? -0.0 : 0.0;
    return true;
  }
  long e = 4L * ((long)weight - ndigits + 1);
  // The last base-10000 digit's trailing decimal zeros (15 significant
  // digits often take 5 base-10000 digits): the same value, a smaller M.
  while (m % 10 == 0) {
    m /= 10;
    ++e;
  }
  if (m > (1ull << 53)) return false;
  if (e < -22 || e > 22) return false;
  double v = (double)m;  // exact
  v = e >= 0 ? v * kPow10[e] : v / kPow10[-e];
  *out = negative ? -v : v;
  return true;
}

}  // namespace gbdt
