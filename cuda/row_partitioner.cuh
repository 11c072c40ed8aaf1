// The CUDA partition (the GPU side of tree/hist/row_partitioner.h): the
// level's stable partition by node (k_part_flags + cub::DeviceScan +
// k_part_scatter, k_part_counts) and the loss-guided grower's partition of
// one node's segment (k_seg_flags + cub::DeviceScan + k_seg_scatter: left
// rows first, each side in its original order, as the CPU grower).
#pragma once
#include <cstdint>

#include "kernels_common.cuh"

namespace gbdt {
namespace cuda {

// ---- partition ----
// sets: set_w words per categorical split (PartNode::cat).
__device__ __forceinline__ bool goes_left(uint32_t b, const PartNode& pn, const uint32_t* sets,
                                          int set_w) {
  if ((int)b == pn.nbins) return pn.default_left != 0;
  if (pn.cat >= 0) return !cat_words_has(sets + (size_t)pn.cat * set_w, set_w, b);
  return (int)b <= pn.bin;
}

// flags[p] = 1 when position p belongs to a split node and its row goes left;
// flags[ns] = 0 (the scan runs over ns + 1 entries).
template <typename BinT>
__global__ void k_part_flags(const uint32_t* row_idx, const int32_t* slot, size_t ns,
                             const PartNode* nodes, const uint32_t* sets, int set_w,
                             const BinT* bins, int d, uint32_t* flags) {
  for (size_t p = gtid(); p < ns; p += gstride()) {
    int32_t s = slot[p];
    uint32_t fl = 0;
    if (s >= 0) {
      const PartNode pn = nodes[s];
      if (pn.feature >= 0)
        fl = goes_left(bins[(size_t)row_idx[p] * d + pn.feature], pn, sets, set_w) ? 1 : 0;
    }
    flags[p] = fl;
  }
  if (gtid() == 0) flags[ns] = 0;
}

// Stable partition from the exclusive scan of the flags: left rows first in
// their original order, then right rows in theirs (as the CPU).  Rows of
// nodes that did not split stay in place and leave the level (slot -1).
__global__ void k_part_scatter(const uint32_t* row_idx, const int32_t* slot, size_t ns,
                               const PartNode* nodes, const uint32_t* flags, const uint32_t* scan,
                               uint32_t* row_out, int32_t* slot_out) {
  for (size_t p = gtid(); p < ns; p += gstride()) {
    const int32_t s = slot[p];
    const uint32_t r = row_idx[p];
    if (s < 0 || nodes[s].feature < 0) {
      row_out[p] = r;
      slot_out[p] = -1;
      continue;
    }
    const PartNode pn = nodes[s];
    const uint32_t base = scan[pn.begin];
    const uint32_t nleft = scan[pn.end] - base;
    const uint32_t lbefore = scan[p] - base;
    size_t q;
    int32_t s2;
    if (flags[p]) {
      q = pn.begin + lbefore;
      s2 = pn.child_left;
    } else {
      q = pn.begin + nleft + ((uint32_t)(p - pn.begin) - lbefore);
      s2 = pn.child_left + 1;
    }
    row_out[q] = r;
    slot_out[q] = s2;
  }
}

// Left-child row count of each split node.
__global__ void k_part_counts(const PartNode* nodes, const int32_t* split_ids, int nsplit,
                              const uint32_t* scan, uint32_t* nleft) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nsplit) return;
  const PartNode pn = nodes[split_ids[i]];
  nleft[i] = scan[pn.end] - scan[pn.begin];
}

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

}  // namespace cuda
}  // namespace gbdt
