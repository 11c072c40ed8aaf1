#include "column_checks.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "../common/cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace gbdt {

namespace {

// A missing value (NaN) as 0.0, with no branch: the double's bits masked.
inline double or_zero(double v, uint64_t keep) {
  uint64_t b;
  std::memcpy(&b, &v, 8);
  b &= keep;
  std::memcpy(&v, &b, 8);
  return v;
}

// All-ones when x is present (not NaN), else 0.
inline uint64_t present_mask(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return (b & 0x7fffffffu) > 0x7f800000u ? 0 : ~(uint64_t)0;
}

// The sums run in kLanes independent accumulators (one running double sum
// is one add per 4 cycles) and without a branch per row (missing values
// come and go at random in real columns): rows r + l of each group of
// kLanes rows go to lane l, the rows after the last whole group to lane 0.
// The AVX2 loops hold the lanes in one register each and do the scalar
// loops' operations (the same conversions, masks, and products and sums
// without FMA), so both give the same bits.
constexpr int kLanes = 4;

struct Pass1 {
  double sx[kLanes] = {}, sy[kLanes] = {};
  size_t m[kLanes] = {}, eq[kLanes] = {};
  size_t differ = 0;
};
struct Pass2 {
  double cxy[kLanes] = {}, cxx[kLanes] = {}, cyy[kLanes] = {};
};

// Pass 1 for row r into lane l: whether it is present, its sums, whether
// it equals its label, and whether it differs from `first`.
inline void pass1_row(const float* x, const float* y, size_t r, int l, float first, Pass1* p) {
  const float v = x[r];
  const uint64_t keep = present_mask(v);
  const size_t ok = keep & 1;
  p->differ |= ok & (size_t)(v != first);
  p->eq[l] += ok & (size_t)(v == y[r]);
  p->sx[l] += or_zero((double)v, keep);
  p->sy[l] += or_zero((double)y[r], keep);
  p->m[l] += ok;
}

// Pass 2 for row r into lane l: the sums of the centred products (a
// missing row adds 0 to each: dx = dy = 0).
inline void pass2_row(const float* x, const float* y, size_t r, int l, double mx, double my, Pass2* p) {
  const uint64_t keep = present_mask(x[r]);
  const double dx = or_zero((double)x[r] - mx, keep), dy = or_zero((double)y[r] - my, keep);
  p->cxy[l] += dx * dy;
  p->cxx[l] += dx * dx;
  p->cyy[l] += dy * dy;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) void pass1_avx2(const float* x, const float* y, size_t groups, float first,
                                                Pass1* p) {
  __m256d sx = _mm256_loadu_pd(p->sx), sy = _mm256_loadu_pd(p->sy);
  __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p->m));
  __m256i eq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p->eq));
  __m256d differ = _mm256_setzero_pd();
  const __m256d f = _mm256_set1_pd((double)first);
  for (size_t r = 0; r < groups; r += kLanes) {
    const __m256d xd = _mm256_cvtps_pd(_mm_loadu_ps(x + r));
    const __m256d yd = _mm256_cvtps_pd(_mm_loadu_ps(y + r));
    const __m256d keep = _mm256_cmp_pd(xd, xd, _CMP_ORD_Q);  // present: not NaN
    differ = _mm256_or_pd(differ, _mm256_and_pd(keep, _mm256_cmp_pd(xd, f, _CMP_NEQ_UQ)));
    eq = _mm256_sub_epi64(eq, _mm256_castpd_si256(_mm256_cmp_pd(xd, yd, _CMP_EQ_OQ)));
    sx = _mm256_add_pd(sx, _mm256_and_pd(xd, keep));
    sy = _mm256_add_pd(sy, _mm256_and_pd(yd, keep));
    m = _mm256_sub_epi64(m, _mm256_castpd_si256(keep));
  }
  _mm256_storeu_pd(p->sx, sx);
  _mm256_storeu_pd(p->sy, sy);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p->m), m);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p->eq), eq);
  p->differ |= _mm256_movemask_pd(differ) != 0;
}

__attribute__((target("avx2"))) void pass2_avx2(const float* x, const float* y, size_t groups, double mx, double my,
                                                Pass2* p) {
  __m256d cxy = _mm256_loadu_pd(p->cxy), cxx = _mm256_loadu_pd(p->cxx), cyy = _mm256_loadu_pd(p->cyy);
  const __m256d vmx = _mm256_set1_pd(mx), vmy = _mm256_set1_pd(my);
  for (size_t k = 0; k < groups; k += kLanes) {
    const __m256d xd = _mm256_cvtps_pd(_mm_loadu_ps(x + k));
    const __m256d yd = _mm256_cvtps_pd(_mm_loadu_ps(y + k));
    const __m256d keep = _mm256_cmp_pd(xd, xd, _CMP_ORD_Q);
    const __m256d dx = _mm256_and_pd(_mm256_sub_pd(xd, vmx), keep);
    const __m256d dy = _mm256_and_pd(_mm256_sub_pd(yd, vmy), keep);
    cxy = _mm256_add_pd(cxy, _mm256_mul_pd(dx, dy));
    cxx = _mm256_add_pd(cxx, _mm256_mul_pd(dx, dx));
    cyy = _mm256_add_pd(cyy, _mm256_mul_pd(dy, dy));
  }
  _mm256_storeu_pd(p->cxy, cxy);
  _mm256_storeu_pd(p->cxx, cxx);
  _mm256_storeu_pd(p->cyy, cyy);
}
#endif

ColumnCheck check_one(const float* x, const float* y, size_t n, bool vector_path) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  const bool avx2 = vector_path && cpu_has_avx2();
#else
  const bool avx2 = false;
#endif
  // The first present value, then whether another present value differs.
  size_t r0 = 0;
  while (r0 < n && std::isnan(x[r0])) r0++;
  const float first = r0 < n ? x[r0] : 0.0f;
  const size_t groups = n - n % kLanes;
  Pass1 p1;
  size_t r = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (avx2) {
    pass1_avx2(x, y, groups, first, &p1);
    r = groups;
  }
#endif
  for (; r < groups; r += kLanes)
    for (int l = 0; l < kLanes; l++) pass1_row(x, y, r + l, l, first, &p1);
  for (; r < n; r++) pass1_row(x, y, r, 0, first, &p1);
  const size_t tm = p1.m[0] + p1.m[1] + p1.m[2] + p1.m[3];
  const size_t te = p1.eq[0] + p1.eq[1] + p1.eq[2] + p1.eq[3];
  double corr = 0;
  if (tm > 1) {
    const double mx = (p1.sx[0] + p1.sx[1] + p1.sx[2] + p1.sx[3]) / (double)tm;
    const double my = (p1.sy[0] + p1.sy[1] + p1.sy[2] + p1.sy[3]) / (double)tm;
    Pass2 p2;
    size_t k = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (avx2) {
      pass2_avx2(x, y, groups, mx, my, &p2);
      k = groups;
    }
#endif
    for (; k < groups; k += kLanes)
      for (int l = 0; l < kLanes; l++) pass2_row(x, y, k + l, l, mx, my, &p2);
    for (; k < n; k++) pass2_row(x, y, k, 0, mx, my, &p2);
    const double a = p2.cxy[0] + p2.cxy[1] + p2.cxy[2] + p2.cxy[3];
    const double b = p2.cxx[0] + p2.cxx[1] + p2.cxx[2] + p2.cxx[3];
    const double c = p2.cyy[0] + p2.cyy[1] + p2.cyy[2] + p2.cyy[3];
    if (b > 0 && c > 0) corr = a / std::sqrt(b * c);
  }
  ColumnCheck out;
  // Missing on some rows only: the missingness may tell something.
  out.constant = tm == 0 || (p1.differ == 0 && tm == n);
  out.equal = n > 0 ? (double)te / (double)n : 0;
  out.corr = corr;
  out.near_target = n > 0 && (out.equal >= 0.99 || std::fabs(corr) > 0.999);
  return out;
}

}  // namespace

void check_columns(const float* const* cols, int nf, const float* labels, size_t n,
                   ColumnCheck* out, bool vector_path) {
  for (int f = 0; f < nf; f++) out[f] = check_one(cols[f], labels, n, vector_path);
}

}  // namespace gbdt
