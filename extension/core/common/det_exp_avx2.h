// det_exp (det_math.h) on vectors of doubles with AVX2: the same IEEE
// operations in the same order (no FMA), so every lane has the bits of the
// scalar function.  Shared by the vectorized gradient passes
// (objective/gradient_simd.cpp) and the LambdaRank pair loop
// (objective/lambdarank_topk.cpp).  Callers compile these functions with the
// avx2 target attribute and call them only when cpu_has_avx2().
#pragma once
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "det_math.h"

#define GBDT_DET_EXP_AVX2 1

namespace gbdt {

// det_exp's Taylor coefficients (det_math.h), 1/13! down to 1/0!, in its
// Horner order: p = c[0], then p = p * r + c[i].
constexpr int kExpTerms = 14;
constexpr double kExpTaylor[kExpTerms] = {1.6059043836821613e-10, 2.08767569878681e-09,  2.505210838544172e-08,
                                          2.755731922398589e-07,  2.7557319223985893e-06, 2.48015873015873e-05,
                                          0.0001984126984126984,  0.001388888888888889,   0.008333333333333333,
                                          0.041666666666666664,   0.16666666666666666,    0.5,
                                          1.0,                    1.0};

// det_exp(x) for 4 lanes with -700 <= x <= 700 (no clamping, no NaN, the
// exponent within ldexp's fast range).
__attribute__((target("avx2"))) inline __m256d exp4(__m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
  const __m256d y = _mm256_mul_pd(x, _mm256_set1_pd(kInvLn2));
  // host_rint: copysign((|y| + 2^52) - 2^52, y)
  const __m256d a = _mm256_andnot_pd(sign, y);
  const __m256d t = _mm256_sub_pd(_mm256_add_pd(a, two52), two52);
  const __m256d kd = _mm256_or_pd(t, _mm256_and_pd(y, sign));
  const __m256d r = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(kd, _mm256_set1_pd(kLn2Hi))),
                                  _mm256_mul_pd(kd, _mm256_set1_pd(kLn2Lo)));
  __m256d p = _mm256_set1_pd(kExpTaylor[0]);
#pragma GCC unroll 16
  for (int i = 1; i < kExpTerms; ++i) p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(kExpTaylor[i]));
  // host_ldexp(p, k): p * 2^k with the bits (k + 1023) << 52.
  const __m256i k = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(kd));
  const __m256i bits = _mm256_slli_epi64(_mm256_add_epi64(k, _mm256_set1_epi64x(1023)), 52);
  return _mm256_mul_pd(p, _mm256_castsi256_pd(bits));
}

}  // namespace gbdt
#endif
