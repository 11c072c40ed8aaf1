// The last level of a depth-wise tree (issue 15: per-level partition cost).
//
// The children of a split at depth max_depth - 1 are leaves: their rows need
// no histogram and no order, only their leaf value added to the margin.  So
// instead of partitioning the parent's rows (two passes over the row
// indices) and then adding each leaf's value over its segment, each row is
// routed by the split and gets its child's value in one pass.  Every row
// gets the same single float addition per tree as before (margins are
// per-row), so the margins are bit-identical.
#pragma once
#include <cstddef>
#include <cstdint>

#include "categorical_split.h"
#include "row_partition.h"
#include "tree_growth.h"

namespace gbdt {

// Rows idx[b..e) of a node split on the feature whose bins are col[row * d]
// (1- or 2-byte entries; nb bins; bin nb = missing, going left when dl): a numeric split sends
// bins <= split_bin left; a categorical one (set != nullptr) sends the bins
// of its right set right.  Adds vl / vr to margins[row * K + k].
template <typename BinT>
void add_last_level_values(const BinT* col, size_t d, int nb, unsigned split_bin, bool dl,
                           const CatWords* set, const uint32_t* idx, size_t b, size_t e,
                           float vl, float vr, float* margins, int K, int k) {
  if (set) {
    const float v[2] = {vr, vl};
    for (size_t i = b; i < e; ++i) {
      const uint32_t row = idx[i];
      const unsigned bin = col[(size_t)row * d];
      const bool left = bin == (unsigned)nb ? dl : !cat_words_has(set->words, set->nwords, bin);
      margins[(size_t)row * K + k] += v[left];
    }
    return;
  }
  if (d == 1 && K == 1) {  // a feature-major column (rows < 2^31: row_partition.h)
    add_leaf_values_column(col, split_bin, (unsigned)nb, dl, idx, b, e, vl, vr, margins);
    return;
  }
  add_leaf_values_rows(col, d, split_bin, (unsigned)nb, dl, idx, b, e, vl, vr, margins, K, k);
}

}  // namespace gbdt
