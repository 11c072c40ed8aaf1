// The CUDA margin update (the GPU side of tree/hist/leaf_update.h): the
// sampled rows by their leaf segments (k_update_leaves), the others by a
// walk through the tree (k_update_unsampled).
#pragma once
#include <cstdint>

#include "kernels_common.cuh"

namespace gbdt {
namespace cuda {

// ---- prediction update ----
// Position p lies in the leaf whose (non-empty) segment begins at the largest
// begin <= p; segments are sorted by begin and cover [0, ns).
__global__ void k_update_leaves(const uint32_t* row_idx, size_t ns, const LeafSeg* leaves,
                                int nleaves, float* margins, int K, int k) {
  for (size_t p = gtid(); p < ns; p += gstride()) {
    int lo = 0, hi = nleaves - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >> 1;
      if (leaves[mid].begin <= p) lo = mid;
      else hi = mid - 1;
    }
    float* m = &margins[(size_t)row_idx[p] * K + k];
    *m = __fadd_rn(*m, leaves[lo].value);
  }
}

// Rows outside this round's sample walk the tree.
template <typename BinT>
__global__ void k_update_unsampled(const uint8_t* in_sample, size_t n, const BinT* bins, int d,
                                   const int32_t* nbins, const DevNode* tree,
                                   const uint32_t* sets, int set_w, float* margins, int K, int k) {
  for (size_t r = gtid(); r < n; r += gstride()) {
    if (in_sample[r]) continue;
    int32_t node = 0;
    while (tree[node].left >= 0) {
      const DevNode t = tree[node];
      const uint32_t b = bins[r * (size_t)d + t.feature];
      const bool left = (int)b == nbins[t.feature] ? t.default_left != 0
                        : t.cat >= 0 ? !cat_words_has(sets + (size_t)t.cat * set_w, set_w, b)
                                     : (int)b <= t.split_bin;
      node = left ? t.left : t.right;
    }
    float* m = &margins[r * (size_t)K + k];
    *m = __fadd_rn(*m, tree[node].value);
  }
}

}  // namespace cuda
}  // namespace gbdt
