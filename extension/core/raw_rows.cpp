#include "raw_rows.h"

#include <immintrin.h>

#include <limits>

#include "cpu_features.h"

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
    const int first = raw.natts - d;
    bool contig = first >= 0;
    for (int a = 0; a < raw.natts && contig; ++a)
      if (raw.att_feature[a] != (a < first ? -1 : a - first)) contig = false;
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

// Consecutive float8 features (RawShape::contig_first), 8 at a time: a
// row without NULLs is 8 loads and conversions; with NULLs, the next
// popcount(presence bits) stored values are expanded into the present
// lanes, NaN elsewhere.  The same conversion (double -> float, rounding to
// nearest) as f8_at.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
__attribute__((target("avx512f,popcnt"))) void decode_contig_f8_avx512(const RawRows& raw, int first,
                                                                     int d, size_t begin,
                                                                     size_t end, float* x) {
  const __m512d nanv = _mm512_set1_pd(std::numeric_limits<double>::quiet_NaN());
  for (size_t i = begin; i < end; ++i) {
    const uint8_t pend = raw.pending[i];
    if (pend == 0) continue;
    const uint8_t* row = raw.data + i * raw.stride;
    const uint8_t* p = row + raw.data_offset;
    float* xr = x + i * (size_t)d;
    int f = 0;
    if (pend == 1) {
      const uint8_t* q = p + (size_t)first * 8;
      for (; f + 8 <= d; f += 8)
        _mm256_storeu_ps(xr + f, _mm512_cvtpd_ps(_mm512_loadu_pd(q + (size_t)f * 8)));
      for (; f < d; ++f) xr[f] = f8_at(q + (size_t)f * 8);
      continue;
    }
    const uint8_t* bm = row;
    size_t stored = 0;  // stored attributes before the first feature
    for (int a = 0; a < first; ++a) stored += (bm[a >> 3] >> (a & 7)) & 1u;
    const uint8_t* q = p + stored * 8;
    for (; f + 8 <= d; f += 8) {
      const int a = first + f;
      // Bits a .. a+7 (a+7 < natts, so the second byte is only needed,
      // and inside the bitmap, when a is not a multiple of 8).
      const unsigned w = (a & 7) ? (unsigned)bm[a >> 3] | ((unsigned)bm[(a >> 3) + 1] << 8)
                                 : (unsigned)bm[a >> 3];
      const __mmask8 m = (__mmask8)(w >> (a & 7));
      _mm256_storeu_ps(xr + f, _mm512_cvtpd_ps(_mm512_mask_expandloadu_pd(nanv, m, q)));
      q += 8 * (size_t)__builtin_popcount((unsigned)m);
    }
    for (; f < d; ++f) {
      const int a = first + f;
      if (bm[a >> 3] & (1u << (a & 7))) {
        xr[f] = f8_at(q);
        q += 8;
      } else {
        xr[f] = std::numeric_limits<float>::quiet_NaN();
      }
    }
  }
}
#pragma GCC diagnostic pop

}  // namespace

void decode_raw_rows(const RawRows& raw, const RawShape& sh, int d, size_t begin, size_t end, float* x,
                     bool vector_ok) {
  if (sh.contig_first >= 0 && vector_ok && cpu_has_avx512f()) {
    decode_contig_f8_avx512(raw, sh.contig_first, d, begin, end, x);
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

}  // namespace gbdt
