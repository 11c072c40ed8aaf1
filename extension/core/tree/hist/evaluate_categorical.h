// The CPU backend's categorical split scan (features with
// thousands of categories).  It returns exactly what
// best_categorical_split_words (categorical_split.h, the reference shared
// with the CUDA kernels) returns, gain bits, sums, default direction and
// right set included, without its costs on wide features:
//  - the non-empty categories are gathered branch-free, 16 at a time with
//    AVX-512 (cat_nonempty.h; a node deep in the tree has a few hundred of
//    a feature's thousands of categories);
//  - the candidates' order, the stable sort by weight, is the order of the
//    keys (weight, bin) (the bins arrive ascending, so a stable sort breaks
//    weight ties by bin; -0.0 == 0.0 compare equal in both).  Only the first
//    and the last lim of that order make candidates, so when 8 lim < m only
//    the items beyond bounds taken from a sample are sorted
//    (cat_select_ends); otherwise all m are (O(m log m), where the
//    reference's insertion sort takes O(m^2) up to 256 categories).  The
//    sorts (stable radix sorts of the weights rounded to float, so ties keep
//    the bin order, then runs of equal floats by the exact weight) and the
//    selection pass avoid branches: weight comparisons are unpredictable;
//  - the gains of all candidates are computed into arrays by a Gains
//    function (the backend passes its vectorized gains when max_delta_step
//    is 0; CatScalarGains is split_gain_given_parent itself) and the winner
//    is the first maximum in the reference's order: candidate i with missing
//    values right, then left, then candidate i + 1; it is kept only when
//    split_is_useful (the reference's "useful and strictly greater" gives the
//    same candidate: gains are never NaN).
// The categorical regularization (CatSplitParams) uses the reference's
// helpers (cat_in_partition, cat_order_key, CatGroupGate), so both agree.
// Monotone bounds are not handled here (the caller uses the reference).
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cat_nonempty.h"
#include "../categorical_split.h"

namespace gbdt {

// A non-empty category: its weight and bin (the sort key), and its sums.
struct CatItem {
  double w;
  int32_t bin;
  uint32_t key;  // cat_sort's cat_weight_key(w), in what would be padding
};

// The largest gain of the left sums (lg[i] + og, lh[i] + oh), i < n, and the
// first i that has it; gain -inf when n == 0.
struct CatGainMax {
  double gain;
  int at;
};

// Gains by split_gain_given_parent (any SplitParams).
struct CatScalarGains {
  const SplitParams& sp;
  const Quantizer& q;
  GradSum parent;
  double pg;  // parent_gain(sp, q, parent)
  CatGainMax operator()(const int64_t* lg, const int64_t* lh, int n, int64_t og,
                        int64_t oh) const {
    CatGainMax r{-HUGE_VAL, INT_MAX};
    for (int i = 0; i < n; ++i) {
      const double g = split_gain_given_parent(sp, q, parent, GradSum{lg[i] + og, lh[i] + oh}, pg);
      if (g > r.gain) r = CatGainMax{g, i};
    }
    return r;
  }
};

// Per-thread scratch of best_categorical_split_cpu.
struct CatScanScratch {
  std::vector<CatItem> items, sel, buf_lo, buf_hi;
  std::vector<int32_t> nonempty;  // the non-empty bins (cat_nonempty.h)
  std::vector<int64_t> lg, lh;  // candidates' left sums (missing right), padded
  std::vector<int32_t> cand_k;  // candidate i's position k in its direction
  // nb: the most value bins of any categorical feature scanned.
  void reserve(int nb) {
    items.resize((size_t)nb + 1);
    nonempty.resize((size_t)nb + kCatNonemptySlack);
    sel.resize((size_t)nb + 1);         // 2 lim < m <= nb
    buf_lo.resize(2 * (size_t)nb + 2);  // m items and cat_sort's scratch
    buf_hi.resize(2 * (size_t)nb + 2);
    lg.assign(2 * (size_t)nb + 8, 0);
    lh.assign(2 * (size_t)nb + 8, 0);
    cand_k.resize(2 * (size_t)nb + 8);
  }
};

// it[i].w = calc_weight of the sums of bin it[i].bin, i < m, with the very
// IEEE operations of calc_weight (the same bits) but without its branches:
// two categories at a time with SSE2 selects (signs of the gradients are
// unpredictable).
inline void cat_item_weights(const GradSum* h, CatItem* it, int m, const SplitParams& sp,
                             const Quantizer& q) {
  int i = 0;
#if defined(__SSE2__)
  const __m128d ginv = _mm_set1_pd(q.g_inv), hinv = _mm_set1_pd(q.h_inv);
  const __m128d mcw = _mm_set1_pd(sp.min_child_weight), lam = _mm_set1_pd(sp.reg_lambda);
  const __m128d al = _mm_set1_pd(sp.reg_alpha), nal = _mm_set1_pd(-sp.reg_alpha);
  const __m128d zero = _mm_setzero_pd(), sign = _mm_set1_pd(-0.0);
  const bool clip = sp.max_delta_step != 0.0;
  const __m128d mds = _mm_set1_pd(sp.max_delta_step), nmds = _mm_set1_pd(-sp.max_delta_step);
  for (; i + 2 <= m; i += 2) {
    const GradSum& a = h[it[i].bin];
    const GradSum& b = h[it[i + 1].bin];
    const __m128d G = _mm_mul_pd(_mm_set_pd((double)b.g, (double)a.g), ginv);
    const __m128d H = _mm_mul_pd(_mm_set_pd((double)b.h, (double)a.h), hinv);
    // calc_weight: 0 unless H >= min_child_weight and H > 0.
    const __m128d ok = _mm_and_pd(_mm_cmpge_pd(H, mcw), _mm_cmpgt_pd(H, zero));
    // threshold_l1: G - alpha above alpha, G + alpha below -alpha, else 0.
    const __m128d t = _mm_or_pd(_mm_and_pd(_mm_cmpgt_pd(G, al), _mm_sub_pd(G, al)),
                                _mm_and_pd(_mm_cmplt_pd(G, nal), _mm_add_pd(G, al)));
    __m128d w = _mm_div_pd(_mm_xor_pd(t, sign), _mm_add_pd(H, lam));
    if (clip) {
      const __m128d hi = _mm_cmpgt_pd(w, mds);
      w = _mm_or_pd(_mm_and_pd(hi, mds), _mm_andnot_pd(hi, w));
      const __m128d lo = _mm_cmplt_pd(w, nmds);
      w = _mm_or_pd(_mm_and_pd(lo, nmds), _mm_andnot_pd(lo, w));
    }
    w = _mm_and_pd(ok, w);
    double o[2];
    _mm_storeu_pd(o, w);
    it[i].w = o[0];
    it[i + 1].w = o[1];
  }
#endif
  for (; i < m; ++i) {
    const GradSum& c = h[it[i].bin];
    it[i].w = calc_weight(sp, to_g(q, c.g), to_h(q, c.h));
  }
}

// The order of the keys (bins are distinct, so it is strict and total: the
// stable order), without branches (an unpredictable comparison is the cost
// of sorting weights).
inline bool cat_key_less(const CatItem& a, const CatItem& b) {
  return (a.w < b.w) | ((a.w == b.w) & (a.bin < b.bin));
}

// An unsigned 32-bit key in the order of the weight w, rounded to float
// (rounding is monotone: w1 <= w2 gives key(w1) <= key(w2), equal weights
// equal keys): -0.0 becomes +0.0 (they compare equal, so they must tie),
// then the IEEE bits with the sign bit flipped for w >= 0 and every bit
// flipped for w < 0 (no NaN here).
inline uint32_t cat_weight_key(double w) {
  float f = (float)w + 0.0f;  // -0.0f + 0.0f = +0.0f; every other value unchanged
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return (u >> 31) ? ~u : (u | 0x80000000u);
}

// Sorts a[0 .. n), given in bin order, by (w, bin): a stable LSD radix sort
// on cat_weight_key (8-bit digits; a digit that every key shares is
// skipped), so weight ties keep the bin order; then each run of equal keys
// (weights rounded to the same float: rare) is sorted by the exact weight.
// No comparison in the radix passes, hence few mispredicted branches.
// tmp: n items.
inline void cat_sort(CatItem* a, int n, CatItem* tmp) {
  if (n < 2) return;
  auto insertion = [](CatItem* x, int k) {  // stable: ties stay in bin order
    for (int i = 1; i < k; ++i) {
      const CatItem v = x[i];
      int j = i - 1;
      while (j >= 0 && x[j].w > v.w) {
        x[j + 1] = x[j];
        --j;
      }
      x[j + 1] = v;
    }
  };
  if (n <= 64) {
    insertion(a, n);
    return;
  }
  uint32_t cnt[4][256];
  std::memset(cnt, 0, sizeof cnt);
  const uint32_t k0 = cat_weight_key(a[0].w);
  uint32_t diff = 0;
  for (int i = 0; i < n; ++i) {
    const uint32_t k = cat_weight_key(a[i].w);  // once per item: the passes read a[i].key
    a[i].key = k;
    diff |= k ^ k0;
    ++cnt[0][k & 0xff];
    ++cnt[1][(k >> 8) & 0xff];
    ++cnt[2][(k >> 16) & 0xff];
    ++cnt[3][k >> 24];
  }
  CatItem* src = a;
  CatItem* dst = tmp;
  for (int d = 0; d < 4; ++d) {
    const int sh = 8 * d;
    if (((diff >> sh) & 0xff) == 0) continue;
    uint32_t pos[256];
    uint32_t sum = 0;
    for (int v = 0; v < 256; ++v) {
      pos[v] = sum;
      sum += cnt[d][v];
    }
    for (int i = 0; i < n; ++i) dst[pos[(src[i].key >> sh) & 0xff]++] = src[i];
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
  // Runs of equal keys: in bin order; sorted by the exact weight (ties by
  // bin), by insertion when short, else by comparisons (O(k log k) even when
  // every weight rounds to the same float).  A run whose weights already
  // rise (the common long run: categories of equal weight, e.g. one row
  // each in the first round) is in its order as it is.
  for (int i = 0; i < n;) {
    const uint32_t k = a[i].key;
    int j = i + 1;
    bool rising = true;
    while (j < n && a[j].key == k) {
      rising &= !(a[j].w < a[j - 1].w);
      ++j;
    }
    if (!rising && j - i <= 16)
      insertion(a + i, j - i);
    else if (!rising)
      std::sort(a + i, a + j, [](const CatItem& x, const CatItem& y) {
        return x.w < y.w || (x.w == y.w && x.bin < y.bin);
      });
    i = j;
  }
}

// The first lim and the last lim of the order of it[0 .. m) by (w, bin)
// (8 lim < m), each sorted, into sel[0 .. lim) and sel[lim .. 2 lim).
// Returns false (sel undefined) in the rare case where the sample's bounds
// were not wide enough; the caller sorts every item then.  A sample of 128
// items spread over the bins is sorted; its elements of ranks about 2.5 lim
// (128 / m) from either end bound the keys kept: one branch-free pass
// copies the items at or beyond each bound into buf_lo / buf_hi (m items
// each; about 2.5 lim are expected), and only those are sorted.
inline bool cat_select_ends(const CatItem* it, int m, int lim, CatItem* buf_lo, CatItem* buf_hi,
                            CatItem* sel) {
  constexpr int kSample = 128;
  CatItem sample[kSample], stmp[kSample];
  for (int k = 0; k < kSample; ++k) sample[k] = it[(int)((int64_t)k * m / kSample)];
  cat_sort(sample, kSample, stmp);
  int r = (int)((5 * (int64_t)lim * kSample) / (2 * (int64_t)m));  // rank of ~2.5 lim
  if (r > kSample / 2 - 1) r = kSample / 2 - 1;
  const CatItem plo = sample[r], phi = sample[kSample - 1 - r];
  int nlo = 0, nhi = 0;
  for (int i = 0; i < m; ++i) {
    const CatItem x = it[i];
    buf_lo[nlo] = x;
    nlo += !cat_key_less(plo, x);  // x <= plo
    buf_hi[nhi] = x;
    nhi += !cat_key_less(x, phi);  // x >= phi
  }
  if (nlo < lim || nhi < lim) return false;
  cat_sort(buf_lo, nlo, buf_lo + nlo);
  cat_sort(buf_hi, nhi, buf_hi + nhi);
  std::copy(buf_lo, buf_lo + lim, sel);
  std::copy(buf_hi + (nhi - lim), buf_hi + nhi, sel + lim);
  return true;
}

// it[i].w = cat_order_key of bin it[i].bin, i < m: the weights
// (cat_item_weights) or, with cat_smooth, the smoothed ratios.
inline void cat_item_keys(const GradSum* h, CatItem* it, int m, const SplitParams& sp,
                          const Quantizer& q, const CatSplitParams& cp) {
  if (!(cp.cat_smooth > 0.0)) {
    cat_item_weights(h, it, m, sp, q);
    return;
  }
  for (int i = 0; i < m; ++i) it[i].w = cat_order_key(sp, q, cp, h[it[i].bin]);
}

// Keeps the bins ne[0 .. m) that take part in a partition search
// (cat_in_partition: all of them without cat_smooth); returns their count.
inline int cat_partition_bins(const GradSum* h, int32_t* ne, int m, const SplitParams& sp,
                              const Quantizer& q, const CatSplitParams& cp) {
  if (!(cp.cat_smooth > 0.0)) return m;
  int k = 0;
  for (int i = 0; i < m; ++i) {
    ne[k] = ne[i];
    k += cat_in_partition(sp, q, cp, h[ne[i]]);
  }
  return k;
}

// The candidates of one direction of a partition search: the right sets
// items[step * j], j = 0 .. k, for k < lim, in order, those that
// CatGroupGate offers (min_data_per_group), as left sums (missing right)
// appended to lg/lh at n, with their k in cand_k.  Returns the new n.
inline int cat_direction_candidates(const GradSum* h, const CatItem* items, int step, int lim,
                                    const SplitParams& sp, const Quantizer& q,
                                    const CatSplitParams& cp, int64_t bg, int64_t bh, int64_t* lg,
                                    int64_t* lh, int32_t* cand_k, int n) {
  int64_t ag = 0, ah = 0;
  CatGroupGate gate(sp, cp);
  for (int k = 0; k < lim; ++k) {
    const GradSum& c = h[items[step * k].bin];
    ag += c.g;
    ah += c.h;
    const int g = gate.add(sp, q, c);
    if (g == kCatStop) break;
    lg[n] = bg - ag;
    lh[n] = bh - ah;
    cand_k[n] = k;
    n += g == kCatOffer;  // a skipped candidate is overwritten
  }
  return n;
}

// As best_categorical_split_words(h, nb, feature, parent, sp, q, cp, set,
// nwords, ...) without bounds.  gains: a function like CatScalarGains for
// this parent (it may read lg/lh up to the next multiple of 4 past n); for
// a partition search (nb >= max_cat_to_onehot) its children's gains use
// cat_partition_params(sp, cp).
template <typename Gains>
SplitCandidate best_categorical_split_cpu(const GradSum* h, int nb, int feature, GradSum parent,
                                          const SplitParams& sp, const Quantizer& q,
                                          const CatSplitParams& cp, uint32_t* set, int nwords,
                                          CatScanScratch& s, const Gains& gains) {
  for (int i = 0; i < nwords; ++i) set[i] = 0;
  const GradSum miss = h[nb];
  const bool has_miss = miss.g != 0 || miss.h != 0;
  CatItem* it = s.items.data();
  // Non-empty bins in bin order (cat_nonempty.h).
  int32_t* ne = s.nonempty.data();
  int m = cat_nonempty_bins(h, nb, ne);
  if (m == 0) return no_split();
  for (int i = 0; i < m; ++i) it[i].bin = ne[i];
  int64_t* lg = s.lg.data();
  int64_t* lh = s.lh.data();
  // Candidate right sets -> lg/lh: left sums with missing values right.
  const int64_t bg = parent.g - miss.g, bh = parent.h - miss.h;
  int32_t* cand_k = s.cand_k.data();
  int n;     // candidates
  int nfwd = 0;  // of which the prefixes (the rest: suffixes)
  int lim = 0;
  const CatItem* first = it;  // the order's first lim
  const CatItem* last = it;   // the order's last lim
  const bool onehot = nb < cp.max_cat_to_onehot;
  if (onehot) {
    // Each non-empty category alone on the right.
    for (int i = 0; i < m; ++i) {
      const GradSum& c = h[it[i].bin];
      lg[i] = bg - c.g;
      lh[i] = bh - c.h;
    }
    n = m;
  } else {
    const int mp = cat_partition_bins(h, ne, m, sp, q, cp);
    if (mp < m)
      for (int i = 0; i < mp; ++i) it[i].bin = ne[i];
    m = mp;
    cat_item_keys(h, it, m, sp, q, cp);
    lim = m - 1;  // a set never takes every non-empty category
    if (cp.max_cat_threshold < lim) lim = cp.max_cat_threshold;
    if (lim <= 0) return no_split();
    if (8 * lim < m &&
        cat_select_ends(it, m, lim, s.buf_lo.data(), s.buf_hi.data(), s.sel.data())) {
      first = s.sel.data();
      last = s.sel.data() + lim;
    } else {
      cat_sort(it, m, s.buf_lo.data());
      first = it;
      last = it + (m - lim);
    }
    // Prefixes first[0 .. k], then suffixes of the order,
    // last[lim-1-k .. lim-1] (all of them without min_data_per_group).
    nfwd = cat_direction_candidates(h, first, 1, lim, sp, q, cp, bg, bh, lg, lh, cand_k, 0);
    n = cat_direction_candidates(h, last + (lim - 1), -1, lim, sp, q, cp, bg, bh, lg, lh, cand_k,
                                 nfwd);
  }
  for (int i = n; i < ((n + 3) & ~3); ++i) {
    lg[i] = 0;
    lh[i] = 0;
  }
  // Missing right (left sums lg), then missing left (lg + miss).
  CatGainMax best = gains(lg, lh, n, 0, 0);
  int dl = 0;
  if (has_miss) {
    const CatGainMax b1 = gains(lg, lh, n, miss.g, miss.h);
    if (b1.gain > best.gain || (b1.gain == best.gain && b1.at < best.at)) {
      best = b1;
      dl = 1;
    }
  }
  if (!split_is_useful(sp, best.gain)) return no_split();
  const int i = best.at;
  const GradSum left = dl ? GradSum{lg[i] + miss.g, lh[i] + miss.h} : GradSum{lg[i], lh[i]};
  auto set_add = [set](int b) { set[b >> 5] |= 1u << (b & 31); };
  if (onehot)
    set_add(it[i].bin);
  else if (i < nfwd)
    for (int k = 0; k <= cand_k[i]; ++k) set_add(first[k].bin);
  else
    for (int k = 0; k <= cand_k[i]; ++k) set_add(last[lim - 1 - k].bin);
  return SplitCandidate{best.gain, feature, 0, dl, left};
}

}  // namespace gbdt
