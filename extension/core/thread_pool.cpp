#include "thread_pool.h"

#include "parallel_policy.h"

#include <signal.h>
#include <pthread.h>

#include <algorithm>

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

ThreadPool::ThreadPool(int nthread) : nthread_(std::max(1, nthread)) {
  if (nthread_ == 1) return;
  // Workers inherit the creating thread's signal mask: block everything while
  // spawning so signals keep going to the backend's main thread.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  try {
    register_worker_group(this);
    for (int i = 1; i < nthread_; ++i) threads_.emplace_back(&ThreadPool::worker, this, i);
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    stop_and_join();
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

ThreadPool::~ThreadPool() { stop_and_join(); }

void ThreadPool::stop_and_join() noexcept {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  // run() works on the calling thread from now on (size() is unchanged).
  unregister_worker_group(this);
}

void ThreadPool::worker(int id) {
  unsigned long seen = 0;
  for (;;) {
    const std::function<void(size_t, int)>* job;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      ++active_;
    }
    for (;;) {
      size_t t;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (next_ >= n_tasks_ || error_) break;
        t = next_++;
      }
      try {
        (*job)(t, id);
      } catch (...) {
        std::lock_guard<std::mutex> l(mu_);
        if (!error_) error_ = std::current_exception();
      }
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      --active_;
      ++finished_;
    }
    done_cv_.notify_all();
  }
}

void ThreadPool::run(size_t n_tasks, const std::function<void(size_t, int)>& fn) {
  if (n_tasks == 0) return;
  if (nthread_ == 1 || n_tasks == 1 || threads_.empty()) {
    for (size_t t = 0; t < n_tasks; ++t) fn(t, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    job_ = &fn;
    n_tasks_ = n_tasks;
    next_ = 0;
    finished_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  cv_.notify_all();
  // The calling thread works too (as thread 0).
  for (;;) {
    size_t t;
    {
      std::lock_guard<std::mutex> l(mu_);
      if (next_ >= n_tasks_ || error_) break;
      t = next_++;
    }
    try {
      fn(t, 0);
    } catch (...) {
      std::lock_guard<std::mutex> l(mu_);
      if (!error_) error_ = std::current_exception();
    }
  }
  std::exception_ptr err;
  {
    std::unique_lock<std::mutex> l(mu_);
    done_cv_.wait(l, [&] { return finished_ == (size_t)(nthread_ - 1); });
    err = error_;
    error_ = nullptr;
    job_ = nullptr;
  }
  if (err) std::rethrow_exception(err);
}

void ThreadPool::run_blocks(size_t n, const std::function<void(size_t, size_t, int)>& fn) {
  size_t nb = std::min<size_t>((size_t)nthread_, std::max<size_t>(n, 1));
  run(nb, [&](size_t b, int tid) {
    size_t begin = n * b / nb, end = n * (b + 1) / nb;
    if (begin < end) fn(begin, end, tid);
  });
}

void ThreadPool::run_sized(size_t work, size_t n_tasks, const std::function<void(size_t, int)>& fn) {
  if (threads_for_work(work, nthread_) <= 1) {
    for (size_t t = 0; t < n_tasks; ++t) fn(t, 0);
    return;
  }
  run(n_tasks, fn);
}

void ThreadPool::run_blocks_sized(size_t work, size_t n,
                                  const std::function<void(size_t, size_t, int)>& fn) {
  const size_t nb = std::min<size_t>((size_t)threads_for_work(work, nthread_), std::max<size_t>(n, 1));
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
