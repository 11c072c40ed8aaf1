// Device kernels of the CUDA backend's loss-guided grower (grow_policy
// lossguide, cuda_backend.cu build_tree_lossguide).  Best-first growth splits
// one node at a time, so the level kernels' tables (one entry per level node)
// are replaced here by kernels on one segment of row_idx:
//   k_seg_flags + cub::DeviceScan + k_seg_scatter: stable partition of the
//                 segment of the node being split (left rows first, each side
//                 in its original order, as the CPU grower)
//   k_hist_sub    in-place histogram subtraction: the larger child's
//                 histogram = the parent's (in the same buffer) - the smaller
//                 child's (64-bit integer sums: exact)
// Included by cuda_backend.cu after kernels.cuh (PartNode, goes_left).
#pragma once
#include <cstdint>

#include "kernels.cuh"

namespace gbdt {
namespace cuda {

// flags[i] = 1 when row rows[i] of the segment goes left under pn's split;
// flags[m] = 0 (the scan runs over m + 1 entries).  Bin: the binned matrix's
// element type (uint8_t or uint16_t); sets: set_w words per bin set.
template <class Bin>
__global__ void k_seg_flags(const uint32_t* rows, uint32_t m, PartNode pn, const uint32_t* sets,
                            int set_w, const Bin* bins, int d, uint32_t* flags) {
  for (size_t i = gtid(); i < m; i += gstride())
    flags[i] = goes_left(bins[(size_t)rows[i] * d + pn.feature], pn, sets, set_w) ? 1u : 0u;
  if (gtid() == 0) flags[m] = 0;
}

// Stable partition of the segment from the exclusive scan of its flags into
// out[0, m): left rows first (scan[m] of them), then the right rows.
__global__ void k_seg_scatter(const uint32_t* rows, uint32_t m, const uint32_t* flags,
                              const uint32_t* scan, uint32_t* out) {
  const uint32_t nleft = scan[m];
  for (size_t i = gtid(); i < m; i += gstride()) {
    const uint32_t lb = scan[i];  // left rows before position i
    out[flags[i] ? lb : nleft + ((uint32_t)i - lb)] = rows[i];
  }
}

// hist[j] -= small[j] for the n slots of one node histogram.
__global__ void k_hist_sub(GradSum* hist, const GradSum* small, size_t n) {
  for (size_t j = gtid(); j < n; j += gstride()) hist[j] = gs_sub(hist[j], small[j]);
}

}  // namespace cuda
}  // namespace gbdt
