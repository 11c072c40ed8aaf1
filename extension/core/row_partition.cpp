// partition_column and add_leaf_values_column (row_partition.h): with
// AVX-512F, 16 rows per step.  Their bins are gathered (4 bytes read at each
// bin: kColumnPadding); the partition compresses the left rows in order to
// tmp + l and the right rows, reversed, to end at tmp + r (the same row
// lists as the scalar loop); the leaf values are added to the gathered
// margins and scattered back (the same float additions).
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

// The left rows among 16: bin <= split_bin and not the missing bin nb, or
// the missing bin when dl.
template <typename BinT>
__attribute__((target("avx512f"))) inline __mmask16 left_lanes(const BinT* col, __m512i rows, __m512i vsplit,
                                                                __m512i vnb, bool dl) {
  const __m512i low = _mm512_set1_epi32(sizeof(BinT) == 1 ? 0xFF : 0xFFFF);
  const __m512i bins = _mm512_and_si512(
      _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)0xFFFF, rows, (const void*)col,
                                  (int)sizeof(BinT)),
      low);
  const __mmask16 miss = _mm512_cmpeq_epi32_mask(bins, vnb);
  const __mmask16 le = _kandn_mask16(miss, _mm512_cmple_epu32_mask(bins, vsplit));
  return dl ? _kor_mask16(le, miss) : le;
}

template <typename BinT>
__attribute__((target("avx512f"))) size_t partition_avx512(const BinT* col, unsigned split_bin, unsigned nb,
                                                           bool dl, const uint32_t* idx, uint32_t* tmp,
                                                           size_t b, size_t e) {
  const __m512i vsplit = _mm512_set1_epi32((int)split_bin);
  const __m512i vnb = _mm512_set1_epi32((int)nb);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  size_t l = b, r = e, i = b;
  for (; i + 16 <= e; i += 16) {
    const __m512i rows = _mm512_loadu_si512(idx + i);
    const __mmask16 left = left_lanes(col, rows, vsplit, vnb, dl);
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

// Margins of 16 rows gathered, each plus its leaf's value, scattered back
// (the rows of a node are distinct).
template <typename BinT>
__attribute__((target("avx512f"))) void leaf_values_avx512(const BinT* col, unsigned split_bin, unsigned nb,
                                                           bool dl, const uint32_t* idx, size_t b, size_t e,
                                                           float vl, float vr, float* margins) {
  const __m512i vsplit = _mm512_set1_epi32((int)split_bin);
  const __m512i vnb = _mm512_set1_epi32((int)nb);
  const __m512 l = _mm512_set1_ps(vl), r = _mm512_set1_ps(vr);
  size_t i = b;
  for (; i + 16 <= e; i += 16) {
    const __m512i rows = _mm512_loadu_si512(idx + i);
    const __mmask16 left = left_lanes(col, rows, vsplit, vnb, dl);
    const __m512 m = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), (__mmask16)0xFFFF, rows, margins, 4);
    _mm512_i32scatter_ps(margins, rows, _mm512_add_ps(m, _mm512_mask_blend_ps(left, r, l)), 4);
  }
  add_leaf_values_rows(col, 1, split_bin, nb, dl, idx, i, e, vl, vr, margins, 1, 0);
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

template <typename BinT>
void leaf_values_any(const BinT* col, unsigned split_bin, unsigned nb, bool dl, const uint32_t* idx, size_t b,
                     size_t e, float vl, float vr, float* margins) {
#if defined(GBDT_PARTITION_AVX512)
  if (e - b >= 16 && has_avx512f()) return leaf_values_avx512(col, split_bin, nb, dl, idx, b, e, vl, vr, margins);
#endif
  add_leaf_values_rows(col, 1, split_bin, nb, dl, idx, b, e, vl, vr, margins, 1, 0);
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

void add_leaf_values_column(const uint8_t* col, unsigned split_bin, unsigned nb, bool default_left,
                            const uint32_t* idx, size_t b, size_t e, float vl, float vr, float* margins) {
  leaf_values_any(col, split_bin, nb, default_left, idx, b, e, vl, vr, margins);
}

void add_leaf_values_column(const uint16_t* col, unsigned split_bin, unsigned nb, bool default_left,
                            const uint32_t* idx, size_t b, size_t e, float vl, float vr, float* margins) {
  leaf_values_any(col, split_bin, nb, default_left, idx, b, e, vl, vr, margins);
}

}  // namespace gbdt
