// Growing a Tree by one split: shared by the CPU and CUDA backends, so both
// write the same nodes in the same order (node numbering: per level in order,
// left child then right child).
#pragma once
#include <cstdint>
#include <vector>

#include "categorical_split.h"
#include "../data/quantile.h"
#include "split_math.h"
#include "tree.h"

namespace gbdt {

struct SplitChildren {
  int32_t left, right;         // node ids of the new children
  GradSum left_sum, right_sum;  // their quantized gradient sums
};

// The code set of a categorical split from its bin set words[0 .. nwords)
// (categorical_split.h) of a feature with nb value bins and n_codes
// categories: bin b is code b, and when n_codes > nb the last bin (nb - 1,
// the "other" bin) stands for codes nb - 1 .. n_codes - 1.  Trailing zero
// words are left out (codes past the field go left anyway).
inline std::vector<uint32_t> cat_codes_of_bin_words(const uint32_t* words, int nwords,
                                                    uint32_t n_codes, uint32_t nb) {
  // Word by word (a split of a feature with thousands of categories is
  // made at every node): the bins' words up to the last non-zero one, then
  // the "other" bin's codes when it is in the set.
  int used = nwords;
  while (used > 0 && words[used - 1] == 0) --used;
  std::vector<uint32_t> w(words, words + used);
  const uint32_t other = nb - 1;
  if (n_codes > nb && nb > 0 && other < 32u * (uint32_t)used && ((w[other >> 5] >> (other & 31)) & 1u)) {
    w.resize(((n_codes - 1) >> 5) + 1, 0);
    for (uint32_t c = other; c < n_codes; ++c) w[c >> 5] |= 1u << (c & 31);
  }
  return w;
}

// The same for a CatBinSet (a feature with at most 255 value bins: with
// more than 255 categories, the 255 bins of earlier builds' models).
inline std::vector<uint32_t> cat_codes_of_bins(const CatBinSet& bins, uint32_t n_codes) {
  return cat_codes_of_bin_words(bins.w, kCatSetWords, n_codes,
                                n_codes > (uint32_t)kMaxValueBins ? (uint32_t)kMaxValueBins : n_codes);
}

// A categorical split's right bin set: words[0 .. nwords) of a feature with
// nb value bins (see cat_codes_of_bin_words).
struct CatWords {
  const uint32_t* words;
  int nwords;
  uint32_t nb;
};

// Turns leaf `node` (gradient sum `sum`) into a split by `s` and appends its
// two children as leaves valued eta * weight.  A categorical split passes
// its bin set `cats` and the feature's number of categories.
inline SplitChildren apply_split(Tree* tree, int32_t node, GradSum sum, const SplitCandidate& s,
                                 const SplitParams& sp, const Quantizer& q,
                                 const CatWords* cats, uint32_t n_codes) {
  SplitChildren c;
  c.left_sum = s.left;
  c.right_sum = gs_sub(sum, s.left);
  c.left = tree->add_node(node, leaf_value(sp, q, c.left_sum), to_h(q, c.left_sum.h));
  c.right = tree->add_node(node, leaf_value(sp, q, c.right_sum), to_h(q, c.right_sum.h));
  tree->left[node] = c.left;
  tree->right[node] = c.right;
  tree->feature[node] = s.feature;
  tree->split_bin[node] = s.bin;
  tree->default_left[node] = (uint8_t)s.default_left;
  tree->gain[node] = (float)s.gain;
  if (cats) {
    const std::vector<uint32_t> w = cat_codes_of_bin_words(cats->words, cats->nwords, n_codes, cats->nb);
    tree->split_bin[node] = 0;
    tree->set_categorical(node, w.data(), (uint32_t)w.size());
  }
  return c;
}

// apply_split under monotone constraints.  The children's weights are
// clamped to the parent's bounds [lo, hi]; their bounds (*lo_l, *hi_l,
// *lo_r, *hi_r) are the parent's, split at the middle of the two weights
// for a constrained feature (c = 1: left below, c = -1: left above), as
// XGBoost's TreeEvaluator::AddSplit.
inline SplitChildren apply_split_bounded(Tree* tree, int32_t node, GradSum sum,
                                         const SplitCandidate& s, const SplitParams& sp,
                                         const Quantizer& q, double lo, double hi, int c,
                                                 double* lo_l, double* hi_l, double* lo_r, double* hi_r,
                                         const CatWords* cats, uint32_t n_codes) {
  SplitChildren ch;
  ch.left_sum = s.left;
  ch.right_sum = gs_sub(sum, s.left);
  const double wl = bounded_weight(sp, q, ch.left_sum, lo, hi);
  const double wr = bounded_weight(sp, q, ch.right_sum, lo, hi);
  ch.left = tree->add_node(node, (float)(sp.eta * wl), to_h(q, ch.left_sum.h));
  ch.right = tree->add_node(node, (float)(sp.eta * wr), to_h(q, ch.right_sum.h));
  tree->left[node] = ch.left;
  tree->right[node] = ch.right;
  tree->feature[node] = s.feature;
  tree->split_bin[node] = s.bin;
  tree->default_left[node] = (uint8_t)s.default_left;
  tree->gain[node] = (float)s.gain;
  if (cats) {  // as apply_split
    const std::vector<uint32_t> w = cat_codes_of_bin_words(cats->words, cats->nwords, n_codes, cats->nb);
    tree->split_bin[node] = 0;
    tree->set_categorical(node, w.data(), (uint32_t)w.size());
  }
  *lo_l = *lo_r = lo;
  *hi_l = *hi_r = hi;
  const double mid = (wl + wr) / 2;
  if (c > 0) {
    *hi_l = mid;
    *lo_r = mid;
  } else if (c < 0) {
    *lo_l = mid;
    *hi_r = mid;
  }
  return ch;
}

// apply_split / apply_split_bounded with a CatBinSet (null: numeric split)
// of a feature with at most 255 value bins.
inline SplitChildren apply_split(Tree* tree, int32_t node, GradSum sum, const SplitCandidate& s,
                                 const SplitParams& sp, const Quantizer& q,
                                 const CatBinSet* cats = nullptr, uint32_t n_codes = 0) {
  if (!cats) return apply_split(tree, node, sum, s, sp, q, (const CatWords*)nullptr, 0u);
  const CatWords cw{cats->w, kCatSetWords,
                    n_codes > (uint32_t)kMaxValueBins ? (uint32_t)kMaxValueBins : n_codes};
  return apply_split(tree, node, sum, s, sp, q, &cw, n_codes);
}
inline SplitChildren apply_split_bounded(Tree* tree, int32_t node, GradSum sum,
                                         const SplitCandidate& s, const SplitParams& sp,
                                         const Quantizer& q, double lo, double hi, int c,
                                         double* lo_l, double* hi_l, double* lo_r, double* hi_r,
                                         const CatBinSet* cats = nullptr, uint32_t n_codes = 0) {
  if (!cats)
    return apply_split_bounded(tree, node, sum, s, sp, q, lo, hi, c, lo_l, hi_l, lo_r, hi_r,
                               (const CatWords*)nullptr, 0u);
  const CatWords cw{cats->w, kCatSetWords,
                    n_codes > (uint32_t)kMaxValueBins ? (uint32_t)kMaxValueBins : n_codes};
  return apply_split_bounded(tree, node, sum, s, sp, q, lo, hi, c, lo_l, hi_l, lo_r, hi_r, &cw,
                             n_codes);
}

}  // namespace gbdt
