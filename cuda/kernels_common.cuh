// The shared part of the CUDA backend's kernels (kernels.cuh): the launch
// macro, the per-level tables the host uploads, the grid-stride helpers,
// the gradient, row-sampling and root-sum kernels.
#pragma once
#include <cstdint>
#include <type_traits>

#include <cub/cub.cuh>

namespace gbdt {
namespace cuda {
// Name of the kernel launched last (GBDT_LAUNCH records it), for the error
// messages: a failed launch, or a failure found at the next synchronization.
inline const char*& last_kernel() {
  static const char* k = "(none)";
  return k;
}
}  // namespace cuda
}  // namespace gbdt

// Kernel launch: GBDT_LAUNCH(kernel, grid, block, shared_bytes, stream)(args...).
#if defined(GBDT_CUDA_EMULATION)
#define GBDT_LAUNCH(k, g, b, s, st) \
  (::gbdt::cuda::last_kernel() = #k), ::gbdt_emu::launcher(k, (unsigned)(g), (unsigned)(b), (size_t)(s))
#define GBDT_DYNAMIC_SHARED(T, name) T* name = (T*)::gbdt_emu::dyn_smem().data()
#else
#define GBDT_LAUNCH(k, g, b, s, st) (::gbdt::cuda::last_kernel() = #k), k<<<(g), (b), (s), (st)>>>
#define GBDT_DYNAMIC_SHARED(T, name) extern __shared__ T name[]
#endif

#include "tree/categorical_split.h"
#include "objective/gradients.h"
#include "tree/split_math.h"

namespace gbdt {
namespace cuda {

// ---- per-level tables uploaded by the host ----

// One block of histogram work: positions [begin, end) of row_idx, features
// [f_begin, f_end) (histogram slots [s_begin, s_end) of a node), added into
// histogram slot `node` of the destination buffer.
struct HistTask {
  uint32_t begin, end;
  int32_t node;
  int32_t f_begin, f_end;
  uint32_t s_begin, s_end;
  int32_t use_shared;  // 0: add straight into global memory (few rows)
};

// A node of the current level, for the partition.
struct PartNode {
  int32_t feature;     // -1: not split this level (its rows stay where they are)
  int32_t bin;
  int32_t default_left;
  int32_t nbins;       // nbins(feature)
  uint32_t begin, end; // segment of row_idx
  int32_t child_left;  // level index of the left child (right = +1)
  int32_t cat;         // categorical split: index of its right bin set, else -1
};

struct SubTask {
  int32_t parent, small, other;  // histogram slots (parent buffer / child buffer)
};

struct LeafSeg {
  uint32_t begin;
  float value;
};

struct DevNode {
  int32_t left, right, feature, split_bin;
  int32_t default_left;
  float value;
  int32_t cat;  // categorical split: index of its right bin set, else -1
};

__device__ __forceinline__ size_t gtid() { return blockIdx.x * (size_t)blockDim.x + threadIdx.x; }
__device__ __forceinline__ size_t gstride() { return (size_t)gridDim.x * blockDim.x; }

// ---- gradients ----

struct DMax {
  __device__ __forceinline__ double operator()(double a, double b) const { return a > b ? a : b; }
};

// Pass 1: per group, max |g| and max h over all rows (order-independent: the
// maximum; positive doubles compare like their bit patterns as integers).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_grad_max(Objective obj, const float* margins,
                                                    const float* labels, const float* weights,
                                                    size_t n, int K, GradParams gp,
                                                    unsigned long long* maxes /* 2K */) {
  using BR = cub::BlockReduce<double, BLOCK>;
  __shared__ typename BR::TempStorage tmp;
  for (int k = 0; k < K; ++k) {
    double mg = 0.0, mh = 0.0;
    for (size_t r = gtid(); r < n; r += gstride()) {
      GradHess gh;
      const float* m = margins + r * (size_t)K;
      if (objective_is_multiclass(obj)) {
        double mx, sum;
        softmax_prepare(m, K, &mx, &sum);
        gh = weighted(softmax_gradient(m, k, mx, sum, (int)labels[r]), weights, r);
      } else {
        gh = weighted(scalar_gradient(obj, (double)m[0], (double)labels[r], gp), weights, r);
      }
      double ag = fabs(gh.g);
      if (ag > mg) mg = ag;
      if (gh.h > mh) mh = gh.h;
    }
    double bg = BR(tmp).Reduce(mg, DMax());
    __syncthreads();
    double bh = BR(tmp).Reduce(mh, DMax());
    __syncthreads();
    if (threadIdx.x == 0) {
      if (bg > 0.0) atomicMax(&maxes[2 * k], (unsigned long long)__double_as_longlong(bg));
      if (bh > 0.0) atomicMax(&maxes[2 * k + 1], (unsigned long long)__double_as_longlong(bh));
    }
  }
}

// Pass 2: quantized gradient pairs, group-major gpair[k * n + r].
__global__ void k_grad_quantize(Objective obj, const float* margins, const float* labels,
                                const float* weights, size_t n, int K, GradParams gp,
                                const Quantizer* q, GradSum* gpair) {
  for (size_t r = gtid(); r < n; r += gstride()) {
    const float* m = margins + r * (size_t)K;
    if (objective_is_multiclass(obj)) {
      double mx, sum;
      softmax_prepare(m, K, &mx, &sum);
      for (int k = 0; k < K; ++k) {
        GradHess gh = weighted(softmax_gradient(m, k, mx, sum, (int)labels[r]), weights, r);
        gpair[(size_t)k * n + r] =
            GradSum{quantize(gh.g, q[k].g_scale), quantize(gh.h, q[k].h_scale)};
      }
    } else {
      GradHess gh = weighted(scalar_gradient(obj, (double)m[0], (double)labels[r], gp), weights, r);
      gpair[r] = GradSum{quantize(gh.g, q[0].g_scale), quantize(gh.h, q[0].h_scale)};
    }
  }
}

// ---- row sampling ----
// flags[r] (for the scan) and in_sample[r] of this round; flags[n] = 0.
__global__ void k_sample_flags(uint64_t seed, int round, size_t n, double subsample,
                               uint8_t* in_sample, uint32_t* flags) {
  for (size_t r = gtid(); r < n; r += gstride()) {
    uint8_t s = row_in_sample(seed, round, r, subsample) ? 1 : 0;
    in_sample[r] = s;
    flags[r] = s;
  }
  if (gtid() == 0) flags[n] = 0;
}

// Sampled rows in ascending order from the exclusive scan of the flags.
__global__ void k_sample_compact(const uint32_t* flags, const uint32_t* scan, size_t n,
                                 uint32_t* out) {
  for (size_t r = gtid(); r < n; r += gstride())
    if (flags[r]) out[scan[r]] = (uint32_t)r;
}

__global__ void k_iota(uint32_t* out, size_t n) {
  for (size_t i = gtid(); i < n; i += gstride()) out[i] = (uint32_t)i;
}

// Sum of the gradient pairs of the listed rows (int64: any order).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) k_root_sum(const uint32_t* row_idx, size_t ns,
                                                    const GradSum* gp, GradSum* out) {
  using BR = cub::BlockReduce<long long, BLOCK>;
  __shared__ typename BR::TempStorage tmp;
  long long g = 0, h = 0;
  for (size_t i = gtid(); i < ns; i += gstride()) {
    GradSum s = gp[row_idx[i]];
    g += s.g;
    h += s.h;
  }
  long long bg = BR(tmp).Sum(g);
  __syncthreads();
  long long bh = BR(tmp).Sum(h);
  if (threadIdx.x == 0) {
    atomicAdd((unsigned long long*)&out->g, (unsigned long long)bg);
    atomicAdd((unsigned long long*)&out->h, (unsigned long long)bh);
  }
}

}  // namespace cuda
}  // namespace gbdt
