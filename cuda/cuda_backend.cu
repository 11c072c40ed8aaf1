// CUDA tree backend: the CPU backend's algorithm (extension/core/tree/hist/updater.cpp) on the GPU,
// producing the same trees.
//  - The binned matrix, labels, margins and gradient pairs live on the device
//    for the whole training (uploaded once in init(); no managed memory).
//  - Gradients: computed on the device with gradients.h; the quantization
//    scale comes from the maxima (host make_quantizer, as on the CPU), the
//    pairs are 64-bit fixed point, so every sum below is exact.
//  - Level-wise growth, a constant number of kernel launches per level: all
//    the level's smaller children get their histograms in one launch (task
//    table), siblings by subtraction, all nodes' splits evaluated in one
//    launch, all split nodes partitioned in one stable scan-based pass.
//  - The host keeps the tree: it downloads the best split of each level node
//    (40 bytes per node) and appends nodes in the CPU's order (per level in
//    order, left then right child), with the same host functions for leaf
//    values; so a tree is the CPU's tree bit for bit.
//  - grow_policy lossguide (build_tree_lossguide): best first as the CPU
//    grower (tree_grower.cpp), one node per step: partition of its segment,
//    smaller child's histogram + subtraction, both children evaluated; the
//    histogram buffers are a pool of slots for the open nodes.
//  - Margins updated from the rows' final leaf positions; rows outside a
//    subsample walk the tree on the device.
// When the level's histograms do not fit the memory budget, the backend
// switches to building every node's histogram directly, a chunk of nodes at a
// time (same sums, same trees, more work).
#include <cuda_runtime.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <mutex>
#include <queue>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tree/tree_backend.h"
#include "diagnose.cuh"
#include "objective/gradients.h"
#include "objective/host_gradients.h"
#include "kernels.cuh"
#include "tree/apply_split.h"

namespace gbdt {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string cuda_err(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

#define GBDT_CUDA_CHECK(call)                                                               \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      (void)cudaGetLastError();                                                             \
      throw std::runtime_error(std::string("gbdt CUDA backend: ") + #call + " failed: " +   \
                               cuda_err(e_));                                               \
    }                                                                                       \
  } while (0)

// GBDT_CUDA_DEBUG=1 (environment): synchronize after every kernel launch,
// so that a kernel failing while it runs is named (without it the failure
// surfaces at the next synchronization, after later launches).
bool debug_sync() {
  static const bool on = [] {
    const char* e = std::getenv("GBDT_CUDA_DEBUG");
    return e && *e && std::strcmp(e, "0") != 0;
  }();
  return on;
}

// After each launch: a launch-configuration error names the kernel; in debug
// mode the kernel's execution is waited for and checked too.
void check_launch() {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("gbdt CUDA backend: launch of ") + cuda::last_kernel() +
                             " failed: " + cuda_err(e));
  if (debug_sync()) {
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw std::runtime_error(std::string("gbdt CUDA backend: kernel ") + cuda::last_kernel() +
                               " failed while running (GBDT_CUDA_DEBUG): " + cuda_err(e));
    }
  }
}

#define GBDT_CUDA_LAUNCHED() check_launch()

std::string mib(size_t b) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << (double)b / (1024.0 * 1024.0) << " MiB";
  return o.str();
}

// Device buffer with an owner (cudaFree in the destructor).
template <class T>
class DevArray {
 public:
  DevArray() = default;
  DevArray(const DevArray&) = delete;
  DevArray& operator=(const DevArray&) = delete;
  ~DevArray() {
    if (p_) cudaFree(p_);
  }
  void alloc(size_t n, const char* what) {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
    if (n == 0) n = 1;
    cudaError_t e = cudaMalloc((void**)&p_, n * sizeof(T));
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      p_ = nullptr;
      throw ResourceError(std::string("gbdt CUDA backend: cannot allocate ") + mib(n * sizeof(T)) +
                          " of device memory for " + what + ": " + cuda_err(e));
    }
    n_ = n;
  }
  T* get() const { return p_; }
  size_t size() const { return n_; }
  void swap(DevArray& o) {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
  }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

template <class T>
void upload(T* dst, const T* src, size_t n, cudaStream_t s) {
  if (n) GBDT_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyHostToDevice, s));
}
template <class T>
void download(T* dst, const T* src, size_t n, cudaStream_t s) {
  if (n) GBDT_CUDA_CHECK(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost, s));
}

int grid_for(size_t n, int block, int max_blocks) {
  size_t g = (n + (size_t)block - 1) / (size_t)block;
  if (g < 1) g = 1;
  if (g > (size_t)max_blocks) g = (size_t)max_blocks;
  return (int)g;
}

constexpr int kBlock = 256;
using cuda::HistTask;
using cuda::PartNode;
using cuda::SubTask;
using cuda::LeafSeg;
using cuda::DevNode;

// A node of the level being grown (host side).
struct LNode {
  int32_t id;             // node id in the tree
  uint32_t begin, end;    // segment of row_idx
  GradSum sum;
};

// Feature group whose histogram slots fit the shared-memory budget; or one
// feature with more slots than that (`global`: its tasks add straight into
// the global-memory histogram, so any category count trains).
struct FeatGroup {
  int f_begin, f_end;
  uint32_t s_begin, s_end;
  bool global = false;
};

struct Sizes {
  size_t n, d, K, T, nfb, groups, lmax, tree_nodes, tasks, cub_bytes, hist_slot_bytes;
  size_t ncat = 0;  // categorical features
  size_t bin_bytes = 1;                   // bytes per bin matrix entry
  size_t set_bytes = sizeof(CatBinSet);   // bytes per categorical bin set
  size_t cat_scratch = 0;                 // k_eval_cat sort scratch bytes
  bool node_masks = false;
  bool monotone = false;
  bool min_data = false;  // min_data_in_leaf, categorical regularization: per-node row counts
  size_t base_bytes() const {
    size_t b = 0;
    b += n * d * bin_bytes;           // bins
    b += n * 4;                       // labels
    b += n * K * 4;                   // margins
    b += n * K * sizeof(GradSum);     // gradient pairs
    b += n;                           // in_sample
    b += n * 4 * 5;                   // sampled, row_idx x2, slot x2
    b += (n + 1) * 4 * 2;             // flags, scan
    b += cub_bytes;
    b += d * 16 + 2 * K * 8 + K * sizeof(Quantizer);
    b += lmax * (sizeof(GradSum) + sizeof(PartNode) + nfb * sizeof(SplitCandidate) +
                 sizeof(SplitCandidate) + 4 + 4 + sizeof(LeafSeg) + sizeof(SubTask));
    b += tree_nodes * sizeof(DevNode);
    b += tasks * sizeof(HistTask);
    // Categorical split candidates and sets (per level node x categorical
    // feature), the partition's and the tree's sets.
    b += ncat * 4 + lmax * ncat * (sizeof(SplitCandidate) + set_bytes) +
         (lmax + tree_nodes) * set_bytes + cat_scratch;
    b += node_masks ? lmax * d : 0;  // per-node feature masks
    b += monotone ? lmax * 16 + d : 0;  // monotone bounds, constraints
    b += min_data ? lmax * sizeof(double) : 0;  // node row counts (min_data_in_leaf)
    return b;
  }
};

// the most leaves of a lossguide tree: max_leaves, at most 2^max_depth
// (0: no depth limit) and at most one per row.
size_t lossguide_leaf_cap(int max_leaves, int max_depth, size_t n) {
  size_t cap = std::max<size_t>(n, 1);
  if (max_depth > 0 && max_depth < 30) cap = std::min(cap, (size_t)1 << max_depth);
  if (max_leaves > 0) cap = std::min(cap, (size_t)max_leaves);
  return cap;
}

class CudaBackend final : public TreeBackend {
 public:
  explicit CudaBackend(const BoostData& d) { setup(d); }

  ~CudaBackend() override {
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "cuda"; }

  void init(const BoostData& d, const std::vector<float>& init_margins) override {
    auto t0 = Clock::now();
    data_ = d;
    if (wide_)  // 2-byte entries, uploaded as their bytes
      upload(d_bins_.get(), (const uint8_t*)d.matrix->bins16.data(), n_ * (size_t)nf_ * 2, stream_);
    else
      upload(d_bins_.get(), d.matrix->bins.data(), n_ * (size_t)nf_, stream_);
    upload(d_labels_.get(), d.labels, n_, stream_);
    if (d.weights) upload(d_weights_.get(), d.weights, n_, stream_);
    upload(d_margins_.get(), init_margins.data(), n_ * (size_t)K_, stream_);
    upload(d_off_.get(), off_.data(), (size_t)nf_, stream_);
    upload(d_nbins_.get(), nbins_.data(), (size_t)nf_, stream_);
    if (ncat_ > 0) upload(d_cat_feats_.get(), cat_feats_.data(), (size_t)ncat_, stream_);
    if (d.subsample >= 1.0) {
      GBDT_LAUNCH(cuda::k_iota, grid_for(n_, kBlock, 65535), kBlock, 0, stream_)(d_sampled_.get(), n_);
      GBDT_CUDA_LAUNCHED();
    }
    sync();
    t_transfer_ += since(t0);
  }

  void margins(std::vector<float>* out) override {
    auto t0 = Clock::now();
    out->resize(n_ * (size_t)K_);
    download(out->data(), d_margins_.get(), n_ * (size_t)K_, stream_);
    sync();
    t_transfer_ += since(t0);
  }

  std::vector<std::pair<std::string, double>> phase_seconds() const override {
    return {{"transfer", t_transfer_},        {"gradients", t_grad_},
            {"histograms", t_hist_},          {"split_evaluation", t_split_},
            {"partition", t_part_},           {"prediction_update", t_update_}};
  }

  void boost_round(int round, const std::vector<uint8_t>& feature_mask,
                   std::vector<Tree>* out) override {
    auto t0 = Clock::now();
    round_ = round;
    if (data_.external_gradients)
      external_gradients(round);  // ranking
    else
      compute_gradients();
    // Row sample of this round (shared by the K trees), ascending row order.
    if (data_.subsample < 1.0) {
      GBDT_LAUNCH(cuda::k_sample_flags, grid_for(n_, kBlock, 65535), kBlock, 0, stream_)(
          data_.seed, round, n_, data_.subsample, d_in_sample_.get(), d_flags_.get());
      GBDT_CUDA_LAUNCHED();
      scan_flags(n_);
      GBDT_LAUNCH(cuda::k_sample_compact, grid_for(n_, kBlock, 65535), kBlock, 0, stream_)(
          d_flags_.get(), d_scan_.get(), n_, d_sampled_.get());
      GBDT_CUDA_LAUNCHED();
      uint32_t cnt = 0;
      download(&cnt, d_scan_.get() + n_, 1, stream_);
      sync();
      ns_ = cnt;
    } else {
      ns_ = n_;
    }
    // k_eval_splits scans the numeric features of the mask; the categorical
    // ones are masked on the host (evaluate()).
    fmask_ = feature_mask;
    fmask_num_ = feature_mask;
    for (int f = 0; f < nf_; ++f)
      if (is_cat_[f]) fmask_num_[f] = 0;
    upload(d_fmask_.get(), fmask_num_.data(), (size_t)nf_, stream_);
    fmask_host_ = feature_mask;  // the node masks sample the whole mask
    if (mono_) upload(d_mono_.get(), data_.tree_ext.monotone.data(), (size_t)nf_, stream_);
    sync();
    t_grad_ += since(t0);
    for (int k = 0; k < K_; ++k) {
      check_cancel(data_.cancel);
      Tree t;
      build_tree(k, &t);
      out->push_back(std::move(t));
    }
  }

 private:
  void sync() {
    cudaError_t e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw std::runtime_error(std::string("gbdt CUDA backend: cudaStreamSynchronize failed: ") +
                               cuda_err(e) + " (last kernel launched: " + cuda::last_kernel() +
                               "; GBDT_CUDA_DEBUG=1 names the failing one)");
    }
  }

  // ---- setup: sizes, device, memory budget, allocation ----
  // Every step may throw (ResourceError, std::runtime_error); the stream is
  // created last, as the destructor (which destroys it) does not run then.
  void setup(const BoostData& d) {
    data_ = d;
    n_ = d.n_rows;
    nf_ = d.matrix->n_features;
    K_ = d.num_group;
    if (n_ >= (size_t)UINT32_MAX)
      throw ResourceError("gbdt CUDA backend: " + std::to_string(n_) +
                          " rows exceed the backend's 32-bit row indices");
    describe_features(d);
    plan_histogram_groups(choose_device());
    plan_memory(d);
    alloc_row_buffers(d);
    alloc_node_tables();
    GBDT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }

  // The features' histogram offsets and bins, the categorical features and
  // the words of their bin sets.
  void describe_features(const BoostData& d) {
    const Cuts& c = *d.cuts;
    off_.resize(nf_);
    nbins_.resize(nf_);
    for (int f = 0; f < nf_; ++f) {
      off_[f] = c.hist_offset(f);
      nbins_[f] = c.nbins(f);
    }
    T_ = c.total_hist_bins();
    nfb_ = (nf_ + cuda::kEvalFeatPerBlock - 1) / cuda::kEvalFeatPerBlock;
    // Categorical features: evaluated by k_eval_cat, never by k_eval_splits.
    cat_feats_.clear();
    is_cat_.assign((size_t)nf_, 0);
    if (d.n_categories)
      for (int f = 0; f < nf_ && f < (int)d.n_categories->size(); ++f)
        if ((*d.n_categories)[f] > 0) {
          cat_feats_.push_back(f);
          is_cat_[f] = 1;
        }
    ncat_ = (int)cat_feats_.size();
    // 2-byte bins when some feature has more than 255 bins; every
    // categorical bin set set_w_ words (8 = a CatBinSet up to 256 bins).
    wide_ = d.matrix->wide;
    set_w_ = kCatSetWords;
    max_cat_nb_ = 0;
    for (int f : cat_feats_) {
      set_w_ = std::max(set_w_, cat_set_words(nbins_[f]));
      max_cat_nb_ = std::max(max_cat_nb_, nbins_[f]);
    }
  }

  // The current device: its name and SMs; refuses one older than compute
  // capability 8.0 or without a kernel image for it.  Returns the shared
  // memory (bytes per block) the histogram kernel may take dynamically.
  size_t choose_device() {
    GBDT_CUDA_CHECK(cudaGetDevice(&dev_));
    cudaDeviceProp prop;
    GBDT_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev_));
    dev_name_ = prop.name;
    num_sms_ = prop.multiProcessorCount;
    if (prop.major < 8)
      throw ResourceError("gbdt CUDA backend: device " + dev_name_ + " has compute capability " +
                          std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                          "; this build carries device code for 8.0 and newer");
    // Probe that a kernel image for this device exists.
    cudaFuncAttributes fa;
    cudaError_t fe = wide_ ? cudaFuncGetAttributes(&fa, cuda::k_histogram<uint16_t>)
                           : cudaFuncGetAttributes(&fa, cuda::k_histogram<uint8_t>);
    if (fe != cudaSuccess) {
      (void)cudaGetLastError();
      throw ResourceError("gbdt CUDA backend: no usable kernel image for device " + dev_name_ +
                          ": " + cuda_err(fe));
    }
    // Shared-memory budget of the histogram kernel.
    size_t smem = prop.sharedMemPerBlockOptin > 0 ? prop.sharedMemPerBlockOptin
                                                  : prop.sharedMemPerBlock;
    return std::min<size_t>(smem, 200 * 1024) - fa.sharedSizeBytes;
  }

  // Features -> groups whose histogram slots fit in smem bytes of shared
  // memory (a wider single feature: a global group), and the histogram
  // kernel's dynamic shared memory.
  void plan_histogram_groups(size_t smem) {
    const uint32_t max_slots = (uint32_t)(smem / (2 * sizeof(unsigned long long)));
    groups_.clear();
    uint32_t max_group_slots = 0;
    for (int f = 0; f < nf_;) {
      FeatGroup g{f, f, off_[f], off_[f]};
      while (g.f_end < nf_) {
        uint32_t s_end = off_[g.f_end] + (uint32_t)nbins_[g.f_end] + 1;
        if (s_end - g.s_begin > max_slots && g.f_end > g.f_begin) break;
        g.s_end = s_end;
        ++g.f_end;
      }
      g.global = g.s_end - g.s_begin > max_slots;  // one feature, too wide for shared memory
      if (!g.global) max_group_slots = std::max(max_group_slots, g.s_end - g.s_begin);
      groups_.push_back(g);
      f = g.f_end;
    }
    hist_smem_ = (size_t)max_group_slots * 2 * sizeof(unsigned long long);
    if (hist_smem_ > 48 * 1024) {
      if (wide_)
        GBDT_CUDA_CHECK(cudaFuncSetAttribute(cuda::k_histogram<uint16_t>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)hist_smem_));
      else
        GBDT_CUDA_CHECK(cudaFuncSetAttribute(cuda::k_histogram<uint8_t>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)hist_smem_));
    }
  }

  // The sizes of the device buffers (Sizes) and the memory budget: the
  // histogram slots per buffer (cap_) that fit in the free device memory;
  // throws when not even one fits.
  void plan_memory(const BoostData& d) {
    size_t cub_bytes = 0;
    GBDT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, (const uint32_t*)nullptr,
                                                  (uint32_t*)nullptr, n_ + 1));
    const int D = std::max(0, std::min(d.max_depth, 30));
    Sizes sz;
    sz.n = n_;
    sz.d = (size_t)nf_;
    sz.K = (size_t)K_;
    sz.T = T_;
    sz.nfb = (size_t)nfb_;
    sz.groups = groups_.size();
    sz.lmax = std::min<size_t>((size_t)1 << D, std::max<size_t>(n_, 1));
    sz.tree_nodes = std::min<size_t>(((size_t)2 << D) - 1, 2 * std::max<size_t>(n_, 1) + 1);
    // lossguide: the level tables hold the leaves of a tree (one node is
    // evaluated at a time; the leaf table needs them all).
    lossguide_ = d.tree_ext.lossguide;
    if (lossguide_) {
      sz.lmax = lossguide_leaf_cap(d.tree_ext.max_leaves, d.max_depth, n_);
      sz.tree_nodes = 2 * sz.lmax - 1;
    }
    // Tasks per histogram launch: per built node and group, ceil(rows / rows
    // per task) with at least kMinTaskRows rows per task.
    sz.tasks = (n_ / kMinTaskRows + sz.lmax + 1) * sz.groups;
    sz.cub_bytes = cub_bytes;
    sz.hist_slot_bytes = (size_t)T_ * sizeof(GradSum);
    sz.ncat = (size_t)ncat_;
    sz.bin_bytes = wide_ ? 2 : 1;
    sz.set_bytes = (size_t)set_w_ * 4;
    // k_eval_cat's threads (grid_for(lmax x ncat, 64, 65535) x 64) sort in
    // 2 x max_nb ints and doubles each when a feature has more than 256 bins.
    cat_threads_ = max_cat_nb_ > 32 * kCatSetWords
                       ? std::min<size_t>((sz.lmax * sz.ncat + 63) / 64, 65535) * 64
                       : 0;
    sz.cat_scratch = cat_threads_ * 2 * (size_t)max_cat_nb_ * (sizeof(int) + sizeof(double));
    node_masks_ = d.tree_ext.colsample_bylevel < 1.0 || d.tree_ext.colsample_bynode < 1.0 ||
                  !d.tree_ext.interaction.empty();
    sz.node_masks = node_masks_;
    mono_ = !d.tree_ext.monotone.empty();
    sz.monotone = mono_;
    sz.min_data = needs_node_rows(data_.split);
    lmax_ = sz.lmax;
    tree_cap_ = sz.tree_nodes;
    task_cap_ = sz.tasks;

    size_t free_b = 0, total_b = 0;
    GBDT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const size_t base = sz.base_bytes();
    const size_t reserve = 64u * 1024 * 1024 + free_b / 32;  // CUDA context, CUB, fragmentation
    // Histogram slots per buffer (two buffers: parent level, child level).
    size_t want = D > 0 ? std::min<size_t>((size_t)1 << (D - 1), std::max<size_t>(n_, 1)) : 1;
    // lossguide: the two buffers are one pool of histogram slots, one per
    // open node (at most one per leaf).
    if (lossguide_) want = (sz.lmax + 1) / 2;
    const size_t need_min = base + 2 * sz.hist_slot_bytes + reserve;
    if (need_min > free_b)
      throw ResourceError("gbdt CUDA backend: training " + std::to_string(n_) + " rows x " +
                          std::to_string(nf_) + " features needs at least " + mib(need_min) +
                          " of device memory but only " + mib(free_b) + " of " + mib(total_b) +
                          " are free on " + dev_name_);
    size_t fit = (free_b - base - reserve) / (2 * sz.hist_slot_bytes);
    cap_ = std::max<size_t>(1, std::min(want, fit));
    // Testing hook: cap the histogram slots to exercise the chunked mode.
    if (const char* e = std::getenv("GBDT_CUDA_MAX_HIST_NODES")) {
      long v = std::atol(e);
      if (v > 0) cap_ = std::min(cap_, (size_t)v);
    }
    estimate_bytes_ = base + 2 * cap_ * sz.hist_slot_bytes;
    cub_bytes_ = cub_bytes;
  }

  // The per-row buffers: the binned matrix, labels, weights, margins,
  // gradients, row lists and the partition's flags, scan and workspace
  // (filled by init() and every round).
  void alloc_row_buffers(const BoostData& d) {
    d_bins_.alloc(n_ * (size_t)nf_ * (wide_ ? 2 : 1), "the binned matrix");
    d_labels_.alloc(n_, "labels");
    if (d.weights) d_weights_.alloc(n_, "weights");
    d_margins_.alloc(n_ * (size_t)K_, "margins");
    d_gpair_.alloc(n_ * (size_t)K_, "gradient pairs");
    d_in_sample_.alloc(n_, "sample flags");
    d_sampled_.alloc(n_, "row lists");
    d_row_.alloc(n_, "row lists");
    d_row_tmp_.alloc(n_, "row lists");
    d_slot_.alloc(n_, "row lists");
    d_slot_tmp_.alloc(n_, "row lists");
    d_flags_.alloc(n_ + 1, "partition flags");
    d_scan_.alloc(n_ + 1, "partition scan");
    d_cub_.alloc(cub_bytes_, "scan workspace");
  }

  // The per-feature, per-level-node and per-tree-node tables: feature
  // offsets and masks, split candidates and sets, the partition, the tree,
  // the histogram tasks and the two histogram buffers of cap_ slots.
  void alloc_node_tables() {
    d_off_.alloc((size_t)nf_, "feature offsets");
    d_nbins_.alloc((size_t)nf_, "feature bins");
    d_fmask_.alloc((size_t)nf_, "feature mask");
    if (node_masks_) d_nmask_.alloc(lmax_ * (size_t)nf_, "per-node feature masks");
    if (mono_) {
      d_bounds_.alloc(2 * lmax_, "monotone bounds");
      d_mono_.alloc((size_t)nf_, "monotone constraints");
    }
    d_maxes_.alloc(2 * (size_t)K_, "gradient maxima");
    d_quant_.alloc((size_t)K_, "quantizers");
    d_root_.alloc(1, "root sum");
    d_node_sum_.alloc(lmax_, "node sums");
    if (needs_node_rows(data_.split)) d_node_rows_.alloc(lmax_, "node row counts");
    d_part_.alloc(lmax_, "partition table");
    d_cand_.alloc(lmax_ * (size_t)nfb_, "split candidates");
    d_best_.alloc(lmax_, "split candidates");
    d_split_ids_.alloc(lmax_, "split table");
    d_nleft_.alloc(lmax_, "split table");
    d_leaves_.alloc(lmax_, "leaf table");
    d_subs_.alloc(lmax_, "subtraction table");
    d_cat_feats_.alloc(std::max(1, ncat_), "categorical features");
    d_cat_cand_.alloc(std::max<size_t>(1, lmax_ * (size_t)ncat_), "categorical split candidates");
    d_cat_sets_.alloc(std::max<size_t>(1, lmax_ * (size_t)ncat_) * set_w_, "categorical split sets");
    d_part_sets_.alloc(std::max<size_t>(1, lmax_) * set_w_, "categorical split sets");
    d_tree_sets_.alloc(tree_cap_ * set_w_, "categorical split sets");
    if (cat_threads_ > 0) {
      d_cat_order_.alloc(cat_threads_ * 2 * (size_t)max_cat_nb_, "categorical sort scratch");
      d_cat_wt_.alloc(cat_threads_ * 2 * (size_t)max_cat_nb_, "categorical sort scratch");
    }
    d_tree_.alloc(tree_cap_, "tree");
    d_tasks_.alloc(task_cap_, "histogram tasks");
    d_hist_[0].alloc(cap_ * (size_t)T_, "histograms");
    d_hist_[1].alloc(cap_ * (size_t)T_, "histograms");
  }

  // ---- gradients ----
  // gradients from BoostData::external_gradients (one output group),
  // computed and quantized on the host as the CPU backend does.
  void external_gradients(int round) {
    ext_.margins.resize(n_);
    download(ext_.margins.data(), d_margins_.get(), n_, stream_);
    sync();
    ext_.g.resize(n_);
    ext_.h.resize(n_);
    data_.external_gradients(round, ext_.margins.data(), ext_.g.data(), ext_.h.data());
    std::vector<GradSum> q(n_);
    quant_.assign(1, quantize_external(ext_.g.data(), ext_.h.data(), n_, q.data()));
    upload(d_quant_.get(), quant_.data(), (size_t)1, stream_);
    upload(d_gpair_.get(), q.data(), n_, stream_);
    sync();
  }
  ExternalGradients ext_;

  void compute_gradients() {
    const float* w = data_.weights ? d_weights_.get() : nullptr;
    GBDT_CUDA_CHECK(cudaMemsetAsync(d_maxes_.get(), 0, 2 * (size_t)K_ * 8, stream_));
    GBDT_LAUNCH(cuda::k_grad_max<kBlock>, grid_for(n_, kBlock, num_sms_ * 8), kBlock, 0, stream_)(
        data_.objective, d_margins_.get(), d_labels_.get(), w, n_, K_, data_.grad, d_maxes_.get());
    GBDT_CUDA_LAUNCHED();
    std::vector<unsigned long long> mx(2 * (size_t)K_);
    download(mx.data(), d_maxes_.get(), mx.size(), stream_);
    sync();
    quant_.assign(K_, Quantizer{});
    for (int k = 0; k < K_; ++k) {
      double a, b;
      std::memcpy(&a, &mx[2 * k], 8);
      std::memcpy(&b, &mx[2 * k + 1], 8);
      quant_[k] = make_quantizer(a, b, n_);
    }
    upload(d_quant_.get(), quant_.data(), (size_t)K_, stream_);
    GBDT_LAUNCH(cuda::k_grad_quantize, grid_for(n_, kBlock, 65535), kBlock, 0, stream_)(
        data_.objective, d_margins_.get(), d_labels_.get(), w, n_, K_, data_.grad, d_quant_.get(),
        d_gpair_.get());
    GBDT_CUDA_LAUNCHED();
    if (diagnose_) diag_gradients();
  }

  // ---- GBDT_CUDA_DIAGNOSE=1: each stage against the host's computation ----
  bool diagnose_ = [] {
    const char* e = std::getenv("GBDT_CUDA_DIAGNOSE");
    return e && *e && std::strcmp(e, "0") != 0;
  }();
  int cur_k_ = 0;
  std::vector<uint32_t> diag_before_;  // rows before the level's partition

  [[noreturn]] void diag_fail(const std::string& what) {
    throw std::runtime_error("gbdt CUDA backend diagnose: the device and the host part at " + what +
                             " (round " + std::to_string(round_) + ", group " +
                             std::to_string(cur_k_) + ")");
  }
  template <class T>
  std::vector<T> fetch(const T* src, size_t n) {
    std::vector<T> v(n);
    download(v.data(), src, n, stream_);
    sync();
    return v;
  }
  void diag_gradients() {
    const std::vector<float> m = fetch(d_margins_.get(), n_ * (size_t)K_);
    const std::vector<GradSum> g = fetch(d_gpair_.get(), n_ * (size_t)K_);
    const std::string w = diagnose::gradients(data_, m, K_, quant_, g);
    if (!w.empty()) diag_fail(w);
  }
  // Histograms of level nodes [first, first + count) (slots 0..count-1 of
  // hist) from their rows, and their best splits (out) when the host can
  // enumerate them alone (numeric features, one mask, no bounds).
  void diag_level(const std::vector<LNode>& level, size_t first, size_t count, const GradSum* hist,
                  const Quantizer& q, const SplitCandidate* out) {
    const std::vector<uint32_t> rows = fetch(d_row_.get(), ns_);
    const std::vector<GradSum> gp = fetch(gp_, n_);
    const std::vector<GradSum> dh = fetch(hist, count * (size_t)T_);
    for (size_t i = 0; i < count; ++i) {
      const LNode& ln = level[first + i];
      const std::string node = "depth " + std::to_string(cur_depth_) + " node " + std::to_string(ln.id);
      const std::vector<GradSum> hh = diagnose::host_histogram(*data_.matrix, off_, rows.data(), ln.begin,
                                                               ln.end, gp.data(), T_);
      std::string w = diagnose::histogram(node, hh, dh.data() + i * (size_t)T_, off_, nf_);
      if (w.empty() && !node_masks_ && !mono_ && ncat_ == 0)
        w = diagnose::split(node, diagnose::host_best_split(hh.data(), ln.sum, off_, nbins_,
                                                            fmask_num_.data(),
                                                            at_node(data_.split, q, ln.sum, (double)(ln.end - ln.begin)), q),
                            out[i]);
      if (!w.empty()) diag_fail(w);
    }
  }

  // Exclusive scan of d_flags_[0..count] into d_scan_.
  void scan_flags(size_t count) {
    size_t bytes = cub_bytes_;
    GBDT_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_cub_.get(), bytes, d_flags_.get(),
                                                  d_scan_.get(), count + 1, stream_));
  }

  // ---- histograms ----
  // Builds the histograms of the given segments into slots of `dst` (zeroed
  // here): one launch for all of them.
  struct Build {
    int32_t slot;
    uint32_t begin, end;
  };
  void build_histograms(const std::vector<Build>& builds, GradSum* dst) {
    if (builds.empty()) return;
    int32_t max_slot = 0;
    size_t rows = 0;
    for (const Build& b : builds) {
      max_slot = std::max(max_slot, b.slot);
      rows += b.end - b.begin;
    }
    GBDT_CUDA_CHECK(cudaMemsetAsync(dst, 0, (size_t)(max_slot + 1) * T_ * sizeof(GradSum), stream_));
    // Rows per task: enough tasks to fill the device (4 per SM per group).
    size_t rpt = rows / ((size_t)num_sms_ * 4) + 1;
    rpt = std::max<size_t>(rpt, kMinTaskRows);
    tasks_.clear();
    for (const Build& b : builds) {
      for (const FeatGroup& g : groups_) {
        const uint32_t gw = (uint32_t)(g.f_end - g.f_begin);
        const uint32_t nslots = g.s_end - g.s_begin;
        for (uint32_t s = b.begin; s < b.end; s += (uint32_t)rpt) {
          uint32_t e = (uint32_t)std::min<size_t>(b.end, (size_t)s + rpt);
          int use_shared = !g.global && (size_t)(e - s) * gw >= (size_t)nslots ? 1 : 0;
          tasks_.push_back(HistTask{s, e, b.slot, g.f_begin, g.f_end, g.s_begin, g.s_end, use_shared});
        }
      }
    }
    if (tasks_.empty()) return;
    if (tasks_.size() > task_cap_) {
      task_cap_ = tasks_.size() + tasks_.size() / 2;
      d_tasks_.alloc(task_cap_, "histogram tasks");
    }
    upload(d_tasks_.get(), tasks_.data(), tasks_.size(), stream_);
    // Grid limit 2^31-1 blocks: far above task_cap_.
    if (wide_)
      GBDT_LAUNCH(cuda::k_histogram<uint16_t>, (unsigned)tasks_.size(), cuda::kHistBlock, hist_smem_, stream_)(
          d_tasks_.get(), d_row_.get(), (const uint16_t*)d_bins_.get(), nf_, d_off_.get(), gp_, dst, (size_t)T_);
    else
      GBDT_LAUNCH(cuda::k_histogram<uint8_t>, (unsigned)tasks_.size(), cuda::kHistBlock, hist_smem_, stream_)(
          d_tasks_.get(), d_row_.get(), d_bins_.get(), nf_, d_off_.get(), gp_, dst, (size_t)T_);
    GBDT_CUDA_LAUNCHED();
  }

  // ---- split evaluation ----
  // Best split of nodes [first, first + count) of the level whose histograms
  // are in hist slots 0..count-1 of `hist`.
  void evaluate(const std::vector<LNode>& level, size_t first, size_t count, const GradSum* hist,
                const Quantizer& q, SplitCandidate* out) {
    std::vector<GradSum> sums(count);
    for (size_t i = 0; i < count; ++i) sums[i] = level[first + i].sum;
    upload(d_node_sum_.get(), sums.data(), count, stream_);
    const bool min_data = needs_node_rows(data_.split);
    if (min_data) {  // the nodes' row counts (needs_node_rows)
      rows_host_.resize(count);
      for (size_t i = 0; i < count; ++i) rows_host_[i] = (double)(level[first + i].end - level[first + i].begin);
      upload(d_node_rows_.get(), rows_host_.data(), count, stream_);
    }
    if (node_masks_) upload_node_masks(level, first, count);
    if (mono_) {
      bounds_host_.resize(2 * count);
      for (size_t i = 0; i < count; ++i) {
        bounds_host_[2 * i] = lo_[(size_t)level[first + i].id];
        bounds_host_[2 * i + 1] = hi_[(size_t)level[first + i].id];
      }
      upload(d_bounds_.get(), bounds_host_.data(), 2 * count, stream_);
    }
    GBDT_LAUNCH(cuda::k_eval_splits, (unsigned)(count * nfb_), cuda::kEvalWarps * 32, 0, stream_)(
        hist, (size_t)T_, d_node_sum_.get(), nf_, nfb_, d_off_.get(), d_nbins_.get(),
        node_masks_ ? d_nmask_.get() : d_fmask_.get(), data_.split, q, d_cand_.get(),
        node_masks_ ? (size_t)nf_ : (size_t)0, mono_ ? d_bounds_.get() : nullptr,
        mono_ ? d_mono_.get() : nullptr, min_data ? d_node_rows_.get() : nullptr);
    GBDT_CUDA_LAUNCHED();
    GBDT_LAUNCH(cuda::k_reduce_splits, grid_for(count, 128, 1 << 30), 128, 0, stream_)(
        d_cand_.get(), (int)count, nfb_, d_best_.get());
    GBDT_CUDA_LAUNCHED();
    download(out, d_best_.get(), count, stream_);
    sync();
    if (ncat_ == 0) return;
    const size_t nc = count * (size_t)ncat_;
    GBDT_LAUNCH(cuda::k_eval_cat, grid_for(nc, 64, 65535), 64, 0, stream_)(
        hist, (size_t)T_, d_node_sum_.get(), (int)count, ncat_, d_cat_feats_.get(), d_off_.get(),
        d_nbins_.get(), data_.split, q, data_.cat_split, d_cat_cand_.get(), d_cat_sets_.get(),
        set_w_, cat_threads_ ? d_cat_order_.get() : nullptr, cat_threads_ ? d_cat_wt_.get() : nullptr,
        max_cat_nb_, mono_ ? d_bounds_.get() : nullptr, min_data ? d_node_rows_.get() : nullptr);
    GBDT_CUDA_LAUNCHED();
    cat_cand_.resize(nc);
    cat_sets_.resize(nc * (size_t)set_w_);
    download(cat_cand_.data(), d_cat_cand_.get(), nc, stream_);
    download(cat_sets_.data(), d_cat_sets_.get(), nc * (size_t)set_w_, stream_);
    sync();
    // better_split is a strict total order: the CPU's best over all features.
    for (size_t i = 0; i < count; ++i)
      for (int j = 0; j < ncat_; ++j) {
        // The node's mask (per-node column sampling), else the round's.
        if (!(node_masks_ ? nmask_host_[i * (size_t)nf_ + cat_feats_[j]] : fmask_[cat_feats_[j]]))
          continue;
        const SplitCandidate& c = cat_cand_[i * ncat_ + j];
        if (better_split(c, out[i])) {
          out[i] = c;
          std::copy(cat_sets_.begin() + (ptrdiff_t)((i * ncat_ + j) * (size_t)set_w_),
                    cat_sets_.begin() + (ptrdiff_t)((i * ncat_ + j + 1) * (size_t)set_w_),
                    best_set_.begin() + (ptrdiff_t)((first + i) * (size_t)set_w_));
        }
      }
  }

  // the feature masks of nodes level[first, first + count) (colsample_bylevel,
  // colsample_bynode, interaction constraints) into d_nmask_; the same masks
  // as the CPU grower's (NodeFeatureSampler).
  void upload_node_masks(const std::vector<LNode>& level, size_t first, size_t count) {
    nmask_host_.resize(count * (size_t)nf_);
    for (size_t i = 0; i < count; ++i) {
      const LNode& ln = level[first + i];
      sampler_->mask(cur_depth_, ln.id, used_[(size_t)ln.id], &one_mask_);
      std::copy(one_mask_.begin(), one_mask_.end(), nmask_host_.begin() + i * (size_t)nf_);
    }
    // k_eval_splits scans the numeric features only; the categorical ones
    // are checked against nmask_host_ on the host (evaluate()).
    nmask_num_ = nmask_host_;
    if (ncat_ > 0)
      for (size_t i = 0; i < count; ++i)
        for (int32_t f : cat_feats_) nmask_num_[i * (size_t)nf_ + f] = 0;
    upload(d_nmask_.get(), nmask_num_.data(), nmask_num_.size(), stream_);
  }

  // ---- one tree ----
  // The tree's rows (the round's sample) into d_row_, all in level slot 0; their sum.
  GradSum start_tree() {
    const size_t ns = ns_;
    auto t0 = Clock::now();
    if (ns) {
      GBDT_CUDA_CHECK(cudaMemcpyAsync(d_row_.get(), d_sampled_.get(), ns * sizeof(uint32_t),
                                      cudaMemcpyDeviceToDevice, stream_));
      GBDT_CUDA_CHECK(cudaMemsetAsync(d_slot_.get(), 0, ns * sizeof(int32_t), stream_));
    }
    GBDT_CUDA_CHECK(cudaMemsetAsync(d_root_.get(), 0, sizeof(GradSum), stream_));
    GBDT_LAUNCH(cuda::k_root_sum<kBlock>, grid_for(ns, kBlock, num_sms_ * 4), kBlock, 0, stream_)(
        d_row_.get(), ns, gp_, d_root_.get());
    GBDT_CUDA_LAUNCHED();
    GradSum root_sum{0, 0};
    download(&root_sum, d_root_.get(), 1, stream_);
    sync();
    t_part_ += since(t0);
    return root_sum;
  }

  // Appends the children of node p split by bs (cats: its right bin set when
  // categorical) to the tree: leaf values (monotone: bounded as the CPU
  // grower's), the children's bounds and the features used on their paths.
  SplitChildren add_children(Tree* tree, const LNode& p, const SplitCandidate& bs,
                             const CatWords* cats, const Quantizer& q) {
    const SplitParams& sp = data_.split;
    const uint32_t n_codes = cats ? (*data_.n_categories)[bs.feature] : 0;
    SplitChildren c;
    if (mono_) {  // monotone constraints, bounds as the CPU grower's
      double ll, hl, lr, hr;
      c = apply_split_bounded(tree, p.id, p.sum, bs, sp, q, lo_[(size_t)p.id], hi_[(size_t)p.id],
                              data_.tree_ext.monotone[bs.feature], &ll, &hl, &lr, &hr, cats,
                              n_codes);
      lo_.resize((size_t)tree->num_nodes());
      hi_.resize((size_t)tree->num_nodes());
      lo_[(size_t)c.left] = ll;
      hi_[(size_t)c.left] = hl;
      lo_[(size_t)c.right] = lr;
      hi_[(size_t)c.right] = hr;
    } else {
      c = apply_split(tree, p.id, p.sum, bs, sp, q, cats, n_codes);
    }
    if (node_masks_) {  // features used on the path (interaction constraints)
      used_.resize((size_t)tree->num_nodes());
      used_[(size_t)c.left] = used_[(size_t)p.id];
      add_used_feature(&used_[(size_t)c.left], bs.feature);
      used_[(size_t)c.right] = used_[(size_t)c.left];
    }
    return c;
  }

  // ---- the depth-wise driver ----
  // The state of a depth-wise tree carried from one level to the next.
  struct LevelState {
    int cur = 0;           // buffer holding the level's histograms (resident mode)
    bool resident = true;  // level histograms are in d_hist_[cur] slots 0..L-1
    int num_leaves = 1;    // leaves of the tree so far (max_leaves)
  };
  // The splits of one level: the best candidate per level node, the
  // indices of the nodes that split (level order), the partition table
  // (one entry per level node) and the categorical splits' bin sets.
  struct LevelSplits {
    std::vector<SplitCandidate> best;
    std::vector<size_t> split_idx;
    std::vector<PartNode> pn;
    std::vector<uint32_t> psets;  // set_w_ words per categorical split
  };

  // One tree of output group k, depth-wise as the CPU backend's driver
  // (updater.cpp): the root, then per level the evaluation of its nodes,
  // the rows to the children, the children in the tree and their
  // histograms; the leaves' values go to the margins at the end.
  void build_tree(int k, Tree* tree) {
    gp_ = d_gpair_.get() + (size_t)k * n_;
    cur_k_ = k;
    if (lossguide_) return build_tree_lossguide(k, tree);  // loss-guided growth
    const Quantizer& q = quant_[k];
    // per-node feature masks (host only: seeded by seed, round and group).
    NodeFeatureSampler sampler(data_.tree_ext, fmask_host_.data(), nf_, data_.seed, round_, k);
    sampler_ = &sampler;
    LevelState st;
    std::vector<LNode> level(1, init_root(tree, q, &st));
    std::vector<LNode> leaves;
    for (int depth = 0; depth < data_.max_depth && !level.empty(); ++depth) {
      check_cancel(data_.cancel);
      LevelSplits s = evaluate_level(depth, q, level, &st, &leaves);
      if (s.split_idx.empty()) {
        level.clear();
        break;
      }
      std::vector<LNode> next = grow_children(depth, tree, q, level, s, &st);
      level.swap(next);
    }
    for (const LNode& ln : level) leaves.push_back(ln);
    update_margins(k, tree, leaves);
  }

  // The root: the tree's rows and their sum (start_tree), its leaf, the
  // per-node state of the constraints and its histogram when it may split.
  LNode init_root(Tree* tree, const Quantizer& q, LevelState* st) {
    const size_t ns = ns_;
    const GradSum root_sum = start_tree();
    const LNode root{0, 0, (uint32_t)ns, root_sum};
    tree->add_node(-1, leaf_value(data_.split, q, root_sum), to_h(q, root_sum.h));
    used_.assign(1, std::vector<int>());
    lo_.assign(1, -HUGE_VAL);
    hi_.assign(1, HUGE_VAL);
    if (data_.max_depth > 0) {
      auto th = Clock::now();
      build_histograms({Build{0, 0, (uint32_t)ns}}, d_hist_[st->cur].get());
      sync();
      t_hist_ += since(th);
    }
    return root;
  }

  // The best split of every node of the level (evaluate(): from the
  // resident histograms, or in chunked mode from histograms built cap_
  // nodes at a time), then which nodes split (max_leaves) and their
  // partition table; the others become leaves.
  LevelSplits evaluate_level(int depth, const Quantizer& q, const std::vector<LNode>& level,
                             LevelState* st, std::vector<LNode>* leaves) {
    const size_t L = level.size();
    cur_depth_ = depth;
    LevelSplits s;
    s.best.assign(L, no_split());
    if (ncat_ > 0) best_set_.resize(L * (size_t)set_w_);
    if (st->resident) {
      auto ts = Clock::now();
      evaluate(level, 0, L, d_hist_[st->cur].get(), q, s.best.data());
      t_split_ += since(ts);
      if (diagnose_) diag_level(level, 0, L, d_hist_[st->cur].get(), q, s.best.data());
    } else {
      // Chunked: build each node's histogram directly, cap_ nodes at a time.
      for (size_t c0 = 0; c0 < L; c0 += cap_) {
        const size_t cn = std::min(cap_, L - c0);
        auto th = Clock::now();
        std::vector<Build> bl;
        for (size_t i = 0; i < cn; ++i)
          bl.push_back(Build{(int32_t)i, level[c0 + i].begin, level[c0 + i].end});
        build_histograms(bl, d_hist_[0].get());
        sync();
        t_hist_ += since(th);
        auto ts = Clock::now();
        evaluate(level, c0, cn, d_hist_[0].get(), q, s.best.data() + c0);
        t_split_ += since(ts);
        if (diagnose_) diag_level(level, c0, cn, d_hist_[0].get(), q, s.best.data() + c0);
      }
    }
    // Host: split nodes in level order, leaves.
    const int max_leaves = data_.tree_ext.max_leaves;
    s.pn.resize(L);
    for (size_t i = 0; i < L; ++i) {
      const SplitCandidate& b = s.best[i];
      s.pn[i] = PartNode{-1, 0, 0, 0, level[i].begin, level[i].end, -1, -1};
      if (b.feature >= 0 && (max_leaves == 0 || st->num_leaves < max_leaves)) {
        ++st->num_leaves;
        int32_t cat = -1;
        if (is_cat_[b.feature]) {
          cat = (int32_t)(s.psets.size() / (size_t)set_w_);
          s.psets.insert(s.psets.end(), best_set_.begin() + (ptrdiff_t)(i * (size_t)set_w_),
                         best_set_.begin() + (ptrdiff_t)((i + 1) * (size_t)set_w_));
        }
        s.pn[i] = PartNode{b.feature, b.bin, b.default_left, nbins_[b.feature], level[i].begin,
                           level[i].end, (int32_t)(2 * s.split_idx.size()), cat};
        s.split_idx.push_back(i);
      } else {
        leaves->push_back(level[i]);
      }
    }
    return s;
  }

  // The rows of all split nodes of the level to their children at once
  // (k_part_flags, a scan, k_part_scatter into d_row_ / d_slot_); returns
  // each split node's rows going left.
  std::vector<uint32_t> partition_level(int depth, const std::vector<LNode>& level,
                                        const LevelSplits& s) {
    const size_t ns = ns_;
    const size_t L = level.size();
    const size_t nsplit = s.split_idx.size();
    auto tp = Clock::now();
    std::vector<int32_t> sids(nsplit);
    for (size_t i = 0; i < nsplit; ++i) sids[i] = (int32_t)s.split_idx[i];
    if (diagnose_) diag_before_ = fetch(d_row_.get(), ns);
    upload(d_part_.get(), s.pn.data(), L, stream_);
    upload(d_split_ids_.get(), sids.data(), nsplit, stream_);
    if (!s.psets.empty()) upload(d_part_sets_.get(), s.psets.data(), s.psets.size(), stream_);
    if (wide_)
      GBDT_LAUNCH(cuda::k_part_flags<uint16_t>, grid_for(ns, kBlock, 65535), kBlock, 0, stream_)(
          d_row_.get(), d_slot_.get(), ns, d_part_.get(), d_part_sets_.get(), set_w_,
          (const uint16_t*)d_bins_.get(), nf_, d_flags_.get());
    else
      GBDT_LAUNCH(cuda::k_part_flags<uint8_t>, grid_for(ns, kBlock, 65535), kBlock, 0, stream_)(
          d_row_.get(), d_slot_.get(), ns, d_part_.get(), d_part_sets_.get(), set_w_,
          d_bins_.get(), nf_, d_flags_.get());
    GBDT_CUDA_LAUNCHED();
    scan_flags(ns);
    if (ns) {
      GBDT_LAUNCH(cuda::k_part_scatter, grid_for(ns, kBlock, 65535), kBlock, 0, stream_)(
          d_row_.get(), d_slot_.get(), ns, d_part_.get(), d_flags_.get(), d_scan_.get(),
          d_row_tmp_.get(), d_slot_tmp_.get());
      GBDT_CUDA_LAUNCHED();
    }
    GBDT_LAUNCH(cuda::k_part_counts, grid_for(nsplit, 128, 1 << 30), 128, 0, stream_)(
        d_part_.get(), d_split_ids_.get(), (int)nsplit, d_scan_.get(), d_nleft_.get());
    GBDT_CUDA_LAUNCHED();
    std::vector<uint32_t> nleft(nsplit);
    download(nleft.data(), d_nleft_.get(), nsplit, stream_);
    sync();
    d_row_.swap(d_row_tmp_);
    d_slot_.swap(d_slot_tmp_);
    t_part_ += since(tp);
    if (diagnose_) {
      const std::vector<uint32_t> after = fetch(d_row_.get(), ns);
      for (size_t j = 0; j < nsplit; ++j) {
        const PartNode& p = s.pn[s.split_idx[j]];
        const std::string w = diagnose::partition(
            "depth " + std::to_string(depth) + " node " + std::to_string(level[s.split_idx[j]].id),
            *data_.matrix, diag_before_.data(), after.data(), p.begin, p.end, p.feature, p.bin,
            p.default_left, p.nbins, p.cat >= 0 ? s.psets.data() + (size_t)p.cat * set_w_ : nullptr,
            set_w_, nleft[j]);
        if (!w.empty()) diag_fail(w);
      }
    }
    return nleft;
  }

  // The splits of s applied to the tree (add_children), in the CPU's
  // order; returns the children, two per split node, with their row
  // segments (nleft: each split node's rows going left).
  std::vector<LNode> apply_splits(Tree* tree, const Quantizer& q, const std::vector<LNode>& level,
                                  const LevelSplits& s, const std::vector<uint32_t>& nleft) {
    const size_t nsplit = s.split_idx.size();
    std::vector<LNode> next;
    next.reserve(2 * nsplit);
    for (size_t j = 0; j < nsplit; ++j) {
      const LNode& p = level[s.split_idx[j]];
      const SplitCandidate& bs = s.best[s.split_idx[j]];
      const CatWords cw{best_set_.data() + s.split_idx[j] * (size_t)set_w_, set_w_,
                        (uint32_t)nbins_[bs.feature]};
      const SplitChildren c = add_children(tree, p, bs, is_cat_[bs.feature] ? &cw : nullptr, q);
      next.push_back(LNode{c.left, p.begin, p.begin + nleft[j], c.left_sum});
      next.push_back(LNode{c.right, p.begin + nleft[j], p.end, c.right_sum});
    }
    return next;
  }

  // The rows of the split nodes to their children (partition_level), the
  // children in the tree (apply_splits) and, when the next level splits
  // and the histograms stay resident, their histograms: the smaller
  // child's built, its sibling's = parent - smaller (k_subtract); when
  // 2 x splits exceed cap_ slots, chunked mode for the rest of the tree.
  std::vector<LNode> grow_children(int depth, Tree* tree, const Quantizer& q,
                                   const std::vector<LNode>& level, const LevelSplits& s,
                                   LevelState* st) {
    const std::vector<uint32_t> nleft = partition_level(depth, level, s);
    auto th = Clock::now();
    std::vector<LNode> next = apply_splits(tree, q, level, s, nleft);
    const size_t nsplit = s.split_idx.size();
    const bool need_hist = depth + 1 < data_.max_depth;
    if (need_hist && st->resident) {
      if (2 * nsplit <= cap_) {
        // Smaller child built, sibling = parent - built.
        const int nxt = 1 - st->cur;
        std::vector<Build> bl;
        std::vector<SubTask> subs;
        for (size_t j = 0; j < nsplit; ++j) {
          const LNode& a = next[2 * j];
          const LNode& b = next[2 * j + 1];
          const bool a_small = (a.end - a.begin) <= (b.end - b.begin);
          const int32_t small = (int32_t)(a_small ? 2 * j : 2 * j + 1);
          const int32_t other = (int32_t)(a_small ? 2 * j + 1 : 2 * j);
          bl.push_back(Build{small, next[small].begin, next[small].end});
          subs.push_back(SubTask{(int32_t)s.split_idx[j], small, other});
        }
        build_histograms(bl, d_hist_[nxt].get());
        upload(d_subs_.get(), subs.data(), nsplit, stream_);
        GBDT_LAUNCH(cuda::k_subtract, grid_for(nsplit * (size_t)T_, kBlock, num_sms_ * 16), kBlock, 0,
                           stream_)(d_subs_.get(), (int)nsplit, d_hist_[st->cur].get(),
                                      d_hist_[nxt].get(), (size_t)T_);
        GBDT_CUDA_LAUNCHED();
        sync();
        st->cur = nxt;
      } else {
        st->resident = false;  // from here on: direct builds, chunk by chunk
      }
    }
    t_hist_ += since(th);
    return next;
  }

  // Margins of output group k += the tree's leaf values: the sampled rows
  // from the leaves' segments of d_row_, the others by walking the tree.
  void update_margins(int k, const Tree* tree, const std::vector<LNode>& leaves) {
    const size_t ns = ns_;
    // Prediction update from leaf positions.
    auto tu = Clock::now();
    std::vector<LeafSeg> segs;
    segs.reserve(leaves.size());
    for (const LNode& ln : leaves)
      if (ln.end > ln.begin) segs.push_back(LeafSeg{ln.begin, tree->value[ln.id]});
    std::sort(segs.begin(), segs.end(),
              [](const LeafSeg& a, const LeafSeg& b) { return a.begin < b.begin; });
    if (segs.size() > d_leaves_.size()) d_leaves_.alloc(segs.size(), "leaf table");
    if (!segs.empty() && ns) {
      upload(d_leaves_.get(), segs.data(), segs.size(), stream_);
      GBDT_LAUNCH(cuda::k_update_leaves, grid_for(ns, kBlock, 65535), kBlock, 0, stream_)(
          d_row_.get(), ns, d_leaves_.get(), (int)segs.size(), d_margins_.get(), K_, k);
      GBDT_CUDA_LAUNCHED();
    }
    if (ns < n_) {
      std::vector<DevNode> dn((size_t)tree->num_nodes());
      std::vector<uint32_t> tsets;  // set_w_ words per categorical node
      for (int32_t i = 0; i < tree->num_nodes(); ++i) {
        int32_t cat = -1;
        if (tree->is_categorical(i)) {
          // Bin b stands for code b (a last "other" bin for the codes past
          // it, all or none of which the code set holds).
          cat = (int32_t)(tsets.size() / (size_t)set_w_);
          tsets.resize(tsets.size() + (size_t)set_w_, 0u);
          uint32_t* bs = tsets.data() + (size_t)cat * set_w_;
          for (uint32_t w = 0; w < (uint32_t)set_w_ && tree->cat_offset[i] + w < tree->cat_offset[i + 1]; ++w)
            bs[w] = tree->cat_bits[tree->cat_offset[i] + w];
        }
        dn[i] = DevNode{tree->left[i], tree->right[i], tree->feature[i], tree->split_bin[i],
                        tree->default_left[i], tree->value[i], cat};
      }
      if (dn.size() > d_tree_.size()) {
        d_tree_.alloc(dn.size(), "tree");
        d_tree_sets_.alloc(dn.size() * (size_t)set_w_, "categorical split sets");  // set_w_ words a node
      }
      upload(d_tree_.get(), dn.data(), dn.size(), stream_);
      if (!tsets.empty()) upload(d_tree_sets_.get(), tsets.data(), tsets.size(), stream_);
      if (wide_)
        GBDT_LAUNCH(cuda::k_update_unsampled<uint16_t>, grid_for(n_, kBlock, 65535), kBlock, 0, stream_)(
            d_in_sample_.get(), n_, (const uint16_t*)d_bins_.get(), nf_, d_nbins_.get(), d_tree_.get(),
            d_tree_sets_.get(), set_w_, d_margins_.get(), K_, k);
      else
        GBDT_LAUNCH(cuda::k_update_unsampled<uint8_t>, grid_for(n_, kBlock, 65535), kBlock, 0, stream_)(
            d_in_sample_.get(), n_, d_bins_.get(), nf_, d_nbins_.get(), d_tree_.get(),
            d_tree_sets_.get(), set_w_, d_margins_.get(), K_, k);
      GBDT_CUDA_LAUNCHED();
    }
    sync();
    t_update_ += since(tu);
  }

  // ---- one tree, grow_policy lossguide ----
  // Best first, as the CPU grower (tree_grower.cpp): the open node with the
  // largest gain splits next (ties: the lower node id), one node at a time,
  // until max_leaves leaves; children below max_depth (0: no limit) are
  // evaluated.  Each split partitions its node's segment of d_row_ (stable),
  // builds the smaller child's histogram and subtracts it from the parent's
  // (whose slot becomes the larger child's), then evaluates both children
  // with evaluate() (node masks, monotone bounds and categorical splits as
  // depth-wise).  Histogram slots: d_hist_[0] and d_hist_[1] as one pool, one
  // slot per open node; when the pool is full the open node least likely to
  // split next gives its slot up, and a node split without its histogram
  // gets both children's built directly (same integer sums, same tree).
  struct LgNode {
    LNode seg;
    int depth = 0;
    int slot = -1;  // histogram slot, -1: none
    SplitCandidate best = no_split();
    std::vector<uint32_t> best_set;  // right bin set when best is categorical (set_w_ words)
  };

  GradSum* lg_hist(int slot) {
    return slot < (int)cap_ ? d_hist_[0].get() + (size_t)slot * T_
                            : d_hist_[1].get() + (size_t)(slot - (int)cap_) * T_;
  }

  // Priority of the open nodes: a before b when a splits first.
  bool lg_first(int32_t a, int32_t b) const {
    const double ga = lg_[(size_t)a].best.gain, gb = lg_[(size_t)b].best.gain;
    if (ga != gb) return ga > gb;
    return a < b;
  }

  // A free histogram slot for node id; when none is free, the open node
  // that would split last gives its slot up (never `keep`).
  int lg_take_slot(int32_t id, int32_t keep) {
    int s = -1;
    if (!lg_free_.empty()) {
      s = lg_free_.back();
      lg_free_.pop_back();
    } else {
      int32_t victim = -1;
      for (int32_t h : lg_holders_)
        if (h != keep && h != id && (victim < 0 || lg_first(victim, h))) victim = h;
      if (victim < 0)
        throw std::logic_error("gbdt CUDA backend: lossguide histogram pool has no slot to give");
      s = lg_[(size_t)victim].slot;
      lg_[(size_t)victim].slot = -1;
      lg_holders_.erase(std::find(lg_holders_.begin(), lg_holders_.end(), victim));
    }
    lg_[(size_t)id].slot = s;
    lg_holders_.push_back(id);
    return s;
  }

  void lg_put_slot(int32_t id) {
    LgNode& n = lg_[(size_t)id];
    if (n.slot < 0) return;
    lg_free_.push_back(n.slot);
    n.slot = -1;
    lg_holders_.erase(std::find(lg_holders_.begin(), lg_holders_.end(), id));
  }

  void lg_build(int32_t id) {
    const LNode& s = lg_[(size_t)id].seg;
    build_histograms({Build{0, s.begin, s.end}}, lg_hist(lg_[(size_t)id].slot));
  }

  void lg_evaluate(int32_t id, const Quantizer& q) {
    LgNode& n = lg_[(size_t)id];
    std::vector<LNode> one(1, n.seg);
    cur_depth_ = n.depth;
    if (ncat_ > 0) best_set_.resize((size_t)set_w_);
    SplitCandidate best = no_split();
    evaluate(one, 0, 1, lg_hist(n.slot), q, &best);
    n.best = best;
    if (best.feature >= 0 && is_cat_[best.feature])
      n.best_set.assign(best_set_.begin(), best_set_.begin() + set_w_);
  }

  // Stable partition of node p's segment by its best split; the left count.
  uint32_t lg_partition(const LgNode& p) {
    const SplitCandidate& s = p.best;
    const uint32_t m = p.seg.end - p.seg.begin;
    if (m == 0) return 0;
    const bool cat = is_cat_[s.feature] != 0;
    if (cat) upload(d_part_sets_.get(), p.best_set.data(), (size_t)set_w_, stream_);
    const cuda::PartNode pn{s.feature, s.bin, s.default_left, nbins_[s.feature], p.seg.begin,
                            p.seg.end, 0, cat ? 0 : -1};
    uint32_t* rows = d_row_.get() + p.seg.begin;
    if (wide_)
      GBDT_LAUNCH(cuda::k_seg_flags<uint16_t>, grid_for(m, kBlock, 65535), kBlock, 0, stream_)(
          rows, m, pn, d_part_sets_.get(), set_w_, (const uint16_t*)d_bins_.get(), nf_,
          d_flags_.get());
    else
      GBDT_LAUNCH(cuda::k_seg_flags<uint8_t>, grid_for(m, kBlock, 65535), kBlock, 0, stream_)(
          rows, m, pn, d_part_sets_.get(), set_w_, d_bins_.get(), nf_, d_flags_.get());
    GBDT_CUDA_LAUNCHED();
    scan_flags(m);
    GBDT_LAUNCH(cuda::k_seg_scatter, grid_for(m, kBlock, 65535), kBlock, 0, stream_)(
        rows, m, d_flags_.get(), d_scan_.get(), d_row_tmp_.get());
    GBDT_CUDA_LAUNCHED();
    GBDT_CUDA_CHECK(cudaMemcpyAsync(rows, d_row_tmp_.get(), m * sizeof(uint32_t),
                                    cudaMemcpyDeviceToDevice, stream_));
    uint32_t nleft = 0;
    download(&nleft, d_scan_.get() + m, 1, stream_);
    sync();
    return nleft;
  }

  // Splits open node id; appends the children that can split to *open.
  void lg_split(Tree* tree, int32_t id, const Quantizer& q, std::vector<int32_t>* open) {
    const int D = data_.max_depth;
    auto tp = Clock::now();
    const uint32_t nleft = lg_partition(lg_[(size_t)id]);
    t_part_ += since(tp);
    const LgNode p = lg_[(size_t)id];  // copy: lg_ grows below
    const CatWords cw{p.best_set.data(), set_w_, (uint32_t)nbins_[p.best.feature]};
    const SplitChildren c =
        add_children(tree, p.seg, p.best, is_cat_[p.best.feature] ? &cw : nullptr, q);
    lg_.resize((size_t)tree->num_nodes());
    LgNode& L = lg_[(size_t)c.left];
    LgNode& R = lg_[(size_t)c.right];
    L.seg = LNode{c.left, p.seg.begin, p.seg.begin + nleft, c.left_sum};
    R.seg = LNode{c.right, p.seg.begin + nleft, p.seg.end, c.right_sum};
    L.depth = R.depth = p.depth + 1;
    if (D > 0 && p.depth + 1 >= D) {  // the children are leaves
      lg_put_slot(id);
      return;
    }
    auto th = Clock::now();
    const bool left_small = (L.seg.end - L.seg.begin) <= (R.seg.end - R.seg.begin);
    const int32_t small = left_small ? c.left : c.right;
    const int32_t large = left_small ? c.right : c.left;
    if (p.slot >= 0) {
      // The smaller child built, the larger one = parent - smaller, in the
      // parent's slot.
      lg_take_slot(small, id);
      lg_build(small);
      lg_[(size_t)large].slot = p.slot;
      lg_[(size_t)id].slot = -1;
      *std::find(lg_holders_.begin(), lg_holders_.end(), id) = large;
      GBDT_LAUNCH(cuda::k_hist_sub, grid_for(T_, kBlock, num_sms_ * 16), kBlock, 0, stream_)(
          lg_hist(p.slot), lg_hist(lg_[(size_t)small].slot), (size_t)T_);
      GBDT_CUDA_LAUNCHED();
    } else {
      lg_take_slot(c.left, -1);
      lg_build(c.left);
      lg_take_slot(c.right, c.left);
      lg_build(c.right);
    }
    sync();
    t_hist_ += since(th);
    auto ts = Clock::now();
    for (int32_t ch : {c.left, c.right}) {
      lg_evaluate(ch, q);
      if (lg_[(size_t)ch].best.feature >= 0)
        open->push_back(ch);
      else
        lg_put_slot(ch);
    }
    t_split_ += since(ts);
  }

  void build_tree_lossguide(int k, Tree* tree) {
    const Quantizer& q = quant_[k];
    const GradSum root_sum = start_tree();
    tree->add_node(-1, leaf_value(data_.split, q, root_sum), to_h(q, root_sum.h));
    NodeFeatureSampler sampler(data_.tree_ext, fmask_host_.data(), nf_, data_.seed, round_, k);
    sampler_ = &sampler;
    used_.assign(1, std::vector<int>());
    lo_.assign(1, -HUGE_VAL);
    hi_.assign(1, HUGE_VAL);
    lg_.assign(1, LgNode());
    lg_[0].seg = LNode{0, 0, (uint32_t)ns_, root_sum};
    lg_free_.clear();
    lg_holders_.clear();
    for (int s = (int)(2 * cap_) - 1; s >= 0; --s) lg_free_.push_back(s);
    auto worse = [this](int32_t a, int32_t b) { return lg_first(b, a); };
    std::priority_queue<int32_t, std::vector<int32_t>, decltype(worse)> open(worse);
    {  // the root (max_depth >= 1 or 0: it can split)
      auto th = Clock::now();
      lg_take_slot(0, -1);
      lg_build(0);
      sync();
      t_hist_ += since(th);
      auto ts = Clock::now();
      lg_evaluate(0, q);
      t_split_ += since(ts);
      if (lg_[0].best.feature >= 0)
        open.push(0);
      else
        lg_put_slot(0);
    }
    const int max_leaves = data_.tree_ext.max_leaves;
    int num_leaves = 1;
    std::vector<int32_t> kids;
    while (!open.empty()) {
      check_cancel(data_.cancel);
      if (max_leaves > 0 && num_leaves >= max_leaves) break;
      const int32_t id = open.top();
      open.pop();
      kids.clear();
      lg_split(tree, id, q, &kids);
      ++num_leaves;
      for (int32_t c : kids) open.push(c);
    }
    sampler_ = nullptr;
    std::vector<LNode> leaves;
    for (int32_t i = 0; i < tree->num_nodes(); ++i)
      if (tree->is_leaf(i)) leaves.push_back(lg_[(size_t)i].seg);
    update_margins(k, tree, leaves);
  }

  bool lossguide_ = false;
  std::vector<LgNode> lg_;          // per node id of the tree being grown
  std::vector<int> lg_free_;        // free histogram slots
  std::vector<int32_t> lg_holders_; // nodes holding a slot

  static constexpr size_t kMinTaskRows = 256;

  BoostData data_;
  size_t n_ = 0, ns_ = 0;
  int nf_ = 0, K_ = 1, nfb_ = 1;
  uint32_t T_ = 0;
  int dev_ = 0, num_sms_ = 1;
  std::string dev_name_;
  std::vector<uint32_t> off_;
  std::vector<int32_t> nbins_;
  std::vector<FeatGroup> groups_;
  size_t hist_smem_ = 0;
  size_t lmax_ = 1, tree_cap_ = 1, task_cap_ = 1, cap_ = 1, cub_bytes_ = 0, estimate_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  std::vector<Quantizer> quant_;
  std::vector<HistTask> tasks_;
  const GradSum* gp_ = nullptr;
  // per-node feature masks (colsample_bylevel/bynode, interaction constraints).
  bool node_masks_ = false;
  int round_ = 0, cur_depth_ = 0;
  std::vector<uint8_t> fmask_host_, nmask_host_, nmask_num_, one_mask_;
  NodeFeatureSampler* sampler_ = nullptr;  // of the tree being built
  std::vector<std::vector<int>> used_;     // per node id: features used on its path
  DevArray<uint8_t> d_nmask_;
  bool mono_ = false;                      // monotone constraints
  std::vector<double> lo_, hi_, bounds_host_;  // per node id: weight bounds
  std::vector<double> rows_host_;  // min_data_in_leaf: the level's row counts, uploaded
  DevArray<double> d_bounds_;
  DevArray<double> d_node_rows_;  // min_data_in_leaf: the level's row counts
  DevArray<int8_t> d_mono_;

  DevArray<uint8_t> d_bins_, d_in_sample_, d_fmask_, d_cub_;
  DevArray<float> d_labels_, d_weights_, d_margins_;
  DevArray<GradSum> d_gpair_, d_root_, d_node_sum_, d_hist_[2];
  DevArray<uint32_t> d_sampled_, d_row_, d_row_tmp_, d_flags_, d_scan_, d_off_, d_nleft_;
  DevArray<int32_t> d_slot_, d_slot_tmp_, d_nbins_, d_split_ids_;
  DevArray<unsigned long long> d_maxes_;
  DevArray<Quantizer> d_quant_;
  DevArray<PartNode> d_part_;
  DevArray<SplitCandidate> d_cand_, d_best_;
  DevArray<LeafSeg> d_leaves_;
  DevArray<SubTask> d_subs_;
  DevArray<DevNode> d_tree_;
  DevArray<HistTask> d_tasks_;
  // Categorical features (categorical_split.h).
  int ncat_ = 0;
  std::vector<int32_t> cat_feats_;          // their feature ids, ascending
  std::vector<uint8_t> is_cat_;             // per feature
  std::vector<uint8_t> fmask_, fmask_num_;  // the round's mask; without categorical features
  std::vector<SplitCandidate> cat_cand_;    // evaluate(): node x categorical feature
  std::vector<uint32_t> cat_sets_;          // set_w_ words per (node, categorical feature)
  std::vector<uint32_t> best_set_;          // per level node: right set of its categorical best (set_w_ words)
  bool wide_ = false;                       // 2-byte bin matrix entries
  int set_w_ = kCatSetWords;                // words per categorical bin set
  int max_cat_nb_ = 0;                      // most bins of a categorical feature
  size_t cat_threads_ = 0;                  // k_eval_cat threads with sort scratch (0: none)
  DevArray<int> d_cat_order_;               // their scratch
  DevArray<double> d_cat_wt_;
  DevArray<int32_t> d_cat_feats_;
  DevArray<SplitCandidate> d_cat_cand_;
  DevArray<uint32_t> d_cat_sets_, d_part_sets_, d_tree_sets_;

  double t_transfer_ = 0, t_grad_ = 0, t_hist_ = 0, t_split_ = 0, t_part_ = 0, t_update_ = 0;
};

// Device count and the error that explains a zero.
// The CUDA driver and runtime start helper threads when they initialize; they
// inherit the signal mask of the thread that initializes them.  Initialize
// with all signals blocked so that the host process's signals (PostgreSQL's
// SIGINT, SIGTERM, SIGALRM, ...) are never delivered to a CUDA thread.
struct SignalsBlocked {
  sigset_t old;
  SignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
  }
  ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old, nullptr); }
};

int device_count(cudaError_t* err) {
  static std::once_flag once;
  static cudaError_t first_err = cudaSuccess;
  static int first_n = 0;
  // The first call initializes the driver with signals blocked (the device
  // context is created by make_cuda_backend, also with signals blocked).
  std::call_once(once, [] {
    SignalsBlocked guard;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    first_err = e;
    first_n = n;
  });
  if (err) *err = first_err;
  return first_n;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if ((unsigned char)c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o;
}

std::string version_string(int v) {
  if (v <= 0) return "null";
  return "\"" + std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10) + "\"";
}

}  // namespace

bool cuda_compiled() { return true; }

int cuda_device_count() { return device_count(nullptr); }

std::string cuda_build_info_json() {
  std::ostringstream o;
  int rt = 0, drv = 0;
  if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
  if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
  (void)cudaGetLastError();
  o << "{\"cuda_compiled\": true, \"cuda_version\": " << version_string(CUDART_VERSION)
    << ", \"runtime_version\": " << version_string(rt)
    << ", \"driver_version\": " << version_string(drv)
    << ", \"device_code\": [\"sm_80\", \"sm_90\", \"compute_90\"], \"devices\": [";
  cudaError_t err = cudaSuccess;
  int n = device_count(&err);
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    o << (i ? ", " : "") << "{\"id\": " << i << ", \"name\": \"" << json_escape(p.name)
      << "\", \"memory_bytes\": " << (unsigned long long)p.totalGlobalMem
      << ", \"compute_capability\": \"" << p.major << "." << p.minor
      << "\", \"multiprocessors\": " << p.multiProcessorCount << "}";
  }
  o << "]";
  if (n == 0)
    o << ", \"error\": \"" << json_escape(err == cudaSuccess ? std::string("no CUDA device")
                                                             : cuda_err(err))
      << "\"";
  o << "}";
  return o.str();
}

std::unique_ptr<TreeBackend> make_cuda_backend(const BoostData& data) {
  cudaError_t err = cudaSuccess;
  if (device_count(&err) == 0)
    throw ResourceError("device 'cuda' requested but no CUDA device is available: " +
                        std::string(err == cudaSuccess ? "no CUDA device found"
                                                       : cudaGetErrorString(err)));
  try {
    SignalsBlocked guard;  // context creation starts CUDA helper threads
    GBDT_CUDA_CHECK(cudaFree(nullptr));
    return std::unique_ptr<TreeBackend>(new CudaBackend(data));
  } catch (const ResourceError&) {
    throw;
  } catch (const std::exception& e) {
    // Device setup failures (no kernel image, driver errors) are resources too,
    // so that device 'auto' falls back to the CPU.
    throw ResourceError(e.what());
  }
}

}  // namespace gbdt
