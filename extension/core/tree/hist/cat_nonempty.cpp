// cat_nonempty_bins (cat_nonempty.h).  AVX-512F: 16 sums (4 vectors of 4
// {g, h} pairs) per step; each pair's g | h, the even lanes of two vectors
// gathered by a two-source permutation, tested against zero; the 16-bit
// mask compresses the 16 bin numbers, stored whole (their slack).
#include "cat_nonempty.h"

#include "../../common/cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_NONEMPTY_AVX512 1
#endif

namespace gbdt {

namespace {

int nonempty_scalar(const GradSum* h, int b, int nb, int32_t* out, int m) {
  for (; b < nb; ++b) {
    out[m] = b;  // branch-free: written always, kept when non-empty
    m += (h[b].g | h[b].h) != 0;
  }
  return m;
}

#if defined(GBDT_NONEMPTY_AVX512)
// g | h of the 8 pairs at p (2 vectors of 4), one 64-bit lane each.
__attribute__((target("avx512f"))) inline __m512i pair_ors(const GradSum* p) {
  const __m512i a = _mm512_loadu_si512(p);
  const __m512i b = _mm512_loadu_si512(p + 4);
  // Swapping the two 64-bit halves of each 128-bit lane puts h beside g
  // (the maskz form: GCC 12 warns about the plain one's undefined source).
  const __mmask16 all = (__mmask16)0xFFFF;
  const __m512i ua = _mm512_or_si512(a, _mm512_maskz_shuffle_epi32(all, a, _MM_PERM_BADC));
  const __m512i ub = _mm512_or_si512(b, _mm512_maskz_shuffle_epi32(all, b, _MM_PERM_BADC));
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  return _mm512_permutex2var_epi64(ua, even, ub);
}

__attribute__((target("avx512f"))) int nonempty_avx512(const GradSum* h, int nb, int32_t* out) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  int m = 0, b = 0;
  for (; b + 16 <= nb; b += 16) {
    const __m512i lo = pair_ors(h + b), hi = pair_ors(h + b + 8);
    const __mmask16 k = (__mmask16)((unsigned)_mm512_test_epi64_mask(lo, lo) |
                                    ((unsigned)_mm512_test_epi64_mask(hi, hi) << 8));
    const __m512i bins = _mm512_add_epi32(iota, _mm512_set1_epi32(b));
    _mm512_storeu_si512(out + m, _mm512_maskz_compress_epi32(k, bins));
    m += __builtin_popcount((unsigned)k);
  }
  return nonempty_scalar(h, b, nb, out, m);
}
#endif

}  // namespace

int cat_nonempty_bins(const GradSum* h, int nb, int32_t* out, bool scalar) {
#if defined(GBDT_NONEMPTY_AVX512)
  if (!scalar && nb >= 16 && cpu_has_avx512f()) return nonempty_avx512(h, nb, out);
#endif
  (void)scalar;
  return nonempty_scalar(h, 0, nb, out, 0);
}

}  // namespace gbdt
