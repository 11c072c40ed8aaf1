// The margin update of the CPU drivers: the last level of a depth-wise
// tree fused with the update (LeafUpdater::last_level), the leaves' values
// added over their row segments (LeafUpdater::leaves) and the rows outside
// the round's sample walked through the tree (LeafUpdater::unsampled).
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

#include "../categorical_split.h"
#include "../../common/parallel_policy.h"
#include "row_partitioner.h"
#include "../../common/thread_pool.h"
#include "../apply_split.h"
#include "../tree.h"
#include "../../data/binned_matrix.h"
#include "level_node.h"
#include <vector>

namespace gbdt {

// Rows idx[b..e) of a node split on the feature whose bins are col[row * d]
// (1- or 2-byte entries) get vl (left) or vr (right), as route sends them,
// added to margins[row * K + k].
template <typename BinT>
void add_last_level_values(const BinT* col, size_t d, const RowRoute& route, const uint32_t* idx, size_t b,
                           size_t e, float vl, float vr, float* margins, int K, int k) {
  if (d == 1 && K == 1) {  // a feature-major column (rows < 2^31: row_partitioner.h)
    add_leaf_values_column(col, route, idx, b, e, vl, vr, margins);
    return;
  }
  add_leaf_values_rows(col, d, route, idx, b, e, vl, vr, margins, K, k);
}

// A node's rows: positions [begin, end) of its row list.
struct RowSpan {
  const uint32_t* rows;
  size_t begin, end;
};

// Runs fn(node, begin, end) over the rows of n nodes (span(i): a RowSpan,
// rows in increasing or decreasing order; empty nodes skipped) that add
// their leaf values to the margins of a table of n_rows rows, in tasks by
// ranges of row numbers, one per thread used (`work`: parallel_policy.h),
// rather than by node.  The rows of a node are spread over the whole
// table, so threads at different nodes would write the same cache lines of
// the margins (16 rows each) at once and move them back and forth between
// cores (grid 240k x 14, depth 6, 2 threads: 0.07 s of 0.4 s, more than at
// 1 thread); a range of rows is one thread's alone.  [begin, end) is then
// the node's part of its row list with row numbers in the task's range
// (row_span_in_range).  Each row still gets its one addition per tree: the
// margins have the same bits.
template <typename Span, typename Fn>
void update_leaves_by_row_range(ThreadPool& pool, size_t n_rows, size_t n, Span span, size_t work, Fn fn) {
  const int nt = threads_for_work(work, pool.size());
  if (nt <= 1) {
    for (size_t i = 0; i < n; ++i) {
      const RowSpan s = span(i);
      if (s.begin < s.end) fn(i, s.begin, s.end);
    }
    return;
  }
  const size_t align = 16;  // rows per range boundary
  pool.run_sized(work, (size_t)nt, [&](size_t t, int) {
    const size_t r0 = t == 0 ? 0 : (n_rows * t / (size_t)nt) / align * align;
    const size_t r1 = t + 1 == (size_t)nt ? n_rows : (n_rows * (t + 1) / (size_t)nt) / align * align;
    for (size_t i = 0; i < n; ++i) {
      const RowSpan s = span(i);
      size_t b, e;
      row_span_in_range(s.rows, s.begin, s.end, r0, r1, &b, &e);
      if (b < e) fn(i, b, e);
    }
  });
}

// The margins of output group k (margins[row * K + k], n_rows rows) as a
// tree's rows reach their leaves.  Every row gets one float addition per
// tree, whichever of the ways below adds it.
class LeafUpdater {
 public:
  LeafUpdater(const BinnedMatrix& matrix, const Cuts& cuts, ThreadPool& pool, const RowPartitioner* part,
              float* margins, size_t n_rows, int K, int k)
      : m_(matrix), c_(cuts), pool_(pool), part_(part), margins_(margins), n_(n_rows), K_(K), k_(k) {}

  // The split nodes at depth max_depth - 1 (their splits applied: vl[i],
  // vr[i] their children's values): each of their rows, routed by the
  // split, gets its child's value, with no partition.
  void last_level(const std::vector<LevelNode*>& nodes, const std::vector<SplitCandidate>& splits,
                  const std::vector<const CatWords*>& split_sets, const std::vector<float>& vl,
                  const std::vector<float>& vr) {
    size_t rows_all = 0;
    for (const LevelNode* ln : nodes) rows_all += ln->end - ln->begin;
    m_.visit([&](auto* bins) {  // uint8_t or uint16_t entries
      update_leaves_by_row_range(
          pool_, n_, nodes.size(), [&](size_t i) { return RowSpan{nodes[i]->rows, nodes[i]->begin, nodes[i]->end}; },
          rows_all * part_->route_cost(), [&](size_t i, size_t b, size_t e) {
            const SplitCandidate& s = splits[i];
            size_t cs;
            const auto* col = part_->feature_column(bins, s.feature, &cs);
            add_last_level_values(col, cs, row_route(s, c_.nbins(s.feature), split_sets[i]), nodes[i]->rows, b, e,
                                  vl[i], vr[i], margins_, K_, k_);
          });
    });
  }

  // Leaf i's rows (span(i): RowSpan) get value(i); `work` as for
  // update_leaves_by_row_range.
  template <typename Span, typename Value>
  void leaves(size_t n, Span span, Value value, size_t work) {
    update_leaves_by_row_range(pool_, n_, n, span, work, [&](size_t i, size_t b, size_t e) {
      const float v = value(i);
      const uint32_t* rows = span(i).rows;
      for (size_t j = b; j < e; ++j) margins_[(size_t)rows[j] * K_ + k_] += v;
    });
  }

  // The rows with in_sample[r] == 0 get the value of the leaf they fall
  // into (Tree::leaf_of_bins); `work`: parallel_policy.h.
  void unsampled(const Tree& tree, const uint8_t* in_sample, size_t work) {
    const int nf = m_.n_features;
    std::vector<int> missing_bin((size_t)nf);
    for (int f = 0; f < nf; ++f) missing_bin[f] = c_.nbins(f);
    m_.visit([&](auto* bins) {  // uint8_t or uint16_t entries
      pool_.run_blocks_sized(work, n_, [&](size_t b, size_t e, int) {
        for (size_t r = b; r < e; ++r) {
          if (in_sample[r]) continue;
          const int32_t nd = tree.leaf_of_bins(bins + r * (size_t)nf, missing_bin.data());
          margins_[r * K_ + k_] += tree.value[nd];
        }
      });
    });
  }

 private:
  const BinnedMatrix& m_;
  const Cuts& c_;
  ThreadPool& pool_;
  const RowPartitioner* part_;  // for last_level
  float* margins_;
  size_t n_;
  int K_, k_;
};

}  // namespace gbdt
