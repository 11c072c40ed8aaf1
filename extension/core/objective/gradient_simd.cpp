// The vectorized passes declared in gradient_pass.h:
//  - binary:logistic / logitraw (8 rows a step with AVX-512F, else 4 with
//    AVX2): the same IEEE double operations as
//    grad_logistic() -> det_sigmoid() -> det_exp() in the same order (no
//    FMA), so every gradient has the bits of the scalar code; groups of 4
//    rows with a margin outside [-700, 700] (or NaN) take the scalar path;
//  - reg:squarederror: the same subtraction and weight products per row;
//  - the quantization of pass 2: quantize() of every value, the same
//    integers (rounding to nearest, ties to even), and their sums; pairs of
//    rows with a scaled value of 2^51 or more in magnitude (or NaN) take the
//    scalar path.
#include "gradient_pass.h"

#include "../common/cpu_features.h"
#include "../common/det_exp_avx2.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_GRAD_AVX2 1
#endif

namespace gbdt {

#if defined(GBDT_GRAD_AVX2)
namespace {


// Pass 1's output of a vector path: 4 rows' (g, h) at a time into their
// slots, and the per-lane maxima of |g| and h (a lane's value replaces when
// strictly greater, as in gradient_rows(); NaN never does), merged at the
// end with the maxima of the rows that took gradient_rows().  A maximum
// does not depend on the order.
struct PairSink {
  char* dst;
  __m256d mg, mh;
  double sg = 0.0, sh = 0.0;  // the scalar rows'

  __attribute__((target("avx2"))) explicit PairSink(void* slots)
      : dst(static_cast<char*>(slots)), mg(_mm256_setzero_pd()), mh(_mm256_setzero_pd()) {}

  // Rows r..r+3 from lanes g0..g3, h0..h3.
  __attribute__((target("avx2"))) void put4(size_t r, __m256d g, __m256d h) {
    const __m256d lo = _mm256_unpacklo_pd(g, h);  // g0 h0 g2 h2
    const __m256d hi = _mm256_unpackhi_pd(g, h);  // g1 h1 g3 h3
    double* o = reinterpret_cast<double*>(dst + r * 16);
    _mm256_storeu_pd(o, _mm256_permute2f128_pd(lo, hi, 0x20));      // g0 h0 g1 h1
    _mm256_storeu_pd(o + 4, _mm256_permute2f128_pd(lo, hi, 0x31));  // g2 h2 g3 h3
    const __m256d ag = _mm256_andnot_pd(_mm256_set1_pd(-0.0), g);
    mg = _mm256_blendv_pd(mg, ag, _mm256_cmp_pd(ag, mg, _CMP_GT_OQ));
    mh = _mm256_blendv_pd(mh, h, _mm256_cmp_pd(h, mh, _CMP_GT_OQ));
  }

  void scalar(GradMax m) {
    sg = m.g > sg ? m.g : sg;
    sh = m.h > sh ? m.h : sh;
  }

  __attribute__((target("avx2"))) GradMax result() const {
    double a[4], c[4];
    _mm256_storeu_pd(a, mg);
    _mm256_storeu_pd(c, mh);
    GradMax m{sg, sh};
    for (int j = 0; j < 4; ++j) {
      m.g = a[j] > m.g ? a[j] : m.g;
      m.h = c[j] > m.h ? c[j] : m.h;
    }
    return m;
  }
};

__attribute__((target("avx2"))) void logistic_avx2(const float* margins, const float* y,
                                                   const float* w, size_t b, size_t e, void* slots,
                                                   GradMax* out) {
  const __m256d one = _mm256_set1_pd(1.0), floor_h = _mm256_set1_pd(1e-16);
  const __m256d lim = _mm256_set1_pd(700.0), nlim = _mm256_set1_pd(-700.0);
  const __m256d sign = _mm256_set1_pd(-0.0);
  const auto fn = [](double m, double t) { return grad_logistic(m, t); };
  PairSink sink(slots);
  size_t r = b;
  for (; r + 4 <= e; r += 4) {
    const __m256d m = _mm256_cvtps_pd(_mm_loadu_ps(margins + r));
    // In range (also false for NaN): -700 <= m <= 700.
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(m, lim, _CMP_LE_OQ), _mm256_cmp_pd(m, nlim, _CMP_GE_OQ));
    if (_mm256_movemask_pd(ok) != 0xF) {
      sink.scalar(gradient_rows(fn, margins, y, w, r, r + 4, slots));
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
    sink.put4(r, g, h);
  }
  sink.scalar(gradient_rows(fn, margins, y, w, r, e, slots));
  *out = sink.result();
}

// GCC 12 warns of the undefined pass-through operand inside the AVX-512
// intrinsics' headers (_mm512_undefined_*), not of this code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// exp4 for 8 lanes (AVX-512F): the same operations in the same order.
// AVX-512F has no and/or of doubles: the sign bits go through the integer
// view.
__attribute__((target("avx512f"))) inline __m512d exp8(__m512d x) {
  const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
  const __m512d two52 = _mm512_set1_pd(4503599627370496.0);
  const __m512d y = _mm512_mul_pd(x, _mm512_set1_pd(kInvLn2));
  const __m512d a = _mm512_castsi512_pd(_mm512_andnot_si512(sign, _mm512_castpd_si512(y)));
  const __m512d t = _mm512_sub_pd(_mm512_add_pd(a, two52), two52);
  const __m512d kd = _mm512_castsi512_pd(
      _mm512_or_si512(_mm512_castpd_si512(t), _mm512_and_si512(_mm512_castpd_si512(y), sign)));
  const __m512d r = _mm512_sub_pd(_mm512_sub_pd(x, _mm512_mul_pd(kd, _mm512_set1_pd(kLn2Hi))),
                                  _mm512_mul_pd(kd, _mm512_set1_pd(kLn2Lo)));
  __m512d p = _mm512_set1_pd(kExpTaylor[0]);
#pragma GCC unroll 16
  for (int i = 1; i < kExpTerms; ++i) p = _mm512_add_pd(_mm512_mul_pd(p, r), _mm512_set1_pd(kExpTaylor[i]));
  const __m512i k = _mm512_cvtepi32_epi64(_mm512_cvtpd_epi32(kd));
  const __m512i bits = _mm512_slli_epi64(_mm512_add_epi64(k, _mm512_set1_epi64(1023)), 52);
  return _mm512_mul_pd(p, _mm512_castsi512_pd(bits));
}

// binary:logistic 8 rows a step (AVX-512F), the operations of
// logistic_avx2: the (g, h) pairs interleaved into two 8-double stores, the
// per-lane maxima kept as PairSink keeps them and merged with the scalar
// rows' at the end.
__attribute__((target("avx512f"))) void logistic_avx512(const float* margins, const float* y,
                                                       const float* w, size_t b, size_t e, void* slots,
                                                       GradMax* out) {
  const __m512d one = _mm512_set1_pd(1.0), floor_h = _mm512_set1_pd(1e-16);
  const __m512d lim = _mm512_set1_pd(700.0), nlim = _mm512_set1_pd(-700.0);
  const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
  const __m512i lo_idx = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
  const __m512i hi_idx = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
  const auto fn = [](double m, double t) { return grad_logistic(m, t); };
  char* dst = static_cast<char*>(slots);
  __m512d mg = _mm512_setzero_pd(), mh = _mm512_setzero_pd();
  // The scalar rows' maxima in plain doubles: no local of this function
  // has its address taken (under ASan's use-after-return checks such
  // locals live in a fake stack frame, too little aligned for the 64-byte
  // spills of this function).
  double sg = 0.0, sh = 0.0;
  size_t r = b;
  for (; r + 8 <= e; r += 8) {
    const __m512d m = _mm512_cvtps_pd(_mm256_loadu_ps(margins + r));
    // In range (also false for NaN): -700 <= m <= 700.
    const __mmask8 ok = _mm512_cmp_pd_mask(m, lim, _CMP_LE_OQ) & _mm512_cmp_pd_mask(m, nlim, _CMP_GE_OQ);
    if (ok != 0xFF) {
      const GradMax m8 = gradient_rows(fn, margins, y, w, r, r + 8, slots);
      sg = m8.g > sg ? m8.g : sg;
      sh = m8.h > sh ? m8.h : sh;
      continue;
    }
    const __m512d ex = exp8(_mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(m), sign)));  // det_exp(-m)
    const __m512d p = _mm512_div_pd(one, _mm512_add_pd(one, ex));
    __m512d h = _mm512_mul_pd(p, _mm512_sub_pd(one, p));
    h = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(h, floor_h, _CMP_LT_OQ), h, floor_h);
    __m512d g = _mm512_sub_pd(p, _mm512_cvtps_pd(_mm256_loadu_ps(y + r)));
    if (w) {
      const __m512d wv = _mm512_cvtps_pd(_mm256_loadu_ps(w + r));
      g = _mm512_mul_pd(g, wv);
      h = _mm512_mul_pd(h, wv);
    }
    double* o = reinterpret_cast<double*>(dst + r * 16);
    _mm512_storeu_pd(o, _mm512_permutex2var_pd(g, lo_idx, h));      // g0 h0 .. g3 h3
    _mm512_storeu_pd(o + 8, _mm512_permutex2var_pd(g, hi_idx, h));  // g4 h4 .. g7 h7
    const __m512d ag = _mm512_castsi512_pd(_mm512_andnot_si512(sign, _mm512_castpd_si512(g)));
    mg = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(ag, mg, _CMP_GT_OQ), mg, ag);
    mh = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(h, mh, _CMP_GT_OQ), mh, h);
  }
  const GradMax mt = gradient_rows(fn, margins, y, w, r, e, slots);
  sg = mt.g > sg ? mt.g : sg;
  sh = mt.h > sh ? mt.h : sh;
  // The lanes' maxima: each lane is +0 or more and never NaN (a lane takes
  // only a strictly greater value), so their largest is the loop's.
  const double lg = _mm512_reduce_max_pd(mg), lh = _mm512_reduce_max_pd(mh);
  out->g = lg > sg ? lg : sg;
  out->h = lh > sh ? lh : sh;
}

#pragma GCC diagnostic pop

// reg:squarederror on rows [b, e): g = m - y, h = 1, each times the row's
// weight when there are weights (the operations of grad_squared_error() and
// weighted()).
__attribute__((target("avx2"))) void squared_error_avx2(const float* margins, const float* y, const float* w,
                                                        size_t b, size_t e, void* slots, GradMax* out) {
  PairSink sink(slots);
  size_t r = b;
  for (; r + 4 <= e; r += 4) {
    __m256d g = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(margins + r)), _mm256_cvtps_pd(_mm_loadu_ps(y + r)));
    __m256d h = _mm256_set1_pd(1.0);
    if (w) {
      const __m256d wv = _mm256_cvtps_pd(_mm_loadu_ps(w + r));
      g = _mm256_mul_pd(g, wv);
      h = _mm256_mul_pd(h, wv);
    }
    sink.put4(r, g, h);
  }
  sink.scalar(gradient_rows([](double m, double t) { return grad_squared_error(m, t); }, margins, y, w, r, e,
                            slots));
  *out = sink.result();
}

// Rows [b, e) of (g, h) double pairs -> quantize(g, gs), quantize(h, hs) in
// place, each times mult[r] when there are multiplicities (quantize_rows():
// a row standing for mult[r] copies, row_dedup.h).  For |v| < 2^51,
// v + 1.5 * 2^52 lies in [2^52, 2^53), where the doubles are the integers:
// the addition rounds v to nearest, ties to even (1.5 * 2^52 is even), as
// host_rint() does, and the difference of the bit patterns is that
// integer.  The product by a multiplicity (0 < m < 2^31) is taken modulo
// 2^64 from the two 32-bit halves of q, as q_lo * m + (q_hi * m << 32):
// the int64 product wherever it fits (the quantizer's scale makes it fit).
__attribute__((target("avx2"))) void quantize_avx2(void* slots, size_t b, size_t e, double gs,
                                                   double hs, const int32_t* mult, int64_t sum[2]) {
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
    const uint64_t m = mult ? (uint64_t)mult[r] : 1;
    const int64_t q[2] = {(int64_t)((uint64_t)quantize(v[0], gs) * m),
                          (int64_t)((uint64_t)quantize(v[1], hs) * m)};
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
    __m256i q = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, magic)), magic_bits);
    if (mult) {
      // (m_r, m_r, m_r+1, m_r+1) in the low halves of the 64-bit lanes.
      const __m128i m2 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(mult + r));
      const __m256i m = _mm256_cvtepu32_epi64(_mm_unpacklo_epi32(m2, m2));
      const __m256i lo = _mm256_mul_epu32(q, m);
      const __m256i hi = _mm256_mul_epu32(_mm256_srli_epi64(q, 32), m);
      q = _mm256_add_epi64(lo, _mm256_slli_epi64(hi, 32));
    }
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

#if defined(GBDT_GRAD_AVX2)
namespace {
int simd_cap = 2;  // set_gradient_simd_for_tests
}  // namespace

void set_gradient_simd_for_tests(int level) { simd_cap = level; }

// Runs the AVX2 path when the CPU has AVX2; false (nothing done) otherwise.
template <typename Path>
bool with_avx2(Path path) {
  if (simd_cap < 1 || !cpu_has_avx2()) return false;
  path();
  return true;
}

bool quantize_pass_simd(void* slots, size_t b, size_t e, double g_scale, double h_scale,
                        const int32_t* mult, int64_t sum[2]) {
  return with_avx2([&] { quantize_avx2(slots, b, e, g_scale, h_scale, mult, sum); });
}

bool squared_error_pass_simd(const float* margins, const float* y, const float* w, size_t b, size_t e,
                             void* slots, GradMax* out) {
  return with_avx2([&] { squared_error_avx2(margins, y, w, b, e, slots, out); });
}

bool logistic_pass_simd(const float* margins, const float* y, const float* w, size_t b, size_t e,
                        void* slots, GradMax* out) {
  if (simd_cap >= 2 && cpu_has_avx512f()) {
    logistic_avx512(margins, y, w, b, e, slots, out);
    return true;
  }
  return with_avx2([&] { logistic_avx2(margins, y, w, b, e, slots, out); });
}
#else
void set_gradient_simd_for_tests(int) {}
// No AVX2 paths on this target: the callers take their scalar loops.
bool quantize_pass_simd(void*, size_t, size_t, double, double, const int32_t*, int64_t*) { return false; }
bool squared_error_pass_simd(const float*, const float*, const float*, size_t, size_t, void*, GradMax*) {
  return false;
}
bool logistic_pass_simd(const float*, const float*, const float*, size_t, size_t, void*, GradMax*) {
  return false;
}
#endif

}  // namespace gbdt
