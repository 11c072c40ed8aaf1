// Device kernels of the CUDA tree builder (cuda_backend.cu).  Everything that
// decides a value (gradients, quantization, gains, tie-breaks, sampling) comes
// from the engine's shared __host__ __device__ headers, so the GPU computes the
// same bits as the CPU backend (device code is built with -fmad=false, host
// code with -ffp-contract=off).
//
// Per level the host uploads small tables (histogram tasks, node splits) and
// launches a fixed number of kernels whatever the number of nodes:
//   k_histogram   all nodes of the level to build (two-stage: shared-memory
//                 partial histogram with 64-bit integer atomics, then a merge
//                 into global memory with integer atomics; integer sums do not
//                 depend on the order of the atomics)
//   k_subtract    sibling = parent - built child, for every split of the level
//   k_eval_splits best split per (node, block of features) with split_math.h
//   k_reduce_splits  best per node (better_split is a strict total order, so
//                 the result does not depend on the reduction order)
//   k_part_flags + cub::DeviceScan + k_part_scatter: stable partition by node
//
// With -DGBDT_CUDA_EMULATION (test/gpu/emu, `make build/gpu_test_emu`) the
// same source compiles as plain C++ against a CPU emulation of the runtime,
// so the kernels and the host logic can be exercised without a GPU.
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
    const uint32_t* off, const int32_t* nbins, const uint8_t* fmask, SplitParams sp, Quantizer q,
    SplitCandidate* out /* node * nfb + fb */, size_t fmask_stride /* 0: one mask for all nodes */,
    const double* bounds /* monotone: node * 2 + (0: lower, 1: upper); null: none */,
    const int8_t* mono /* monotone constraint per feature */) {
  __shared__ SplitCandidate wbest[kEvalWarps];
  const int node = blockIdx.x / nfb, fb = blockIdx.x % nfb;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const GradSum psum = node_sum[node];
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
                           const int32_t* nbins, SplitParams sp, Quantizer q, CatSplitParams cp,
                           SplitCandidate* out, uint32_t* sets, int set_w, int* order, double* wt,
                           int max_nb,
                           const double* bounds /* monotone bounds, node * 2 + (0 lower, 1 upper); null: none */) {
  for (size_t t = gtid(); t < (size_t)nnodes * ncat; t += gstride()) {
    const size_t node = t / ncat;
    const int f = cat_feats[t % ncat];
    // A categorical feature has no monotone constraint (the trainer refuses one).
    const GradSum* h = hist + node * total_bins + off[f];
    uint32_t* set = sets + t * (size_t)set_w;
    const double* nb_bounds = bounds ? bounds + 2 * node : nullptr;
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

#if defined(GBDT_CUDA_EMULATION)
// Kernels that synchronize run as fibers in the emulation.
inline bool emu_register_fiber_kernels() {
  ::gbdt_emu::fiber_kernels() = {(const void*)&k_grad_max<256>, (const void*)&k_root_sum<256>,
                                 (const void*)&k_histogram<uint8_t>, (const void*)&k_histogram<uint16_t>,
                                 (const void*)&k_eval_splits};
  return true;
}
static const bool emu_fiber_kernels_registered = emu_register_fiber_kernels();
#endif

}  // namespace cuda
}  // namespace gbdt
