// How many threads a fork-join step gets, from its size: a fork/join with
// the workers awake costs about a microsecond (thread_pool.h), but the
// threads then read data the other one wrote (cache lines moved between
// cores), so a step whose work is smaller than kMinWorkPerThread (measured
// on 10k-100k-row tables: 10-25 us did best, 100 us left small tables at one
// thread) runs on the calling thread alone, and a step gets one thread per
// kMinWorkPerThread of work at most.  Work is the
// caller's estimate in rough nanoseconds of one thread's time (row x feature
// histogram updates, rows partitioned, bins scanned, ...).  The engine's
// results never depend on the number of threads (integer sums, reductions in
// a fixed order), so this changes timings only.
#pragma once
#include <algorithm>
#include <cstddef>

namespace gbdt {

constexpr size_t kMinWorkPerThread = 15000;  // ~15 us

// Threads worth using for `work` with at most `nthread`.
inline int threads_for_work(size_t work, int nthread) {
  const size_t t = work / kMinWorkPerThread;
  return (int)std::max<size_t>(1, std::min<size_t>((size_t)std::max(1, nthread), t));
}

// Blocks for a step of `work` split into contiguous blocks
// (ThreadPool::run_blocks_sized): one per thread that threads_for_work
// gives, and up to kBlocksPerThread per thread while each block keeps
// kMinWorkPerThread of work, so that a thread that runs slower during the
// step (a busy core, a virtual CPU held back) takes fewer blocks.
constexpr size_t kBlocksPerThread = 4;

inline size_t blocks_for_work(size_t work, int nthread) {
  const size_t nt = (size_t)threads_for_work(work, nthread);
  if (nt <= 1) return 1;
  return std::max(nt, std::min(work / kMinWorkPerThread, kBlocksPerThread * nt));
}

// Rough per-unit costs (ns) of the CPU backend's steps.
constexpr size_t kCostHistCell = 2;     // one row x feature histogram update
constexpr size_t kCostHistBin = 2;      // zeroing one histogram bin and merging it into another
constexpr size_t kCostScanBin = 4;      // one bin of a split scan (subtraction + gains)
constexpr size_t kCostPartitionRow = 4; // one row routed by a split (row-major matrix)
// The same from the feature-major column with AVX2 or AVX-512
// (row_partition.h; 0.6-1 ns per row measured on beijing, 330k x 16).
constexpr size_t kCostRouteRowVector = 1;
constexpr size_t kCostGradientRow = 10; // one row's gradient (exp included)

// Row ranges, each with a histogram of its own merged afterwards, for a node
// of `rows` rows in a histogram step of `rows_all` rows over `nt` threads
// (nf features, `bins` histogram bins).  Up to nt ranges: the node's share of
// the step in threads, rounded up (the root: nt; a level of many small
// nodes: 1 each, the nodes being the tasks), while each range's work is at
// least 8 times the cost of its extra histogram and half a thread's minimum.
// Up to kHistPartsPerThread * nt ranges where each one's work is still 32
// times its extra histogram's cost: the threads take ranges as they finish,
// so a thread that runs slower during the step (a busy core, a virtual CPU
// held back) or a larger node among smaller ones leaves less idle time at
// the join (beijing, 330k x 16, 2 threads: the root's two halves took 0.19
// and 0.31 s over 100 trees in one run, the other way round in the next).
constexpr size_t kHistPartsPerThread = 4;

inline size_t hist_row_parts(size_t rows, size_t rows_all, size_t nf, size_t bins, int nt) {
  if (nt <= 1 || rows == 0 || rows_all == 0) return 1;
  const size_t work = rows * nf * kCostHistCell;
  size_t p = (rows * (size_t)nt + rows_all - 1) / rows_all;
  const size_t min_part = std::max(kMinWorkPerThread / 2, 8 * bins * kCostHistBin);
  p = std::min(std::min(p, work / min_part), (size_t)nt);
  const size_t most = kHistPartsPerThread * (size_t)nt;
  size_t fine = (rows * most + rows_all - 1) / rows_all;
  fine = std::min(std::min(fine, work / std::max(min_part, 32 * bins * kCostHistBin)), most);
  return std::max<size_t>(1, std::max(p, fine));
}

// Pieces of a node of `rows` rows in a step over `rows_all` rows on `nt`
// threads (partition, last-level update): about two per thread in all, so
// that dynamic hand-out evens out uneven nodes, none under min_rows.
inline size_t row_pieces(size_t rows, size_t rows_all, int nt, size_t min_rows) {
  if (nt <= 1 || rows <= min_rows || rows_all == 0) return 1;
  const size_t p = (rows * 2 * (size_t)nt + rows_all - 1) / rows_all;
  return std::max<size_t>(1, std::min(p, rows / min_rows));
}

// Features per split-scan task for `groups` node groups on `nt` threads:
// 32, or fewer so that there are about two tasks per thread.
inline int scan_block_features(int nf, size_t groups, int nt) {
  const int fb = 32;
  if (nt <= 1 || groups == 0 || groups >= 2 * (size_t)nt) return fb;
  const size_t blocks = (2 * (size_t)nt + groups - 1) / groups;
  return std::max(1, std::min(fb, (int)(((size_t)nf + blocks - 1) / blocks)));
}

}  // namespace gbdt
