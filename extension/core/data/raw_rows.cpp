#include "raw_rows.h"

#include <immintrin.h>

#include <limits>

#include "../common/cpu_features.h"

namespace gbdt {

RawShape raw_shape(const RawRows& raw, int d) {
  RawShape sh;
  sh.all_f8 = true;
  for (int f = 0; f < d; ++f)
    if (raw.cols[f].kind != RawKind::kFloat8) sh.all_f8 = false;
  sh.uniform8 = sh.all_f8;
  for (int a = 0; a < raw.natts && sh.uniform8; ++a)
    if (raw.att_len[a] != 8 || raw.att_align[a] != 8) sh.uniform8 = false;
  if (sh.uniform8 && d > 0) {
    int first = 0;
    while (first < raw.natts && raw.att_feature[first] < 0) ++first;
    bool contig = first + d <= raw.natts;
    for (int a = 0; a < raw.natts && contig; ++a)
      if (raw.att_feature[a] != (a < first || a >= first + d ? -1 : a - first)) contig = false;
    if (contig) sh.contig_first = first;
  }
  return sh;
}

namespace {

inline float f8_at(const uint8_t* p) {
  double v;
  __builtin_memcpy(&v, p, 8);
  return (float)v;
}

// Consecutive float8 features (RawShape::contig_first), one row: bm its
// presence bitmap (nullptr: no value missing), p where its data starts,
// end where its bytes end.  Attribute first + f is feature f.  Each
// decoder makes the same conversion (double -> float, rounding to
// nearest) as f8_at; a missing value is NaN.

// Stored attributes before attribute `first`.
inline size_t stored_before(const uint8_t* bm, int first) {
  size_t stored = 0;
  for (int a = 0; a < first; ++a) stored += (bm[a >> 3] >> (a & 7)) & 1u;
  return stored;
}

// Bits a .. a+7 of the bitmap (a+7 < natts, so the second byte is only
// needed, and inside the bitmap, when a is not a multiple of 8).
inline unsigned presence8(const uint8_t* bm, int a) {
  const unsigned w = (a & 7) ? (unsigned)bm[a >> 3] | ((unsigned)bm[(a >> 3) + 1] << 8)
                             : (unsigned)bm[a >> 3];
  return (w >> (a & 7)) & 0xFFu;
}

// The features from f on, one at a time; q: the next stored value.
inline void contig_tail(const uint8_t* bm, const uint8_t* q, int first, int f, int d, float* xr) {
  for (; f < d; ++f) {
    const int a = first + f;
    if (bm == nullptr || (bm[a >> 3] & (1u << (a & 7)))) {
      xr[f] = f8_at(q);
      q += 8;
    } else {
      xr[f] = std::numeric_limits<float>::quiet_NaN();
    }
  }
}

void contig_row_scalar(const uint8_t* bm, const uint8_t* p, int first, int d, float* xr) {
  const size_t stored = bm == nullptr ? (size_t)first : stored_before(bm, first);
  contig_tail(bm, p + stored * 8, first, 0, d, xr);
}

// 8 at a time: a row without NULLs is 8 loads and conversions; with
// NULLs, the next popcount(presence bits) stored values are expanded into
// the present lanes, NaN elsewhere.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,popcnt"))) inline void contig_row_avx512(const uint8_t* bm,
                                                                       const uint8_t* p, int first,
                                                                       int d, float* xr) {
  int f = 0;
  if (bm == nullptr) {
    const uint8_t* q = p + (size_t)first * 8;
    for (; f + 8 <= d; f += 8)
      _mm256_storeu_ps(xr + f, _mm512_cvtpd_ps(_mm512_loadu_pd(q + (size_t)f * 8)));
    contig_tail(nullptr, q + (size_t)f * 8, first, f, d, xr);
    return;
  }
  const __m512d nanv = _mm512_set1_pd(std::numeric_limits<double>::quiet_NaN());
  const uint8_t* q = p + stored_before(bm, first) * 8;
  for (; f + 8 <= d; f += 8) {
    const __mmask8 m = (__mmask8)presence8(bm, first + f);
    _mm256_storeu_ps(xr + f, _mm512_cvtpd_ps(_mm512_mask_expandloadu_pd(nanv, m, q)));
    q += 8 * (size_t)__builtin_popcount((unsigned)m);
  }
  contig_tail(bm, q, first, f, d, xr);
}
#pragma GCC diagnostic pop

// Lane j's source among the next popcount(m) stored values, for the lanes
// whose bit j of m is set: the number of set bits below j, 4 bits per lane.
struct ExpandTable {
  uint32_t idx[256];
  constexpr ExpandTable() : idx() {
    for (int m = 0; m < 256; ++m) {
      uint32_t v = 0;
      int k = 0;
      for (int j = 0; j < 8; ++j)
        if (m & (1 << j)) v |= (uint32_t)(k++) << (4 * j);
      idx[m] = v;
    }
  }
};
constexpr ExpandTable kExpand;

// The same in AVX2 lanes: 8 stored values are loaded and converted, then
// moved into the present lanes by a permutation (kExpand) and NaN blended
// into the others.  The 8 values are loaded only while they lie before
// end (the stored ones of a row with NULLs may end sooner; the lanes past
// them are discarded), else the rest of the row is decoded one at a time.
__attribute__((target("avx2,popcnt"))) inline void contig_row_avx2(const uint8_t* bm,
                                                                  const uint8_t* p,
                                                                  const uint8_t* end, int first,
                                                                  int d, float* xr) {
  int f = 0;
  if (bm == nullptr) {
    const uint8_t* q = p + (size_t)first * 8;
    for (; f + 8 <= d; f += 8) {
      const __m128 lo = _mm256_cvtpd_ps(_mm256_loadu_pd((const double*)(q + (size_t)f * 8)));
      const __m128 hi = _mm256_cvtpd_ps(_mm256_loadu_pd((const double*)(q + (size_t)f * 8 + 32)));
      _mm256_storeu_ps(xr + f, _mm256_set_m128(hi, lo));
    }
    contig_tail(nullptr, q + (size_t)f * 8, first, f, d, xr);
    return;
  }
  const __m256 nanv = _mm256_set1_ps(std::numeric_limits<float>::quiet_NaN());
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i nibble = _mm256_set1_epi32(15);
  const uint8_t* q = p + stored_before(bm, first) * 8;
  for (; f + 8 <= d && q + 64 <= end; f += 8) {
    const unsigned m = presence8(bm, first + f);
    const __m128 lo = _mm256_cvtpd_ps(_mm256_loadu_pd((const double*)q));
    const __m128 hi = _mm256_cvtpd_ps(_mm256_loadu_pd((const double*)(q + 32)));
    const __m256i idx = _mm256_and_si256(
        _mm256_srlv_epi32(_mm256_set1_epi32((int)kExpand.idx[m]), shifts), nibble);
    const __m256 v = _mm256_permutevar8x32_ps(_mm256_set_m128(hi, lo), idx);
    const __m256i present =
        _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)m), lane_bit), lane_bit);
    _mm256_storeu_ps(xr + f, _mm256_blendv_ps(nanv, v, _mm256_castsi256_ps(present)));
    q += 8 * (size_t)__builtin_popcount(m);
  }
  contig_tail(bm, q, first, f, d, xr);
}

}  // namespace

void decode_raw_rows(const RawRows& raw, const RawShape& sh, int d, size_t begin, size_t end, float* x,
                     RawDecode isa) {
  // Consecutive float8 features in vector lanes, row by row as
  // decode_contig_f8_row (the row's stride bounds the AVX2 loads).
  if (sh.contig_first >= 0 && isa != RawDecode::kScalar && cpu_has_avx2()) {
    for (size_t i = begin; i < end; ++i) {
      const uint8_t pend = raw.pending[i];
      if (pend == 0) continue;
      const uint8_t* row = raw.data + i * raw.stride;
      decode_contig_f8_row(pend == 1 ? nullptr : row, row + raw.data_offset, row + raw.stride,
                           sh.contig_first, d, x + i * (size_t)d, isa);
    }
    return;
  }
  const RawColumn* cols = raw.cols;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = begin; i < end; ++i) {
    const uint8_t pend = raw.pending[i];
    if (pend == 0) continue;
    const uint8_t* row = raw.data + i * raw.stride;
    const uint8_t* p = row + raw.data_offset;
    float* xr = x + i * (size_t)d;
    if (pend == 1) {
      if (sh.all_f8) {
        for (int f = 0; f < d; ++f) xr[f] = f8_at(p + cols[f].offset);
      } else {
        for (int f = 0; f < d; ++f) xr[f] = raw_value(p + cols[f].offset, cols[f].kind);
      }
      continue;
    }
    const uint8_t* bm = row;
    const int32_t* feat = raw.att_feature;
    if (sh.uniform8) {
      // Stored attributes are packed 8 bytes apart.
      const uint8_t* q = p;
      for (int a = 0; a < raw.natts; ++a) {
        const int32_t f = feat[a];
        if (bm[a >> 3] & (1u << (a & 7))) {
          if (f >= 0) xr[f] = f8_at(q);
          q += 8;
        } else if (f >= 0) {
          xr[f] = nan;
        }
      }
      continue;
    }
    size_t off = 0;
    for (int a = 0; a < raw.natts; ++a) {
      const int32_t f = feat[a];
      if (!(bm[a >> 3] & (1u << (a & 7)))) {
        if (f >= 0) xr[f] = nan;
        continue;
      }
      const size_t al = raw.att_align[a];
      off = (off + al - 1) & ~(al - 1);
      if (f >= 0) xr[f] = raw_value(p + off, cols[f].kind);
      off += (size_t)raw.att_len[a];
    }
  }
}

void decode_contig_f8_row(const uint8_t* bm, const uint8_t* data, const uint8_t* end, int first,
                          int d, float* x, RawDecode isa) {
  if (isa == RawDecode::kBest && cpu_has_avx512f())
    contig_row_avx512(bm, data, first, d, x);
  else if (isa != RawDecode::kScalar && cpu_has_avx2())
    contig_row_avx2(bm, data, end, first, d, x);
  else
    contig_row_scalar(bm, data, first, d, x);
}

}  // namespace gbdt
