// The topk pair loop of one query group (see lambdarank_topk.h).  A block
// of row i's pairs is computed in two passes: the terms of every pair
// (lambda, hessian, row i's signed term) from the partner list's contiguous
// arrays, four pairs at a time with AVX2, then their sums in pair order.
// Both passes use the operations, in the order, of the plain pair loop.
#include "lambdarank_topk.h"

#include <algorithm>
#include <cmath>

#include "../common/cpu_features.h"
#include "../common/det_exp_avx2.h"
#include "../common/det_math.h"

namespace gbdt {

namespace {

// Row i's values, the first document of each of its pairs.
struct RowVals {
  double y, s, gain, disc;
};

// The terms of the pair of row r with the partner (yj, sj, gj, dj): row i's
// gradient term cg (+lambda when i is the more relevant one, else -lambda),
// the hessian ch (the same for both documents) and cl = -2 x lambda.  The
// plain loop's formula: with hi the more relevant document,
// sigmoid(s_hi - s_lo), |delta NDCG| (the same whichever of the two is hi:
// both sums below are symmetric), divided by |s_hi - s_lo| + 0.01 under
// score normalization.
inline void pair_terms(const TopkGroup& t, const RowVals& r, double yj, double sj, double gj, double dj,
                       double* cg, double* ch, double* cl) {
  const bool i_hi = r.y > yj;
  const double d = i_hi ? r.s - sj : sj - r.s;  // s_hi - s_lo
  const double sig = det_sigmoid(d);
  double dm = 1.0;
  if (t.gain != nullptr) {
    const double before = r.gain * r.disc + gj * dj;
    const double after = gj * r.disc + r.gain * dj;
    dm = std::fabs((before - after) * t.inv_idcg);
  }
  if (t.norm_by_diff) dm /= std::fabs(d) + 0.01;
  const double lam = (sig - 1.0) * dm;
  *ch = std::max(sig * (1.0 - sig), 1e-16) * dm * 2.0;
  *cg = i_hi ? lam : -lam;
  *cl = -2.0 * lam;
}

// Terms of the pairs with partners [0, n) of the arrays given one at a time.
void terms_scalar(const TopkGroup& t, const RowVals& r, const double* y, const double* s,
                  const double* gain, const double* disc, size_t n, double* cg, double* ch, double* cl) {
  for (size_t k = 0; k < n; ++k)
    pair_terms(t, r, y[k], s[k], gain != nullptr ? gain[k] : 0.0, disc[k], &cg[k], &ch[k], &cl[k]);
}

#if defined(GBDT_DET_EXP_AVX2)
// Four pairs' terms, partners k .. k+3, whose margin differences dd =
// s_i - s_j are within exp4's range.  The operations of pair_terms():
// s_hi - s_lo as +-dd (IEEE subtraction is exactly antisymmetric), |d| as
// |dd|, std::max(a, 1e-16) as max_pd(1e-16, a).
__attribute__((target("avx2"))) inline void quartet(const TopkGroup& t, const RowVals& r, __m256d dd,
                                                    const double* y, const double* gain,
                                                    const double* disc, double* cg, double* ch,
                                                    double* cl) {
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d i_hi = _mm256_cmp_pd(_mm256_set1_pd(r.y), _mm256_loadu_pd(y), _CMP_GT_OQ);
  const __m256d d = _mm256_xor_pd(dd, _mm256_andnot_pd(i_hi, sign));  // s_hi - s_lo
  const __m256d ex = exp4(_mm256_xor_pd(d, sign));                     // det_exp(-d)
  const __m256d sig = _mm256_div_pd(one, _mm256_add_pd(one, ex));
  __m256d dm = one;
  if (gain != nullptr) {
    const __m256d gi = _mm256_set1_pd(r.gain), di = _mm256_set1_pd(r.disc);
    const __m256d gj = _mm256_loadu_pd(gain), dj = _mm256_loadu_pd(disc);
    const __m256d before = _mm256_add_pd(_mm256_mul_pd(gi, di), _mm256_mul_pd(gj, dj));
    const __m256d after = _mm256_add_pd(_mm256_mul_pd(gj, di), _mm256_mul_pd(gi, dj));
    dm = _mm256_andnot_pd(sign, _mm256_mul_pd(_mm256_sub_pd(before, after), _mm256_set1_pd(t.inv_idcg)));
  }
  if (t.norm_by_diff)
    dm = _mm256_div_pd(dm, _mm256_add_pd(_mm256_andnot_pd(sign, dd), _mm256_set1_pd(0.01)));
  const __m256d lam = _mm256_mul_pd(_mm256_sub_pd(sig, one), dm);
  const __m256d curv = _mm256_max_pd(_mm256_set1_pd(1e-16), _mm256_mul_pd(sig, _mm256_sub_pd(one, sig)));
  _mm256_storeu_pd(ch, _mm256_mul_pd(_mm256_mul_pd(curv, dm), _mm256_set1_pd(2.0)));
  _mm256_storeu_pd(cg, _mm256_xor_pd(lam, _mm256_andnot_pd(i_hi, sign)));
  _mm256_storeu_pd(cl, _mm256_mul_pd(_mm256_set1_pd(-2.0), lam));
}

// terms_scalar() eight pairs a step (two quartets, independent work for the
// core while the other's det_exp runs); a step with a margin difference
// outside [-700, 700] (or NaN) and the last n % 8 pairs take pair_terms().
__attribute__((target("avx2"))) void terms_avx2(const TopkGroup& t, const RowVals& r, const double* y,
                                                const double* s, const double* gain, const double* disc,
                                                size_t n, double* cg, double* ch, double* cl) {
  const __m256d si = _mm256_set1_pd(r.s);
  const __m256d lim = _mm256_set1_pd(700.0);
  const __m256d sign = _mm256_set1_pd(-0.0);
  const bool ndcg = gain != nullptr;
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256d da = _mm256_sub_pd(si, _mm256_loadu_pd(s + k));
    const __m256d db = _mm256_sub_pd(si, _mm256_loadu_pd(s + k + 4));
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, da), lim, _CMP_LE_OQ),
                                     _mm256_cmp_pd(_mm256_andnot_pd(sign, db), lim, _CMP_LE_OQ));
    if (_mm256_movemask_pd(ok) != 0xF) {
      terms_scalar(t, r, y + k, s + k, ndcg ? gain + k : nullptr, disc + k, 8, cg + k, ch + k, cl + k);
      continue;
    }
    quartet(t, r, da, y + k, ndcg ? gain + k : nullptr, disc + k, cg + k, ch + k, cl + k);
    quartet(t, r, db, y + k + 4, ndcg ? gain + k + 4 : nullptr, disc + k + 4, cg + k + 4, ch + k + 4,
            cl + k + 4);
  }
  terms_scalar(t, r, y + k, s + k, ndcg ? gain + k : nullptr, disc + k, n - k, cg + k, ch + k, cl + k);
}
#endif

}  // namespace

void TopkPairs::prepare(const TopkGroup& t, size_t top) {
  t_ = t;
  // One list per label among the top rows, in order of first appearance.
  size_t nl = 0;
  list_of_.resize(top);
  for (size_t i = 0; i < top; ++i) {
    size_t l = 0;
    while (l < nl && lists_[l].label != t.y[i]) ++l;
    if (l == nl) {
      if (lists_.size() <= nl) lists_.emplace_back();
      lists_[nl++].label = t.y[i];
    }
    list_of_[i] = (uint32_t)l;
  }
  const bool ndcg = t.gain != nullptr;
  for (size_t l = 0; l < nl; ++l) {
    Partners& p = lists_[l];
    p.pos.resize(t.cnt);
    p.y.resize(t.cnt);
    p.s.resize(t.cnt);
    p.disc.resize(t.cnt);
    p.gain.resize(ndcg ? t.cnt : 0);
    size_t n = 0;
    for (size_t k = 0; k < t.cnt; ++k) {
      if (t.y[k] == p.label) continue;
      p.pos[n] = (uint32_t)k;
      p.y[n] = t.y[k];
      p.s[n] = t.s[k];
      p.disc[n] = t.disc[k];
      if (ndcg) p.gain[n] = t.gain[k];
      ++n;
    }
    p.n = n;
  }
  n_lists_ = nl;
  if (cg_.size() < t.cnt) {
    cg_.resize(t.cnt);
    ch_.resize(t.cnt);
    cl_.resize(t.cnt);
  }
}

double TopkPairs::block(size_t i, size_t j0, size_t j1, double sum_lambda) {
  const Partners& p = lists_[list_of_[i]];
  const uint32_t* pos = p.pos.data();
  const size_t a = (size_t)(std::lower_bound(pos, pos + p.n, (uint32_t)j0) - pos);
  const size_t b = (size_t)(std::lower_bound(pos + a, pos + p.n, (uint32_t)j1) - pos);
  if (a == b) return sum_lambda;
  const TopkGroup& t = t_;
  const RowVals r{(double)t.y[i], t.s[i], t.gain != nullptr ? t.gain[i] : 0.0, t.disc[i]};
  const double* gain = t.gain != nullptr ? p.gain.data() + a : nullptr;
  double* cg = cg_.data();
  double* ch = ch_.data();
  double* cl = cl_.data();
#if defined(GBDT_DET_EXP_AVX2)
  if (cpu_has_avx2())
    terms_avx2(t, r, p.y.data() + a, p.s.data() + a, gain, p.disc.data() + a, b - a, cg, ch, cl);
  else
#endif
    terms_scalar(t, r, p.y.data() + a, p.s.data() + a, gain, p.disc.data() + a, b - a, cg, ch, cl);
  // The sums in pair order: row i's own, then the partner's (the opposite
  // sign of row i's term: g - x is g + (-x) in IEEE arithmetic).
  double gi = t.g[i], hi = t.h[i];
  for (size_t k = 0; k < b - a; ++k) {
    const uint32_t j = pos[a + k];
    gi += cg[k];
    hi += ch[k];
    t.g[j] -= cg[k];
    t.h[j] += ch[k];
    sum_lambda += cl[k];
  }
  t.g[i] = gi;
  t.h[i] = hi;
  return sum_lambda;
}

}  // namespace gbdt
