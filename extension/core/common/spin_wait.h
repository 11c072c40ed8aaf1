// Brief busy-waiting before a thread blocks: waking a thread that sleeps
// on a condition variable takes tens of microseconds (more on a virtual
// machine whose idle vCPU has halted), while the engine's fork/joins and
// scoring batches are often only that far apart.  Used by ThreadPool and
// BatchPredictor.
#pragma once
#include <chrono>
#include <cstdint>

namespace gbdt {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Checks done() until it holds or `micros` microseconds have passed (the
// clock is read every 64 checks); returns whether it held.
template <typename Done>
bool spin_until(Done done, int64_t micros) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0;; ++i) {
    if (done()) return true;
    cpu_relax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() - t0 > std::chrono::microseconds(micros))
      return done();
  }
}

}  // namespace gbdt
