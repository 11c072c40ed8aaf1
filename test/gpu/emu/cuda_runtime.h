// CPU emulation of the small part of the CUDA runtime and device language
// that cuda/cuda_backend.cu and cuda/kernels.cuh use, so that the CUDA
// backend's host logic AND its kernels can be executed (slowly) on a machine
// without a GPU: `make build/gpu_test_emu` compiles cuda_backend.cu as plain
// C++ with -DGBDT_CUDA_EMULATION and this directory first on the include path.
//
// Execution model: blocks run one after another; the threads of a block run
// as cooperative fibers (ucontext) when the kernel synchronizes
// (__syncthreads, warp shuffles, CUB block reductions), else one after
// another.  __shared__ is `static` (one block at a time), atomics are plain
// read-modify-writes (fibers are never preempted).  This checks indexing,
// task tables, partition, reductions and the host orchestration; it cannot
// find real-GPU races or memory-model issues (compute-sanitizer does that).
#pragma once
#include <setjmp.h>
#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#define GBDT_CUDA_EMULATION_ACTIVE 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define CUDART_VERSION 13000

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

namespace gbdt_emu {
struct Idx {
  unsigned x = 0, y = 0, z = 0;
};
inline Idx& tidx() { static Idx v; return v; }
inline Idx& bidx() { static Idx v; return v; }
inline Idx& bdim() { static Idx v; return v; }
inline Idx& gdim() { static Idx v; return v; }
}  // namespace gbdt_emu
#define threadIdx (::gbdt_emu::tidx())
#define blockIdx (::gbdt_emu::bidx())
#define blockDim (::gbdt_emu::bdim())
#define gridDim (::gbdt_emu::gdim())

// ---- runtime API ----
typedef int cudaError_t;
// The codes of the real runtime (driver_types.h) for the errors emulated.
enum : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
};
typedef void* cudaStream_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
#define cudaStreamNonBlocking 1

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  int multiProcessorCount;
  int major, minor;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes = 0;
};

namespace gbdt_emu {
// Emulated device memory budget (GBDT_EMU_DEVICE_MIB, default 16 GiB).
inline size_t& mem_used() { static size_t v = 0; return v; }
inline size_t mem_total() {
  const char* e = std::getenv("GBDT_EMU_DEVICE_MIB");
  return (e ? (size_t)std::atoll(e) : 16384) << 20;
}
// Shared memory per block of the emulated device (an H100/H200): 48 KiB
// without opting in, up to sharedMemPerBlockOptin (227 KiB; GBDT_EMU_SMEM_KIB)
// for a kernel whose cudaFuncAttributeMaxDynamicSharedMemorySize was raised.
constexpr size_t kDefaultSmem = 48 * 1024;
inline size_t smem_optin() {
  const char* e = std::getenv("GBDT_EMU_SMEM_KIB");  // small values force feature groups
  return (e ? (size_t)std::atoll(e) : 227) * 1024;
}
// Per kernel: its raised dynamic shared-memory limit (default kDefaultSmem).
inline std::vector<std::pair<const void*, size_t>>& smem_limits() {
  static std::vector<std::pair<const void*, size_t>> v;
  return v;
}
inline size_t dyn_smem_limit(const void* k) {
  for (auto& kv : smem_limits())
    if (kv.first == k) return kv.second;
  return kDefaultSmem;
}
// The runtime's per-thread "last error": set by a failed launch, returned
// and reset by cudaGetLastError (launch-configuration errors are not sticky).
inline int& last_error() { static int v = 0; return v; }
inline void set_error(int e) {
  if (last_error() == 0) last_error() = e;
}
inline std::vector<unsigned char>& dyn_smem() { static std::vector<unsigned char> v; return v; }
struct Alloc {
  size_t bytes;
};
}  // namespace gbdt_emu

inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess                     ? "no error"
         : e == cudaErrorMemoryAllocation     ? "out of memory"
         : e == cudaErrorInvalidConfiguration ? "invalid configuration argument"
                                              : "invalid argument";
}
inline const char* cudaGetErrorName(cudaError_t e) {
  return e == cudaSuccess                     ? "cudaSuccess"
         : e == cudaErrorMemoryAllocation     ? "cudaErrorMemoryAllocation"
         : e == cudaErrorInvalidConfiguration ? "cudaErrorInvalidConfiguration"
                                              : "cudaErrorInvalidValue";
}
inline cudaError_t cudaGetLastError() {
  int e = gbdt_emu::last_error();
  gbdt_emu::last_error() = 0;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return gbdt_emu::last_error(); }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
inline cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
inline cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, "gbdt CPU emulation of a CUDA device");
  p->totalGlobalMem = gbdt_emu::mem_total();
  p->sharedMemPerBlock = gbdt_emu::kDefaultSmem;
  p->sharedMemPerBlockOptin = gbdt_emu::smem_optin();
  p->multiProcessorCount = 4;
  p->major = 9;
  p->minor = 0;
  return cudaSuccess;
}
template <class F>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F*) {
  a->sharedSizeBytes = 0;
  return cudaSuccess;
}
// As the device: a dynamic shared-memory limit above the opt-in maximum
// (minus the kernel's static shared memory, 0 here) is an invalid value.
template <class F>
cudaError_t cudaFuncSetAttribute(F* k, cudaFuncAttribute a, int v) {
  if (a != cudaFuncAttributeMaxDynamicSharedMemorySize || v < 0 ||
      (size_t)v > gbdt_emu::smem_optin()) {
    gbdt_emu::set_error(cudaErrorInvalidValue);
    return cudaErrorInvalidValue;
  }
  for (auto& kv : gbdt_emu::smem_limits())
    if (kv.first == (const void*)k) {
      kv.second = (size_t)v;
      return cudaSuccess;
    }
  gbdt_emu::smem_limits().push_back({(const void*)k, (size_t)v});
  return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t* free_b, size_t* total_b) {
  *total_b = gbdt_emu::mem_total();
  *free_b = *total_b > gbdt_emu::mem_used() ? *total_b - gbdt_emu::mem_used() : 0;
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void** p, size_t bytes) {
  if (gbdt_emu::mem_used() + bytes > gbdt_emu::mem_total()) return cudaErrorMemoryAllocation;
  // Header keeps the size; memory is filled with garbage like real device memory.
  unsigned char* m = (unsigned char*)std::malloc(bytes + 16);
  if (!m) return cudaErrorMemoryAllocation;
  std::memcpy(m, &bytes, sizeof bytes);
  std::memset(m + 16, 0xA5, bytes);
  gbdt_emu::mem_used() += bytes;
  *p = m + 16;
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* p) {
  if (!p) return cudaSuccess;
  unsigned char* m = (unsigned char*)p - 16;
  size_t bytes;
  std::memcpy(&bytes, m, sizeof bytes);
  gbdt_emu::mem_used() -= bytes;
  std::free(m);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t = nullptr) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* d, int v, size_t n, cudaStream_t = nullptr) {
  std::memset(d, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = (void*)0x1;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

// ---- device builtins ----
inline float __fadd_rn(float a, float b) { return a + b; }
inline long long __double_as_longlong(double d) {
  long long v;
  std::memcpy(&v, &d, 8);
  return v;
}
namespace gbdt_emu {
// Fault injection for testing the failure reports (GBDT_EMU_FAULT_ATOMIC=N:
// the N-th 64-bit atomicAdd of the process adds 2^56 too many).
inline long long& fault_countdown() {
  static long long v = [] {
    const char* e = std::getenv("GBDT_EMU_FAULT_ATOMIC");
    return e && *e ? std::atoll(e) : -1LL;
  }();
  return v;
}
}  // namespace gbdt_emu
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  unsigned long long o = *p;
  long long& c = gbdt_emu::fault_countdown();
  if (c >= 0 && c-- == 0) v += 1ULL << 56;
  *p = o + v;
  return o;
}
inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
  unsigned long long o = *p;
  if (v > o) *p = v;
  return o;
}
using std::fabs;

// ---- fibers ----
// Started with makecontext/swapcontext, switched with _setjmp/_longjmp (no
// signal-mask system calls).  Blocked fibers are skipped by the scheduler; a
// pass with no runnable fiber is a barrier deadlock (divergent barriers).
namespace gbdt_emu {

struct Fiber {
  ucontext_t ctx;
  jmp_buf jb;
  bool started = false, done = false;
  int wait_kind = 0;  // 0 runnable, 1 block barrier, 2 warp barrier
  unsigned long wait_gen = 0;
  unsigned tid = 0;
};

struct BlockRun {
  jmp_buf main_jb;
  std::vector<Fiber> fibers;
  int current = -1;
  unsigned live = 0;
  unsigned arrived = 0;
  unsigned long gen = 0;
  std::vector<unsigned> w_arrived;
  std::vector<unsigned long> w_gen;
  std::vector<unsigned> w_live;
  std::vector<uint64_t> slots;  // shuffle exchange, one per thread
  void* arg = nullptr;
};

inline BlockRun*& run() { static BlockRun* r = nullptr; return r; }

inline void yield_to_main() {
  BlockRun* r = run();
  Fiber& f = r->fibers[r->current];
  if (!_setjmp(f.jb)) _longjmp(r->main_jb, 1);
  tidx().x = f.tid;
}

inline void syncthreads() {
  BlockRun* r = run();
  if (!r) throw std::logic_error("emulation: __syncthreads in a kernel launched without fibers");
  unsigned long g = r->gen;
  if (++r->arrived == r->live) {
    r->arrived = 0;
    ++r->gen;
    return;
  }
  Fiber& f = r->fibers[r->current];
  f.wait_kind = 1;
  f.wait_gen = g;
  while (r->gen == g) yield_to_main();
  f.wait_kind = 0;
}

inline void syncwarp() {
  BlockRun* r = run();
  if (!r) throw std::logic_error("emulation: warp shuffle in a kernel launched without fibers");
  unsigned w = tidx().x / 32;
  unsigned long g = r->w_gen[w];
  if (++r->w_arrived[w] == r->w_live[w]) {
    r->w_arrived[w] = 0;
    ++r->w_gen[w];
    return;
  }
  Fiber& f = r->fibers[r->current];
  f.wait_kind = 2;
  f.wait_gen = g;
  while (r->w_gen[w] == g) yield_to_main();
  f.wait_kind = 0;
}

template <class T>
T shfl_read(T v, int src_lane, bool up, int delta) {
  BlockRun* r = run();
  if (!r) throw std::logic_error("emulation: warp shuffle in a kernel launched without fibers");
  unsigned t = tidx().x, lane = t & 31, base = t - lane;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  r->slots[t] = bits;
  syncwarp();
  unsigned src = up ? (lane >= (unsigned)delta ? lane - delta : lane) : (unsigned)(src_lane & 31);
  uint64_t o = r->slots[base + src];
  syncwarp();
  T out;
  std::memcpy(&out, &o, sizeof(T));
  return out;
}

}  // namespace gbdt_emu

inline void __syncthreads() { gbdt_emu::syncthreads(); }
template <class T>
T __shfl_sync(unsigned, T v, int src) { return gbdt_emu::shfl_read(v, src, false, 0); }
template <class T>
T __shfl_up_sync(unsigned, T v, unsigned delta) { return gbdt_emu::shfl_read(v, 0, true, (int)delta); }

namespace gbdt_emu {

template <class Fn>
struct Thunk {
  static void entry(unsigned lo, unsigned hi) {
    uintptr_t p = ((uintptr_t)hi << 32) | (uintptr_t)lo;
    BlockRun* r = (BlockRun*)p;
    Fiber& f = r->fibers[r->current];
    tidx().x = f.tid;
    (*(Fn*)r->arg)();
    f.done = true;
    --r->live;
    unsigned w = f.tid / 32;
    --r->w_live[w];
    // A thread that exits releases barriers the others wait on.
    if (r->live && r->arrived == r->live) {
      r->arrived = 0;
      ++r->gen;
    }
    if (r->w_live[w] && r->w_arrived[w] == r->w_live[w]) {
      r->w_arrived[w] = 0;
      ++r->w_gen[w];
    }
    _longjmp(r->main_jb, 1);
  }
};

template <class Fn>
void run_block_fibers(unsigned nthreads, Fn& fn) {
  static std::vector<std::vector<unsigned char>> stacks;
  const size_t kStack = 128 * 1024;
  if (stacks.size() < nthreads) stacks.resize(nthreads);
  BlockRun r;
  r.fibers.resize(nthreads);
  r.live = nthreads;
  unsigned nw = (nthreads + 31) / 32;
  r.w_arrived.assign(nw, 0);
  r.w_gen.assign(nw, 0);
  r.w_live.assign(nw, 0);
  for (unsigned t = 0; t < nthreads; ++t) ++r.w_live[t / 32];
  r.slots.assign(nthreads, 0);
  r.arg = &fn;
  run() = &r;
  uintptr_t p = (uintptr_t)&r;
  for (unsigned t = 0; t < nthreads; ++t) {
    Fiber& f = r.fibers[t];
    f.tid = t;
    if (stacks[t].size() < kStack) stacks[t].resize(kStack);
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = stacks[t].data();
    f.ctx.uc_stack.ss_size = kStack;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, (void (*)())Thunk<Fn>::entry, 2, (unsigned)(p & 0xffffffffu), (unsigned)(p >> 32));
  }
  unsigned remaining = nthreads;
  while (remaining) {
    bool progressed = false;
    for (unsigned t = 0; t < nthreads; ++t) {
      Fiber& f = r.fibers[t];
      if (f.done) continue;
      if (f.wait_kind == 1 && r.gen == f.wait_gen) continue;
      if (f.wait_kind == 2 && r.w_gen[t / 32] == f.wait_gen) continue;
      r.current = (int)t;
      tidx().x = t;
      progressed = true;
      if (!_setjmp(r.main_jb)) {
        if (!f.started) {
          f.started = true;
          ucontext_t here;
          swapcontext(&here, &f.ctx);  // never returns here: the fiber longjmps back
        } else {
          _longjmp(f.jb, 1);
        }
      }
      if (f.done) --remaining;
    }
    if (!progressed) {
      run() = nullptr;
      throw std::logic_error("emulation: barrier deadlock (threads wait at different barriers)");
    }
  }
  run() = nullptr;
}

// Kernels that synchronize (registered by kernels.cuh in emulation).
inline std::vector<const void*>& fiber_kernels() { static std::vector<const void*> v; return v; }

template <class K>
struct Launcher {
  K* k;
  unsigned grid, block;
  size_t smem;
  template <class... A>
  // Launch-configuration errors as the device reports them: the kernel does
  // not run and cudaGetLastError returns the error (an empty grid or block,
  // more than 1024 threads or 2^31-1 blocks: invalid configuration; dynamic
  // shared memory above the kernel's limit: invalid argument).
  void operator()(A... a) const {
    if (grid == 0 || block == 0 || block > 1024 || grid > 0x7fffffffu) {
      set_error(cudaErrorInvalidConfiguration);
      return;
    }
    if (smem > dyn_smem_limit((const void*)k)) {
      set_error(cudaErrorInvalidValue);
      return;
    }
    dyn_smem().assign(smem + 16, 0xA5);
    bool fib = false;
    for (const void* f : fiber_kernels())
      if (f == (const void*)k) fib = true;
    gdim().x = grid;
    bdim().x = block;
    for (unsigned b = 0; b < grid; ++b) {
      bidx().x = b;
      auto body = [&]() { k(a...); };
      if (fib) {
        run_block_fibers(block, body);
      } else {
        for (unsigned t = 0; t < block; ++t) {
          tidx().x = t;
          body();
        }
      }
    }
  }
};

template <class K>
Launcher<K> launcher(K* k, unsigned grid, unsigned block, size_t smem) {
  return Launcher<K>{k, grid, block, smem};
}

}  // namespace gbdt_emu
