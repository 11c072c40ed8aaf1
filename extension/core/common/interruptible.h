// One discipline for every engine loop whose length depends on its input
// (rows, pairs, quantiles, nodes, categories, trees): the loop counts the
// work it has done through a CancelPoller, which asks the caller's cancel
// callback again after a fixed amount of work.  A unit of work is whatever
// one iteration costs (one pair, one node visit, one row); the default
// budget keeps the time between two polls well under ~10 ms for units of
// up to a few hundred nanoseconds, and polling costs one branch otherwise.
//
// The poller runs on the calling thread only (the cancel callback may not be
// called from a worker thread).  Worker threads check a shared flag instead:
// see CancelFlag below.
#pragma once

#include <atomic>
#include <cstdint>

#include "common.h"

namespace gbdt {

class CancelPoller {
 public:
  // Work units between two polls of the cancel callback.
  static constexpr uint64_t kDefaultUnitsPerPoll = uint64_t(1) << 16;

  explicit CancelPoller(const CancelFn& cancel,
                        uint64_t units_per_poll = kDefaultUnitsPerPoll)
      : cancel_(cancel ? &cancel : nullptr),
        units_per_poll_(units_per_poll == 0 ? 1 : units_per_poll) {}

  // Records `units` of work done; when the budget is used up, polls the
  // cancel callback and throws Cancelled if it reports a pending cancel.
  void tick(uint64_t units = 1) {
    if (cancel_ == nullptr) return;
    done_ += units;
    if (done_ >= units_per_poll_) {
      done_ = 0;
      poll_now();
    }
  }

  // Polls at once (before and after a step that cannot be split).
  void poll_now() {
    if (cancel_ != nullptr && (*cancel_)()) throw Cancelled();
  }

 private:
  const CancelFn* cancel_;
  uint64_t units_per_poll_;
  uint64_t done_ = 0;
};

// A flag the calling thread raises when its poller saw a cancel, read by
// worker threads at their own loop boundaries so they stop early too.
class CancelFlag {
 public:
  void raise() { raised_.store(true, std::memory_order_relaxed); }
  bool raised() const { return raised_.load(std::memory_order_relaxed); }
  // Lowers it for the next piece of work (no thread may still be reading
  // it for the previous one).
  void clear() { raised_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> raised_{false};
};

}  // namespace gbdt
