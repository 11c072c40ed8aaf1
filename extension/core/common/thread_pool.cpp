#include "thread_pool.h"

#include "parallel_policy.h"
#include "spin_wait.h"

#include <signal.h>
#include <pthread.h>

#include <algorithm>
#include <chrono>

namespace gbdt {

namespace {
std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
std::vector<WorkerGroup*>& registry() {
  static std::vector<WorkerGroup*> groups;
  return groups;
}
}  // namespace

void register_worker_group(WorkerGroup* g) {
  std::lock_guard<std::mutex> l(registry_mutex());
  registry().push_back(g);
}

void unregister_worker_group(WorkerGroup* g) noexcept {
  std::lock_guard<std::mutex> l(registry_mutex());
  auto& r = registry();
  auto it = std::find(r.begin(), r.end(), g);
  if (it != r.end()) r.erase(it);
}

void stop_all_worker_groups() noexcept {
  for (;;) {
    WorkerGroup* g;
    {
      std::lock_guard<std::mutex> l(registry_mutex());
      if (registry().empty()) return;
      g = registry().back();
    }
    g->stop_and_join();        // unregisters g
    unregister_worker_group(g);  // in case it did not
  }
}

size_t live_worker_groups() noexcept {
  std::lock_guard<std::mutex> l(registry_mutex());
  return registry().size();
}

namespace {
constexpr uint64_t kClosed = 1ull << 31;
constexpr uint64_t kInside = kClosed - 1;  // mask of the workers-inside count
inline uint32_t generation_of(uint64_t c) { return (uint32_t)(c >> 32); }
// An idle worker spins this long for the next job before it sleeps: the
// gaps between the fork/joins of a training (a split choice, a tree's
// bookkeeping) are far shorter, and waking a sleeping thread costs tens of
// microseconds.
constexpr int64_t kSpinMicros = 200;
// The caller, waiting for workers still inside a job, spins this long
// before it yields its core between checks.
constexpr int64_t kJoinSpinMicros = 50;
// finish(while_waiting): how often the waiting caller runs while_waiting.
constexpr int64_t kWhileWaitingMicros = 10000;
// A join wait longer than this, and longer than the caller's own work in the
// run, counts as a stall (stall_level()); each stall halves the sized runs'
// work twice (at most kMaxStallLevel), kCleanRunsPerLevel runs without one
// double it back once.
constexpr int64_t kStallMicros = 300;
constexpr int kMaxStallLevel = 8;
constexpr int kCleanRunsPerLevel = 64;

inline int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void spawn_signal_blocked(int count, const std::function<std::thread(int)>& make,
                          std::vector<std::thread>* out) {
  if (count <= 0) return;
  // Room first: a std::thread that could not be stored would be destroyed
  // while running (std::terminate).
  out->reserve(out->size() + (size_t)count);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  try {
    for (int i = 0; i < count; ++i) out->push_back(make(i));
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

ThreadPool::ThreadPool(int nthread) : nthread_(std::max(1, nthread)) {
  if (nthread_ == 1) return;
  try {
    register_worker_group(this);
    spawn_signal_blocked(
        nthread_ - 1, [this](int i) { return std::thread(&ThreadPool::worker, this, i + 1); },
        &threads_);
  } catch (...) {
    stop_and_join();
    throw;
  }
}

ThreadPool::~ThreadPool() { stop_and_join(); }

void ThreadPool::stop_and_join() noexcept {
  if (stop_hook_ && !threads_.empty()) stop_hook_();
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_.store(true, std::memory_order_seq_cst);
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  // run() works on the calling thread from now on (size() is unchanged).
  unregister_worker_group(this);
}

uint64_t ThreadPool::wait_for_job(uint32_t seen) {
  uint64_t c = 0;
  if (spin_until([&] {
        c = ctl_.load(std::memory_order_acquire);
        return generation_of(c) != seen || stop_.load(std::memory_order_relaxed);
      },
                 kSpinMicros))
    return c;
  // Sleep.  run() reads sleepers_ after it opens a generation and notifies
  // under mu_ when it is not zero; both sides use sequentially consistent
  // operations, so either this thread sees the new generation or run() sees
  // the sleeper (and cannot notify before this thread waits: it takes mu_).
  std::unique_lock<std::mutex> l(mu_);
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  for (;;) {
    const uint64_t c = ctl_.load(std::memory_order_seq_cst);
    if (generation_of(c) != seen || stop_.load(std::memory_order_seq_cst)) {
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
      return c;
    }
    cv_.wait(l);
  }
}

void ThreadPool::work(const std::function<void(size_t, int)>& fn, size_t n_tasks, int tid) {
  while (!failed_.load(std::memory_order_relaxed)) {
    const size_t t = next_.fetch_add(1, std::memory_order_relaxed);
    if (t >= n_tasks) return;
    try {
      fn(t, tid);
    } catch (...) {
      std::lock_guard<std::mutex> l(mu_);
      if (!error_) error_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
}

void ThreadPool::worker(int id) {
  uint32_t done = 0;  // the last generation this worker entered or saw closed
  for (;;) {
    uint64_t c = wait_for_job(done);
    if (stop_.load(std::memory_order_relaxed)) return;
    // Enter the generation unless it is closed already.
    bool entered = false;
    for (;;) {
      if (c & kClosed) break;
      if (ctl_.compare_exchange_weak(c, c + 1, std::memory_order_acquire,
                                     std::memory_order_acquire)) {
        entered = true;
        break;
      }
      // c now holds the current word (maybe a newer generation): retry.
    }
    done = generation_of(c);
    if (!entered) continue;
    // Inside: the job stays as it is until this worker leaves.
    work(*job_, n_tasks_, id);
    ctl_.fetch_sub(1, std::memory_order_release);
  }
}

void ThreadPool::open_job(size_t n_tasks, const std::function<void(size_t, int)>& fn) {
  // The previous generation is closed and empty: publish the job, then open
  // the next generation (release: a worker that enters sees the job).
  job_ = &fn;
  n_tasks_ = n_tasks;
  next_.store(0, std::memory_order_relaxed);
  failed_.store(false, std::memory_order_relaxed);
  const uint32_t gen = generation_of(ctl_.load(std::memory_order_relaxed)) + 1;
  ctl_.store((uint64_t)gen << 32, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> l(mu_);
    cv_.notify_all();
  }
}

int64_t ThreadPool::close_job(const std::function<void()>* while_waiting) {
  // Every task is claimed: close the generation and wait for the workers
  // inside to finish theirs.
  uint64_t c = ctl_.fetch_or(kClosed, std::memory_order_acq_rel) | kClosed;
  int64_t waited = 0;
  if (c & kInside) {
    const int64_t t0 = now_us();
    int64_t t = t0, called = t0;
    for (int i = 0; (c = ctl_.load(std::memory_order_acquire)) & kInside; ++i) {
      cpu_relax();
      if ((i & 63) != 63) continue;
      if ((t = now_us()) - t0 > kJoinSpinMicros) std::this_thread::yield();
      if (while_waiting != nullptr && t - called >= kWhileWaitingMicros) {
        (*while_waiting)();
        called = t;
      }
    }
    waited = now_us() - t0;
  }
  job_ = nullptr;
  return waited;
}

void ThreadPool::rethrow_job_error() {
  std::exception_ptr err;
  if (failed_.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> l(mu_);
    err = error_;
    error_ = nullptr;
  }
  if (err) std::rethrow_exception(err);
}

void ThreadPool::run(size_t n_tasks, const std::function<void(size_t, int)>& fn) {
  if (n_tasks == 0) return;
  if (nthread_ == 1 || serial_ || n_tasks == 1 || threads_.empty()) {
    for (size_t t = 0; t < n_tasks; ++t) fn(t, 0);
    return;
  }
  open_job(n_tasks, fn);
  // The calling thread works too (as thread 0).
  const int64_t t_start = now_us();
  work(fn, n_tasks, 0);
  const int64_t worked = now_us() - t_start;
  const int64_t waited = close_job();
  if (waited > kStallMicros && waited > worked) {
    stall_level_ = std::min(stall_level_ + 2, kMaxStallLevel);
    clean_runs_ = 0;
  } else if (stall_level_ > 0 && ++clean_runs_ >= kCleanRunsPerLevel) {
    --stall_level_;
    clean_runs_ = 0;
  }
  rethrow_job_error();
}

void ThreadPool::start(size_t n_tasks, const std::function<void(size_t, int)>& fn) {
  if (started_ != nullptr) finish();
  started_ = &fn;
  started_tasks_ = n_tasks;
  started_open_ = n_tasks > 0 && !threads_.empty() && !serial_;
  if (started_open_) open_job(n_tasks, fn);
}

void ThreadPool::finish() { finish(std::function<void()>()); }

void ThreadPool::finish(const std::function<void()>& while_waiting) {
  const std::function<void(size_t, int)>* fn = started_;
  if (fn == nullptr) return;
  started_ = nullptr;
  if (!started_open_) {
    for (size_t t = 0; t < started_tasks_; ++t) (*fn)(t, 0);
    return;
  }
  started_open_ = false;
  work(*fn, started_tasks_, 0);
  close_job(while_waiting ? &while_waiting : nullptr);
  rethrow_job_error();
}

void ThreadPool::run_blocks(size_t n, const std::function<void(size_t, size_t, int)>& fn) {
  size_t nb = std::min<size_t>((size_t)size(), std::max<size_t>(n, 1));
  run(nb, [&](size_t b, int tid) {
    size_t begin = n * b / nb, end = n * (b + 1) / nb;
    if (begin < end) fn(begin, end, tid);
  });
}

void ThreadPool::run_sized(size_t work, size_t n_tasks, const std::function<void(size_t, int)>& fn) {
  if (threads_for_work(work >> stall_level_, size()) <= 1) {
    for (size_t t = 0; t < n_tasks; ++t) fn(t, 0);
    return;
  }
  run(n_tasks, fn);
}

void ThreadPool::run_blocks_sized(size_t work, size_t n,
                                  const std::function<void(size_t, size_t, int)>& fn) {
  const size_t nb = std::min<size_t>(blocks_for_work(work >> stall_level_, size()),
                                     std::max<size_t>(n, 1));
  if (nb <= 1) {
    if (n > 0) fn(0, n, 0);
    return;
  }
  run(nb, [&](size_t b, int tid) {
    size_t begin = n * b / nb, end = n * (b + 1) / nb;
    if (begin < end) fn(begin, end, tid);
  });
}

}  // namespace gbdt
