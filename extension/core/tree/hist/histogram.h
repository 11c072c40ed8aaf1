// The histograms of the CPU driver (updater.cpp): per node, per feature bin,
// the sums of the node's quantized gradient pairs (integers: the sums do not
// depend on the order or the threads).
//  - build(nodes): the nodes' histograms from their row segments, by tasks
//    of (node, feature block) on wide data, else by row ranges of the nodes
//    (merged afterwards);
//  - the row records of sparse_bins.h (features mostly in one bin: their
//    dominant cell is filled from the node's sum) and the joint records of
//    joint_bins.h (groups of low-cardinality features) as block strategies;
//  - subtract(parent, small): the subtraction trick, parent - small in
//    place, whole or one feature at a time (the split scan's pending
//    subtraction: SplitEvaluator);
//  - a pool of histogram buffers, each new one charged to the memory budget.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../../common/memory_budget.h"
#include "../../common/thread_pool.h"
#include "../../data/binned_matrix.h"
#include "../../data/joint_bins.h"
#include "../../data/sparse_bins.h"
#include "../split_math.h"
#include "level_node.h"

namespace gbdt {

// Buffers of total_bins cells, reused: a freed one goes back to the list.
class HistPool {
 public:
  explicit HistPool(size_t bins) : bins_(bins) {}
  bool has_free() const { return !free_.empty(); }
  size_t count() const { return store_.size(); }
  GradSum* get() {
    if (!free_.empty()) {
      GradSum* h = free_.back();
      free_.pop_back();
      return h;
    }
    store_.emplace_back(new GradSum[bins_]);
    return store_.back().get();
  }
  void put(GradSum* h) {
    if (h) free_.push_back(h);
  }

 private:
  size_t bins_;
  std::vector<std::unique_ptr<GradSum[]>> store_;
  std::vector<GradSum*> free_;
};

// The subtraction trick on cells [s0, s1): parent - small in place, the
// histogram of parent's other child.  Whole (HistogramBuilder::subtract)
// or one feature at a time right before the split scan reads it (the
// pending subtraction of SplitEvaluator: one pass over memory fewer).
inline void subtract_cells(GradSum* parent, const GradSum* small, size_t s0, size_t s1) {
  for (size_t x = s0; x < s1; ++x) parent[x] = gs_sub(parent[x], small[x]);
}

class HistogramBuilder {
 public:
  ~HistogramBuilder() { release(); }

  // The layout of the histograms (feature offsets of the cuts) and, unless
  // `keep` (a restart on the same data: init again with new margins), a new
  // pool and new block strategies (the row records of sparse_bins.h and
  // joint_bins.h, charged to the budget; cpu_bin_copies off: none).
  // max_depth: for the messages of a histogram over the budget.
  void init(const BinnedMatrix* matrix, size_t n_rows, const Cuts& cuts, ThreadPool* pool, MemoryBudget* budget,
            int max_depth, bool cpu_bin_copies, bool keep);
  // Returns every byte charged to the budget (the histograms, the records).
  void release();

  // The depth and the number of nodes there whose histograms are being
  // built, for the message of a histogram over the budget.
  void set_level(int depth, size_t nodes) {
    depth_ = depth;
    level_nodes_ = nodes;
  }
  // A histogram from the pool; a new one is charged to the budget first.
  GradSum* get();
  void put(GradSum* h) { pool_hist_->put(h); }

  // Builds the histograms (node->hist, total_bins cells) of the given nodes
  // from their row segments; gp: the rows' quantized gradient pairs.
  void build(const std::vector<LevelNode*>& nodes, const GradSum* gp);
  // parent - small, in place (every cell).
  void subtract(GradSum* parent, const GradSum* small) const;

  const uint32_t* offsets() const { return off_.data(); }
  size_t total_bins() const { return total_bins_; }
  // Prints the feature blocks and their strategies (GBDT_PHASES=1).
  void print_blocks() const;

 private:
  const JointBlock* joint_block(size_t i) const {
    return i < joint_.size() && !joint_[i].groups.empty() ? &joint_[i] : nullptr;
  }
  void build_by_blocks(const std::vector<LevelNode*>& nodes, const GradSum* gp, size_t work);
  void build_by_rows(const std::vector<LevelNode*>& nodes, const GradSum* gp, size_t work, size_t rows_all,
                     int nt);
  void build_strategies(const BinnedMatrix* matrix, MemoryBudget* budget, bool cpu_bin_copies);

  const BinnedMatrix* matrix_ = nullptr;
  ThreadPool* pool_ = nullptr;
  MemoryBudget* budget_ = nullptr;
  int max_depth_ = 0;
  int nf_ = 0;
  size_t n_ = 0;
  std::vector<uint32_t> off_;    // per feature: its first cell
  std::vector<uint32_t> cells_;  // per feature: its cells (value bins + missing)
  size_t total_bins_ = 0;
  std::unique_ptr<HistPool> pool_hist_;
  SparseBins sparse_;             // feature blocks, elided features' row lists (sparse_bins.h)
  std::vector<JointBlock> joint_; // per block: its feature groups' records, if any (joint_bins.h)
  double hist_charged_ = 0;       // bytes of histograms charged to budget_
  double sparse_charged_ = 0;     // bytes of sparse_ and joint_ charged to budget_
  int depth_ = 0;                 // for messages: the level being built
  size_t level_nodes_ = 1;
};

}  // namespace gbdt
