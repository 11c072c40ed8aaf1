// One thread or all of them for a whole training whose rounds are small.
// Each step of a round takes threads by its own size (parallel_policy.h),
// but on a small table the steps that do take two threads hand data to each
// other across cores (a step's output read by the next step on the other
// core costs ~10 ns per cache line on the 2-vCPU Xeon of the benchmarks,
// where a fork/join of two tasks costs ~0.7 us), and that can cost more than
// the threads save: low-cardinality tables of 2k-10k rows trained 5-10 %
// slower on 2 threads than on 1, in every stretch of the training.  So a
// training whose first round, on all threads, takes under
// kChooseRoundSeconds runs rounds 1-2 on all threads, 3-6 on one and 7-8 on
// all again, and keeps one thread for the rest when round 4 was faster than
// round 2 and round 6 faster than round 8: each compared round is the second
// of its setting (the first after a switch pays for moving the data between
// cores), the two pairs are mirror images, so that the rounds' own trend
// (early trees are larger) cancels, and a round that the machine interrupted
// can only keep all threads.  Larger trainings never try one thread.  Timing
// only: results never depend on the number of threads.
#pragma once
#include "thread_pool.h"

namespace gbdt {

constexpr double kChooseRoundSeconds = 0.002;

class ThreadChoice {
 public:
  // Sets the pool for the round about to run.
  void before_round(ThreadPool* pool) {
    if (done_) return;
    if (round_ == 0 && pool->size() <= 1) {
      done_ = true;
      return;
    }
    pool->set_serial(round_ >= 3 && round_ <= 6);
  }
  // Records the round's wall time and, after the ninth, decides.
  void after_round(ThreadPool* pool, double seconds) {
    if (done_) return;
    if (round_ == 0 && seconds >= kChooseRoundSeconds) done_ = true;
    if (round_ == 2 || round_ == 4 || round_ == 6 || round_ == 8) t_[round_ / 2 - 1] = seconds;
    if (round_ == 8) {
      done_ = true;
      serial_ = t_[1] < t_[0] && t_[2] < t_[3];
    }
    ++round_;
    pool->set_serial(done_ && serial_);
  }
  // Whether the training settled on one thread (GBDT_PHASES prints it).
  bool chose_one_thread() const { return done_ && serial_; }

 private:
  int round_ = 0;
  bool done_ = false;
  bool serial_ = false;
  double t_[4] = {};  // rounds 2 (all threads), 4, 6 (one), 8 (all)
};

}  // namespace gbdt
