// Run-time checks of the x86 vector instructions the CPU paths may use
// (each vector path keeps its scalar twin for CPUs without them).  One
// answer per process; __builtin_cpu_init first: the library may be
// dlopen'ed (PostgreSQL), so a constructor need not have filled the CPU
// model yet.
#pragma once

namespace gbdt {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
inline bool cpu_has_avx2() {
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return v;
}

inline bool cpu_has_avx512f() {
  static const bool v = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return v;
}
#else
inline bool cpu_has_avx2() { return false; }
inline bool cpu_has_avx512f() { return false; }
#endif

}  // namespace gbdt
