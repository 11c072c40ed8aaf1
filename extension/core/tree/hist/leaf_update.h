// The last level of a depth-wise tree (it saves the last level's partition).
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
#include "split_route.h"
#include "../../common/thread_pool.h"
#include "../apply_split.h"

namespace gbdt {

// Rows idx[b..e) of a node split on the feature whose bins are col[row * d]
// (1- or 2-byte entries) get vl (left) or vr (right), as route sends them,
// added to margins[row * K + k].
template <typename BinT>
void add_last_level_values(const BinT* col, size_t d, const RowRoute& route, const uint32_t* idx, size_t b,
                           size_t e, float vl, float vr, float* margins, int K, int k) {
  if (d == 1 && K == 1) {  // a feature-major column (rows < 2^31: row_partition.h)
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

}  // namespace gbdt
