// The vectorized passes declared in gradient_pass.h:
//  - binary:logistic / logitraw: the same IEEE double operations as
//    grad_logistic() -> det_sigmoid() -> det_exp() in the same order (no
//    FMA), so every gradient has the bits of the scalar code; groups of 4
//    rows with a margin outside [-700, 700] (or NaN) take the scalar path;
//  - reg:squarederror: the same subtraction and weight products per row;
//  - the quantization of pass 2: quantize() of every value, the same
//    integers (rounding to nearest, ties to even), and their sums; pairs of
//    rows with a scaled value of 2^51 or more in magnitude (or NaN) take the
//    scalar path.
#include "gradient_pass.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_GRAD_AVX2 1
#endif

namespace gbdt {

#if defined(GBDT_GRAD_AVX2)
namespace {

bool has_avx2() {
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return v;
}

// det_exp(x) for 4 lanes with -700 <= x <= 700 (no clamping, no NaN, the
// exponent within ldexp's fast range).
__attribute__((target("avx2"))) inline __m256d exp4(__m256d x) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
  const __m256d y = _mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634));
  // host_rint: copysign((|y| + 2^52) - 2^52, y)
  const __m256d a = _mm256_andnot_pd(sign, y);
  const __m256d t = _mm256_sub_pd(_mm256_add_pd(a, two52), two52);
  const __m256d kd = _mm256_or_pd(t, _mm256_and_pd(y, sign));
  const __m256d r = _mm256_sub_pd(_mm256_sub_pd(x, _mm256_mul_pd(kd, _mm256_set1_pd(6.93147180369123816490e-01))),
                                  _mm256_mul_pd(kd, _mm256_set1_pd(1.90821492927058770002e-10)));
#define GBDT_STEP(c) p = _mm256_add_pd(_mm256_mul_pd(p, r), _mm256_set1_pd(c))
  __m256d p = _mm256_set1_pd(1.6059043836821613e-10);
  GBDT_STEP(2.08767569878681e-09);
  GBDT_STEP(2.505210838544172e-08);
  GBDT_STEP(2.755731922398589e-07);
  GBDT_STEP(2.7557319223985893e-06);
  GBDT_STEP(2.48015873015873e-05);
  GBDT_STEP(0.0001984126984126984);
  GBDT_STEP(0.001388888888888889);
  GBDT_STEP(0.008333333333333333);
  GBDT_STEP(0.041666666666666664);
  GBDT_STEP(0.16666666666666666);
  GBDT_STEP(0.5);
  GBDT_STEP(1.0);
  GBDT_STEP(1.0);
#undef GBDT_STEP
  // host_ldexp(p, k): p * 2^k with the bits (k + 1023) << 52.
  const __m256i k = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(kd));
  const __m256i bits = _mm256_slli_epi64(_mm256_add_epi64(k, _mm256_set1_epi64x(1023)), 52);
  return _mm256_mul_pd(p, _mm256_castsi256_pd(bits));
}

__attribute__((target("avx2"))) void logistic_avx2(const float* margins, const float* y,
                                                   const float* w, size_t b, size_t e, void* slots,
                                                   GradMax* out) {
  char* dst = static_cast<char*>(slots);
  const __m256d one = _mm256_set1_pd(1.0), floor_h = _mm256_set1_pd(1e-16);
  const __m256d lim = _mm256_set1_pd(700.0), nlim = _mm256_set1_pd(-700.0);
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d vmg = _mm256_setzero_pd(), vmh = _mm256_setzero_pd();
  double mg = 0.0, mh = 0.0;
  auto scalar_row = [&](size_t r) {
    GradHess gh = weighted(grad_logistic((double)margins[r], (double)y[r]), w, r);
    const double v[2] = {gh.g, gh.h};
    std::memcpy(dst + r * sizeof v, v, sizeof v);
    const double ag = std::fabs(gh.g);
    mg = ag > mg ? ag : mg;
    mh = gh.h > mh ? gh.h : mh;
  };
  size_t r = b;
  for (; r + 4 <= e; r += 4) {
    const __m256d m = _mm256_cvtps_pd(_mm_loadu_ps(margins + r));
    // In range (also false for NaN): -700 <= m <= 700.
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(m, lim, _CMP_LE_OQ), _mm256_cmp_pd(m, nlim, _CMP_GE_OQ));
    if (_mm256_movemask_pd(ok) != 0xF) {
      for (size_t j = r; j < r + 4; ++j) scalar_row(j);
      continue;
    }
    const __m256d ex = exp4(_mm256_xor_pd(m, sign));  // det_exp(-m)
    const __m256d p = _mm256_div_pd(one, _mm256_add_pd(one, ex));
    __m256d h = _mm256_mul_pd(p, _mm256_sub_pd(one, p));
    h = _mm256_blendv_pd(h, floor_h, _mm256_cmp_pd(h, floor_h, _CMP_LT_OQ));
    __m256d g = _mm256_sub_pd(p, _mm256_cvtps_pd(_mm_loadu_ps(y + r)));
    if (w) {
      const __m256d wv = _mm256_cvtps_pd(_mm_loadu_ps(w + r));
      g = _mm256_mul_pd(g, wv);
      h = _mm256_mul_pd(h, wv);
    }
    // Interleave to (g, h) pairs per row.
    const __m256d lo = _mm256_unpacklo_pd(g, h);  // g0 h0 g2 h2
    const __m256d hi = _mm256_unpackhi_pd(g, h);  // g1 h1 g3 h3
    double* o = reinterpret_cast<double*>(dst + r * 16);
    _mm256_storeu_pd(o, _mm256_permute2f128_pd(lo, hi, 0x20));      // g0 h0 g1 h1
    _mm256_storeu_pd(o + 4, _mm256_permute2f128_pd(lo, hi, 0x31));  // g2 h2 g3 h3
    // Maxima: a lane's value replaces when strictly greater (NaN never does).
    const __m256d ag = _mm256_andnot_pd(sign, g);
    vmg = _mm256_blendv_pd(vmg, ag, _mm256_cmp_pd(ag, vmg, _CMP_GT_OQ));
    vmh = _mm256_blendv_pd(vmh, h, _mm256_cmp_pd(h, vmh, _CMP_GT_OQ));
  }
  for (; r < e; ++r) scalar_row(r);
  double a[4], c[4];
  _mm256_storeu_pd(a, vmg);
  _mm256_storeu_pd(c, vmh);
  for (int j = 0; j < 4; ++j) {
    mg = a[j] > mg ? a[j] : mg;
    mh = c[j] > mh ? c[j] : mh;
  }
  *out = GradMax{mg, mh};
}

// reg:squarederror on rows [b, e): g = m - y, h = 1, each times the row's
// weight when there are weights (the operations of grad_squared_error() and
// weighted()).
__attribute__((target("avx2"))) void squared_error_avx2(const float* margins, const float* y, const float* w,
                                                        size_t b, size_t e, void* slots, GradMax* out) {
  char* dst = static_cast<char*>(slots);
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d vmg = _mm256_setzero_pd(), vmh = _mm256_setzero_pd();
  double mg = 0.0, mh = 0.0;
  size_t r = b;
  for (; r + 4 <= e; r += 4) {
    __m256d g = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(margins + r)), _mm256_cvtps_pd(_mm_loadu_ps(y + r)));
    __m256d h = _mm256_set1_pd(1.0);
    if (w) {
      const __m256d wv = _mm256_cvtps_pd(_mm_loadu_ps(w + r));
      g = _mm256_mul_pd(g, wv);
      h = _mm256_mul_pd(h, wv);
    }
    const __m256d lo = _mm256_unpacklo_pd(g, h);  // g0 h0 g2 h2
    const __m256d hi = _mm256_unpackhi_pd(g, h);  // g1 h1 g3 h3
    double* o = reinterpret_cast<double*>(dst + r * 16);
    _mm256_storeu_pd(o, _mm256_permute2f128_pd(lo, hi, 0x20));
    _mm256_storeu_pd(o + 4, _mm256_permute2f128_pd(lo, hi, 0x31));
    const __m256d ag = _mm256_andnot_pd(sign, g);
    vmg = _mm256_blendv_pd(vmg, ag, _mm256_cmp_pd(ag, vmg, _CMP_GT_OQ));
    vmh = _mm256_blendv_pd(vmh, h, _mm256_cmp_pd(h, vmh, _CMP_GT_OQ));
  }
  for (; r < e; ++r) {
    const GradHess gh = weighted(grad_squared_error((double)margins[r], (double)y[r]), w, r);
    const double v[2] = {gh.g, gh.h};
    std::memcpy(dst + r * sizeof v, v, sizeof v);
    const double ag = std::fabs(gh.g);
    mg = ag > mg ? ag : mg;
    mh = gh.h > mh ? gh.h : mh;
  }
  double a[4], c[4];
  _mm256_storeu_pd(a, vmg);
  _mm256_storeu_pd(c, vmh);
  for (int j = 0; j < 4; ++j) {
    mg = a[j] > mg ? a[j] : mg;
    mh = c[j] > mh ? c[j] : mh;
  }
  *out = GradMax{mg, mh};
}

// Rows [b, e) of (g, h) double pairs -> quantize(g, gs), quantize(h, hs) in
// place.  For |v| < 2^51, v + 1.5 * 2^52 lies in [2^52, 2^53), where the
// doubles are the integers: the addition rounds v to nearest, ties to even
// (1.5 * 2^52 is even), as host_rint() does, and the difference of the bit
// patterns is that integer.
__attribute__((target("avx2"))) void quantize_avx2(void* slots, size_t b, size_t e, double gs,
                                                   double hs, int64_t sum[2]) {
  char* base = static_cast<char*>(slots);
  const __m256d scale = _mm256_setr_pd(gs, hs, gs, hs);
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d lim = _mm256_set1_pd(2251799813685248.0);  // 2^51
  const __m256d magic = _mm256_set1_pd(6755399441055744.0);  // 1.5 * 2^52
  const __m256i magic_bits = _mm256_castpd_si256(magic);
  // Lanes (g, h, g, h); the scalar rows' sums apart.  Integer sums (any
  // order), wrapping as the vector adds do.
  __m256i acc = _mm256_setzero_si256();
  uint64_t sg = 0, sh = 0;
  auto scalar_row = [&](size_t r) {
    double v[2];
    std::memcpy(v, base + r * 16, 16);
    const int64_t q[2] = {quantize(v[0], gs), quantize(v[1], hs)};
    std::memcpy(base + r * 16, q, 16);
    sg += (uint64_t)q[0];
    sh += (uint64_t)q[1];
  };
  size_t r = b;
  for (; r + 2 <= e; r += 2) {
    double* p = reinterpret_cast<double*>(base + r * 16);
    const __m256d v = _mm256_mul_pd(_mm256_loadu_pd(p), scale);
    const __m256d ok = _mm256_cmp_pd(_mm256_andnot_pd(sign, v), lim, _CMP_LT_OQ);  // false for NaN
    if (_mm256_movemask_pd(ok) != 0xF) {
      scalar_row(r);
      scalar_row(r + 1);
      continue;
    }
    const __m256i q = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, magic)), magic_bits);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), q);
    acc = _mm256_add_epi64(acc, q);
  }
  for (; r < e; ++r) scalar_row(r);
  uint64_t a[4];
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(a), acc);
  sum[0] = (int64_t)((uint64_t)sum[0] + sg + a[0] + a[2]);
  sum[1] = (int64_t)((uint64_t)sum[1] + sh + a[1] + a[3]);
}

}  // namespace
#endif

bool quantize_pass_simd(void* slots, size_t b, size_t e, double g_scale, double h_scale, int64_t sum[2]) {
#if defined(GBDT_GRAD_AVX2)
  if (!has_avx2()) return false;
  quantize_avx2(slots, b, e, g_scale, h_scale, sum);
  return true;
#else
  (void)slots, (void)b, (void)e, (void)g_scale, (void)h_scale, (void)sum;
  return false;
#endif
}

bool squared_error_pass_simd(const float* margins, const float* y, const float* w, size_t b, size_t e,
                             void* slots, GradMax* out) {
#if defined(GBDT_GRAD_AVX2)
  if (!has_avx2()) return false;
  squared_error_avx2(margins, y, w, b, e, slots, out);
  return true;
#else
  (void)margins, (void)y, (void)w, (void)b, (void)e, (void)slots, (void)out;
  return false;
#endif
}

bool logistic_pass_simd(const float* margins, const float* y, const float* w, size_t b, size_t e,
                        void* slots, GradMax* out) {
#if defined(GBDT_GRAD_AVX2)
  if (!has_avx2()) return false;
  logistic_avx2(margins, y, w, b, e, slots, out);
  return true;
#else
  (void)margins, (void)y, (void)w, (void)b, (void)e, (void)slots, (void)out;
  return false;
#endif
}

}  // namespace gbdt
