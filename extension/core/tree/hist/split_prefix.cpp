// split_prefix.h: the left sums of a feature's non-empty bins, by a plain
// loop and by an AVX2 version that takes 4 bins a step (the cells split into
// g and h lanes, a running sum across the lanes plus the sums before the
// step, the lanes of non-empty bins moved to the front and stored at the
// count so far).  An AVX-512 version taking 8 bins a step (register
// compress, masked stores) measured no faster on an AVX-512 Xeon.  The scan of a small node's histogram spends
// most of its time here on wide tables: the plain loop's stores wait on the
// count of the bin before.
#include "split_prefix.h"

#include "../../common/cpu_features.h"
#include "../../common/lane_compress.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_PREFIX_SIMD 1
#endif

namespace gbdt {

namespace {

// The plain loop from bin b on, with the running sums and count so far.
inline int prefix_from(const GradSum* h, int b, int nb, int64_t ag, int64_t ah, int n, int64_t* lg,
                       int64_t* lh, int32_t* bn) {
  for (; b < nb; ++b) {
    const int64_t g = h[b].g, hh = h[b].h;
    ag += g;
    ah += hh;
    lg[n] = ag;
    lh[n] = ah;
    bn[n] = b;
    n += (b == 0) | (g != 0) | (hh != 0);
  }
  return n;
}

}  // namespace

int nonempty_prefix_scalar(const GradSum* h, int nb, int64_t* lg, int64_t* lh, int32_t* bn) {
  return prefix_from(h, 0, nb, 0, 0, 0, lg, lh, bn);
}

#if defined(GBDT_PREFIX_SIMD)
__attribute__((target("avx2,popcnt"))) static int prefix_avx2(const GradSum* h, int nb, int64_t* lg,
                                                              int64_t* lh, int32_t* bn) {
  const LaneCompressTable& ct = lane_compress_table();
  const __m256i zero = _mm256_setzero_si256();
  __m256i cg = zero, ch = zero;  // the sums before the step, in every lane
  int n = 0, b = 0;
  for (; b + 4 <= nb; b += 4) {
    const __m256i c01 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + b));
    const __m256i c23 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + b + 2));
    // unpack: (g0 g2 | g1 g3), (h0 h2 | h1 h3); then lanes 0 2 1 3.
    __m256i g = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(c01, c23), 0xD8);
    __m256i hh = _mm256_permute4x64_epi64(_mm256_unpackhi_epi64(c01, c23), 0xD8);
    const __m256i empty = _mm256_cmpeq_epi64(_mm256_or_si256(g, hh), zero);
    // Kept bins: m by 64-bit lane, m2 by 32-bit half (each bit of m twice).
    int m = ~_mm256_movemask_pd(_mm256_castsi256_pd(empty)) & 0xF;
    int m2 = ~_mm256_movemask_ps(_mm256_castsi256_ps(empty)) & 0xFF;
    if (b == 0) {
      m |= 1;
      m2 |= 3;
    }
    // Running sums across the lanes: + (0 x0 x1 x2), then + (0 0 y0 y1).
    g = _mm256_add_epi64(g, _mm256_blend_epi32(_mm256_permute4x64_epi64(g, 0x90), zero, 0x03));
    hh = _mm256_add_epi64(hh, _mm256_blend_epi32(_mm256_permute4x64_epi64(hh, 0x90), zero, 0x03));
    g = _mm256_add_epi64(g, _mm256_blend_epi32(_mm256_permute4x64_epi64(g, 0x40), zero, 0x0F));
    hh = _mm256_add_epi64(hh, _mm256_blend_epi32(_mm256_permute4x64_epi64(hh, 0x40), zero, 0x0F));
    g = _mm256_add_epi64(g, cg);
    hh = _mm256_add_epi64(hh, ch);
    cg = _mm256_permute4x64_epi64(g, 0xFF);
    ch = _mm256_permute4x64_epi64(hh, 0xFF);
    // Stores of 4 lanes at n <= b end at or before bin b + 3 < nb.
    const __m256i pp = _mm256_load_si256(reinterpret_cast<const __m256i*>(ct.left[m2]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lg + n), _mm256_permutevar8x32_epi32(g, pp));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lh + n), _mm256_permutevar8x32_epi32(hh, pp));
    const __m128i idx = _mm_add_epi32(_mm_set1_epi32(b), _mm_setr_epi32(0, 1, 2, 3));
    const __m128i ps = _mm_load_si128(reinterpret_cast<const __m128i*>(ct.left[m]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(bn + n),
                     _mm_castps_si128(_mm_permutevar_ps(_mm_castsi128_ps(idx), ps)));
    n += __builtin_popcount((unsigned)m);
  }
  const int64_t ag = _mm256_extract_epi64(cg, 0), ah = _mm256_extract_epi64(ch, 0);
  return prefix_from(h, b, nb, ag, ah, n, lg, lh, bn);
}

#endif

int nonempty_prefix_avx2(const GradSum* h, int nb, int64_t* lg, int64_t* lh, int32_t* bn) {
#if defined(GBDT_PREFIX_SIMD)
  if (cpu_has_avx2()) return prefix_avx2(h, nb, lg, lh, bn);
#endif
  return -1;
}

int nonempty_prefix(const GradSum* h, int nb, int64_t* lg, int64_t* lh, int32_t* bn) {
#if defined(GBDT_PREFIX_SIMD)
  if (cpu_has_avx2()) return prefix_avx2(h, nb, lg, lh, bn);
#endif
  return prefix_from(h, 0, nb, 0, 0, 0, lg, lh, bn);
}

}  // namespace gbdt
