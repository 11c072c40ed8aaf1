// How many threads a fork-join step gets, from its size: waking a worker and
// waiting for it costs microseconds (far more on a loaded machine), so a step
// whose work is smaller than that runs on the calling thread alone, and a
// step gets one thread per kMinWorkPerThread of work at most.  Work is the
// caller's estimate in rough nanoseconds of one thread's time (row x feature
// histogram updates, rows partitioned, bins scanned, ...).  The engine's
// results never depend on the number of threads (integer sums, reductions in
// a fixed order), so this changes timings only.
#pragma once
#include <algorithm>
#include <cstddef>

namespace gbdt {

constexpr size_t kMinWorkPerThread = 100000;  // ~100 us

// Threads worth using for `work` with at most `nthread`.
inline int threads_for_work(size_t work, int nthread) {
  const size_t t = work / kMinWorkPerThread;
  return (int)std::max<size_t>(1, std::min<size_t>((size_t)std::max(1, nthread), t));
}

// Rough per-unit costs (ns) of the CPU backend's steps.
constexpr size_t kCostHistCell = 2;     // one row x feature histogram update
constexpr size_t kCostScanBin = 4;      // one bin of a split scan (subtraction + gains)
constexpr size_t kCostPartitionRow = 4; // one row routed by a split
constexpr size_t kCostGradientRow = 10; // one row's gradient (exp included)

}  // namespace gbdt
