// Growing a Tree by one split: shared by the CPU and CUDA backends, so both
// write the same nodes in the same order (node numbering: per level in order,
// left child then right child).
#pragma once
#include <cstdint>
#include <vector>

#include "split_math.h"
#include "tree.h"

namespace gbdt {

struct SplitChildren {
  int32_t left, right;         // node ids of the new children
  GradSum left_sum, right_sum;  // their quantized gradient sums
};

// The code set of a categorical split from its bin set (categorical_split.h):
// bin b is code b, and the "other" bin of a feature with n_codes > 255
// categories stands for codes 254 .. n_codes - 1.  Trailing zero words are
// left out (codes past the field go left anyway).
inline std::vector<uint32_t> cat_codes_of_bins(const CatBinSet& bins, uint32_t n_codes) {
  std::vector<uint32_t> w;
  auto add = [&w](uint32_t c) {
    if (w.size() <= (c >> 5)) w.resize((c >> 5) + 1, 0);
    w[c >> 5] |= 1u << (c & 31);
  };
  for (uint32_t b = 0; b < 32u * kCatSetWords; ++b) {
    if (!cat_set_has(bins, b)) continue;
    if (n_codes > 255 && b == (uint32_t)kCatOtherBin)
      for (uint32_t c = b; c < n_codes; ++c) add(c);
    else
      add(b);
  }
  return w;
}

// Turns leaf `node` (gradient sum `sum`) into a split by `s` and appends its
// two children as leaves valued eta * weight.  A categorical split passes
// its bin set `cats` and the feature's number of categories.
inline SplitChildren apply_split(Tree* tree, int32_t node, GradSum sum, const SplitCandidate& s,
                                 const SplitParams& sp, const Quantizer& q,
                                 const CatBinSet* cats = nullptr, uint32_t n_codes = 0) {
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
    const std::vector<uint32_t> w = cat_codes_of_bins(*cats, n_codes);
    tree->split_bin[node] = 0;
    tree->set_categorical(node, w.data(), (uint32_t)w.size());
  }
  return c;
}

// T: apply_split under monotone constraints.  The children's weights are
// clamped to the parent's bounds [lo, hi]; their bounds (*lo_l, *hi_l,
// *lo_r, *hi_r) are the parent's, split at the middle of the two weights
// for a constrained feature (c = 1: left below, c = -1: left above), as
// XGBoost's TreeEvaluator::AddSplit.
inline SplitChildren apply_split_bounded(Tree* tree, int32_t node, GradSum sum,
                                         const SplitCandidate& s, const SplitParams& sp,
                                         const Quantizer& q, double lo, double hi, int c,
                                         double* lo_l, double* hi_l, double* lo_r, double* hi_r,
                                         const CatBinSet* cats = nullptr, uint32_t n_codes = 0) {
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
  if (cats) {  // A: as apply_split
    const std::vector<uint32_t> w = cat_codes_of_bins(*cats, n_codes);
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

}  // namespace gbdt
