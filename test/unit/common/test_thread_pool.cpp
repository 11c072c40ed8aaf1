// ThreadPool (thread_pool.h): every task runs exactly once per run, task
// errors reach the caller and leave the pool usable, workers that went to
// sleep between runs wake up for the next one, serial mode runs everything
// on the caller; the size rules of parallel_policy.h that split small
// tables' steps between threads, and thread_choice.h's choice of one thread
// for a small training.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/parallel_policy.h"
#include "common/thread_choice.h"
#include "common/thread_pool.h"

using namespace gbdt;

TEST(ThreadPool, EveryTaskOnceOverManyRuns) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> hits(64);
  for (int run = 0; run < 20000; ++run) {
    const size_t n = 1 + (size_t)(run % 64);
    for (size_t i = 0; i < n; ++i) hits[i].store(0);
    pool.run(n, [&](size_t t, int tid) {
      ASSERT_GE(tid, 0);
      ASSERT_LT(tid, 3);
      hits[t].fetch_add(1);
    });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(1, hits[i].load()) << "run " << run << " task " << i;
  }
}

TEST(ThreadPool, ErrorsReachTheCallerAndThePoolStaysUsable) {
  ThreadPool pool(2);
  for (int rep = 0; rep < 200; ++rep) {
    EXPECT_THROW(pool.run(16, [&](size_t t, int) {
      if (t == (size_t)(rep % 16)) throw std::runtime_error("task failed");
    }),
                 std::runtime_error);
    std::atomic<int> ran{0};
    pool.run(16, [&](size_t, int) { ++ran; });
    EXPECT_EQ(16, ran.load());
  }
}

TEST(ThreadPool, SleepingWorkersWakeForTheNextRun) {
  ThreadPool pool(2);
  std::atomic<int> by_worker{0};
  for (int run = 0; run < 20; ++run) {
    // Longer than the workers' spin: they are asleep when the run starts.
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    std::atomic<int> ran{0};
    pool.run(8, [&](size_t, int tid) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      if (tid != 0) ++by_worker;
      ++ran;
    });
    EXPECT_EQ(8, ran.load());
  }
  // 20 runs of 8 half-millisecond tasks: a worker that wakes takes some.
  EXPECT_GT(by_worker.load(), 0);
}

TEST(ThreadPool, StopAndJoinThenRunsOnTheCaller) {
  ThreadPool pool(4);
  std::atomic<int> ran{0};
  pool.run(10, [&](size_t, int) { ++ran; });
  pool.stop_and_join();
  pool.run(10, [&](size_t, int tid) {
    EXPECT_EQ(0, tid);
    ++ran;
  });
  EXPECT_EQ(20, ran.load());
}

// start()/finish(): a worker takes the job while the caller does other
// work (the training loader's raw pass: it reads the next batch); finish()
// runs what is left, waits, rethrows; without workers the job runs in
// finish(); a second start() finishes the first job.
TEST(ThreadPool, StartedJobsRunWhileTheCallerWorks) {
  ThreadPool pool(2);
  int by_worker = 0;
  for (int rep = 0; rep < 200; ++rep) {
    std::atomic<int> ran{0};
    std::atomic<bool> worker{false};
    const std::function<void(size_t, int)> job = [&](size_t, int tid) {
      if (tid != 0) worker.store(true);
      ++ran;
    };
    pool.start(1, job);
    // The caller's own work: long enough for the worker to take the task.
    const auto t0 = std::chrono::steady_clock::now();
    while (!worker.load() && std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(20)) {
    }
    pool.finish();
    ASSERT_EQ(1, ran.load());
    by_worker += worker.load() ? 1 : 0;
    pool.finish();  // nothing in flight: no-op
    ASSERT_EQ(1, ran.load());
  }
  EXPECT_GT(by_worker, 150);
  const std::function<void(size_t, int)> bad = [](size_t t, int) {
    if (t == 3) throw std::runtime_error("task failed");
  };
  pool.start(8, bad);
  EXPECT_THROW(pool.finish(), std::runtime_error);
  std::atomic<int> ran{0};
  const std::function<void(size_t, int)> count = [&](size_t, int) { ++ran; };
  pool.start(5, count);
  pool.start(7, count);  // finishes the first
  EXPECT_GE(ran.load(), 5);
  pool.finish();
  EXPECT_EQ(12, ran.load());
  pool.run(4, count);
  EXPECT_EQ(16, ran.load());

  ThreadPool alone(1);
  std::atomic<int> inline_ran{0};
  const std::function<void(size_t, int)> one = [&](size_t, int tid) {
    EXPECT_EQ(0, tid);
    ++inline_ran;
  };
  alone.start(3, one);
  EXPECT_EQ(0, inline_ran.load());  // no worker: nothing runs before finish()
  alone.finish();
  EXPECT_EQ(3, inline_ran.load());
}

// A worker held up inside a task (as when it is descheduled on a busy
// machine) makes the caller wait longer than it worked: the pool backs off,
// and a sized step worth a few threads then runs on the caller alone.
TEST(ThreadPool, StallsBackOffSizedRuns) {
  ThreadPool pool(2);
  EXPECT_EQ(0, pool.stall_level());
  for (int rep = 0; rep < 2; ++rep) {
    std::atomic<bool> worker_in{false};
    pool.run(2, [&](size_t, int tid) {
      if (tid != 0) {
        worker_in = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return;
      }
      // The caller returns at once, once the worker holds the other task.
      const auto t0 = std::chrono::steady_clock::now();
      while (!worker_in && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2))
        std::this_thread::yield();
    });
  }
  ASSERT_GT(pool.stall_level(), 1);
  std::atomic<int> off_caller{0};
  pool.run_sized(3 * kMinWorkPerThread, 64, [&](size_t, int tid) { off_caller += tid != 0; });
  EXPECT_EQ(0, off_caller.load());
  // Clean runs bring it back down.
  for (int i = 0; i < 2000 && pool.stall_level() > 0; ++i) pool.run(4, [](size_t, int) {});
  EXPECT_EQ(0, pool.stall_level());
}

TEST(ParallelPolicy, HistogramRowParts) {
  // One thread, or a node too small for a histogram of its own: one part.
  EXPECT_EQ(1u, hist_row_parts(26000, 26000, 14, 800, 1));
  EXPECT_EQ(1u, hist_row_parts(100, 100, 14, 800, 2));
  // The root of a 26k-row, 14-feature table (census income) on 2 threads:
  // four ranges per thread, each still 32 times the cost of its histogram.
  EXPECT_EQ(8u, hist_row_parts(26000, 26000, 14, 800, 2));
  // Never more than four per thread.
  EXPECT_EQ(8u, hist_row_parts(1000000, 1000000, 28, 7000, 2));
  // A level of two nodes, 60/40: each by its share of the eight.
  EXPECT_EQ(5u, hist_row_parts(60000, 100000, 14, 800, 2));
  EXPECT_EQ(4u, hist_row_parts(40000, 100000, 14, 800, 2));
  // More bins: the ranges beyond one per thread no longer pay for their
  // histograms, the root is split in two only.
  EXPECT_EQ(2u, hist_row_parts(26000, 26000, 14, 5000, 2));
  // Many bins make extra histograms dear: the node stays whole.
  EXPECT_EQ(1u, hist_row_parts(26000, 26000, 14, 1u << 20, 2));
}

TEST(ParallelPolicy, RowPiecesAndScanBlocks) {
  EXPECT_EQ(1u, row_pieces(26000, 26000, 1, 1000));
  EXPECT_EQ(4u, row_pieces(26000, 26000, 2, 1000));   // two per thread
  EXPECT_EQ(2u, row_pieces(2500, 2500, 2, 1000));     // none under min_rows
  EXPECT_EQ(1u, row_pieces(800, 2500, 2, 1000));
  EXPECT_EQ(1u, row_pieces(100, 26000, 2, 10));       // a small node among large ones
  // Split scan: 32 features per task, fewer when the level has few nodes.
  EXPECT_EQ(32, scan_block_features(14, 1, 1));
  EXPECT_EQ(4, scan_block_features(14, 1, 2));   // the root: 4 tasks
  EXPECT_EQ(7, scan_block_features(14, 2, 2));
  EXPECT_EQ(32, scan_block_features(14, 4, 2));  // enough nodes
  EXPECT_EQ(1, scan_block_features(3, 1, 8));
}

// Serial mode: size() reads 1 and every kind of run (plain, blocks, sized,
// started) runs on the calling thread as thread 0; set back, the workers
// take tasks again.
TEST(ThreadPool, SerialModeRunsOnTheCaller) {
  ThreadPool pool(3);
  const std::thread::id me = std::this_thread::get_id();
  pool.set_serial(true);
  EXPECT_EQ(1, pool.size());
  std::atomic<int> ran{0}, elsewhere{0};
  const std::function<void(size_t, int)> task = [&](size_t, int tid) {
    if (tid != 0 || std::this_thread::get_id() != me) ++elsewhere;
    ++ran;
  };
  for (int rep = 0; rep < 50; ++rep) {
    pool.run(16, task);
    pool.run_sized((size_t)1 << 30, 16, task);
    pool.run_blocks(1000, [&](size_t, size_t, int tid) { task(0, tid); });
    pool.run_blocks_sized((size_t)1 << 30, 1000, [&](size_t, size_t, int tid) { task(0, tid); });
    pool.start(4, task);
    pool.finish();
  }
  EXPECT_EQ(0, elsewhere.load());
  EXPECT_EQ(50 * (16 + 16 + 1 + 1 + 4), ran.load());  // one block each: one thread
  pool.set_serial(false);
  EXPECT_EQ(3, pool.size());
  std::atomic<int> by_worker{0};
  for (int rep = 0; rep < 200 && by_worker.load() == 0; ++rep)
    pool.run(8, [&](size_t, int tid) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (tid != 0) ++by_worker;
    });
  EXPECT_GT(by_worker.load(), 0);
}

// thread_choice.h on given round times: one thread is kept only when its
// two compared rounds (4 against 2, 6 against 8) were both faster, never
// for a training whose first round took kChooseRoundSeconds or more, never
// with one thread in all; the pool is serial exactly in rounds 3-6 and,
// once chosen, for the rest.
TEST(ThreadChoice, KeepsOneThreadOnlyWhenBothPairsSaySo) {
  struct Case {
    double first;      // round 0
    double t[8];       // rounds 1-8
    bool one;          // expected choice
  };
  const double ms = 1e-3;
  const Case cases[] = {
      {0.3 * ms, {0.3 * ms, 0.30 * ms, 0.5 * ms, 0.27 * ms, 0.27 * ms, 0.26 * ms, 0.5 * ms, 0.29 * ms}, true},
      {0.3 * ms, {0.3 * ms, 0.30 * ms, 0.5 * ms, 0.31 * ms, 0.27 * ms, 0.26 * ms, 0.5 * ms, 0.29 * ms}, false},
      {0.3 * ms, {0.3 * ms, 0.30 * ms, 0.5 * ms, 0.27 * ms, 0.27 * ms, 0.30 * ms, 0.5 * ms, 0.29 * ms}, false},
      {0.3 * ms, {0.3 * ms, 0.20 * ms, 0.5 * ms, 0.27 * ms, 0.27 * ms, 0.26 * ms, 0.5 * ms, 0.20 * ms}, false},
      {2.5 * ms, {0.3 * ms, 0.30 * ms, 0.5 * ms, 0.27 * ms, 0.27 * ms, 0.26 * ms, 0.5 * ms, 0.29 * ms}, false},
  };
  int k = 0;
  for (const Case& c : cases) {
    ThreadPool pool(2);
    ThreadChoice choice;
    for (int r = 0; r < 30; ++r) {
      choice.before_round(&pool);
      const bool serial_round = pool.size() == 1;
      const bool tried = c.first < kChooseRoundSeconds;
      if (r >= 3 && r <= 6) {
        EXPECT_EQ(tried, serial_round) << "case " << k << " round " << r;
      }
      if (r == 0 || r == 1 || r == 2 || r == 7 || r == 8) {
        EXPECT_FALSE(serial_round) << "case " << k << " round " << r;
      }
      if (r > 8) {
        EXPECT_EQ(c.one, serial_round) << "case " << k << " round " << r;
      }
      choice.after_round(&pool, r == 0 ? c.first : r <= 8 ? c.t[r - 1] : 0.1 * ms);
    }
    EXPECT_EQ(c.one, choice.chose_one_thread()) << "case " << k;
    ++k;
  }
  // One thread in all: nothing to choose.
  ThreadPool one(1);
  ThreadChoice choice;
  for (int r = 0; r < 12; ++r) {
    choice.before_round(&one);
    choice.after_round(&one, 0.1 * ms);
  }
  EXPECT_FALSE(choice.chose_one_thread());
}
