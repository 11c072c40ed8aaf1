// The CUDA histograms (the GPU side of tree/hist/histogram.h): k_histogram
// builds the level's histogram tasks, k_subtract turns each split's larger
// child into parent - built child, k_hist_sub does one node in place (the
// loss-guided grower).  64-bit integer sums: the order of the atomics does
// not matter.
#pragma once
#include <cstdint>

#include "kernels_common.cuh"

namespace gbdt {
namespace cuda {

// ---- histograms ----
constexpr int kHistBlock = 512;

// One block per task.  Shared-memory partial histogram of the task's feature
// group with 64-bit integer atomics (two's complement: signed sums wrap like
// unsigned ones), merged into the node histogram with global atomics; tasks
// with few rows add straight into global memory.  BinT: the bin matrix's
// entry type (uint8_t, or uint16_t when some feature has more than 255 bins).
template <typename BinT>
__global__ void __launch_bounds__(kHistBlock) k_histogram(const HistTask* tasks,
                                                          const uint32_t* row_idx,
                                                          const BinT* bins, int d,
                                                          const uint32_t* off, const GradSum* gp,
                                                          GradSum* hist, size_t total_bins) {
  GBDT_DYNAMIC_SHARED(unsigned long long, smem);
  const HistTask t = tasks[blockIdx.x];
  const uint32_t gw = (uint32_t)(t.f_end - t.f_begin);
  const uint32_t nslots = t.s_end - t.s_begin;
  GradSum* nh = hist + (size_t)t.node * total_bins;
  if (t.use_shared) {
    for (uint32_t i = threadIdx.x; i < 2 * nslots; i += blockDim.x) smem[i] = 0ull;
    __syncthreads();
  }
  const uint32_t rows = t.end - t.begin;
  const size_t nelem = (size_t)rows * gw;
  // Element i = (row i / gw, feature i % gw), walked without divisions.
  const uint32_t step = blockDim.x;
  const uint32_t drow = step / gw, dcol = step % gw;
  uint32_t lr = threadIdx.x / gw, lc = threadIdx.x % gw;
  for (size_t i = threadIdx.x; i < nelem; i += step) {
    const uint32_t r = row_idx[t.begin + lr];
    const int f = t.f_begin + (int)lc;
    const uint32_t b = bins[(size_t)r * d + f];
    const GradSum g = gp[r];
    const uint32_t s = off[f] + b;  // slot in the node histogram
    if (t.use_shared) {
      const uint32_t ls = s - t.s_begin;
      atomicAdd(&smem[2 * ls], (unsigned long long)g.g);
      atomicAdd(&smem[2 * ls + 1], (unsigned long long)g.h);
    } else {
      atomicAdd((unsigned long long*)&nh[s].g, (unsigned long long)g.g);
      atomicAdd((unsigned long long*)&nh[s].h, (unsigned long long)g.h);
    }
    lr += drow;
    lc += dcol;
    if (lc >= gw) {
      lc -= gw;
      lr += 1;
    }
  }
  if (t.use_shared) {
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < nslots; i += blockDim.x) {
      unsigned long long g = smem[2 * i], h = smem[2 * i + 1];
      if (g | h) {
        atomicAdd((unsigned long long*)&nh[t.s_begin + i].g, g);
        atomicAdd((unsigned long long*)&nh[t.s_begin + i].h, h);
      }
    }
  }
}

// Sibling histogram = parent - built child, for every split of the level.
__global__ void k_subtract(const SubTask* subs, int nsub, const GradSum* parent_hist,
                           GradSum* child_hist, size_t total_bins) {
  const size_t total = (size_t)nsub * total_bins;
  for (size_t i = gtid(); i < total; i += gstride()) {
    const size_t s = i / total_bins, j = i - s * total_bins;
    const SubTask st = subs[s];
    child_hist[(size_t)st.other * total_bins + j] =
        gs_sub(parent_hist[(size_t)st.parent * total_bins + j],
               child_hist[(size_t)st.small * total_bins + j]);
  }
}

// hist[j] -= small[j] for the n slots of one node histogram.
__global__ void k_hist_sub(GradSum* hist, const GradSum* small, size_t n) {
  for (size_t j = gtid(); j < n; j += gstride()) hist[j] = gs_sub(hist[j], small[j]);
}

}  // namespace cuda
}  // namespace gbdt
