// run_concurrent_jobs: every job once, the caller's cancel polled on the
// calling thread only, the failing job's own error rather than the cancels
// it caused, and no worker left behind.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/concurrent_jobs.h"
#include "common/thread_pool.h"

namespace gbdt {

TEST(ConcurrentJobs, RunsEveryJobOnce) {
  for (int workers : {1, 2, 4}) {
    std::vector<std::atomic<int>> ran(13);
    run_concurrent_jobs(workers, ran.size(),
                        [&](size_t k, const CancelFn& cancel) {
                          EXPECT_FALSE(cancel());
                          ++ran[k];
                        },
                        CancelFn());
    for (size_t k = 0; k < ran.size(); ++k) EXPECT_EQ(ran[k].load(), 1) << "job " << k;
  }
  EXPECT_EQ(live_worker_groups(), 0u);
}

TEST(ConcurrentJobs, CallerCancelStopsEveryJob) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> polls{0}, started{0};
  bool wrong_thread = false;
  CancelFn cancel = [&] {
    if (std::this_thread::get_id() != caller) wrong_thread = true;
    return ++polls > 5;
  };
  // Long jobs that stop only through their cancel: the caller's polls
  // (while it runs a job and while it waits) must reach all of them.
  EXPECT_THROW(run_concurrent_jobs(3, 8,
                                   [&](size_t, const CancelFn& c) {
                                     ++started;
                                     while (!c()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                     throw Cancelled();
                                   },
                                   cancel),
               Cancelled);
  EXPECT_FALSE(wrong_thread);
  EXPECT_LE(started.load(), 3);  // jobs not begun before the cancel never start
  EXPECT_EQ(live_worker_groups(), 0u);
}

TEST(ConcurrentJobs, RethrowsTheFailureNotTheCancelsItCaused) {
  for (int workers : {1, 3}) {
    try {
      run_concurrent_jobs(workers, 6,
                          [&](size_t k, const CancelFn& c) {
                            if (k == 2) throw std::runtime_error("job 2 failed");
                            for (int i = 0; i < 2000 && !c(); ++i)
                              std::this_thread::sleep_for(std::chrono::microseconds(100));
                            if (c()) throw Cancelled();
                          },
                          CancelFn());
      ADD_FAILURE() << "no exception, workers " << workers;
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "job 2 failed");
    }
  }
  EXPECT_EQ(live_worker_groups(), 0u);
}

}  // namespace gbdt
