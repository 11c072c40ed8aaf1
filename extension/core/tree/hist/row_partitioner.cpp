// partition_column and add_leaf_values_column (row_partition.h): with
// AVX-512F, 16 rows per step.  Their bins are gathered (4 bytes read at each
// bin: kColumnPadding), and for a categorical split the words of its set at
// those bins; the partition compresses the left rows in order to
// tmp + l and the right rows, reversed, to end at tmp + r (the same row
// lists as the scalar loop); the leaf values are added to the gathered
// margins and scattered back (the same float additions).  With AVX2 only,
// the partition takes 8 rows per step, loaded one by one and compressed by
// permutations from a table indexed by the 8 rows' left mask
// (lane_compress.h); a categorical split's set is looked up row by row.
#include "row_partitioner.h"

#include "../../common/cpu_features.h"
#include "../../common/lane_compress.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_PARTITION_AVX512 1
#endif

namespace gbdt {

namespace {

#if defined(GBDT_PARTITION_AVX512)

// The bins of 8 rows by scalar loads: a gather (vpgatherdd) is microcoded
// and slower than the 8 loads on AMD Zen.
template <typename BinT>
__attribute__((target("avx2"))) inline __m256i bins_of_8(const BinT* col, const uint32_t* rows) {
  return _mm256_setr_epi32(col[rows[0]], col[rows[1]], col[rows[2]], col[rows[3]], col[rows[4]], col[rows[5]],
                           col[rows[6]], col[rows[7]]);
}

// The left rows among 8 (bit j: row rows[j]) by a numeric split, compared
// as vectors.
template <typename BinT>
__attribute__((target("avx2"))) inline unsigned left_mask8(const BinT* col, const uint32_t* rows,
                                                           const NumericLeft& L) {
  const __m256i bins = bins_of_8(col, rows);
  const __m256i vsplit = _mm256_set1_epi32((int)L.split_bin);  // bins < 2^16: signed compares hold
  const __m256i miss = _mm256_cmpeq_epi32(bins, _mm256_set1_epi32((int)L.nb));
  // left: (bin <= split and not missing) or (missing and dl)
  const __m256i gt = _mm256_cmpgt_epi32(bins, vsplit);
  const __m256i left = _mm256_or_si256(_mm256_andnot_si256(_mm256_or_si256(gt, miss), _mm256_set1_epi32(-1)),
                                       _mm256_and_si256(miss, _mm256_set1_epi32(L.dl ? -1 : 0)));
  return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(left));
}

// By a categorical split: one set lookup per row (a gather of the set's
// words is no faster where AVX2 is the widest unit).
template <typename BinT>
__attribute__((target("avx2"))) inline unsigned left_mask8(const BinT* col, const uint32_t* rows,
                                                           const SetLeft& L) {
  unsigned m = 0;
  for (int j = 0; j < 8; ++j) m |= (unsigned)L((unsigned)col[rows[j]]) << j;
  return m;
}

// Full 8-lane stores, not masked ones (vpmaskmovd stores are microcoded on
// AMD Zen: 2.5 ns per row against 1.1 for the scalar loop): the left lanes
// go to tmp[l .. l + 8), the right lanes end at tmp + r, and the lanes past
// each side's rows land in [l, r), the rows not yet placed, which later
// steps overwrite.  The two stores cannot overlap while r - l >= 16, which
// holds while 16 rows are left (r - l is always the rows left); the last
// 8-15 rows take the scalar loop.
template <typename BinT, typename Left>
__attribute__((target("avx2"))) size_t partition_avx2(const BinT* col, Left goes_left, const uint32_t* idx,
                                                      uint32_t* tmp, size_t b, size_t e) {
  const LaneCompressTable& t = lane_compress_table();  // left rows first, right rows last
  size_t l = b, r = e, i = b;
  for (; i + 16 <= e; i += 8) {
    const __m256i rows = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + i));
    const unsigned m = left_mask8(col, idx + i, goes_left);
    const int nl = __builtin_popcount(m), nr = 8 - nl;
    const __m256i lv = _mm256_permutevar8x32_epi32(
        rows, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.left[m])));
    const __m256i rv = _mm256_permutevar8x32_epi32(
        rows, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.right[m])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tmp + l), lv);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tmp + (r - 8)), rv);
    l += (size_t)nl;
    r -= (size_t)nr;
  }
  return partition_rows_from(col, 1, goes_left, idx, tmp, i, e, l, r) - b;
}

// The bins of 16 rows (4 bytes gathered at each: kColumnPadding).
template <typename BinT>
__attribute__((target("avx512f"))) inline __m512i bins_of_16(const BinT* col, __m512i rows) {
  const __m512i low = _mm512_set1_epi32(sizeof(BinT) == 1 ? 0xFF : 0xFFFF);
  return _mm512_and_si512(
      _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)0xFFFF, rows, (const void*)col,
                                  (int)sizeof(BinT)),
      low);
}

// The left rows among 16 by a numeric split: bin <= split_bin and not the
// missing bin nb, or the missing bin when dl.
template <typename BinT>
__attribute__((target("avx512f"))) inline __mmask16 left_lanes(const BinT* col, __m512i rows,
                                                                const NumericLeft& L) {
  const __m512i bins = bins_of_16(col, rows);
  const __mmask16 miss = _mm512_cmpeq_epi32_mask(bins, _mm512_set1_epi32((int)L.nb));
  const __mmask16 le = _kandn_mask16(miss, _mm512_cmple_epu32_mask(bins, _mm512_set1_epi32((int)L.split_bin)));
  return L.dl ? _kor_mask16(le, miss) : le;
}

// Groups of 32 set words that left_lanes permutes from registers; larger
// sets are gathered.
constexpr unsigned kSetPermuteGroups = 8;

// By a categorical split: the set's word of each bin, permuted from a
// register for sets of up to 16 words, from kSetPermuteGroups pairs of
// registers up to 256 words (8192 bins), else gathered (bins past the words:
// none), its bit tested; not in the set and not missing, or
// missing when dl.
template <typename BinT>
__attribute__((target("avx512f"))) inline __mmask16 left_lanes(const BinT* col, __m512i rows, const SetLeft& L) {
  const __m512i bins = bins_of_16(col, rows);
  const __mmask16 miss = _mm512_cmpeq_epi32_mask(bins, _mm512_set1_epi32((int)L.nb));
  const __mmask16 in_words = _mm512_cmplt_epu32_mask(bins, _mm512_set1_epi32((int)L.nbits));
  // (maskz forms: GCC 12 warns about the undefined source of the plain ones)
  const __mmask16 all = (__mmask16)0xFFFF;
  const __m512i word_of = _mm512_maskz_srli_epi32(all, bins, 5);
  __m512i w;
  if (L.nbits <= 512) {  // at most 16 words: the set in a register, permuted
    const __m512i set = _mm512_maskz_loadu_epi32((__mmask16)((1u << (L.nbits / 32)) - 1), L.words);
    w = _mm512_maskz_permutexvar_epi32(in_words, word_of, set);
  } else if (L.nbits <= 32u * 32u * kSetPermuteGroups) {
    // Groups of 32 words (1024 bins): each group's two registers permuted
    // by the word's low 5 bits, kept in the lanes whose word is in it
    // (cheaper than a 16-load gather up to a few groups).
    const unsigned nwords = L.nbits / 32;
    const __m512i group = _mm512_maskz_srli_epi32(all, word_of, 5);
    w = _mm512_setzero_si512();
    for (unsigned g = 0; g * 32 < nwords; ++g) {
      const unsigned left = nwords - g * 32;  // words from this group on
      const __mmask16 mlo = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
      const __mmask16 mhi =
          left >= 32 ? (__mmask16)0xFFFF : left <= 16 ? (__mmask16)0 : (__mmask16)((1u << (left - 16)) - 1);
      const __m512i lo = _mm512_maskz_loadu_epi32(mlo, L.words + g * 32);
      const __m512i hi = _mm512_maskz_loadu_epi32(mhi, L.words + g * 32 + 16);
      const __mmask16 in_g = _kand_mask16(in_words, _mm512_cmpeq_epi32_mask(group, _mm512_set1_epi32((int)g)));
      w = _mm512_mask_mov_epi32(w, in_g, _mm512_permutex2var_epi32(lo, word_of, hi));
    }
  } else {
    w = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), in_words, word_of, (const void*)L.words, 4);
  }
  const __m512i bit = _mm512_maskz_srlv_epi32(all, w, _mm512_and_si512(bins, _mm512_set1_epi32(31)));
  const __mmask16 in_set = _mm512_test_epi32_mask(bit, _mm512_set1_epi32(1));
  const __mmask16 out = _kandn_mask16(in_set, _knot_mask16(miss));  // neither missing nor in the set
  return L.dl ? _kor_mask16(out, miss) : out;
}

template <typename BinT, typename Left>
__attribute__((target("avx512f"))) size_t partition_avx512(const BinT* col, Left goes_left, const uint32_t* idx,
                                                           uint32_t* tmp, size_t b, size_t e) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  size_t l = b, r = e, i = b;
  for (; i + 16 <= e; i += 16) {
    const __m512i rows = _mm512_loadu_si512(idx + i);
    const __mmask16 left = left_lanes(col, rows, goes_left);
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
  return partition_rows_from(col, 1, goes_left, idx, tmp, i, e, l, r) - b;
}

// Margins of 16 rows gathered, each plus its leaf's value, scattered back
// (the rows of a node are distinct).
template <typename BinT, typename Left>
__attribute__((target("avx512f"))) void leaf_values_avx512(const BinT* col, Left goes_left, const uint32_t* idx,
                                                           size_t b, size_t e, float vl, float vr,
                                                           float* margins) {
  const __m512 l = _mm512_set1_ps(vl), r = _mm512_set1_ps(vr);
  size_t i = b;
  for (; i + 16 <= e; i += 16) {
    const __m512i rows = _mm512_loadu_si512(idx + i);
    const __mmask16 left = left_lanes(col, rows, goes_left);
    const __m512 m = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), (__mmask16)0xFFFF, rows, margins, 4);
    _mm512_i32scatter_ps(margins, rows, _mm512_add_ps(m, _mm512_mask_blend_ps(left, r, l)), 4);
  }
  add_leaf_values_from(col, 1, goes_left, idx, i, e, vl, vr, margins, 1, 0);
}
#endif

RowIsa resolve(RowIsa isa) {
  if (isa == RowIsa::kBest)
    return row_isa_available(RowIsa::kAvx512) ? RowIsa::kAvx512
                                              : (row_isa_available(RowIsa::kAvx2) ? RowIsa::kAvx2 : RowIsa::kScalar);
  return row_isa_available(isa) ? isa : RowIsa::kScalar;
}

template <typename BinT>
size_t partition_any(const BinT* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                     size_t e, RowIsa isa) {
  return visit_route(route, [&](auto goes_left) -> size_t {
#if defined(GBDT_PARTITION_AVX512)
    switch (resolve(isa)) {
      case RowIsa::kAvx512:
        if (e - b >= 16) return partition_avx512(col, goes_left, idx, tmp, b, e);
        break;
      case RowIsa::kAvx2:
        if (e - b >= 16) return partition_avx2(col, goes_left, idx, tmp, b, e);
        break;
      default:
        break;
    }
#else
    (void)isa;
#endif
    return partition_rows_from(col, 1, goes_left, idx, tmp, b, e, b, e) - b;
  });
}

template <typename BinT>
void leaf_values_any(const BinT* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e, float vl,
                     float vr, float* margins) {
  visit_route(route, [&](auto goes_left) {
#if defined(GBDT_PARTITION_AVX512)
    if (e - b >= 16 && cpu_has_avx512f()) return leaf_values_avx512(col, goes_left, idx, b, e, vl, vr, margins);
#endif
    add_leaf_values_from(col, 1, goes_left, idx, b, e, vl, vr, margins, 1, 0);
  });
}

}  // namespace

bool row_isa_available(RowIsa isa) {
  switch (isa) {
    case RowIsa::kBest:
    case RowIsa::kScalar:
      return true;
#if defined(GBDT_PARTITION_AVX512)
    case RowIsa::kAvx2:
      return cpu_has_avx2();
    case RowIsa::kAvx512:
      return cpu_has_avx512f();
#endif
    default:
      return false;
  }
}

size_t partition_column(const uint8_t* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                        size_t e, RowIsa isa) {
  return partition_any(col, route, idx, tmp, b, e, isa);
}

size_t partition_column(const uint16_t* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                        size_t e, RowIsa isa) {
  return partition_any(col, route, idx, tmp, b, e, isa);
}

void add_leaf_values_column(const uint8_t* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e,
                            float vl, float vr, float* margins) {
  leaf_values_any(col, route, idx, b, e, vl, vr, margins);
}

void add_leaf_values_column(const uint16_t* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e,
                            float vl, float vr, float* margins) {
  leaf_values_any(col, route, idx, b, e, vl, vr, margins);
}

}  // namespace gbdt
