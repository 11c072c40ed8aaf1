// Independent jobs run side by side: whole trainings such as the folds of a
// cross-validation, each of which uses its own threads inside.  The jobs
// run on a ThreadPool (signal-blocked, registered workers: thread_pool.h),
// the calling thread among them.
#pragma once
#include <cstddef>
#include <functional>

#include "common.h"

namespace gbdt {

// Runs fn(job, cancel) for job in [0, n) on up to `workers` threads.  A
// job's `cancel` reports true once any job has thrown or the caller's
// cancel fired; the job should then stop (Cancelled is the expected way).
// The caller's `cancel` (a backend's interrupt check, which may only run on
// the calling thread) is polled on the calling thread only: through the
// cancel of the jobs it runs, and about every 10 ms while it waits for the
// others.  Afterwards: Cancelled if the caller's cancel fired, else the
// exception of the lowest-numbered job that threw, if any.
void run_concurrent_jobs(int workers, size_t n,
                         const std::function<void(size_t, const CancelFn&)>& fn,
                         const CancelFn& cancel);

}  // namespace gbdt
