#include "concurrent_jobs.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <vector>

#include "thread_pool.h"

namespace gbdt {

void run_concurrent_jobs(int workers, size_t n,
                         const std::function<void(size_t, const CancelFn&)>& fn,
                         const CancelFn& cancel) {
  if (n == 0) return;
  std::vector<std::exception_ptr> errors(n);
  std::atomic<bool> stop{false};
  bool cancelled = false;  // calling thread only
  // The caller's cancel, polled on the calling thread.
  auto poll_caller = [&] {
    if (!cancelled && cancel && cancel()) {
      cancelled = true;
      stop.store(true, std::memory_order_relaxed);
    }
  };
  const CancelFn on_worker = [&stop] { return stop.load(std::memory_order_relaxed); };
  const CancelFn on_caller = [&] {
    poll_caller();
    return stop.load(std::memory_order_relaxed);
  };
  const std::function<void(size_t, int)> job = [&](size_t k, int tid) {
    if (stop.load(std::memory_order_relaxed)) return;
    try {
      fn(k, tid == 0 ? on_caller : on_worker);
    } catch (...) {
      errors[k] = std::current_exception();
      stop.store(true, std::memory_order_relaxed);
    }
  };
  const int w = (int)std::min<size_t>(n, (size_t)(workers < 1 ? 1 : workers));
  std::unique_ptr<ThreadPool> pool(new ThreadPool(w));
  pool->start(n, job);
  pool->finish(poll_caller);
  pool.reset();
  if (cancelled) throw Cancelled();
  // A job that stopped because another one failed threw Cancelled: the
  // failure is the first error that is not a cancel.
  bool any = false;
  for (const std::exception_ptr& e : errors) {
    if (!e) continue;
    any = true;
    try {
      std::rethrow_exception(e);
    } catch (const Cancelled&) {
    }
  }
  if (any) throw Cancelled();
}

}  // namespace gbdt
