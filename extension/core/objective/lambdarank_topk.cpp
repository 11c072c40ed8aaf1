// The topk pair loop of one query group (see lambdarank_topk.h): the
// partners of a block are listed first (the documents whose label differs
// from row i's, ascending), then computed four at a time with AVX2 or one at
// a time, with the same operations in the same order either way.
#include "lambdarank_topk.h"

#include <algorithm>
#include <cmath>

#include "../common/cpu_features.h"
#include "../common/det_exp_avx2.h"
#include "../common/det_math.h"

namespace gbdt {

namespace {

// The two documents' terms of pair (i, j): the term of row i's gradient
// (+lambda when i is the more relevant one, else -lambda), the hessian (the
// same for both) and the lambda itself.  The plain loop's formula: with hi
// the more relevant document, sigmoid(s_hi - s_lo), |delta NDCG| (the same
// whichever of the two is hi: both sums below are symmetric), divided by
// |s_hi - s_lo| + 0.01 under score normalization.
struct PairTerms {
  double gi, hes, lam;
};

inline PairTerms pair_terms(const TopkGroup& t, size_t i, size_t j) {
  const bool i_hi = t.y[i] > t.y[j];
  const double d = i_hi ? t.s[i] - t.s[j] : t.s[j] - t.s[i];  // s_hi - s_lo
  const double sig = det_sigmoid(d);
  double dm = 1.0;
  if (t.gain != nullptr) {
    const double before = t.gain[i] * t.disc[i] + t.gain[j] * t.disc[j];
    const double after = t.gain[j] * t.disc[i] + t.gain[i] * t.disc[j];
    dm = std::fabs((before - after) * t.inv_idcg);
  }
  if (t.norm_by_diff) dm /= std::fabs(d) + 0.01;
  PairTerms p;
  p.lam = (sig - 1.0) * dm;
  p.hes = std::max(sig * (1.0 - sig), 1e-16) * dm * 2.0;
  p.gi = i_hi ? p.lam : -p.lam;
  return p;
}

// Pairs (i, js[0 .. n)) one at a time; row i's sums in *gi and *hi.
double pairs_scalar(const TopkGroup& t, size_t i, const uint32_t* js, size_t n, double sum, double* gi,
                    double* hi) {
  for (size_t k = 0; k < n; ++k) {
    const size_t j = js[k];
    const PairTerms p = pair_terms(t, i, j);
    *gi += p.gi;
    *hi += p.hes;
    t.g[j] -= p.gi;  // the other document's term: the opposite sign
    t.h[j] += p.hes;
    sum += -2.0 * p.lam;
  }
  return sum;
}

#if defined(GBDT_DET_EXP_AVX2)
// GCC 12 warns of the undefined pass-through operand inside the gather
// intrinsics' headers, not of this code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// Pairs (i, js[0 .. n)) four at a time; a quartet with a margin difference
// outside det_exp's vector range (|d| > 700, or NaN) and the last n % 4
// pairs take pair_terms().  Lane terms equal pair_terms()'s: the same IEEE
// operations, s_hi - s_lo as +-(s_i - s_j) (IEEE subtraction is exactly
// antisymmetric), std::max(a, 1e-16) as max_pd(1e-16, a).
__attribute__((target("avx2"))) double pairs_avx2(const TopkGroup& t, size_t i, const uint32_t* js,
                                                  size_t n, double sum) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d si = _mm256_set1_pd(t.s[i]);
  const __m256d yi = _mm256_set1_pd((double)t.y[i]);
  const bool ndcg = t.gain != nullptr;
  const __m256d gni = _mm256_set1_pd(ndcg ? t.gain[i] : 0.0);
  const __m256d dci = _mm256_set1_pd(t.disc[i]);
  const __m256d inv = _mm256_set1_pd(t.inv_idcg);
  double gi = t.g[i], hi = t.h[i];
  alignas(32) double cg[4], ch[4], cl[4];
  size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    const __m128i idx = _mm_loadu_si128(reinterpret_cast<const __m128i*>(js + k));
    const __m256d sj = _mm256_i32gather_pd(t.s, idx, 8);
    const __m256d dd = _mm256_sub_pd(si, sj);  // s_i - s_j
    const __m256d add = _mm256_andnot_pd(sign, dd);
    if (_mm256_movemask_pd(_mm256_cmp_pd(add, _mm256_set1_pd(700.0), _CMP_LE_OQ)) != 0xF) {
      // A lane outside exp4's range (or NaN): this quartet the scalar way.
      sum = pairs_scalar(t, i, js + k, 4, sum, &gi, &hi);
      continue;
    }
    const __m256d yj = _mm256_cvtps_pd(_mm_i32gather_ps(t.y, idx, 4));
    const __m256d i_hi = _mm256_cmp_pd(yi, yj, _CMP_GT_OQ);
    const __m256d d = _mm256_xor_pd(dd, _mm256_andnot_pd(i_hi, sign));  // s_hi - s_lo
    const __m256d ex = exp4(_mm256_xor_pd(d, sign));                     // det_exp(-d)
    const __m256d sig = _mm256_div_pd(one, _mm256_add_pd(one, ex));
    __m256d dm = one;
    if (ndcg) {
      const __m256d gnj = _mm256_i32gather_pd(t.gain, idx, 8);
      const __m256d dcj = _mm256_i32gather_pd(t.disc, idx, 8);
      const __m256d before = _mm256_add_pd(_mm256_mul_pd(gni, dci), _mm256_mul_pd(gnj, dcj));
      const __m256d after = _mm256_add_pd(_mm256_mul_pd(gnj, dci), _mm256_mul_pd(gni, dcj));
      dm = _mm256_andnot_pd(sign, _mm256_mul_pd(_mm256_sub_pd(before, after), inv));
    }
    if (t.norm_by_diff) dm = _mm256_div_pd(dm, _mm256_add_pd(add, _mm256_set1_pd(0.01)));
    const __m256d lam = _mm256_mul_pd(_mm256_sub_pd(sig, one), dm);
    const __m256d hes = _mm256_mul_pd(
        _mm256_mul_pd(_mm256_max_pd(_mm256_set1_pd(1e-16), _mm256_mul_pd(sig, _mm256_sub_pd(one, sig))), dm),
        _mm256_set1_pd(2.0));
    // Row i's term: +lambda where i is hi, else -lambda.
    _mm256_store_pd(cg, _mm256_xor_pd(lam, _mm256_andnot_pd(i_hi, sign)));
    _mm256_store_pd(ch, hes);
    _mm256_store_pd(cl, _mm256_mul_pd(_mm256_set1_pd(-2.0), lam));
    for (int l = 0; l < 4; ++l) {
      const uint32_t j = js[k + (size_t)l];
      gi += cg[l];
      hi += ch[l];
      t.g[j] -= cg[l];
      t.h[j] += ch[l];
      sum += cl[l];
    }
  }
  sum = pairs_scalar(t, i, js + k, n - k, sum, &gi, &hi);
  t.g[i] = gi;
  t.h[i] = hi;
  return sum;
}
#pragma GCC diagnostic pop
#endif

}  // namespace

double topk_block(const TopkGroup& t, size_t i, size_t j0, size_t j1, double sum_lambda) {
  // Row i's partners in [j0, j1): the documents of another label, ascending.
  const float yi = t.y[i];
  size_t n = 0;
  for (size_t j = j0; j < j1; ++j) {
    t.scratch[n] = (uint32_t)j;
    n += t.y[j] != yi ? 1 : 0;
  }
#if defined(GBDT_DET_EXP_AVX2)
  if (cpu_has_avx2()) return pairs_avx2(t, i, t.scratch, n, sum_lambda);
#endif
  double gi = t.g[i], hi = t.h[i];
  sum_lambda = pairs_scalar(t, i, t.scratch, n, sum_lambda, &gi, &hi);
  t.g[i] = gi;
  t.h[i] = hi;
  return sum_lambda;
}

}  // namespace gbdt
