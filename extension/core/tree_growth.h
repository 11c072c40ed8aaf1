// Growing a Tree by one split: shared by the CPU and CUDA backends, so both
// write the same nodes in the same order (node numbering: per level in order,
// left child then right child).
#pragma once
#include <cstdint>

#include "split_math.h"
#include "tree.h"

namespace gbdt {

struct SplitChildren {
  int32_t left, right;         // node ids of the new children
  GradSum left_sum, right_sum;  // their quantized gradient sums
};

// Turns leaf `node` (gradient sum `sum`) into a split by `s` and appends its
// two children as leaves valued eta * weight.
inline SplitChildren apply_split(Tree* tree, int32_t node, GradSum sum, const SplitCandidate& s,
                                 const SplitParams& sp, const Quantizer& q) {
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
  return c;
}

}  // namespace gbdt
