// partition_column (row_partition.h): with AVX-512F, 16 rows per step.  Their
// bins are gathered (4 bytes read at each bin: kColumnPadding), the left
// rows compressed in order to tmp + l, the right rows compressed, reversed
// and stored to end at tmp + r: the same row lists as the scalar loop.
#include "row_partition.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_PARTITION_AVX512 1
#endif

namespace gbdt {

namespace {

#if defined(GBDT_PARTITION_AVX512)
bool has_avx512f() {
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return v;
}

template <typename BinT>
__attribute__((target("avx512f"))) size_t partition_avx512(const BinT* col, unsigned split_bin, unsigned nb,
                                                           bool dl, const uint32_t* idx, uint32_t* tmp,
                                                           size_t b, size_t e) {
  const __m512i vsplit = _mm512_set1_epi32((int)split_bin);
  const __m512i vnb = _mm512_set1_epi32((int)nb);
  const __m512i low = _mm512_set1_epi32(sizeof(BinT) == 1 ? 0xFF : 0xFFFF);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  size_t l = b, r = e, i = b;
  for (; i + 16 <= e; i += 16) {
    const __m512i rows = _mm512_loadu_si512(idx + i);
    const __m512i bins =
        _mm512_and_si512(_mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)0xFFFF, rows, (const void*)col,
                                                     (int)sizeof(BinT)), low);
    // The missing bin nb: default_left decides.
    const __mmask16 miss = _mm512_cmpeq_epi32_mask(bins, vnb);
    const __mmask16 le = _kandn_mask16(miss, _mm512_cmple_epu32_mask(bins, vsplit));
    const __mmask16 left = dl ? _kor_mask16(le, miss) : le;
    const unsigned nl = (unsigned)__builtin_popcount((unsigned)left);
    const unsigned nr = 16 - nl;
    const __m512i lv = _mm512_maskz_compress_epi32(left, rows);
    _mm512_mask_storeu_epi32(tmp + l, (__mmask16)((1u << nl) - 1), lv);
    // Right rows: lane j of the store gets the (nr - 1 - j)-th right row.
    const __m512i rv = _mm512_maskz_compress_epi32(_knot_mask16(left), rows);
    const __mmask16 rmask = (__mmask16)((1u << nr) - 1);
    const __m512i rev =
        _mm512_maskz_permutexvar_epi32(rmask, _mm512_sub_epi32(_mm512_set1_epi32((int)nr - 1), iota), rv);
    _mm512_mask_storeu_epi32(tmp + (r - nr), rmask, rev);
    l += nl;
    r -= nr;
  }
  return partition_rows_from(col, 1, split_bin, nb, dl, idx, tmp, i, e, l, r) - b;
}
#endif

template <typename BinT>
size_t partition_any(const BinT* col, unsigned split_bin, unsigned nb, bool dl, const uint32_t* idx,
                     uint32_t* tmp, size_t b, size_t e) {
#if defined(GBDT_PARTITION_AVX512)
  if (e - b >= 16 && has_avx512f()) return partition_avx512(col, split_bin, nb, dl, idx, tmp, b, e);
#endif
  return partition_rows_scalar(col, 1, split_bin, nb, dl, idx, tmp, b, e);
}

}  // namespace

size_t partition_column_u8(const uint8_t* col, unsigned split_bin, unsigned nb, bool default_left,
                           const uint32_t* idx, uint32_t* tmp, size_t b, size_t e) {
  return partition_any(col, split_bin, nb, default_left, idx, tmp, b, e);
}

size_t partition_column_u16(const uint16_t* col, unsigned split_bin, unsigned nb, bool default_left,
                            const uint32_t* idx, uint32_t* tmp, size_t b, size_t e) {
  return partition_any(col, split_bin, nb, default_left, idx, tmp, b, e);
}

}  // namespace gbdt
