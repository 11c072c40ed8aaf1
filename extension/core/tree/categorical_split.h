// Categorical splits, shared by the CPU and CUDA backends (GBDT_HD) and by
// every tree walk (prediction, TreeSHAP), so they cannot drift.
//
// Semantics (XGBoost's, src/common/categorical.h `Decision` and
// src/predictor/predict_fn.h): a categorical node holds a set of category
// codes; a code IN the set goes RIGHT, every other code goes LEFT, including
// codes never seen in training (beyond the stored bit field) and negative or
// infinite values; a non-integer code is truncated toward zero (XGBoost's
// AsCat); missing (NaN) follows default_left and is handled by the caller.
//
// Binning of a categorical feature with n categories (quantile.cpp): one
// bin per code when n <= 65535 (bin(c) = c; past 255 bins the bin matrix
// holds 2 bytes per entry, binned_matrix.h); when n > 65535 (only n = 65536,
// max_categories' limit), codes 0..65533 get their own bins and all codes
// >= 65534 share the "other" bin 65534 = nb - 1.  Models of earlier builds
// (and their continued trainings) have 255 bins for n > 255, the codes >=
// 254 sharing bin 254: the same rule, "the last bin of a feature with more
// categories than bins stands for the rest" (tree_growth.h expands it to
// all of its codes in the tree's set).
//
// Bin sets: a feature with at most 256 value bins uses a CatBinSet (256
// bits, fixed size: the CUDA kernels and the narrow case); a wider one a
// word array of cat_set_words(nb) words (best_categorical_split_words).
//
// Split search (XGBoost's hist semantics):
//  - fewer than max_cat_to_onehot value bins: one-hot splits, each non-empty
//    category alone on the right, the rest on the left;
//  - otherwise partition splits: the non-empty categories sorted by their
//    weight (calc_weight of the category's gradient sums; ties by bin), and
//    every prefix and every suffix of that order of at most
//    max_cat_threshold categories is a candidate right set;
//  - each candidate with missing values right, then left (when there are any).
// Empty categories (no gradient, no hessian) never enter a set.  The first
// candidate with the largest gain in that order wins (strictly greater
// replaces): deterministic.  LightGBM's regularization of partition splits
// (CatSplitParams: cat_smooth, cat_l2, min_data_per_group; off at 0)
// changes the order, the children's lambda and which prefixes and
// suffixes are candidates.
#pragma once
#include <cstdint>

#include "../common/common.h"
#include "split_math.h"

namespace gbdt {

// Words of a CatBinSet: 256 bits, every feature with at most 256 value bins.
constexpr int kCatSetWords = 8;
// The "other" bin of a feature with more than 255 categories in models of
// earlier builds (see above; now: the last bin when n > nb).
constexpr int kCatOtherBin = 254;

// A set of bins of one feature (bit b of word b / 32 = bin b).
struct CatBinSet {
  uint32_t w[kCatSetWords];
};

// Words of the bin set of a feature with nb value bins: kCatSetWords up to
// 256 bins (a CatBinSet), else enough for nb bits.
GBDT_HD int cat_set_words(int nb) { return nb <= 32 * kCatSetWords ? kCatSetWords : (nb + 31) / 32; }

GBDT_HD void cat_set_clear(CatBinSet* s) {
  for (int i = 0; i < kCatSetWords; ++i) s->w[i] = 0;
}
GBDT_HD void cat_set_add(CatBinSet* s, int b) { s->w[b >> 5] |= 1u << (b & 31); }
GBDT_HD bool cat_set_has(const CatBinSet& s, unsigned b) {
  return b < 32u * kCatSetWords && ((s.w[b >> 5] >> (b & 31)) & 1u) != 0;
}
// The same on a word array of nwords words.
GBDT_HD bool cat_words_has(const uint32_t* w, int nwords, unsigned b) {
  return b < 32u * (unsigned)nwords && ((w[b >> 5] >> (b & 31)) & 1u) != 0;
}

// Whether the (non-missing) value v goes RIGHT at a categorical node whose
// code set is bits[0 .. nwords).
GBDT_HD bool cat_goes_right(const uint32_t* bits, uint32_t nwords, float v) {
  // Negative, too large (unseen), +inf: left.  NaN never reaches here, and
  // would fail the comparison as well.
  if (!(v >= 0.0f) || !(v < 32.0f * (float)nwords)) return false;
  const uint32_t c = (uint32_t)v;  // truncation toward zero
  return ((bits[c >> 5] >> (c & 31)) & 1u) != 0;
}

// split_type of a categorical node whose set is stored as its codes
// (Tree::split_type; 1: a bit field).
constexpr uint8_t kCatList = 2;

// Whether the (non-missing) value v goes RIGHT at a categorical node whose
// set is the strictly increasing codes codes[0 .. n): the same decision as
// cat_goes_right on the bit field of those codes.
GBDT_HD bool cat_list_goes_right(const uint32_t* codes, uint32_t n, float v) {
  if (!(v >= 0.0f) || !(v < 4294967296.0f) || n == 0) return false;
  const uint32_t c = (uint32_t)v;  // truncation toward zero
  uint32_t lo = 0, hi = n;         // binary search for c in codes[lo .. hi)
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (codes[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && codes[lo] == c;
}

struct CatSplitParams {
  int max_cat_to_onehot;  // one-hot splits below this many value bins
  int max_cat_threshold;  // at most this many categories in a partition set
  // LightGBM's categorical regularization of partition splits (0: off, and
  // then the search is exactly the one described above):
  //  - cat_smooth: categories are ordered by G / (H + cat_smooth) instead
  //    of by their weight, and a category with fewer (estimated) rows at the
  //    node than cat_smooth never enters a set;
  //  - cat_l2: added to reg_lambda in the children's gains of a partition
  //    split (the parent's gain keeps reg_lambda, as in LightGBM);
  //  - min_data_per_group: a candidate is offered only when its set has
  //    gained at least this many rows since the previous candidate of its
  //    direction, and the scan of a direction stops when fewer rows than
  //    this are left outside the set.
  // Rows are estimated from hessians as for min_data_in_leaf (at_node;
  // SplitParams::count_rows must be set when cat_smooth or
  // min_data_per_group is).
  double cat_smooth = 0.0;
  double cat_l2 = 0.0;
  double min_data_per_group = 0.0;
};

// Whether the partition search of cp needs the node's row counts.
GBDT_HD bool cat_counts_rows(const CatSplitParams& cp) {
  return cp.cat_smooth > 0.0 || cp.min_data_per_group > 0.0;
}

// The estimated rows of a category with sums c (LightGBM's
// round(hessian * cnt_factor); sp from at_node with count_rows).
GBDT_HD double cat_rows(const SplitParams& sp, const Quantizer& q, GradSum c) {
  return floor(to_h(q, c.h) * sp.cnt_factor + 0.5);
}

// The key that orders the categories of a partition search: the weight
// (calc_weight), or with cat_smooth LightGBM's smoothed ratio, negated so
// that the order runs from the smallest weight to the largest like
// calc_weight's (both ends are scanned, so the direction only decides
// ties).
GBDT_HD double cat_order_key(const SplitParams& sp, const Quantizer& q, const CatSplitParams& cp,
                             GradSum c) {
  if (cp.cat_smooth > 0.0) return -to_g(q, c.g) / (to_h(q, c.h) + cp.cat_smooth);
  return calc_weight(sp, to_g(q, c.g), to_h(q, c.h));
}

// Whether a non-empty category takes part in a partition search: always
// without cat_smooth, else when it holds at least cat_smooth rows.
GBDT_HD bool cat_in_partition(const SplitParams& sp, const Quantizer& q, const CatSplitParams& cp,
                              GradSum c) {
  return !(cp.cat_smooth > 0.0) || cat_rows(sp, q, c) >= cp.cat_smooth;
}

// The split parameters of a partition split's children: reg_lambda +
// cat_l2 (the same bits as sp when cat_l2 is 0).
GBDT_HD SplitParams cat_partition_params(const SplitParams& sp, const CatSplitParams& cp) {
  SplitParams r = sp;
  r.reg_lambda = sp.reg_lambda + cp.cat_l2;
  return r;
}

// min_data_per_group along one direction of a partition scan: add(c) for
// each category taken into the set, in order; it answers kCatStop when
// fewer than min_data_per_group rows are left outside the set (the scan
// of this direction ends), kCatSkip when the set has not gained
// min_data_per_group rows since the previous candidate, else kCatOffer
// (and a new group starts).  Without the limit every category is offered.
enum CatGroupStep { kCatOffer = 0, kCatSkip = 1, kCatStop = 2 };
struct CatGroupGate {
  double limit, node_rows, taken, group;
  GBDT_HD CatGroupGate(const SplitParams& sp, const CatSplitParams& cp)
      : limit(cp.min_data_per_group), node_rows(sp.node_rows), taken(0.0), group(0.0) {}
  GBDT_HD int add(const SplitParams& sp, const Quantizer& q, GradSum c) {
    if (!(limit > 0.0)) return kCatOffer;
    const double r = cat_rows(sp, q, c);
    taken += r;
    group += r;
    if (node_rows - taken < limit) return kCatStop;
    if (group < limit) return kCatSkip;
    group = 0.0;
    return kCatOffer;
  }
};

// The candidates of one feature's categorical split search
// (best_categorical_split_words): each right set is offered by its sums,
// with missing values right, then left (when there are any); the first
// useful candidate with the largest gain wins (strictly greater
// replaces), best_kind and best_pos saying which set it was.
struct CatSplitScan {
  const SplitParams& sp;
  const Quantizer& q;
  GradSum parent, miss;
  bool has_miss;
  int feature;
  // Monotone constraints (split_math.h): with bounds = {lower, upper} of
  // the node's weight, gains use the clamped weights as the numeric scans.
  const double* bounds;
  double lo, hi, pg;
  int mono;
  SplitCandidate best;
  int best_kind, best_pos;

  // The children's gains use spc (cat_partition_params for a partition
  // search, else sp itself); the parent's gain pg uses sp.
  SplitParams spc;

  GBDT_HD CatSplitScan(const SplitParams& sp_, const Quantizer& q_, GradSum parent_, GradSum miss_,
                       int feature_, const double* bounds_, int mono_, const SplitParams& spc_)
      : sp(sp_), q(q_), parent(parent_), miss(miss_), has_miss(miss_.g != 0 || miss_.h != 0),
        feature(feature_), bounds(bounds_), lo(bounds_ ? bounds_[0] : 0.0),
        hi(bounds_ ? bounds_[1] : 0.0),
        pg(bounds_ ? bounded_parent_gain(sp_, q_, parent_, lo, hi) : parent_gain(sp_, q_, parent_)),
        mono(mono_), best(no_split()), best_kind(-1), best_pos(0), spc(spc_) {}

  GBDT_HD double gain_of(GradSum left) const {
    return bounds ? bounded_split_gain(spc, q, parent, left, lo, hi, mono, pg)
                  : split_gain_given_parent(spc, q, parent, left, pg);
  }

  // Tries right-set sums sr (missing right, then left).
  GBDT_HD void consider(GradSum sr, int kind, int pos) {
    // Missing right: left = parent - sr - miss.
    const GradSum lr = gs_sub(gs_sub(parent, sr), miss);
    SplitCandidate c{gain_of(lr), feature, 0, 0, lr};
    if (split_is_useful(sp, c.gain) && (best.feature < 0 || c.gain > best.gain)) {
      best = c;
      best_kind = kind;
      best_pos = pos;
    }
    if (has_miss) {
      const GradSum ll = gs_sub(parent, sr);
      SplitCandidate c2{gain_of(ll), feature, 0, 1, ll};
      if (split_is_useful(sp, c2.gain) && (best.feature < 0 || c2.gain > best.gain)) {
        best = c2;
        best_kind = kind;
        best_pos = pos;
      }
    }
  }
};

// Only order[0 .. lim) and order[m - lim .. m) are read by the partition
// scan: the lim smallest and the lim largest of the m categories by
// (weight, bin), i.e. the stable order's first and last lim, each kept
// sorted by bounded insertion (bins arrive ascending, so an equal weight
// ranks after) in order_tmp, wt_tmp (2 x lim entries), then written to
// those places of order, wt.  Needs 2 * lim < m.
GBDT_HD void cat_select_ends(int* order, double* wt, int m, int lim, int* order_tmp,
                             double* wt_tmp) {
  int* lo_o = order_tmp;
  double* lo_w = wt_tmp;
  int* hi_o = order_tmp + lim;
  double* hi_w = wt_tmp + lim;
  int nl = 0, nh = 0;
  for (int i = 0; i < m; ++i) {
    const int o = order[i];
    const double w = wt[i];
    if (nl < lim || w < lo_w[nl - 1]) {
      int j = nl < lim ? nl++ : lim - 1;
      while (j > 0 && lo_w[j - 1] > w) {
        lo_o[j] = lo_o[j - 1];
        lo_w[j] = lo_w[j - 1];
        --j;
      }
      lo_o[j] = o;
      lo_w[j] = w;
    }
    if (nh < lim) {
      int j = nh++;
      while (j > 0 && hi_w[j - 1] > w) {
        hi_o[j] = hi_o[j - 1];
        hi_w[j] = hi_w[j - 1];
        --j;
      }
      hi_o[j] = o;
      hi_w[j] = w;
    } else if (w >= hi_w[0]) {
      int j = 0;  // drop the smallest, insert after every weight <= w
      while (j + 1 < lim && hi_w[j + 1] <= w) {
        hi_o[j] = hi_o[j + 1];
        hi_w[j] = hi_w[j + 1];
        ++j;
      }
      hi_o[j] = o;
      hi_w[j] = w;
    }
  }
  for (int i = 0; i < lim; ++i) {
    order[i] = lo_o[i];
    wt[i] = lo_w[i];
    order[m - lim + i] = hi_o[i];
    wt[m - lim + i] = hi_w[i];
  }
}

// Stable insertion sort of order[0 .. m), wt[0 .. m) by weight.
GBDT_HD void cat_insertion_sort(int* order, double* wt, int m) {
  for (int i = 1; i < m; ++i) {
    const int o = order[i];
    const double w = wt[i];
    int j = i - 1;
    while (j >= 0 && wt[j] > w) {
      order[j + 1] = order[j];
      wt[j + 1] = wt[j];
      --j;
    }
    order[j + 1] = o;
    wt[j + 1] = w;
  }
}

// Bottom-up merge sort of order[0 .. m), wt[0 .. m) by weight, a left
// element first on equal weights (stable); order_tmp, wt_tmp: scratch of
// m entries each.
GBDT_HD void cat_merge_sort(int* order, double* wt, int m, int* order_tmp, double* wt_tmp) {
  int* src_o = order;
  double* src_w = wt;
  int* dst_o = order_tmp;
  double* dst_w = wt_tmp;
  for (int width = 1; width < m; width *= 2) {
    for (int a = 0; a < m; a += 2 * width) {
      const int mid = a + width < m ? a + width : m;
      const int end = a + 2 * width < m ? a + 2 * width : m;
      int i = a, j = mid, k = a;
      while (i < mid && j < end) {
        if (src_w[j] < src_w[i]) {
          dst_o[k] = src_o[j];
          dst_w[k++] = src_w[j++];
        } else {
          dst_o[k] = src_o[i];
          dst_w[k++] = src_w[i++];
        }
      }
      while (i < mid) {
        dst_o[k] = src_o[i];
        dst_w[k++] = src_w[i++];
      }
      while (j < end) {
        dst_o[k] = src_o[j];
        dst_w[k++] = src_w[j++];
      }
    }
    int* to = src_o;
    src_o = dst_o;
    dst_o = to;
    double* tw = src_w;
    src_w = dst_w;
    dst_w = tw;
  }
  if (src_o != order)
    for (int i = 0; i < m; ++i) {
      order[i] = src_o[i];
      wt[i] = src_w[i];
    }
}

// The best categorical split of one feature of one node: h[0 .. nb) the
// feature's value bins, h[nb] its missing bin.  Returns no_split() when no
// candidate is useful; else the candidate (bin = 0, left = left child sums,
// missing included when default_left) and its right set in set[0 ..
// nwords) (nwords >= cat_set_words(nb)).  order, wt: scratch of nb entries
// each; order_tmp, wt_tmp: the same, needed only when nb > 256 (the stable
// sort of more than 256 categories is a merge sort, or, when the sets
// (max_cat_threshold) take fewer than half of them, a selection of the
// first and last max_cat_threshold; up to 256 an insertion sort: all give
// the stable order's candidates).  bounds: null, or the node's
// monotone weight bounds {lower, upper} (mono: the feature's constraint; 0
// for a categorical feature).
GBDT_HD SplitCandidate best_categorical_split_words(const GradSum* h, int nb, int feature,
                                                    GradSum parent, const SplitParams& sp,
                                                    const Quantizer& q, const CatSplitParams& cp,
                                                    uint32_t* set, int nwords, int* order,
                                                    double* wt, int* order_tmp, double* wt_tmp,
                                                    const double* bounds = nullptr, int mono = 0) {
  for (int i = 0; i < nwords; ++i) set[i] = 0;
  auto set_add = [set](int b) { set[b >> 5] |= 1u << (b & 31); };
  const bool onehot = nb < cp.max_cat_to_onehot;
  CatSplitScan scan(sp, q, parent, h[nb], feature, bounds, mono,
                    onehot ? sp : cat_partition_params(sp, cp));
  // Non-empty bins in bin order (a partition search: those with
  // cat_smooth rows).
  int m = 0;
  for (int b = 0; b < nb; ++b)
    if ((h[b].g != 0 || h[b].h != 0) && (onehot || cat_in_partition(sp, q, cp, h[b]))) order[m++] = b;
  if (m == 0) return scan.best;
  if (onehot) {
    // One-hot: kind 0, pos = index into order.
    for (int i = 0; i < m; ++i) scan.consider(h[order[i]], 0, i);
    if (scan.best_kind == 0) set_add(order[scan.best_pos]);
    return scan.best;
  }
  // Partition: the non-empty bins in the stable order by weight (or by
  // cat_order_key's smoothed ratio).
  for (int i = 0; i < m; ++i) wt[i] = cat_order_key(sp, q, cp, h[order[i]]);
  int lim = m - 1;  // a set never takes every non-empty category
  if (cp.max_cat_threshold < lim) lim = cp.max_cat_threshold;
  if (m > 256 && 2 * lim < m)
    cat_select_ends(order, wt, m, lim, order_tmp, wt_tmp);
  else if (m <= 256)
    cat_insertion_sort(order, wt, m);
  else
    cat_merge_sort(order, wt, m, order_tmp, wt_tmp);
  // Forward: prefixes order[0 .. k] (kind 1, pos k); backward: suffixes
  // order[m-1-k .. m-1] (kind 2, pos k).
  // min_data_per_group (CatGroupGate) skips candidates and ends a
  // direction early.
  GradSum acc{0, 0};
  CatGroupGate fwd(sp, cp);
  for (int k = 0; k < lim; ++k) {
    acc = gs_add(acc, h[order[k]]);
    const int step = fwd.add(sp, q, h[order[k]]);
    if (step == kCatStop) break;
    if (step == kCatOffer) scan.consider(acc, 1, k);
  }
  acc = GradSum{0, 0};
  CatGroupGate bwd(sp, cp);
  for (int k = 0; k < lim; ++k) {
    acc = gs_add(acc, h[order[m - 1 - k]]);
    const int step = bwd.add(sp, q, h[order[m - 1 - k]]);
    if (step == kCatStop) break;
    if (step == kCatOffer) scan.consider(acc, 2, k);
  }
  if (scan.best_kind == 1)
    for (int k = 0; k <= scan.best_pos; ++k) set_add(order[k]);
  else if (scan.best_kind == 2)
    for (int k = 0; k <= scan.best_pos; ++k) set_add(order[m - 1 - k]);
  return scan.best;
}

// best_categorical_split_words for a feature with at most 256 value bins
// (nb <= 256), its right set in a CatBinSet.
GBDT_HD SplitCandidate best_categorical_split(const GradSum* h, int nb, int feature, GradSum parent,
                                              const SplitParams& sp, const Quantizer& q,
                                              const CatSplitParams& cp, CatBinSet* set,
                                              const double* bounds = nullptr, int mono = 0) {
  int order[256];
  double wt[256];
  return best_categorical_split_words(h, nb, feature, parent, sp, q, cp, set->w, kCatSetWords,
                                      order, wt, nullptr, nullptr, bounds, mono);
}

}  // namespace gbdt
