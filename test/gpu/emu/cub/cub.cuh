// CPU emulation of the parts of CUB used by cuda/kernels.cuh and
// cuda/cuda_backend.cu (see ../cuda_runtime.h).
#pragma once
#include <cstddef>

#include "../cuda_runtime.h"

namespace cub {

template <class T, int BLOCK>
class BlockReduce {
 public:
  struct TempStorage {
    T v[BLOCK];
  };
  explicit BlockReduce(TempStorage& s) : s_(s) {}
  // Result valid in thread 0 (as CUB); the caller synchronizes before reuse.
  template <class Op>
  T Reduce(T x, Op op) {
    s_.v[threadIdx.x] = x;
    __syncthreads();
    T r = s_.v[0];
    if (threadIdx.x == 0)
      for (unsigned i = 1; i < blockDim.x; ++i) r = op(r, s_.v[i]);
    return threadIdx.x == 0 ? r : x;
  }
  T Sum(T x) {
    return Reduce(x, [](T a, T b) { return a + b; });
  }

 private:
  TempStorage& s_;
};

struct DeviceScan {
  template <class In, class Out, class N>
  static cudaError_t ExclusiveSum(void* temp, size_t& bytes, In in, Out out, N n,
                                  cudaStream_t = nullptr) {
    if (!temp) {
      bytes = 256;
      return cudaSuccess;
    }
    typename std::remove_reference<decltype(*out)>::type acc = 0;
    for (N i = 0; i < n; ++i) {
      auto v = in[i];
      out[i] = acc;
      acc += v;
    }
    return cudaSuccess;
  }
};

}  // namespace cub
