// A small fork-join pool of std::threads.  Workers block all signals (they
// run inside a PostgreSQL backend), never call back into PostgreSQL, and are
// joined when the pool is destroyed.  Exceptions thrown by tasks are captured
// and rethrown on the calling thread.  A fork/join costs well under a
// microsecond when the workers are awake: tasks are claimed with an atomic
// counter, the caller never waits for a worker that has not started (it runs
// the tasks itself), and an idle worker spins briefly (kSpinMicros) for the
// next job before it sleeps on a condition variable.
//
// Every group of worker threads of the engine (ThreadPool, BatchPredictor)
// is a WorkerGroup, listed in one process-wide registry while it has live
// threads.  stop_all_worker_groups() stops and joins them all: the backend
// calls it when it exits without unwinding (FATAL: terminate, client gone,
// shutdown), before the memory the workers read is freed.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gbdt {

class WorkerGroup {
 public:
  // Stops the group's threads (abandoning any work in flight) and joins
  // them; the group then runs everything on its owner's thread.  Called on
  // the owner's thread, never while the owner is inside one of the group's
  // methods.  Idempotent.
  virtual void stop_and_join() noexcept = 0;

 protected:
  ~WorkerGroup() = default;
};

// Registry of groups with live threads.  register_worker_group may throw
// std::bad_alloc.
void register_worker_group(WorkerGroup* g);
void unregister_worker_group(WorkerGroup* g) noexcept;
// Stops and joins every registered group (see WorkerGroup::stop_and_join).
void stop_all_worker_groups() noexcept;
// Groups registered now (tests).
size_t live_worker_groups() noexcept;

// The one way the engine starts worker threads: `count` threads, make(i)
// for i in [0, count) each returning a started std::thread, appended to
// *out, all spawned with every signal blocked.  Threads inherit the
// creating thread's signal mask, and inside a PostgreSQL backend signals
// must keep going to the backend's own thread, never to a worker.  The
// caller's mask is restored before returning or throwing; when a spawn
// throws, the threads already started are in *out (the caller stops and
// joins them).
void spawn_signal_blocked(int count, const std::function<std::thread(int)>& make,
                          std::vector<std::thread>* out);

class ThreadPool final : public WorkerGroup {
 public:
  explicit ThreadPool(int nthread);
  ~ThreadPool();
  void stop_and_join() noexcept override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Threads a job may use: 1 in serial mode.
  int size() const { return serial_ ? 1 : nthread_; }
  // Serial mode: every job runs on the calling thread (as thread 0) and
  // size() reads 1, so the steps' policies plan for one thread, until it is
  // set back; the workers stay (asleep).  For a training whose steps are
  // too small to gain from threads (thread_choice.h).  Timing only: results
  // never depend on it.  Not while a started job is open.
  void set_serial(bool serial) { serial_ = serial; }
  // Runs fn(task, thread) for task in [0, n_tasks); tasks are handed out
  // dynamically; returns when all are done.
  void run(size_t n_tasks, const std::function<void(size_t, int)>& fn);
  // The same in two halves: start() hands the tasks to the workers and
  // returns at once (without workers: nothing runs yet), the caller does
  // other work, and finish() runs the tasks left on the calling thread,
  // waits for the workers' and rethrows a task's exception.  fn must stay
  // valid until finish(); at most one started job (start() finishes the
  // previous one first); run() and the sized runs only when none is.
  void start(size_t n_tasks, const std::function<void(size_t, int)>& fn);
  void finish();
  // finish() that, while it waits for the workers' last tasks, calls
  // while_waiting about every 10 ms (a caller's cancel check: it may tell
  // the tasks in flight to stop, and must not throw).
  void finish(const std::function<void()>& while_waiting);
  // Called by stop_and_join() before it joins the workers, on the thread
  // that stops the pool: the owner's way to tell long tasks in flight to
  // stop early (scoring blocks check a flag).  Must not throw.
  void set_stop_hook(std::function<void()> hook) { stop_hook_ = std::move(hook); }
  // Static split of [0, n) into one contiguous block per thread: fn(begin, end, thread).
  void run_blocks(size_t n, const std::function<void(size_t, size_t, int)>& fn);
  // The same with the degree of parallelism chosen from the step's size
  // (parallel_policy.h): `work` below one thread's worth runs on the calling
  // thread alone (as thread 0), and run_blocks_sized makes up to
  // kBlocksPerThread blocks per thread used, each a thread's minimum of work
  // at least (blocks_for_work: threads take blocks as they finish, so one
  // that runs slower leaves less idle time at the join).
  void run_sized(size_t work, size_t n_tasks, const std::function<void(size_t, int)>& fn);
  void run_blocks_sized(size_t work, size_t n,
                        const std::function<void(size_t, size_t, int)>& fn);
  // Back-off of the sized runs on a busy machine: a run whose caller waited
  // for a worker longer than it worked itself (the worker was descheduled in
  // the middle of a task) raises it, and the sized runs then count their
  // work as work >> stall_level() (fewer, larger parallel steps); clean runs
  // lower it again.  Timing only: results never depend on it.
  int stall_level() const { return stall_level_; }

 private:
  void worker(int id);
  // run()'s parts: publish a job and open its generation; close it and wait
  // for the workers inside (returns the microseconds waited); rethrow the
  // first exception of its tasks.
  void open_job(size_t n_tasks, const std::function<void(size_t, int)>& fn);
  int64_t close_job(const std::function<void()>* while_waiting = nullptr);
  void rethrow_job_error();
  // Claims and runs tasks of the current job until none is left.
  void work(const std::function<void(size_t, int)>& fn, size_t n_tasks, int tid);
  // Waits (spinning, then sleeping) for a generation other than `seen` or
  // for stop; returns the control word seen.
  uint64_t wait_for_job(uint32_t seen);
  int nthread_;
  std::vector<std::thread> threads_;
  // The job of the current generation: written by run() before it opens
  // the generation in ctl_, read by the workers that entered it.
  const std::function<void(size_t, int)>* job_ = nullptr;
  size_t n_tasks_ = 0;
  std::atomic<size_t> next_{0};  // next task to claim
  // Control word: generation (high 32 bits), closed flag (bit 31: no worker
  // may enter any more), workers inside the job (low 31 bits).  run() opens
  // a generation, works on it, closes it and waits until no worker is
  // inside: a worker that wakes up late does not hold the caller up.
  std::atomic<uint64_t> ctl_{0};
  std::atomic<int> sleepers_{0};  // workers blocked in cv_
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  // The job of start(), until finish() (owner's thread only).
  const std::function<void(size_t, int)>* started_ = nullptr;
  size_t started_tasks_ = 0;
  bool started_open_ = false;  // handed to the workers (else finish() runs it)
  int stall_level_ = 0;  // owner's thread only
  bool serial_ = false;  // owner's thread only
  int clean_runs_ = 0;
  std::mutex mu_;  // guards the sleep/wake handshake and error_
  std::condition_variable cv_;
  std::exception_ptr error_;
  std::function<void()> stop_hook_;
};

}  // namespace gbdt
