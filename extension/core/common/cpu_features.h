// Run-time checks of the x86 vector instructions the CPU paths may use
// (each vector path keeps its scalar twin for CPUs without them).  One
// answer per process; __builtin_cpu_init first: the library may be
// dlopen'ed (PostgreSQL), so a constructor need not have filled the CPU
// model yet.
//
// GBDT_CPU_ISA=avx2 (no AVX-512) or GBDT_CPU_ISA=scalar (neither) in the
// environment of the process (the server's, a test program's) caps the
// paths used, to measure and test on one machine the code that CPUs without
// AVX-512 or AVX2 run.  Every vector path computes what its scalar twin
// does, so results never depend on it (test/bench/model_hashes.sh --check
// passes under each cap); any other value is ignored.
#pragma once
#include <cstdlib>
#include <cstring>

namespace gbdt {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// 2: no cap, 1: AVX2 at most, 0: scalar only.
inline int cpu_isa_cap() {
  static const int v = [] {
    const char* e = std::getenv("GBDT_CPU_ISA");
    if (e != nullptr && std::strcmp(e, "scalar") == 0) return 0;
    if (e != nullptr && std::strcmp(e, "avx2") == 0) return 1;
    return 2;
  }();
  return v;
}

inline bool cpu_has_avx2() {
  static const bool v = [] {
    __builtin_cpu_init();
    return cpu_isa_cap() >= 1 && __builtin_cpu_supports("avx2") != 0;
  }();
  return v;
}

inline bool cpu_has_avx512f() {
  static const bool v = [] {
    __builtin_cpu_init();
    return cpu_isa_cap() >= 2 && __builtin_cpu_supports("avx512f") != 0;
  }();
  return v;
}
#else
inline bool cpu_has_avx2() { return false; }
inline bool cpu_has_avx512f() { return false; }
#endif

}  // namespace gbdt
