// The general tree grower of the CPU backend: XGBoost's hist
// driver with monotone and interaction constraints, per-level and per-node
// column sampling, depth-wise or loss-guided (best-first) growth and
// max_leaves.  Used instead of the level-wise fast path when
// TreeExtParams::general() holds; without any of these parameters it builds
// the very trees of the fast path (a unit test checks it bit for bit).
// Node numbering: each split appends its left then its right child;
// depth-wise, the nodes of a level split in node order; loss-guided, the
// open leaf with the largest gain splits first (ties: lower node id).
#pragma once
#include <cstdint>
#include <vector>

#include "../../data/binned_matrix.h"
#include "../categorical_split.h"
#include "../../common/common.h"
#include "../constraints.h"
#include "../../common/memory_budget.h"
#include "../split_math.h"
#include "../../common/thread_pool.h"
#include "../tree.h"

namespace gbdt {

class HistogramBuilder;

struct GeneralGrowInput {
  // The CPU driver's histogram builder (histogram.h) of this matrix.
  HistogramBuilder* hist = nullptr;
  const BinnedMatrix* matrix = nullptr;
  const Cuts* cuts = nullptr;
  const uint32_t* hist_offset = nullptr;  // per feature, into a histogram
  size_t total_bins = 0;
  const GradSum* gpair = nullptr;         // this group's quantized gradients, per row
  Quantizer q{};
  SplitParams split{};
  const TreeExtParams* ext = nullptr;
  int max_depth = 6;                      // 0 = no limit (lossguide)
  const uint8_t* feature_mask = nullptr;  // colsample_bytree: 0 excludes a feature
  uint64_t seed = 0;
  int round = 0;
  int group = 0;
  uint32_t* row_idx = nullptr;            // [0, n_sampled): the rows of this tree
  uint32_t* tmp_idx = nullptr;            // scratch of the same size
  size_t n_sampled = 0;
  ThreadPool* pool = nullptr;
  CancelFn cancel;
  MemoryBudget* budget = nullptr;
  // Margin update: margins[row * K + group] += leaf value for every row
  // (rows outside the sample, in_sample[row] == 0, walk the tree).
  float* margins = nullptr;
  int K = 1;
  size_t n_rows = 0;
  const uint8_t* in_sample = nullptr;     // null: every row is in the sample
  // categorical features (categorical_split.h), as BoostData's: per
  // feature its number of categories (0: numeric); null: none.
  const std::vector<uint32_t>* n_categories = nullptr;
  CatSplitParams cat_split{4, 64};
};

// Grows *tree (empty on entry) and adds it to the margins.
void grow_tree_general(const GeneralGrowInput& in, Tree* tree);

}  // namespace gbdt
