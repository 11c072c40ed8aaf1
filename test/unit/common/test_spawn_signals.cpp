// spawn_signal_blocked (thread_pool.h), the one way the engine starts
// worker threads: every worker starts with all signals blocked (inside a
// PostgreSQL backend, signals must reach the backend's own thread), and the
// caller's signal mask is the same afterwards, also when a spawn throws.
#include <gtest/gtest.h>

#include <signal.h>
#include <pthread.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/thread_pool.h"

using namespace gbdt;

namespace {

sigset_t current_mask() {
  sigset_t m;
  pthread_sigmask(SIG_BLOCK, nullptr, &m);
  return m;
}

bool all_blocked(const sigset_t& m) {
  for (int sig : {SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGHUP})
    if (!sigismember(&m, sig)) return false;
  return true;
}

bool same_mask(const sigset_t& a, const sigset_t& b) {
  for (int sig = 1; sig < NSIG; sig++)
    if (sigismember(&a, sig) != sigismember(&b, sig)) return false;
  return true;
}

}  // namespace

TEST(SpawnSignalBlocked, WorkersBlockEverySignalAndTheCallerKeepsItsMask) {
  const sigset_t before = current_mask();
  ASSERT_FALSE(sigismember(&before, SIGUSR1));  // the test runner blocks nothing
  std::atomic<int> blocked{0};
  std::vector<std::thread> threads;
  spawn_signal_blocked(
      3,
      [&](int) {
        return std::thread([&] {
          if (all_blocked(current_mask())) blocked++;
        });
      },
      &threads);
  ASSERT_EQ(threads.size(), 3u);
  for (auto& t : threads) t.join();
  EXPECT_EQ(blocked.load(), 3);
  EXPECT_TRUE(same_mask(before, current_mask()));
}

TEST(SpawnSignalBlocked, AFailedSpawnRestoresTheMaskAndKeepsTheStartedThreads) {
  const sigset_t before = current_mask();
  std::vector<std::thread> threads;
  EXPECT_THROW(spawn_signal_blocked(
                   3,
                   [&](int i) {
                     if (i == 1) throw std::runtime_error("no thread");
                     return std::thread([] {});
                   },
                   &threads),
               std::runtime_error);
  ASSERT_EQ(threads.size(), 1u);
  threads[0].join();
  EXPECT_TRUE(same_mask(before, current_mask()));
}

TEST(SpawnSignalBlocked, NoThreadsForACountOfZero) {
  std::vector<std::thread> threads;
  spawn_signal_blocked(0, [](int) { return std::thread([] {}); }, &threads);
  EXPECT_TRUE(threads.empty());
}
