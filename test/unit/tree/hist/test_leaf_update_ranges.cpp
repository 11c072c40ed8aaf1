// Leaf values into the margins by ranges of row numbers
// (leaf_update.h): row_span_in_range finds a node's rows in a range
// of row numbers in increasing and decreasing row lists, and
// update_leaves_by_row_range gives every row of every node its one
// addition, from tasks whose rows never share a 16-row block with another
// task's, at 1, 2 and 3 threads, for nodes in either order, empty nodes and
// rows in no node (not sampled).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "tree/hist/leaf_update.h"
#include "common/thread_pool.h"

using namespace gbdt;

namespace {

// The positions of idx[b..e) whose rows are in [r0, r1), by a plain scan.
void scan_span(const std::vector<uint32_t>& idx, size_t b, size_t e, size_t r0, size_t r1,
               std::vector<size_t>* pos) {
  pos->clear();
  for (size_t i = b; i < e; ++i)
    if (idx[i] >= r0 && idx[i] < r1) pos->push_back(i);
}

}  // namespace

TEST(LeafUpdateRanges, SpanIsTheScannedPositionsInBothOrders) {
  std::mt19937 rng(7);
  std::vector<size_t> pos;
  for (int trial = 0; trial < 400; ++trial) {
    const size_t n = 1 + rng() % 300;
    std::vector<uint32_t> rows;
    for (uint32_t r = 0; r < n; ++r)
      if (rng() % 3 != 0) rows.push_back(r);
    if (trial % 2) std::reverse(rows.begin(), rows.end());
    std::vector<uint32_t> idx(5, 999999u);  // the node's segment starts at 5
    idx.insert(idx.end(), rows.begin(), rows.end());
    idx.insert(idx.end(), 3, 0u);
    const size_t b = 5, e = 5 + rows.size();
    for (int q = 0; q < 20; ++q) {
      size_t r0 = rng() % (n + 2), r1 = rng() % (n + 2);
      if (r0 > r1) std::swap(r0, r1);
      size_t sb, se;
      row_span_in_range(idx.data(), b, e, r0, r1, &sb, &se);
      scan_span(idx, b, e, r0, r1, &pos);
      if (pos.empty()) {
        EXPECT_EQ(sb, se) << "trial " << trial << " [" << r0 << ", " << r1 << ")";
        EXPECT_GE(sb, b);
        EXPECT_LE(se, e);
      } else {
        EXPECT_EQ(sb, pos.front()) << "trial " << trial << " [" << r0 << ", " << r1 << ")";
        EXPECT_EQ(se, pos.back() + 1) << "trial " << trial << " [" << r0 << ", " << r1 << ")";
      }
    }
  }
}

TEST(LeafUpdateRanges, EveryRowOnceAndTasksNeverShareABlockOfRows) {
  std::mt19937 rng(11);
  for (int nthread : {1, 2, 3}) {
    ThreadPool pool(nthread);
    for (size_t n : {(size_t)1, (size_t)17, (size_t)1000, (size_t)100003}) {
      // Rows into 40 nodes (some empty), a tenth of them in none.
      const size_t nodes = 40;
      std::vector<std::vector<uint32_t>> of(nodes);
      for (uint32_t r = 0; r < n; ++r)
        if (rng() % 10 != 0) of[rng() % (nodes - 3)].push_back(r);  // nodes 37-39 empty
      // One row list, node after node; every other node in decreasing order.
      std::vector<uint32_t> idx;
      std::vector<RowSpan> spans;
      std::vector<size_t> begin(nodes);
      for (size_t i = 0; i < nodes; ++i) begin[i] = idx.size(), idx.insert(idx.end(), of[i].begin(), of[i].end());
      for (size_t i = 0; i < nodes; ++i) {
        if (i % 2) std::reverse(idx.begin() + begin[i], idx.begin() + begin[i] + of[i].size());
        spans.push_back(RowSpan{idx.data(), begin[i], begin[i] + of[i].size()});
      }
      std::vector<int> added(n, 0);
      std::vector<int> expect(n, 0);
      for (size_t i = 0; i < nodes; ++i)
        for (uint32_t r : of[i]) expect[r] = (int)i + 1;
      // Each call's rows: which 16-row blocks it touched, by which task.
      std::mutex mu;
      std::vector<std::set<size_t>> blocks_of_thread_call;
      std::atomic<int> calls{0};
      const size_t work = n * 1000;  // worth every thread
      update_leaves_by_row_range(
          pool, n, nodes, [&](size_t i) { return spans[i]; }, work, [&](size_t i, size_t b, size_t e) {
            ASSERT_LE(spans[i].begin, b);
            ASSERT_LE(e, spans[i].end);
            ASSERT_LT(b, e);
            ++calls;
            std::set<size_t> blk;
            for (size_t j = b; j < e; ++j) {
              added[idx[j]] += (int)i + 1;
              blk.insert(idx[j] / 16);
            }
            std::lock_guard<std::mutex> g(mu);
            blocks_of_thread_call.push_back(std::move(blk));
          });
      for (size_t r = 0; r < n; ++r) ASSERT_EQ(added[r], expect[r]) << "row " << r << " of " << n;
      // A call runs within one task's range of rows: all its 16-row blocks
      // are in that range (ranges start at n t / nt rounded down to 16), so
      // no two tasks write the same block.
      const int nt = threads_for_work(work, pool.size());
      auto range_of = [&](size_t block) {
        int t = 0;
        for (int u = 1; u < nt; ++u)
          if ((n * (size_t)u / (size_t)nt) / 16 <= block) t = u;
        return t;
      };
      for (const std::set<size_t>& blk : blocks_of_thread_call) {
        const int t = range_of(*blk.begin());
        for (size_t x : blk) {
          EXPECT_EQ(range_of(x), t) << "block " << x << " of " << n << " rows, " << nthread << " threads";
        }
      }
      if (nt > 1) {
        EXPECT_GT(calls.load(), (int)(nodes - 3)) << "nodes split between tasks";
      } else {
        EXPECT_LE(calls.load(), (int)(nodes - 3)) << "one call per non-empty node";
      }
    }
  }
}
