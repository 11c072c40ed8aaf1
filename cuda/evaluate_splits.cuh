// The CUDA split evaluation (the GPU side of tree/hist/evaluate_splits.h):
// k_eval_splits, the best split per (node, block of features) with
// split_math.h; k_reduce_splits, the best per node; k_eval_cat, the
// categorical features.
#pragma once
#include <cstdint>

#include "kernels_common.cuh"

namespace gbdt {
namespace cuda {

// ---- split evaluation ----
__device__ __forceinline__ SplitCandidate shfl_cand(const SplitCandidate& c, int src) {
  SplitCandidate o;
  o.gain = __shfl_sync(0xffffffffu, c.gain, src);
  o.feature = __shfl_sync(0xffffffffu, c.feature, src);
  o.bin = __shfl_sync(0xffffffffu, c.bin, src);
  o.default_left = __shfl_sync(0xffffffffu, c.default_left, src);
  o.left.g = __shfl_sync(0xffffffffu, (long long)c.left.g, src);
  o.left.h = __shfl_sync(0xffffffffu, (long long)c.left.h, src);
  return o;
}

// better_split is a strict total order on useful candidates (gain, then
// feature, bin, default direction; NaN gains are never useful), so the best of
// a set does not depend on the order of comparisons: a tree reduction picks
// the candidate the CPU's sequential scan picks.
__device__ __forceinline__ SplitCandidate warp_best(SplitCandidate c) {
  for (int o = 16; o > 0; o >>= 1) {
    SplitCandidate x = shfl_cand(c, (threadIdx.x & 31) ^ o);
    if (better_split(x, c)) c = x;
  }
  return c;
}

constexpr int kEvalWarps = 8;
constexpr int kEvalFeatPerBlock = 32;

// Grid: (node, block of kEvalFeatPerBlock features).  Each warp scans whole
// features, 32 bins at a time with an integer prefix sum: for every bin the
// missing-right candidate, then (when the missing bin has hessian) the
// missing-left one, exactly the candidates of the CPU's best_split_feature.
__global__ void __launch_bounds__(kEvalWarps * 32) k_eval_splits(
    const GradSum* hist, size_t total_bins, const GradSum* node_sum, int d, int nfb,
    const uint32_t* off, const int32_t* nbins, const uint8_t* fmask, SplitParams sp_all, Quantizer q,
    SplitCandidate* out /* node * nfb + fb */, size_t fmask_stride /* 0: one mask for all nodes */,
    const double* bounds /* monotone: node * 2 + (0: lower, 1: upper); null: none */,
    const int8_t* mono /* monotone constraint per feature */,
    const double* node_rows /* min_data_in_leaf: rows per node; null: no limit */) {
  __shared__ SplitCandidate wbest[kEvalWarps];
  const int node = blockIdx.x / nfb, fb = blockIdx.x % nfb;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const GradSum psum = node_sum[node];
  // This node's parameters (split_math.h's at_node): its row count.
  const SplitParams sp = node_rows ? at_node(sp_all, q, psum, node_rows[node]) : sp_all;
  const double lo = bounds ? bounds[2 * (size_t)node] : 0.0;
  const double hi = bounds ? bounds[2 * (size_t)node + 1] : 0.0;
  // Same bits as inside split_gain (bounded: as the CPU grower's).
  const double pgain = bounds ? bounded_parent_gain(sp, q, psum, lo, hi) : parent_gain(sp, q, psum);
  const GradSum* nh = hist + (size_t)node * total_bins;
  SplitCandidate best = no_split();
  for (int j = warp; j < kEvalFeatPerBlock; j += kEvalWarps) {
    const int f = fb * kEvalFeatPerBlock + j;
    if (f >= d || !fmask[(size_t)node * fmask_stride + f]) continue;  // warp-uniform
    const GradSum* h = nh + off[f];
    const int nb = nbins[f];
    const GradSum miss = h[nb];
    long long cg = 0, ch = 0;  // carry: sum of the bins before this chunk
    for (int c0 = 0; c0 < nb; c0 += 32) {
      const int b = c0 + lane;
      long long vg = 0, vh = 0;
      if (b < nb) {
        vg = h[b].g;
        vh = h[b].h;
      }
      for (int o = 1; o < 32; o <<= 1) {
        long long tg = __shfl_up_sync(0xffffffffu, vg, o);
        long long th = __shfl_up_sync(0xffffffffu, vh, o);
        if (lane >= o) {
          vg += tg;
          vh += th;
        }
      }
      const GradSum acc{cg + vg, ch + vh};
      cg += __shfl_sync(0xffffffffu, vg, 31);
      ch += __shfl_sync(0xffffffffu, vh, 31);
      if (b < nb) {
        const int mc = bounds ? (int)mono[f] : 0;
        SplitCandidate c1{bounds ? bounded_split_gain(sp, q, psum, acc, lo, hi, mc, pgain)
                                 : split_gain_given_parent(sp, q, psum, acc, pgain),
                          f, b, 0, acc};
        if (split_is_useful(sp, c1.gain) && better_split(c1, best)) best = c1;
        if (miss.h != 0) {
          GradSum l = gs_add(acc, miss);
          SplitCandidate c2{bounds ? bounded_split_gain(sp, q, psum, l, lo, hi, mc, pgain)
                                   : split_gain_given_parent(sp, q, psum, l, pgain),
                            f, b, 1, l};
          if (split_is_useful(sp, c2.gain) && better_split(c2, best)) best = c2;
        }
      }
    }
  }
  best = warp_best(best);
  if (lane == 0) wbest[warp] = best;
  __syncthreads();
  if (threadIdx.x == 0) {
    SplitCandidate b = wbest[0];
    for (int w = 1; w < kEvalWarps; ++w)
      if (better_split(wbest[w], b)) b = wbest[w];
    out[blockIdx.x] = b;
  }
}

// Per node: best over its feature blocks.
__global__ void k_reduce_splits(const SplitCandidate* in, int nnodes, int nfb, SplitCandidate* out) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node >= nnodes) return;
  SplitCandidate best = no_split();
  for (int i = 0; i < nfb; ++i) {
    const SplitCandidate c = in[(size_t)node * nfb + i];
    if (better_split(c, best)) best = c;
  }
  out[node] = best;
}

// Categorical features (categorical_split.h): one thread per (node,
// categorical feature j): the CPU's best_categorical_split_words on the same
// histogram; out[node * ncat + j], its set at sets + (node * ncat + j) *
// set_w (set_w >= cat_set_words of every categorical feature).  A feature
// with more than 256 bins sorts in scratch: per thread (gtid) 2 * max_nb ints
// at order and 2 * max_nb doubles at wt (null when no feature has more).
__global__ void k_eval_cat(const GradSum* hist, size_t total_bins, const GradSum* node_sum,
                           int nnodes, int ncat, const int32_t* cat_feats, const uint32_t* off,
                           const int32_t* nbins, SplitParams sp_all, Quantizer q, CatSplitParams cp,
                           SplitCandidate* out, uint32_t* sets, int set_w, int* order, double* wt,
                           int max_nb,
                           const double* bounds /* monotone bounds, node * 2 + (0 lower, 1 upper); null: none */,
                           const double* node_rows /* min_data_in_leaf: rows per node; null: no limit */) {
  for (size_t t = gtid(); t < (size_t)nnodes * ncat; t += gstride()) {
    const size_t node = t / ncat;
    const int f = cat_feats[t % ncat];
    // A categorical feature has no monotone constraint (the trainer refuses one).
    const GradSum* h = hist + node * total_bins + off[f];
    uint32_t* set = sets + t * (size_t)set_w;
    const double* nb_bounds = bounds ? bounds + 2 * node : nullptr;
    const SplitParams sp = node_rows ? at_node(sp_all, q, node_sum[node], node_rows[node]) : sp_all;
    if (nbins[f] <= 32 * kCatSetWords) {
      int o[32 * kCatSetWords];
      double w[32 * kCatSetWords];
      out[t] = best_categorical_split_words(h, nbins[f], f, node_sum[node], sp, q, cp, set, set_w,
                                            o, w, nullptr, nullptr, nb_bounds, 0);
    } else {
      int* ob = order + gtid() * 2 * (size_t)max_nb;
      double* wb = wt + gtid() * 2 * (size_t)max_nb;
      out[t] = best_categorical_split_words(h, nbins[f], f, node_sum[node], sp, q, cp, set, set_w,
                                            ob, wb, ob + max_nb, wb + max_nb, nb_bounds, 0);
    }
  }
}

}  // namespace cuda
}  // namespace gbdt
