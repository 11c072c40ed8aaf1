// Scoring under attack: model identity by all bytes, cancellation inside a
// batch (between trees, on the calling thread's callback), and the
// process-wide registry of worker groups a backend stops at exit.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "model/model_identity.h"
#include "common/interruptible.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "common/thread_pool.h"

using gbdt::BatchPredictor;
using gbdt::Model;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

Model many_trees(int rounds, int depth) {
  Data D = gbdt_test::make_data(4000, 6, Task::kRegression, 0.02, 71);
  gbdt::TrainParams p = gbdt_test::params_for(Task::kRegression, rounds, 2);
  p.max_depth = depth;
  p.eta = 0.01;
  return gbdt_test::train(D, p);
}

}  // namespace

TEST(ModelIdentity, SampleOfBytesIsNotIdentity) {
  // Same length, same first 16 and last 16 bytes (where the format keeps
  // its checksum), one byte different in the middle.
  std::vector<uint8_t> a(100), b;
  for (size_t i = 0; i < a.size(); ++i) a[i] = (uint8_t)(i * 7 + 3);
  b = a;
  b[50] ^= 0x01;
  EXPECT_FALSE(gbdt::same_model_bytes(a.data(), a.size(), b.data(), b.size()));
  b[50] ^= 0x01;
  EXPECT_TRUE(gbdt::same_model_bytes(a.data(), a.size(), b.data(), b.size()));
  EXPECT_FALSE(gbdt::same_model_bytes(a.data(), a.size(), b.data(), b.size() - 1));
  EXPECT_TRUE(gbdt::same_model_bytes(nullptr, 0, b.data(), 0));
  EXPECT_FALSE(gbdt::same_model_bytes(nullptr, 0, b.data(), 1));
}

TEST(ScoringCancel, StopsInsideOneBlock) {
  // One block of rows (the calling thread scores it alone) over 300 trees:
  // the cancel callback is polled inside the block (every 65536 node visits
  // of a CancelPoller: 300 trees x 8 levels x 256 rows is 9 budgets), and a
  // cancel it reports stops the block at once.
  Model m = many_trees(300, 8);
  ASSERT_EQ(m.trees.size(), 300u);
  Data T = gbdt_test::make_data(256, 6, Task::kRegression, 0.02, 72);
  std::vector<float> x = T.row_major();
  std::vector<double> ref(T.n), out(T.n);
  gbdt::predict_batch(m, x.data(), T.n, ref.data(), 1);

  BatchPredictor bp(m, 1);
  int calls = 0;
  bp.set_cancel([&] { return ++calls, false; });
  bp.start(x.data(), T.n, out.data(), nullptr);
  bp.finish();
  EXPECT_GE(calls, (int)(300 * 8 * 256 / gbdt::CancelPoller::kDefaultUnitsPerPoll))
      << "polled inside the block";
  for (size_t i = 0; i < T.n; ++i) ASSERT_EQ(out[i], ref[i]) << "row " << i;

  calls = 0;
  bp.set_cancel([&] { return ++calls >= 2; });
  bp.start(x.data(), T.n, out.data(), nullptr);
  EXPECT_THROW(bp.finish(), gbdt::Cancelled);
  EXPECT_EQ(calls, 2) << "stopped at the poll that reported the cancel";

  // The predictor is usable again.
  bp.set_cancel(gbdt::CancelFn());
  bp.start(x.data(), T.n, out.data(), nullptr);
  bp.finish();
  for (size_t i = 0; i < T.n; ++i) ASSERT_EQ(out[i], ref[i]) << "row " << i;
}

TEST(ScoringCancel, PredictBatchWithWorkers) {
  Model m = many_trees(100, 8);
  Data T = gbdt_test::make_data(20000, 6, Task::kRegression, 0.02, 73);
  std::vector<float> x = T.row_major();
  std::vector<double> out(T.n);
  std::atomic<int> calls{0};
  EXPECT_THROW(gbdt::predict_batch(m, x.data(), T.n, out.data(), 3, [&] { return ++calls > 3; }),
               gbdt::Cancelled);
  // Without a cancel, the same call completes and equals the plain one.
  std::vector<double> ref(T.n);
  gbdt::predict_batch(m, x.data(), T.n, ref.data(), 1);
  gbdt::predict_batch(m, x.data(), T.n, out.data(), 3, [] { return false; });
  for (size_t i = 0; i < T.n; ++i) ASSERT_EQ(out[i], ref[i]) << "row " << i;
}

TEST(WorkerRegistry, StopAllJoinsPredictorsAndPools) {
  ASSERT_EQ(gbdt::live_worker_groups(), 0u);
  Model m = many_trees(200, 8);
  Data T = gbdt_test::make_data(30000, 6, Task::kRegression, 0.02, 74);
  std::vector<float> x = T.row_major();
  std::vector<double> out(T.n);
  {
    BatchPredictor bp(m, 3);
    gbdt::ThreadPool pool(3);
    bp.start(x.data(), T.n, out.data(), nullptr);  // workers scoring in the background
    EXPECT_EQ(gbdt::live_worker_groups(), 2u);
    // What the backend's exit callback does while the owner is elsewhere.
    gbdt::stop_all_worker_groups();
    EXPECT_EQ(gbdt::live_worker_groups(), 0u);
    // The batch was stopped: its owner hears Cancelled, never garbage.
    EXPECT_THROW(bp.finish(), gbdt::Cancelled);
    // Both keep working on their owner's thread only.
    std::vector<double> ref(T.n);
    gbdt::predict_batch(m, x.data(), T.n, ref.data(), 1);
    bp.start(x.data(), T.n, out.data(), nullptr);
    bp.finish();
    for (size_t i = 0; i < T.n; i += 97) ASSERT_EQ(out[i], ref[i]) << "row " << i;
    std::atomic<int> ran{0};
    pool.run(50, [&](size_t, int tid) {
      EXPECT_EQ(tid, 0);
      ++ran;
    });
    EXPECT_EQ(ran.load(), 50);
    EXPECT_EQ(gbdt::live_worker_groups(), 0u);
  }
  EXPECT_EQ(gbdt::live_worker_groups(), 0u);
}

TEST(WorkerRegistry, PrestartedWorkersScoreManySmallBatchesAndStop) {
  // prestart() starts the workers before any batch (predict_table, on a
  // table of more than a page); they spin, then sleep, between batches
  // (spin_wait.h).  Hundreds of batches of a few blocks back to back, some
  // started while the workers spin and some after they have gone to sleep,
  // give the plain scores each time; the workers stop with the predictor or
  // with stop_all_worker_groups.
  ASSERT_EQ(gbdt::live_worker_groups(), 0u);
  Model m = many_trees(30, 6);
  Data T = gbdt_test::make_data(1500, 6, Task::kRegression, 0.02, 75);
  std::vector<float> x = T.row_major();
  std::vector<double> ref(T.n), out(T.n);
  gbdt::predict_batch(m, x.data(), T.n, ref.data(), 1);
  {
    BatchPredictor one(m, 1);
    one.prestart();  // nothing to start
    EXPECT_EQ(gbdt::live_worker_groups(), 0u);
  }
  {
    BatchPredictor bp(m, 3);
    bp.prestart();
    bp.prestart();  // already started
    EXPECT_EQ(gbdt::live_worker_groups(), 1u);
    for (int b = 0; b < 300; ++b) {
      if (b % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // workers asleep
      const size_t n = 257 + (size_t)(b * 37) % (T.n - 257);
      std::fill(out.begin(), out.end(), -1.0);
      bp.start(x.data(), n, out.data(), nullptr);
      bp.finish();
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], ref[i]) << "batch " << b << ", row " << i;
      ASSERT_EQ(out[n], -1.0) << "batch " << b;
    }
    gbdt::stop_all_worker_groups();
    EXPECT_EQ(gbdt::live_worker_groups(), 0u);
    bp.prestart();  // stopped: stays on the calling thread
    EXPECT_EQ(gbdt::live_worker_groups(), 0u);
    bp.start(x.data(), T.n, out.data(), nullptr);
    bp.finish();
    for (size_t i = 0; i < T.n; ++i) ASSERT_EQ(out[i], ref[i]) << "row " << i;
  }
  {
    BatchPredictor idle(m, 2);
    idle.prestart();  // destroyed without a batch: its worker is joined
    EXPECT_EQ(gbdt::live_worker_groups(), 1u);
  }
  EXPECT_EQ(gbdt::live_worker_groups(), 0u);
}
