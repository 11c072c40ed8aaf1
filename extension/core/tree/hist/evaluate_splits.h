// The split evaluation of the CPU driver (updater.cpp): for every node of a
// level, the best split over the features, from the nodes' histograms.
//  - numeric features: the vectorized scan when max_delta_step is 0 (the
//    gains of the non-empty bins into arrays, computed with the very IEEE
//    operations of split_math.h, then the first maximum), else the scalar
//    scan of split_math.h; the same candidate either way;
//  - categorical features (categorical_split.h): one-hot or partition
//    splits, their right bin sets kept until the next evaluation;
//  - strategies of the depth-wise levels: a task scans a sibling pair (the
//    smaller one's slice, just read by the larger one's subtraction, is
//    still in cache), and a node whose histogram is still its parent's
//    (LevelNode::pending_small) is turned into its own feature by feature
//    right before the scan reads it.
// Monotone bounds, interaction sets and per-node column sampling are the
// general grower's (tree_grower.cpp), which scans with the scalar gains.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../../common/memory_budget.h"
#include "../../common/thread_pool.h"
#include "../../data/binned_matrix.h"
#include "../apply_split.h"
#include "../categorical_split.h"
#include "../split_math.h"
#include "evaluate_categorical.h"
#include "level_node.h"

namespace gbdt {

// The constants of split_gain_given_parent at one node.
struct GainConsts {
  double g_inv, h_inv, mcw, lambda, alpha, pg;
  int64_t pgs, phs;  // parent sums
};

// The largest gain of left sums (lg[i] + og, lh[i] + oh), i < n (arrays
// padded to a multiple of 4), and the first i that has it (at); -inf when
// n == 0.  AVX2 when the CPU has it, else the scalar loop: the same bits.
struct GainMax {
  double gain;
  int at;
};
GainMax gains_any(const GainConsts& k, const int64_t* lg, const int64_t* lh, int n, int64_t og, int64_t oh);

class SplitEvaluator {
 public:
  // The features (cuts, their histogram offsets), the split parameters,
  // the categorical features (n_categories: per feature its categories, 0
  // for numeric ones; null: none) and scratch for n_threads threads.
  void init(const Cuts* cuts, const uint32_t* hist_offset, size_t total_bins, const SplitParams& split,
            const CatSplitParams& cat_split, const std::vector<uint32_t>* n_categories, int n_threads);

  // The candidates of L nodes at `depth`, charged to the budget while the
  // returned object lives (max_depth: for the message).
  std::unique_ptr<BudgetCharge> charge_level(MemoryBudget* budget, size_t L, int depth, int max_depth) const;

  // The best split of each node of the level into (*best)[i] (feature -1:
  // none), over the features with feature_mask[f] != 0; a categorical
  // winner's right bin set in (*sets)[i] (words null for a numeric split;
  // valid until the next call).  Performs and clears the nodes' pending
  // subtractions (of every feature, masked or not).
  void evaluate(std::vector<LevelNode>& level, int depth, const Quantizer& q, const uint8_t* feature_mask,
                ThreadPool* pool, std::vector<SplitCandidate>* best, std::vector<CatWords>* sets);

  // The best split of feature f at node ln (numeric or categorical; the
  // sets of a categorical one into `sets`: cat_stride() words).  fast:
  // the vectorized gains (max_delta_step must be 0).
  SplitCandidate best_split(const LevelNode& ln, int f, const Quantizer& q, bool fast, uint32_t* sets, int tid);
  size_t cat_stride() const { return cat_stride_; }

 private:
  // Per-thread buffers of the numeric scan.
  struct ScanScratch {
    std::vector<int64_t> lg, lh;
    std::vector<int32_t> bin;
    void reserve(size_t n) {
      n = (n + 8) & ~(size_t)3;
      lg.assign(n, 0);
      lh.assign(n, 0);
      bin.assign(n, 0);
    }
  };
  GainConsts consts(const Quantizer& q, const GradSum& sum) const;
  SplitCandidate best_split_feature_fast(const LevelNode& ln, int f, const GainConsts& k, ScanScratch& s) const;
  SplitCandidate best_split_feature(const LevelNode& ln, int f, const Quantizer& q) const;
  SplitCandidate best_categorical_split_scan(const LevelNode& ln, int f, const GainConsts& k, bool fast,
                                             const Quantizer& q, uint32_t* sets, CatScanScratch& cs) const;
  void scan_level(std::vector<LevelNode>& level, int depth, const Quantizer& q, const uint8_t* feature_mask,
                  ThreadPool* pool);

  const Cuts* cuts_ = nullptr;
  std::vector<uint32_t> off_;
  size_t total_bins_ = 0;
  int nf_ = 0;
  SplitParams split_{};
  CatSplitParams cat_split_{4, 64};
  std::vector<ScanScratch> scratch_;
  std::vector<SplitCandidate> cand_;     // per (node, feature) of the level
  std::vector<uint8_t> is_cat_;          // per feature: categorical splits
  bool any_cat_ = false;
  std::vector<int> cat_index_;           // per feature: index among the categorical ones, or -1
  // right bin sets of the level's candidates: per node cat_stride_ words,
  // categorical feature ci at cat_woff_[ci], cat_nw_[ci] words
  // (cat_set_words of its bins: 8 up to 256 bins).
  std::vector<uint32_t> cand_sets_;
  size_t cat_stride_ = 0;
  std::vector<size_t> cat_woff_;
  std::vector<int> cat_nw_;
  std::vector<CatScanScratch> cat_scratch_;  // best_categorical_split_cpu's, per thread
};

}  // namespace gbdt
