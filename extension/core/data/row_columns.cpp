// row_columns.h.  The raw pass's worker spent a third of its time storing
// one value at a time into ~40 column arrays and another part testing each
// value for infinity; both are now a few vector instructions per 8 values.
#include "row_columns.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "../common/cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_ROWCOL_AVX2 1
#endif

namespace gbdt {

void rows_to_columns_scalar(const float* x, size_t ncols, size_t r0, size_t r1, size_t m,
                            float* const* dst, size_t at) {
  for (size_t r = r0; r < r1; ++r) {
    const float* v = x + r * ncols;
    const size_t i = at + (r - r0);
    for (size_t j = 0; j < m; ++j) dst[j][i] = v[j];
  }
}

#if defined(GBDT_ROWCOL_AVX2)
namespace {

// Rows [r0, r0 + 8) x columns [c0, c0 + 8) of x, transposed: column c0 + j's
// 8 values stored at dst[c0 + j] + i.
__attribute__((target("avx2"), always_inline)) inline void block8x8(const float* x, size_t ncols, size_t r0,
                                                                    size_t c0, float* const* dst, size_t i) {
  const float* p = x + r0 * ncols + c0;
  const __m256 a0 = _mm256_loadu_ps(p), a1 = _mm256_loadu_ps(p + ncols);
  const __m256 a2 = _mm256_loadu_ps(p + 2 * ncols), a3 = _mm256_loadu_ps(p + 3 * ncols);
  const __m256 a4 = _mm256_loadu_ps(p + 4 * ncols), a5 = _mm256_loadu_ps(p + 5 * ncols);
  const __m256 a6 = _mm256_loadu_ps(p + 6 * ncols), a7 = _mm256_loadu_ps(p + 7 * ncols);
  // Pairs of rows interleaved, then quads, then the 128-bit halves.
  const __m256 t0 = _mm256_unpacklo_ps(a0, a1), t1 = _mm256_unpackhi_ps(a0, a1);
  const __m256 t2 = _mm256_unpacklo_ps(a2, a3), t3 = _mm256_unpackhi_ps(a2, a3);
  const __m256 t4 = _mm256_unpacklo_ps(a4, a5), t5 = _mm256_unpackhi_ps(a4, a5);
  const __m256 t6 = _mm256_unpacklo_ps(a6, a7), t7 = _mm256_unpackhi_ps(a6, a7);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(dst[c0 + 0] + i, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(dst[c0 + 1] + i, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(dst[c0 + 2] + i, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(dst[c0 + 3] + i, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(dst[c0 + 4] + i, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(dst[c0 + 5] + i, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(dst[c0 + 6] + i, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(dst[c0 + 7] + i, _mm256_permute2f128_ps(u3, u7, 0x31));
}

__attribute__((target("avx2"))) void rows_to_columns_avx2(const float* x, size_t ncols, size_t r0, size_t r1,
                                                          size_t m, float* const* dst, size_t at) {
  const size_t m8 = m & ~(size_t)7;
  size_t r = r0;
  for (; r + 8 <= r1; r += 8) {
    const size_t i = at + (r - r0);
    for (size_t c = 0; c < m8; c += 8) block8x8(x, ncols, r, c, dst, i);
    for (size_t c = m8; c < m; ++c) {
      float* d = dst[c] + i;
      for (size_t k = 0; k < 8; ++k) d[k] = x[(r + k) * ncols + c];
    }
  }
  rows_to_columns_scalar(x, ncols, r, r1, m, dst, at + (r - r0));
}

__attribute__((target("avx2"))) bool any_infinite_avx2(const float* x, size_t n) {
  const __m256i absmask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  __m256i hit = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)), absmask);
    hit = _mm256_or_si256(hit, _mm256_cmpeq_epi32(v, inf));
  }
  if (!_mm256_testz_si256(hit, hit)) return true;
  for (; i < n; ++i)
    if (std::isinf(x[i])) return true;
  return false;
}

}  // namespace
#endif

void rows_to_columns(const float* x, size_t ncols, size_t r0, size_t r1, size_t m, float* const* dst,
                     size_t at) {
#if defined(GBDT_ROWCOL_AVX2)
  if (cpu_has_avx2()) {
    rows_to_columns_avx2(x, ncols, r0, r1, m, dst, at);
    return;
  }
#endif
  rows_to_columns_scalar(x, ncols, r0, r1, m, dst, at);
}

bool any_infinite(const float* x, size_t n) {
#if defined(GBDT_ROWCOL_AVX2)
  if (cpu_has_avx2()) return any_infinite_avx2(x, n);
#endif
  for (size_t i = 0; i < n; ++i)
    if (std::isinf(x[i])) return true;
  return false;
}

}  // namespace gbdt
