// SplitEvaluator (evaluate_splits.h).
#include "evaluate_splits.h"

#include <algorithm>
#include <cmath>
#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_SCAN_AVX2 1
#endif

#include "../../common/cpu_features.h"
#include "../../common/parallel_policy.h"
#include "histogram.h"
#include "split_prefix.h"

namespace gbdt {

namespace {

// ---- vectorized split scan (max_delta_step == 0) ----
// The gains of split_gain_given_parent for a run of left sums, computed with
// the very IEEE double operations of split_math.h in the same order (no FMA:
// the AVX2 target below does not enable it, and -ffp-contract=off holds), so
// every gain has the bits of the scalar code.
inline double scalar_gain(const GainConsts& k, int64_t lg, int64_t lh) {
  const int64_t rg = k.pgs - lg, rh = k.phs - lh;
  const double hl = (double)lh * k.h_inv, hr = (double)rh * k.h_inv;
  if (hl < k.mcw || hr < k.mcw || hl <= 0.0 || hr <= 0.0) return -1.0;
  const double gl = (double)lg * k.g_inv, gr = (double)rg * k.g_inv;
  const double tl = gl > k.alpha ? gl - k.alpha : (gl < -k.alpha ? gl + k.alpha : 0.0);
  const double tr = gr > k.alpha ? gr - k.alpha : (gr < -k.alpha ? gr + k.alpha : 0.0);
  return ((tl * tl) / (hl + k.lambda) + (tr * tr) / (hr + k.lambda)) - k.pg;
}

#if defined(GBDT_SCAN_AVX2)
// Exact int64 -> double (round to nearest even, like cvtsi2sd): v = hi*2^32 +
// lo with both parts converted exactly, then one rounding addition.
__attribute__((target("avx2"))) inline __m256d i64_to_f64(__m256i v) {
  const __m256i lo = _mm256_blend_epi32(v, _mm256_castpd_si256(_mm256_set1_pd(0x1p52)), 0xAA);
  const __m256i hi = _mm256_xor_si256(_mm256_srli_epi64(v, 32), _mm256_set1_epi64x(0x4530000080000000LL));
  const __m256d hd = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(0x1p84 + 0x1p63));
  const __m256d ld = _mm256_sub_pd(_mm256_castsi256_pd(lo), _mm256_set1_pd(0x1p52));
  return _mm256_add_pd(hd, ld);
}

__attribute__((target("avx2"))) inline __m256d thr_l1(__m256d g, __m256d a, __m256d na) {
  const __m256d gt = _mm256_cmp_pd(g, a, _CMP_GT_OQ);
  const __m256d lt = _mm256_cmp_pd(g, na, _CMP_LT_OQ);
  __m256d t = _mm256_and_pd(lt, _mm256_add_pd(g, a));
  return _mm256_blendv_pd(t, _mm256_sub_pd(g, a), gt);
}

// Per lane, the first maximum (strictly greater replaces); then the largest
// value over the lanes, ties to the lowest index.
inline GainMax reduce_lanes(const double* m, const double* id) {
  GainMax r{m[0], (int)id[0]};
  for (int j = 1; j < 4; ++j)
    if (m[j] > r.gain || (m[j] == r.gain && (int)id[j] < r.at)) r = GainMax{m[j], (int)id[j]};
  return r;
}

__attribute__((target("avx2"))) GainMax gains_avx2(const GainConsts& k, const int64_t* lg,
                                                   const int64_t* lh, int n, int64_t og,
                                                   int64_t oh) {
  const __m256d ninf = _mm256_set1_pd(-HUGE_VAL);
  __m256d vmax = ninf;
  __m256d vat = _mm256_set1_pd(2147483647.0);
  __m256d vid = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
  const __m256d four = _mm256_set1_pd(4.0);
  const __m256i vog = _mm256_set1_epi64x(og), voh = _mm256_set1_epi64x(oh);
  const __m256i vpg = _mm256_set1_epi64x(k.pgs), vph = _mm256_set1_epi64x(k.phs);
  const __m256d ginv = _mm256_set1_pd(k.g_inv), hinv = _mm256_set1_pd(k.h_inv);
  const __m256d mcw = _mm256_set1_pd(k.mcw), lam = _mm256_set1_pd(k.lambda);
  const __m256d al = _mm256_set1_pd(k.alpha), nal = _mm256_set1_pd(-k.alpha);
  const __m256d pg = _mm256_set1_pd(k.pg), zero = _mm256_setzero_pd(), m1 = _mm256_set1_pd(-1.0);
  for (int i = 0; i < n; i += 4) {
    const __m256i lgi = _mm256_add_epi64(_mm256_loadu_si256((const __m256i*)(lg + i)), vog);
    const __m256i lhi = _mm256_add_epi64(_mm256_loadu_si256((const __m256i*)(lh + i)), voh);
    const __m256i rgi = _mm256_sub_epi64(vpg, lgi), rhi = _mm256_sub_epi64(vph, lhi);
    const __m256d hl = _mm256_mul_pd(i64_to_f64(lhi), hinv);
    const __m256d hr = _mm256_mul_pd(i64_to_f64(rhi), hinv);
    __m256d bad = _mm256_or_pd(_mm256_cmp_pd(hl, mcw, _CMP_LT_OQ), _mm256_cmp_pd(hr, mcw, _CMP_LT_OQ));
    bad = _mm256_or_pd(bad, _mm256_or_pd(_mm256_cmp_pd(hl, zero, _CMP_LE_OQ), _mm256_cmp_pd(hr, zero, _CMP_LE_OQ)));
    const __m256d gl = _mm256_mul_pd(i64_to_f64(lgi), ginv);
    const __m256d gr = _mm256_mul_pd(i64_to_f64(rgi), ginv);
    const __m256d tl = thr_l1(gl, al, nal), tr = thr_l1(gr, al, nal);
    const __m256d a = _mm256_div_pd(_mm256_mul_pd(tl, tl), _mm256_add_pd(hl, lam));
    const __m256d b = _mm256_div_pd(_mm256_mul_pd(tr, tr), _mm256_add_pd(hr, lam));
    const __m256d g = _mm256_sub_pd(_mm256_add_pd(a, b), pg);
    __m256d res = _mm256_blendv_pd(g, m1, bad);
    if (i + 4 > n)  // padding lanes take no part in the maximum
      res = _mm256_blendv_pd(res, ninf, _mm256_cmp_pd(vid, _mm256_set1_pd((double)n), _CMP_GE_OQ));
    const __m256d up = _mm256_cmp_pd(res, vmax, _CMP_GT_OQ);
    vmax = _mm256_blendv_pd(vmax, res, up);
    vat = _mm256_blendv_pd(vat, vid, up);
    vid = _mm256_add_pd(vid, four);
  }
  double m[4], id[4];
  _mm256_storeu_pd(m, vmax);
  _mm256_storeu_pd(id, vat);
  return reduce_lanes(m, id);
}

#endif

}  // namespace

GainMax gains_any(const GainConsts& k, const int64_t* lg, const int64_t* lh, int n, int64_t og, int64_t oh) {
#if defined(GBDT_SCAN_AVX2)
  if (cpu_has_avx2()) return gains_avx2(k, lg, lh, n, og, oh);
#endif
  GainMax r{-HUGE_VAL, 2147483647};
  for (int i = 0; i < n; ++i) {
    const double g = scalar_gain(k, lg[i] + og, lh[i] + oh);
    if (g > r.gain) r = GainMax{g, i};
  }
  return r;
}

void SplitEvaluator::init(const Cuts* cuts, const uint32_t* hist_offset, size_t total_bins,
                          const SplitParams& split, const CatSplitParams& cat_split,
                          const std::vector<uint32_t>* n_categories, int n_threads) {
  const Cuts& c = *cuts;
  cuts_ = cuts;
  nf_ = (int)c.n_features();
  off_.assign(hist_offset, hist_offset + nf_);
  total_bins_ = total_bins;
  split_ = split;
  cat_split_ = cat_split;
  int max_nb = 0;
  for (int f = 0; f < nf_; ++f) max_nb = std::max(max_nb, c.nbins(f));
  scratch_.resize((size_t)n_threads);
  for (ScanScratch& s : scratch_) s.reserve((size_t)max_nb + 1);
  is_cat_.assign((size_t)nf_, 0);
  cat_index_.assign((size_t)nf_, -1);
  int ncat = 0;
  if (n_categories)
    for (int f = 0; f < nf_ && f < (int)n_categories->size(); ++f)
      if ((*n_categories)[f] > 0) {
        is_cat_[f] = 1;
        cat_index_[f] = ncat++;
      }
  any_cat_ = ncat > 0;
  cat_woff_.clear();
  cat_nw_.clear();
  cat_stride_ = 0;
  for (int f = 0; f < nf_; ++f)
    if (is_cat_[f]) {
      cat_woff_.push_back(cat_stride_);
      cat_nw_.push_back(cat_set_words(c.nbins(f)));
      cat_stride_ += (size_t)cat_nw_.back();
    }
  cat_scratch_.assign(any_cat_ ? (size_t)n_threads : 0, CatScanScratch{});
  for (CatScanScratch& cs : cat_scratch_) cs.reserve(max_nb);
}

std::unique_ptr<BudgetCharge> SplitEvaluator::charge_level(MemoryBudget* budget, size_t L, int depth,
                                                           int max_depth) const {
  return std::unique_ptr<BudgetCharge>(new BudgetCharge(
      budget, (double)(L * nf_) * sizeof(SplitCandidate) + (double)(L * cat_stride_) * sizeof(uint32_t),
      "the split candidates of " + std::to_string(L) + " nodes at tree depth " + std::to_string(depth) + " x " +
          std::to_string(nf_) + " features",
      "lower max_depth (now " + std::to_string(max_depth) + ") or the number of features"));
}

GainConsts SplitEvaluator::consts(const Quantizer& q, const GradSum& sum) const {
  const SplitParams& sp = split_;
  return GainConsts{q.g_inv, q.h_inv, sp.min_child_weight, sp.reg_lambda, sp.reg_alpha,
                    parent_gain(sp, q, sum), sum.g, sum.h};
}

// Same candidates and result as best_split_feature: the gains of a
// feature's non-empty bins into arrays (vectorized), then the first maximum
// in scan order (bin, then missing-right before missing-left), which is the
// candidate better_split keeps in a sequential scan (gains are never NaN).
SplitCandidate SplitEvaluator::best_split_feature_fast(const LevelNode& ln, int f, const GainConsts& k,
                                                       ScanScratch& s) const {
  const SplitParams& sp = split_;
  const GradSum* h = ln.hist + off_[f];
  const int nb = cuts_->nbins(f);
  const GradSum miss = h[nb];
  int64_t* lg = s.lg.data();
  int64_t* lh = s.lh.data();
  int32_t* bn = s.bin.data();
  const int n = nonempty_prefix(h, nb, lg, lh, bn);  // split_prefix.h
  if (n == 0) return no_split();
  for (int i = n; i < ((n + 3) & ~3); ++i) {
    lg[i] = 0;
    lh[i] = 0;
  }
  // Scan order: (i, missing right) before (i, missing left) before i + 1.
  const GainMax m0 = gains_any(k, lg, lh, n, 0, 0);
  if (miss.h != 0) {
    const GainMax m1 = gains_any(k, lg, lh, n, miss.g, miss.h);
    if (m1.gain > m0.gain || (m1.gain == m0.gain && m1.at < m0.at)) {
      if (!split_is_useful(sp, m1.gain)) return no_split();
      const int i = m1.at;
      return SplitCandidate{m1.gain, f, bn[i], 1, GradSum{lg[i] + miss.g, lh[i] + miss.h}};
    }
  }
  if (!split_is_useful(sp, m0.gain)) return no_split();
  const int i = m0.at;
  return SplitCandidate{m0.gain, f, bn[i], 0, GradSum{lg[i], lh[i]}};
}

SplitCandidate SplitEvaluator::best_split_feature(const LevelNode& ln, int f, const Quantizer& q) const {
  const SplitParams sp = at_node(split_, q, ln.sum, (double)ln.size());
  const GradSum* h = ln.hist + off_[f];
  const int nb = cuts_->nbins(f);
  const GradSum miss = h[nb];
  SplitCandidate best = no_split();
  GradSum acc{0, 0};
  const double pg = parent_gain(sp, q, ln.sum);
  for (int b = 0; b < nb; ++b) {
    // An empty bin (b > 0) repeats bin b-1's sums, hence its gains; with
    // the lower bin winning ties, its candidates can never be chosen.
    if (b > 0 && h[b].g == 0 && h[b].h == 0) continue;
    acc = gs_add(acc, h[b]);
    // Missing values go right.
    SplitCandidate cand{split_gain_given_parent(sp, q, ln.sum, acc, pg), f, b, 0, acc};
    if (split_is_useful(sp, cand.gain) && better_split(cand, best)) best = cand;
    if (miss.h != 0) {  // missing values go left
      GradSum l = gs_add(acc, miss);
      SplitCandidate c2{split_gain_given_parent(sp, q, ln.sum, l, pg), f, b, 1, l};
      if (split_is_useful(sp, c2.gain) && better_split(c2, best)) best = c2;
    }
  }
  return best;
}

// The best categorical split of feature f at node ln (categorical_split_cpu.h:
// the reference's candidate, its right set into the node's sets `sets`);
// the vectorized gains when max_delta_step and min_data_in_leaf are 0 (fast).
SplitCandidate SplitEvaluator::best_categorical_split_scan(const LevelNode& ln, int f, const GainConsts& k,
                                                           bool fast, const Quantizer& q, uint32_t* sets,
                                                           CatScanScratch& cs) const {
  const int ci = cat_index_[f];
  const SplitParams sp = at_node(split_, q, ln.sum, (double)ln.size());
  const GradSum* h = ln.hist + off_[f];
  const int nb = cuts_->nbins(f);
  uint32_t* set = sets + cat_woff_[ci];
  // A partition search's children gain with reg_lambda + cat_l2, its
  // parent with reg_lambda (cat_partition_params).
  const bool partition = nb >= cat_split_.max_cat_to_onehot;
  const SplitParams spc = partition ? cat_partition_params(sp, cat_split_) : sp;
  if (fast) {
    GainConsts kc = k;
    kc.lambda = spc.reg_lambda;
    return best_categorical_split_cpu(h, nb, f, ln.sum, sp, q, cat_split_, set, cat_nw_[ci], cs,
                                      [&kc](const int64_t* lg, const int64_t* lh, int n, int64_t og, int64_t oh) {
                                        const GainMax r = gains_any(kc, lg, lh, n, og, oh);
                                        return CatGainMax{r.gain, r.at};
                                      });
  }
  return best_categorical_split_cpu(h, nb, f, ln.sum, sp, q, cat_split_, set, cat_nw_[ci], cs,
                                    CatScalarGains{spc, q, ln.sum, k.pg});
}

SplitCandidate SplitEvaluator::best_split(const LevelNode& ln, int f, const Quantizer& q, bool fast,
                                          uint32_t* sets, int tid) {
  const GainConsts k = consts(q, ln.sum);
  fast = fast && split_.min_data_in_leaf == 0.0;  // the vectorized gains know no row counts
  if (is_cat_[f]) return best_categorical_split_scan(ln, f, k, fast, q, sets, cat_scratch_[tid]);
  return fast ? best_split_feature_fast(ln, f, k, scratch_[tid]) : best_split_feature(ln, f, q);
}

// (node group, block of features) tasks; the candidates into cand_.
void SplitEvaluator::scan_level(std::vector<LevelNode>& level, int depth, const Quantizer& q,
                                const uint8_t* feature_mask, ThreadPool* pool) {
  const size_t L = level.size();
  // The vectorized gains know neither max_delta_step nor min_data_in_leaf.
  const bool fast = split_.max_delta_step == 0.0 && split_.min_data_in_leaf == 0.0;
  const size_t T = total_bins_;
  // Below the root the level holds sibling pairs: a task scans both
  // siblings, so the smaller one's slice, just read by the larger one's
  // subtraction, is still in cache.
  const size_t gsz = (depth > 0 && L % 2 == 0) ? 2 : 1;
  // Tasks: (node group, block of features); smaller blocks when the
  // level has too few nodes to keep the threads busy (parallel_policy.h).
  const size_t scan_work = L * T * kCostScanBin;
  const int fb = scan_block_features(nf_, L / gsz, threads_for_work(scan_work, pool->size()));
  const size_t nblk = (size_t)((nf_ + fb - 1) / fb);
  pool->run_sized(scan_work, (L / gsz) * nblk, [&](size_t t, int tid) {
    const size_t i0 = (t / nblk) * gsz;
    const int f0 = (int)(t % nblk) * fb, f1 = std::min(nf_, f0 + fb);
    GainConsts k[2];
    for (size_t j = 0; j < gsz; ++j) k[j] = consts(q, level[i0 + j].sum);
    ScanScratch& s = scratch_[tid];
    for (int f = f0; f < f1; ++f) {
      for (size_t j = 0; j < gsz; ++j) {
        // Every feature, masked or not: the next level reads them all.
        const LevelNode& ln = level[i0 + j];
        if (!ln.pending_small) continue;
        subtract_cells(ln.hist, ln.pending_small, off_[f], f + 1 < nf_ ? off_[f + 1] : T);
      }
      if (!feature_mask[f]) continue;
      for (size_t j = 0; j < gsz; ++j) {
        const size_t i = i0 + j;
        if (is_cat_[f])
          cand_[i * nf_ + f] = best_categorical_split_scan(level[i], f, k[j], fast, q,
                                                           &cand_sets_[i * cat_stride_], cat_scratch_[tid]);
        else
          cand_[i * nf_ + f] = fast ? best_split_feature_fast(level[i], f, k[j], s)
                                    : best_split_feature(level[i], f, q);
      }
    }
  });
  for (LevelNode& ln : level) ln.pending_small = nullptr;
}

void SplitEvaluator::evaluate(std::vector<LevelNode>& level, int depth, const Quantizer& q,
                              const uint8_t* feature_mask, ThreadPool* pool, std::vector<SplitCandidate>* best,
                              std::vector<CatWords>* sets) {
  const size_t L = level.size();
  cand_.assign(L * nf_, no_split());
  if (any_cat_) cand_sets_.resize(L * cat_stride_);
  scan_level(level, depth, q, feature_mask, pool);
  // Reduced in feature order: the first best candidate.
  best->assign(L, no_split());
  sets->assign(L, CatWords{nullptr, 0, 0});
  for (size_t i = 0; i < L; ++i) {
    SplitCandidate b = no_split();
    for (int f = 0; f < nf_; ++f)
      if (better_split(cand_[i * nf_ + f], b)) b = cand_[i * nf_ + f];
    (*best)[i] = b;
    if (b.feature >= 0 && is_cat_[b.feature]) {
      const int ci = cat_index_[b.feature];
      (*sets)[i] = CatWords{&cand_sets_[i * cat_stride_ + cat_woff_[ci]], cat_nw_[ci], (uint32_t)cuts_->nbins(b.feature)};
    }
  }
}

}  // namespace gbdt
