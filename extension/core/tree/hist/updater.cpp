// CPU tree builder: level-wise histogram growth on the row-major bin matrix.
//  - gradients quantized to 64-bit fixed point (gradients.h), so histogram
//    sums are exact integers and the result does not depend on threads;
//  - per level: split evaluation (split_math.h) for every node, stable
//    partition of each split node's rows, then histograms for the smaller
//    child only, the sibling being parent - smaller (subtraction trick);
//  - predictions updated from the rows' final leaf positions.
// Node numbering (shared with the CUDA backend): within a level, nodes are
// visited in order; each split appends its left then right child.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_SCAN_AVX2 1
#endif

#include "../tree_backend.h"
#include "../categorical_split.h"
#include "evaluate_categorical.h"
#include "../../common/cpu_features.h"
#include "../../objective/gradient_pass.h"
#include "../../objective/gradients.h"
#include "../../data/joint_bins.h"
#include "leaf_update.h"
#include "../../common/parallel_policy.h"
#include "../../objective/host_gradients.h"
#include "row_partitioner.h"
#include "../../data/sparse_bins.h"
#include "split_prefix.h"
#include "../../common/thread_choice.h"
#include "../../common/thread_pool.h"
#include "../apply_split.h"
#include "tree_grower.h"

namespace gbdt {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Adds the rows idx[b..e) to the cells of one feature block (sparse_bins.h,
// joint_bins.h; one 16-byte integer pair per cell): row r's record at rows
// + r * stride holds nd BinT entries, entry j adding to cell base[j] +
// entry; with kSlots, then the block's K slots (cells relative to hb; an
// overflowing row's last slot leads to its overflow list).  Integer sums:
// the order does not matter.
template <typename BinT, bool kSlots>
inline void add_rows(GradSum* const* base, int nd, const uint8_t* rows, size_t stride,
                     const SparseBlock& blk, GradSum* hb, const uint32_t* idx, size_t b, size_t e,
                     const GradSum* gp) {
  const int K = kSlots ? blk.K : 0;
  const size_t slot_at = blk.slot_at;
  const size_t pf = 24;  // prefetch distance (rows)
  for (size_t i = b; i < e; ++i) {
    if (i + pf < e) {
      const uint32_t q = idx[i + pf];
      __builtin_prefetch(rows + (size_t)q * stride);
      __builtin_prefetch(gp + q);
    }
    const uint32_t r = idx[i];
    const uint8_t* rr = rows + (size_t)r * stride;
    const BinT* rb = (const BinT*)rr;
#if defined(__SSE2__)
    const __m128i g = _mm_loadu_si128(reinterpret_cast<const __m128i*>(gp + r));
    auto add = [&g](GradSum* cell) {
      __m128i* p = reinterpret_cast<__m128i*>(cell);
      _mm_storeu_si128(p, _mm_add_epi64(_mm_loadu_si128(p), g));
    };
#else
    const GradSum g = gp[r];
    auto add = [&g](GradSum* cell) {
      cell->g += g.g;
      cell->h += g.h;
    };
#endif
    int j = 0;
    for (; j + 4 <= nd; j += 4) {
      GradSum* c0 = base[j] + rb[j];
      GradSum* c1 = base[j + 1] + rb[j + 1];
      GradSum* c2 = base[j + 2] + rb[j + 2];
      GradSum* c3 = base[j + 3] + rb[j + 3];
      add(c0);
      add(c1);
      add(c2);
      add(c3);
    }
    for (; j < nd; ++j) add(base[j] + rb[j]);
    if (K > 0) {
      const uint8_t* sl = rr + slot_at;
      auto slot = [sl](int k) {
        uint16_t v;
        std::memcpy(&v, sl + 2 * k, 2);
        return v;
      };
      for (int k = 0; k < K - 1; ++k) add(hb + slot(k));
      const uint16_t last = slot(K - 1);
      if (__builtin_expect(last != kOverflowSlot, 1)) {
        add(hb + last);
      } else {
        const uint16_t* end;
        for (const uint16_t* c = overflow_cells(blk, r, &end); c < end; ++c) add(hb + *c);
      }
    }
  }
}

// Per-thread scratch for the joint histograms of a block's groups.
std::vector<GradSum>& joint_scratch() {
  thread_local std::vector<GradSum> s;
  return s;
}

// Adds the rows idx[b..e) of one feature block to hst.  Blocks with elided
// features read their row records (dense bins, then slots; the dominant
// cells are filled afterwards: fill_dominant_cells); blocks with feature
// groups (joint_bins.h), when the rows are enough to pay for the scratch,
// their group codes; the others the row-major bin matrix (row stride d).
// BinT: the bin matrix's entry type (uint8_t, or uint16_t when wide).
template <typename BinT>
inline void accumulate_block(GradSum* hst, const BinT* bins, int d, const uint32_t* off,
                             const SparseBlock& blk, const JointBlock* jb, const uint32_t* idx,
                             size_t b, size_t e, const GradSum* gp) {
  GradSum* base[kHistFeatureBlock];
  GradSum* hb = hst + off[blk.f0];  // slots are relative to the block's first cell
  if (!blk.elided.empty()) {
    const int nd = (int)blk.dense.size();
    for (int j = 0; j < nd; ++j) base[j] = hst + off[blk.dense[j]];
    add_rows<BinT, true>(base, nd, blk.rec.data(), blk.stride, blk, hb, idx, b, e, gp);
    return;
  }
  if (jb != nullptr && !jb->groups.empty() && (e - b) * (size_t)jb->saved >= 2 * (size_t)jb->cells) {
    std::vector<GradSum>& s = joint_scratch();
    if (s.size() < jb->cells) s.resize(jb->cells);
    std::memset(s.data(), 0, sizeof(GradSum) * jb->cells);
    const int ng = (int)jb->groups.size();
    for (int j = 0; j < ng; ++j) {
      const JointGroup& g = jb->groups[j];
      base[j] = g.feat.size() > 1 ? s.data() + g.at : hst + off[g.feat[0]];
    }
    add_rows<BinT, false>(base, ng, jb->rec.data(), jb->stride, blk, hb, idx, b, e, gp);
    add_joint_marginals(hst, *jb, s.data(), off);
    return;
  }
  const int nd = blk.f1 - blk.f0;
  for (int j = 0; j < nd; ++j) base[j] = hst + off[blk.f0 + j];
  add_rows<BinT, false>(base, nd, (const uint8_t*)(bins + blk.f0), (size_t)d * sizeof(BinT), blk, hb,
                        idx, b, e, gp);
}

// ---- vectorized split scan (max_delta_step == 0) ----
// The gains of split_gain_given_parent for a run of left sums, computed with
// the very IEEE double operations of split_math.h in the same order (no FMA:
// the AVX2 target below does not enable it, and -ffp-contract=off holds), so
// every gain has the bits of the scalar code.
struct GainConsts {
  double g_inv, h_inv, mcw, lambda, alpha, pg;
  int64_t pgs, phs;  // parent sums
};

inline double scalar_gain(const GainConsts& k, int64_t lg, int64_t lh) {
  const int64_t rg = k.pgs - lg, rh = k.phs - lh;
  const double hl = (double)lh * k.h_inv, hr = (double)rh * k.h_inv;
  if (hl < k.mcw || hr < k.mcw || hl <= 0.0 || hr <= 0.0) return -1.0;
  const double gl = (double)lg * k.g_inv, gr = (double)rg * k.g_inv;
  const double tl = gl > k.alpha ? gl - k.alpha : (gl < -k.alpha ? gl + k.alpha : 0.0);
  const double tr = gr > k.alpha ? gr - k.alpha : (gr < -k.alpha ? gr + k.alpha : 0.0);
  return ((tl * tl) / (hl + k.lambda) + (tr * tr) / (hr + k.lambda)) - k.pg;
}

#if defined(GBDT_SCAN_AVX2)
// Exact int64 -> double (round to nearest even, like cvtsi2sd): v = hi*2^32 +
// lo with both parts converted exactly, then one rounding addition.
__attribute__((target("avx2"))) inline __m256d i64_to_f64(__m256i v) {
  const __m256i lo = _mm256_blend_epi32(v, _mm256_castpd_si256(_mm256_set1_pd(0x1p52)), 0xAA);
  const __m256i hi = _mm256_xor_si256(_mm256_srli_epi64(v, 32), _mm256_set1_epi64x(0x4530000080000000LL));
  const __m256d hd = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(0x1p84 + 0x1p63));
  const __m256d ld = _mm256_sub_pd(_mm256_castsi256_pd(lo), _mm256_set1_pd(0x1p52));
  return _mm256_add_pd(hd, ld);
}

__attribute__((target("avx2"))) inline __m256d thr_l1(__m256d g, __m256d a, __m256d na) {
  const __m256d gt = _mm256_cmp_pd(g, a, _CMP_GT_OQ);
  const __m256d lt = _mm256_cmp_pd(g, na, _CMP_LT_OQ);
  __m256d t = _mm256_and_pd(lt, _mm256_add_pd(g, a));
  return _mm256_blendv_pd(t, _mm256_sub_pd(g, a), gt);
}

// The largest gain of left sums (lg[i] + og, lh[i] + oh), i < n (arrays padded
// to a multiple of 4), and the first i that has it (*at); -inf when n == 0.
struct GainMax {
  double gain;
  int at;
};

// Per lane, the first maximum (strictly greater replaces); then the largest
// value over the lanes, ties to the lowest index.
inline GainMax reduce_lanes(const double* m, const double* id) {
  GainMax r{m[0], (int)id[0]};
  for (int j = 1; j < 4; ++j)
    if (m[j] > r.gain || (m[j] == r.gain && (int)id[j] < r.at)) r = GainMax{m[j], (int)id[j]};
  return r;
}

__attribute__((target("avx2"))) GainMax gains_avx2(const GainConsts& k, const int64_t* lg,
                                                   const int64_t* lh, int n, int64_t og,
                                                   int64_t oh) {
  const __m256d ninf = _mm256_set1_pd(-HUGE_VAL);
  __m256d vmax = ninf;
  __m256d vat = _mm256_set1_pd(2147483647.0);
  __m256d vid = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
  const __m256d four = _mm256_set1_pd(4.0);
  const __m256i vog = _mm256_set1_epi64x(og), voh = _mm256_set1_epi64x(oh);
  const __m256i vpg = _mm256_set1_epi64x(k.pgs), vph = _mm256_set1_epi64x(k.phs);
  const __m256d ginv = _mm256_set1_pd(k.g_inv), hinv = _mm256_set1_pd(k.h_inv);
  const __m256d mcw = _mm256_set1_pd(k.mcw), lam = _mm256_set1_pd(k.lambda);
  const __m256d al = _mm256_set1_pd(k.alpha), nal = _mm256_set1_pd(-k.alpha);
  const __m256d pg = _mm256_set1_pd(k.pg), zero = _mm256_setzero_pd(), m1 = _mm256_set1_pd(-1.0);
  for (int i = 0; i < n; i += 4) {
    const __m256i lgi = _mm256_add_epi64(_mm256_loadu_si256((const __m256i*)(lg + i)), vog);
    const __m256i lhi = _mm256_add_epi64(_mm256_loadu_si256((const __m256i*)(lh + i)), voh);
    const __m256i rgi = _mm256_sub_epi64(vpg, lgi), rhi = _mm256_sub_epi64(vph, lhi);
    const __m256d hl = _mm256_mul_pd(i64_to_f64(lhi), hinv);
    const __m256d hr = _mm256_mul_pd(i64_to_f64(rhi), hinv);
    __m256d bad = _mm256_or_pd(_mm256_cmp_pd(hl, mcw, _CMP_LT_OQ), _mm256_cmp_pd(hr, mcw, _CMP_LT_OQ));
    bad = _mm256_or_pd(bad, _mm256_or_pd(_mm256_cmp_pd(hl, zero, _CMP_LE_OQ), _mm256_cmp_pd(hr, zero, _CMP_LE_OQ)));
    const __m256d gl = _mm256_mul_pd(i64_to_f64(lgi), ginv);
    const __m256d gr = _mm256_mul_pd(i64_to_f64(rgi), ginv);
    const __m256d tl = thr_l1(gl, al, nal), tr = thr_l1(gr, al, nal);
    const __m256d a = _mm256_div_pd(_mm256_mul_pd(tl, tl), _mm256_add_pd(hl, lam));
    const __m256d b = _mm256_div_pd(_mm256_mul_pd(tr, tr), _mm256_add_pd(hr, lam));
    const __m256d g = _mm256_sub_pd(_mm256_add_pd(a, b), pg);
    __m256d res = _mm256_blendv_pd(g, m1, bad);
    if (i + 4 > n)  // padding lanes take no part in the maximum
      res = _mm256_blendv_pd(res, ninf, _mm256_cmp_pd(vid, _mm256_set1_pd((double)n), _CMP_GE_OQ));
    const __m256d up = _mm256_cmp_pd(res, vmax, _CMP_GT_OQ);
    vmax = _mm256_blendv_pd(vmax, res, up);
    vat = _mm256_blendv_pd(vat, vid, up);
    vid = _mm256_add_pd(vid, four);
  }
  double m[4], id[4];
  _mm256_storeu_pd(m, vmax);
  _mm256_storeu_pd(id, vat);
  return reduce_lanes(m, id);
}

#endif

// Like gains_avx2.
GainMax gains_any(const GainConsts& k, const int64_t* lg, const int64_t* lh, int n, int64_t og,
                  int64_t oh) {
#if defined(GBDT_SCAN_AVX2)
  if (cpu_has_avx2()) return gains_avx2(k, lg, lh, n, og, oh);
#endif
  GainMax r{-HUGE_VAL, 2147483647};
  for (int i = 0; i < n; ++i) {
    const double g = scalar_gain(k, lg[i] + og, lh[i] + oh);
    if (g > r.gain) r = GainMax{g, i};
  }
  return r;
}

// Per-thread buffers of the split scan.
struct ScanScratch {
  std::vector<int64_t> lg, lh;
  std::vector<int32_t> bin;
  void reserve(size_t n) {
    n = (n + 8) & ~(size_t)3;
    lg.assign(n, 0);
    lh.assign(n, 0);
    bin.assign(n, 0);
  }
};

struct LevelNode {
  int32_t id;        // node id in the tree
  size_t begin, end; // segment of `rows`
  GradSum sum;
  GradSum* hist;     // nullptr when not needed (last level)
  // When set, hist still holds the parent's histogram and this node's is
  // hist - pending_small: the split scan subtracts it feature by feature, in
  // place, right before reading it (one pass over memory fewer).
  const GradSum* pending_small = nullptr;
  // The row list holding the node's rows at [begin, end): row_idx_ or
  // tmp_idx_ (partition() routes a node's rows from one into the other).
  uint32_t* rows = nullptr;
};

class HistPool {
 public:
  explicit HistPool(size_t bins) : bins_(bins) {}
  bool has_free() const { return !free_.empty(); }
  size_t count() const { return store_.size(); }
  GradSum* get() {
    if (!free_.empty()) {
      GradSum* h = free_.back();
      free_.pop_back();
      return h;
    }
    store_.emplace_back(new GradSum[bins_]);
    return store_.back().get();
  }
  void put(GradSum* h) {
    if (h) free_.push_back(h);
  }
 private:
  size_t bins_;
  std::vector<std::unique_ptr<GradSum[]>> store_;
  std::vector<GradSum*> free_;
};

class CpuBackend final : public TreeBackend {
 public:
  std::string name() const override { return "cpu"; }
  ~CpuBackend() override {
    if (data_.budget) data_.budget->release(hist_charged_ + sparse_charged_ + cols_charged_);
    // Benchmarks: GBDT_PHASES=1 prints the phase times to stderr.
    const char* e = std::getenv("GBDT_PHASES");
    if (e && *e == '1') {
      for (auto& p : phase_seconds()) std::fprintf(stderr, "phase %s %.3f\n", p.first.c_str(), p.second);
      std::fprintf(stderr, "threads %s\n", thread_choice_.chose_one_thread() ? "one (chosen)" : "all");
    }
  }

  void init(const BoostData& d, const std::vector<float>& init_margins) override {
    // A restart on the same data (refit leaves, parallel trees: the trainer
    // calls init again with new margins) keeps the thread pool, the
    // histograms and the bin copies, and charges nothing again.
    const bool same = pool_ && data_.matrix == d.matrix && data_.cuts == d.cuts && n_ == d.n_rows &&
                      data_.nthread == d.nthread && data_.budget == d.budget &&
                      data_.cpu_bin_copies == d.cpu_bin_copies;
    if (!same && data_.budget) {
      data_.budget->release(hist_charged_ + sparse_charged_ + cols_charged_);
      hist_charged_ = sparse_charged_ = cols_charged_ = 0;
    }
    data_ = d;
    n_ = d.n_rows;
    nf_ = d.matrix->n_features;
    K_ = d.num_group;
    margins_ = init_margins;
    if (!same) pool_.reset(new ThreadPool(d.nthread));
    pool_->set_serial(false);
    thread_choice_ = ThreadChoice{};
    const Cuts& c = *d.cuts;
    off_.resize(nf_);
    for (int f = 0; f < nf_; ++f) off_[f] = c.hist_offset(f);
    total_bins_ = c.total_hist_bins();
    if (!same) hist_pool_.reset(new HistPool(total_bins_));
    int max_nb = 0;
    for (int f = 0; f < nf_; ++f) max_nb = std::max(max_nb, c.nbins(f));
    scratch_.resize((size_t)pool_->size());
    for (ScanScratch& s : scratch_) s.reserve((size_t)max_nb + 1);
    gpair_.resize(n_ * (size_t)K_);
    row_idx_.resize(n_);
    tmp_idx_.resize(n_);
    if (d.subsample < 1.0) in_sample_.assign(n_, 1);  // only sampled rounds read it
    is_cat_.assign((size_t)nf_, 0);
    cat_index_.assign((size_t)nf_, -1);
    ncat_ = 0;
    if (d.n_categories)
      for (int f = 0; f < nf_ && f < (int)d.n_categories->size(); ++f)
        if ((*d.n_categories)[f] > 0) {
          is_cat_[f] = 1;
          cat_index_[f] = ncat_++;
        }
    any_cat_ = ncat_ > 0;
    cat_woff_.clear();
    cat_nw_.clear();
    cat_stride_ = 0;
    for (int f = 0; f < nf_; ++f)
      if (is_cat_[f]) {
        cat_woff_.push_back(cat_stride_);
        cat_nw_.push_back(cat_set_words(c.nbins(f)));
        cat_stride_ += (size_t)cat_nw_.back();
      }
    cat_scratch_.assign(any_cat_ ? (size_t)pool_->size() : 0, CatScanScratch{});
    for (CatScanScratch& cs : cat_scratch_) cs.reserve(max_nb);
    // Features mostly in one bin (sparse_bins.h): their dominant cells are
    // filled from the node's sum; the row lists are charged to the budget
    // (a block that does not fit stays dense).
    if (same) return;
    cells_.resize(nf_);
    for (int f = 0; f < nf_; ++f) cells_[f] = (f + 1 < nf_ ? off_[f + 1] : (uint32_t)total_bins_) - off_[f];
    auto allow = [&](double bytes) { return !d.budget || d.budget->try_charge(bytes); };
    d.matrix->visit([&](auto* bins) {
      const double share = d.cpu_bin_copies ? kSparseMinShare : 2.0;
      sparse_ = build_sparse_bins(bins, n_, nf_, off_.data(), cells_.data(), share, allow);
    });
    // Low-cardinality features of the other blocks in groups (joint_bins.h),
    // their records charged as the row lists are.
    joint_.clear();
    if (d.cpu_bin_copies) {
      double jbytes = 0;
      // Records written by row ranges on the pool.
      auto par = [this](size_t n, auto fn) {
        pool_->run_blocks_sized(n * (size_t)nf_, n, [&fn](size_t b, size_t e, int) { fn(b, e); });
      };
      d.matrix->visit([&](auto* bins) {
        for (const SparseBlock& b : sparse_.blocks)
          joint_.push_back(b.elided.empty() ? build_joint_block(bins, n_, nf_, b.f0, b.f1, cells_.data(),
                                                                allow, &jbytes, par)
                                            : JointBlock{});
      });
      sparse_.bytes += jbytes;
    }
    if (d.budget) sparse_charged_ = sparse_.bytes;
    // A feature-major copy of the bins for routing rows, as XGBoost keeps
    // its column matrix beside the row-major index: a split reads one
    // column, its rows in increasing order.  Only with ample memory: at most
    // half the budget in use after it.
    {
      const double bytes = (double)n_ * nf_ * (d.matrix->wide ? 2.0 : 1.0) + (double)kColumnPadding;
      const bool room = !d.budget || d.budget->limit() <= 0 || d.budget->used() + bytes <= 0.5 * d.budget->limit();
      // Rows < 2^31: the vector paths of row_partition.h index them as int32.
      has_cols_ = d.cpu_bin_copies && n_ > 0 && n_ <= (size_t)INT32_MAX && room &&
                  (!d.budget || d.budget->try_charge(bytes));
      if (has_cols_) {
        cols_charged_ = d.budget ? bytes : 0;
        d.matrix->visit([&](auto* bins) {
          using BinT = std::remove_const_t<std::remove_pointer_t<decltype(bins)>>;
          std::vector<BinT>& cols = column_store(BinT{});
          cols.resize(n_ * (size_t)nf_ + kColumnPadding / sizeof(BinT));  // row_partition.h
          const size_t nf = (size_t)nf_, n = n_;
          // Tiles of 64 rows x 64 features: both sides stay in cache.
          pool_->run_blocks_sized(n * nf, (n + 63) / 64, [&](size_t b, size_t e, int) {
            for (size_t r0 = b * 64; r0 < std::min(n, e * 64); r0 += 64)
              for (size_t f0 = 0; f0 < nf; f0 += 64)
                for (size_t f = f0; f < std::min(nf, f0 + 64); ++f)
                  for (size_t r = r0; r < std::min(n, r0 + 64); ++r) cols[f * n + r] = bins[r * nf + f];
          });
        });
      }
      // Routing a row costs about a nanosecond on the vector paths of the
      // column store (parallel_policy.h), more on the row-major matrix.
      route_cost_ = has_cols_ && (row_isa_available(RowIsa::kAvx2) || row_isa_available(RowIsa::kAvx512))
                        ? kCostRouteRowVector
                        : kCostPartitionRow;
    }
    // Benchmarks: GBDT_PHASES=1 also prints the histogram blocks.
    const char* ph = std::getenv("GBDT_PHASES");
    if (ph && *ph == '1')
      for (size_t i = 0; i < sparse_.blocks.size(); ++i) {
        const SparseBlock& b = sparse_.blocks[i];
        const JointBlock* jb = joint_block(i);
        std::fprintf(stderr, "hist block %d-%d: dense %zu, elided %zu, slots %d, overflow rows %zu, groups %zu\n",
                     b.f0, b.f1, b.dense.size(), b.elided.size(), b.K, b.over_rows.size(),
                     jb ? jb->groups.size() : (size_t)0);
      }
  }

  void margins(std::vector<float>* out) override { *out = margins_; }

  std::vector<std::pair<std::string, double>> phase_seconds() const override {
    return {{"gradients", t_grad_}, {"histograms", t_hist_}, {"split_evaluation", t_split_},
            {"partition", t_part_}, {"prediction_update", t_update_}};
  }

  void boost_round(int round, const std::vector<uint8_t>& feature_mask,
                   std::vector<Tree>* out) override {
    const auto t_round = Clock::now();
    thread_choice_.before_round(pool_.get());
    boost_round_steps(round, feature_mask, out);
    thread_choice_.after_round(pool_.get(), since(t_round));
  }

 private:
  void boost_round_steps(int round, const std::vector<uint8_t>& feature_mask,
                         std::vector<Tree>* out) {
    round_ = round;
    auto t0 = Clock::now();
    if (data_.external_gradients)
      external_gradients(round);  // ranking
    else
      compute_gradients();
    t_grad_ += since(t0);
    // Row sample of this round (shared by the K trees).
    n_sampled_ = 0;
    if (data_.subsample < 1.0) {
      for (size_t r = 0; r < n_; ++r) {
        uint8_t s = row_in_sample(data_.seed, round, r, data_.subsample) ? 1 : 0;
        in_sample_[r] = s;
        if (s) row_idx_[n_sampled_++] = (uint32_t)r;
      }
    } else {
      for (size_t r = 0; r < n_; ++r) row_idx_[r] = (uint32_t)r;
      n_sampled_ = n_;
    }
    // Each tree starts from the round's rows in increasing order (a tree
    // leaves them permuted, partly in tmp_idx_).
    std::vector<uint32_t> sampled;
    if (K_ > 1) sampled.assign(row_idx_.begin(), row_idx_.begin() + n_sampled_);
    for (int k = 0; k < K_; ++k) {
      if (k > 0) std::copy(sampled.begin(), sampled.end(), row_idx_.begin());
      Tree t;
      build_tree(k, feature_mask, &t);
      out->push_back(std::move(t));
    }
  }

  // ---- gradients ----
  // Pass 1 stores the double (g, h) of row r, group k in the 16 bytes of
  // gpair_[k * n + r] (no extra n x K x 16-byte buffer) and reduces the
  // maxima; pass 2 quantizes each slot in place.
  static void put_gh(GradSum* slot, double g, double h) {
    double v[2] = {g, h};
    std::memcpy(slot, v, sizeof v);
  }
  static void get_gh(const GradSum* slot, double* g, double* h) {
    double v[2];
    std::memcpy(v, slot, sizeof v);
    *g = v[0];
    *h = v[1];
  }

  // gradients from BoostData::external_gradients (one output group).
  void external_gradients(int round) {
    ext_.g.resize(n_);
    ext_.h.resize(n_);
    data_.external_gradients(round, margins_.data(), ext_.g.data(), ext_.h.data());
    quant_.assign(1, quantize_external(ext_.g.data(), ext_.h.data(), n_, gpair_.data()));
    all_rows_sum_.clear();
  }
  ExternalGradients ext_;

  void compute_gradients() {
    static_assert(sizeof(GradSum) == 2 * sizeof(double), "gradient slot holds two doubles");
    const int K = K_;
    const size_t n = n_;
    GradSum* gp = gpair_.data();
    const int nt = pool_->size();
    std::vector<double> mg((size_t)nt * K, 0.0), mh((size_t)nt * K, 0.0);
    const float* y = data_.labels;
    const GradParams gpar = data_.grad;
    const float* wt = data_.weights;
    const Objective obj = data_.objective;
    pool_->run_blocks_sized(n * (size_t)K * kCostGradientRow, n, [&](size_t b, size_t e, int tid) {
      double* tg = &mg[(size_t)tid * K];
      double* th = &mh[(size_t)tid * K];
      if (!objective_is_multiclass(obj)) {  // gradient_pass.h
        const GradMax mx = gradient_pass(obj, gpar, margins_.data(), y, wt, b, e, gp);
        tg[0] = std::max(tg[0], mx.g);
        th[0] = std::max(th[0], mx.h);
        return;
      }
      for (size_t r = b; r < e; ++r) {
        const float* m = &margins_[r * K];
        if (objective_is_multiclass(obj)) {
          double mx, sum;
          softmax_prepare(m, K, &mx, &sum);
          for (int k = 0; k < K; ++k) {
            GradHess gh = weighted(softmax_gradient(m, k, mx, sum, (int)y[r]), wt, r);
            put_gh(&gp[(size_t)k * n + r], gh.g, gh.h);
            double ag = std::fabs(gh.g);
            if (ag > tg[k]) tg[k] = ag;
            if (gh.h > th[k]) th[k] = gh.h;
          }
        } else {
          GradHess gh = weighted(scalar_gradient(obj, (double)m[0], (double)y[r], gpar), wt, r);
          put_gh(&gp[r], gh.g, gh.h);
          double ag = std::fabs(gh.g);
          if (ag > tg[0]) tg[0] = ag;
          if (gh.h > th[0]) th[0] = gh.h;
        }
      }
    });
    quant_.assign(K, Quantizer{});
    for (int k = 0; k < K; ++k) {
      double a = 0, b = 0;
      for (int t = 0; t < nt; ++t) {
        a = std::max(a, mg[(size_t)t * K + k]);
        b = std::max(b, mh[(size_t)t * K + k]);
      }
      // the scale of all the rows the distinct ones stand for.
      quant_[k] = make_quantizer(a, b, data_.rows_represented ? data_.rows_represented : n);
    }
    const int32_t* mult = data_.multiplicity;  // row_dedup.h
    // The sums of all rows' quantized pairs per group (a tree's root sum
    // when every row is in the round's sample): per thread, then added.
    std::vector<GradSum> sums((size_t)nt * K, GradSum{0, 0});
    pool_->run_blocks_sized(n * (size_t)K * 2, n, [&](size_t b, size_t e, int tid) {
      for (int k = 0; k < K; ++k) {
        const double gs = quant_[k].g_scale, hs = quant_[k].h_scale;
        GradSum* slot = gp + (size_t)k * n;
        GradSum& sum = sums[(size_t)tid * K + k];
        int64_t s2[2] = {0, 0};
        if (quantize_pass_simd(slot, b, e, gs, hs, mult, s2)) {  // gradient_pass.h
          sum = gs_add(sum, GradSum{s2[0], s2[1]});
          continue;
        }
        if (mult) {
          for (size_t r = b; r < e; ++r) {
            double g, h;
            get_gh(&slot[r], &g, &h);
            slot[r] = quantize_rows(g, h, quant_[k], mult[r]);
            sum = gs_add(sum, slot[r]);
          }
          continue;
        }
        for (size_t r = b; r < e; ++r) {
          double g, h;
          get_gh(&slot[r], &g, &h);
          slot[r] = GradSum{quantize(g, gs), quantize(h, hs)};
          sum = gs_add(sum, slot[r]);
        }
      }
    });
    all_rows_sum_.assign(K, GradSum{0, 0});
    for (int t = 0; t < nt; ++t)
      for (int k = 0; k < K; ++k) all_rows_sum_[k] = gs_add(all_rows_sum_[k], sums[(size_t)t * K + k]);
  }
  // compute_gradients' sums per group; empty after external gradients.
  std::vector<GradSum> all_rows_sum_;

  // A histogram from the pool; a new one is charged to the budget first.
  GradSum* get_hist() {
    if (data_.budget && !hist_pool_->has_free()) {
      const double bytes = 16.0 * (double)total_bins_;
      data_.budget->charge(
          bytes,
          "histogram " + std::to_string(hist_pool_->count() + 1) + " (tree depth " +
              std::to_string(cur_depth_) + ", " + std::to_string(cur_level_nodes_) +
              " nodes at that depth, " + std::to_string(nf_) + " features x " +
              std::to_string(total_bins_) + " bins in all)",
          "lower max_depth (now " + std::to_string(data_.max_depth) +
              "), max_bin or the number of features, or raise min_child_weight");
      hist_charged_ += bytes;
    }
    return hist_pool_->get();
  }

  // ---- histograms ----
  // Builds the histograms of the given nodes from their row segments.
  void build_histograms(const std::vector<LevelNode*>& nodes, const GradSum* gp) {
    if (nodes.empty()) return;
    size_t rows_all = 0;
    for (const LevelNode* ln : nodes) rows_all += ln->end - ln->begin;
    const size_t work = rows_all * (size_t)nf_ * kCostHistCell;
    const int nt = threads_for_work(work, pool_->size());
    const int d = nf_;
    const uint32_t* off = off_.data();
    const size_t T = total_bins_;
    const std::vector<SparseBlock>& blocks = sparse_.blocks;
    // Wide data: (node, block of features) tasks, each filling its own slice
    // of the node's histogram (a slice that stays in cache; no per-thread
    // copies to merge).  Integer sums: the same histograms.
    const size_t nblk = blocks.size();
    if (nblk >= 2 * (size_t)nt) {
      data_.matrix->visit([&](auto* bins) {  // uint8_t or uint16_t entries
      pool_->run_sized(work, nodes.size() * nblk, [&](size_t t, int) {
        const LevelNode* ln = nodes[t / nblk];
        const SparseBlock& blk = blocks[t % nblk];
        const size_t s0 = off[blk.f0], s1 = blk.f1 < nf_ ? off[blk.f1] : T;
        std::memset(ln->hist + s0, 0, sizeof(GradSum) * (s1 - s0));
        accumulate_block(ln->hist, bins, d, off, blk, joint_block(t % nblk), ln->rows, ln->begin, ln->end,
                         gp);
        fill_dominant_cells(ln->hist, blk, sparse_.dominant, off, cells_.data(), ln->sum);
      });
      });
      return;
    }
    struct Part { LevelNode* node; size_t begin, end; GradSum* dst; };
    std::vector<Part> parts;
    std::vector<std::pair<LevelNode*, std::vector<GradSum*>>> merges;
    for (LevelNode* ln : nodes) {
      const size_t rows = ln->end - ln->begin;
      // parallel_policy.h: a node with a large share of the level's rows is
      // split into row ranges (each in its own histogram, merged below) so
      // that the threads get even work; the nodes themselves are tasks.
      const size_t p = hist_row_parts(rows, rows_all, (size_t)nf_, total_bins_, nt);
      std::vector<GradSum*> extra;
      for (size_t i = 0; i < p; ++i) {
        size_t b = ln->begin + rows * i / p, e = ln->begin + rows * (i + 1) / p;
        GradSum* dst = i == 0 ? ln->hist : get_hist();
        if (i > 0) extra.push_back(dst);
        parts.push_back(Part{ln, b, e, dst});
      }
      if (!extra.empty()) merges.emplace_back(ln, std::move(extra));
    }
    // Largest ranges first: the last ones handed out are the shortest.
    std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
      return a.end - a.begin > b.end - b.begin;
    });
    data_.matrix->visit([&](auto* bins) {  // uint8_t or uint16_t entries
    pool_->run_sized(work, parts.size(), [&](size_t pi, int) {
      const Part& p = parts[pi];
      GradSum* hst = p.dst;
      std::memset(hst, 0, sizeof(GradSum) * T);
      for (size_t bi = 0; bi < nblk; ++bi)
        accumulate_block(hst, bins, d, off, blocks[bi], joint_block(bi), p.node->rows, p.begin, p.end,
                         gp);
    });
    });
    for (auto& mg : merges) {
      GradSum* dst = mg.first->hist;
      const std::vector<GradSum*>& src = mg.second;
      pool_->run_blocks_sized(T * src.size(), T, [&](size_t b, size_t e, int) {
        for (GradSum* s : src)
          for (size_t i = b; i < e; ++i) {
            dst[i].g += s[i].g;
            dst[i].h += s[i].h;
          }
      });
      for (GradSum* s : src) hist_pool_->put(s);
    }
    // Elided features (sparse_bins.h): their dominant cell from the node's sum.
    if (sparse_.any_elided)
      for (LevelNode* ln : nodes)
        for (const SparseBlock& blk : blocks)
          fill_dominant_cells(ln->hist, blk, sparse_.dominant, off, cells_.data(), ln->sum);
  }

  // ---- split evaluation ----
  // Same candidates and result as best_split_feature: the gains of a
  // feature's non-empty bins into arrays (vectorized), then the first maximum
  // in scan order (bin, then missing-right before missing-left), which is the
  // candidate better_split keeps in a sequential scan (gains are never NaN).
  SplitCandidate best_split_feature_fast(const LevelNode& ln, int f, const GainConsts& k,
                                         ScanScratch& s) const {
    const Cuts& c = *data_.cuts;
    const SplitParams& sp = data_.split;
    const GradSum* h = ln.hist + off_[f];
    const int nb = c.nbins(f);
    const GradSum miss = h[nb];
    int64_t* lg = s.lg.data();
    int64_t* lh = s.lh.data();
    int32_t* bn = s.bin.data();
    const int n = nonempty_prefix(h, nb, lg, lh, bn);  // split_prefix.h
    if (n == 0) return no_split();
    for (int i = n; i < ((n + 3) & ~3); ++i) {
      lg[i] = 0;
      lh[i] = 0;
    }
    // Scan order: (i, missing right) before (i, missing left) before i + 1.
    const GainMax m0 = gains_any(k, lg, lh, n, 0, 0);
    if (miss.h != 0) {
      const GainMax m1 = gains_any(k, lg, lh, n, miss.g, miss.h);
      if (m1.gain > m0.gain || (m1.gain == m0.gain && m1.at < m0.at)) {
        if (!split_is_useful(sp, m1.gain)) return no_split();
        const int i = m1.at;
        return SplitCandidate{m1.gain, f, bn[i], 1, GradSum{lg[i] + miss.g, lh[i] + miss.h}};
      }
    }
    if (!split_is_useful(sp, m0.gain)) return no_split();
    const int i = m0.at;
    return SplitCandidate{m0.gain, f, bn[i], 0, GradSum{lg[i], lh[i]}};
  }

  SplitCandidate best_split_feature(const LevelNode& ln, int f, const Quantizer& q) const {
    const Cuts& c = *data_.cuts;
    const SplitParams& sp = data_.split;
    const GradSum* h = ln.hist + off_[f];
    const int nb = c.nbins(f);
    const GradSum miss = h[nb];
    SplitCandidate best = no_split();
    GradSum acc{0, 0};
    const double pg = parent_gain(sp, q, ln.sum);
    for (int b = 0; b < nb; ++b) {
      // An empty bin (b > 0) repeats bin b-1's sums, hence its gains; with
      // the lower bin winning ties, its candidates can never be chosen.
      if (b > 0 && h[b].g == 0 && h[b].h == 0) continue;
      acc = gs_add(acc, h[b]);
      // Missing values go right.
      SplitCandidate cand{split_gain_given_parent(sp, q, ln.sum, acc, pg), f, b, 0, acc};
      if (split_is_useful(sp, cand.gain) && better_split(cand, best)) best = cand;
      if (miss.h != 0) {  // missing values go left
        GradSum l = gs_add(acc, miss);
        SplitCandidate c2{split_gain_given_parent(sp, q, ln.sum, l, pg), f, b, 1, l};
        if (split_is_useful(sp, c2.gain) && better_split(c2, best)) best = c2;
      }
    }
    return best;
  }

  // ---- categorical splits (categorical_split.h) ----
  // The best categorical split of feature f at node ln (categorical_split_cpu.h:
  // the reference's candidate, its right set into the node's sets `sets`);
  // the vectorized gains when max_delta_step is 0 (fast).
  SplitCandidate best_categorical_split_scan(const LevelNode& ln, int f, const GainConsts& k,
                                             bool fast, const Quantizer& q, uint32_t* sets,
                                             CatScanScratch& cs) const {
    const int ci = cat_index_[f];
    const SplitParams& sp = data_.split;
    const GradSum* h = ln.hist + off_[f];
    const int nb = data_.cuts->nbins(f);
    uint32_t* set = sets + cat_woff_[ci];
    if (fast)
      return best_categorical_split_cpu(
          h, nb, f, ln.sum, sp, q, data_.cat_split, set, cat_nw_[ci], cs,
          [&k](const int64_t* lg, const int64_t* lh, int n, int64_t og, int64_t oh) {
            const GainMax r = gains_any(k, lg, lh, n, og, oh);
            return CatGainMax{r.gain, r.at};
          });
    return best_categorical_split_cpu(h, nb, f, ln.sum, sp, q, data_.cat_split, set, cat_nw_[ci],
                                      cs, CatScalarGains{sp, q, ln.sum, k.pg});
  }

  // Feature f's bins for routing rows (partition, last level): its column
  // in the feature-major copy when there is one (stride 1: a node's rows,
  // in increasing order, read nearby bytes), else in the row-major matrix.
  template <typename BinT>
  const BinT* feature_column(const BinT* bins, int f, size_t* stride) const {
    const void* cols = data_.matrix->wide ? (const void*)cols16_.data() : (const void*)cols8_.data();
    if (has_cols_) {
      *stride = 1;
      return (const BinT*)cols + (size_t)f * n_;
    }
    *stride = (size_t)nf_;
    return bins + f;
  }

  // Pieces of the nodes' row segments for the partition: at most 65536
  // rows, and several per node when the step is worth more than one thread
  // (parallel_policy.h).  emit(node, begin, end).
  template <typename Emit>
  void split_rows(const std::vector<LevelNode*>& nodes, size_t rows_all, Emit emit) const {
    const size_t max_piece = 65536;
    const int nt = threads_for_work(rows_all * route_cost_, pool_->size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      const LevelNode* ln = nodes[i];
      const size_t rows = ln->end - ln->begin;
      const size_t np = std::max(row_pieces(rows, rows_all, nt, kMinWorkPerThread / kCostPartitionRow / 2),
                                 (rows + max_piece - 1) / max_piece);
      for (size_t j = 0; j < np; ++j) {
        const size_t b = ln->begin + rows * j / np, e = ln->begin + rows * (j + 1) / np;
        if (b < e) emit(i, b, e);
      }
    }
  }

  // ---- partition ----
  // Partition of each split node's segment: left rows first.  Returns the
  // number of left rows per node, and in (*child_rows)[i] the row list
  // (row_idx_ or tmp_idx_) that holds node i's children at its segment.
  // One pass over the bins per piece, from the node's row list into the
  // other one: left rows go forward from the piece's start, right rows
  // backward from its end.  A node routed as one piece is then done (its
  // right child's rows are in reverse order: a node's rows are always in
  // increasing or decreasing order, which reads the bins and gradients as
  // well; integer sums do not depend on the order); the pieces of a node
  // routed in several are moved back into its own list by a second pass.
  std::vector<size_t> partition(const std::vector<LevelNode*>& nodes,
                                const std::vector<SplitCandidate>& splits,
                                const std::vector<const CatWords*>& split_sets,
                                std::vector<uint32_t*>* child_rows) {
    // whole: the node's only piece.
    struct Piece { size_t node, begin, end, nleft, out_left, out_right; bool whole; };
    std::vector<Piece> pieces;
    size_t rows_all = 0;
    for (const LevelNode* ln : nodes) rows_all += ln->end - ln->begin;
    split_rows(nodes, rows_all, [&](size_t i, size_t b, size_t e) {
      pieces.push_back(Piece{i, b, e, 0, 0, 0, false});
    });
    size_t n_split_pieces = 0;  // pieces of nodes with several
    for (size_t j = 0; j < pieces.size(); ++j) {
      const LevelNode* ln = nodes[pieces[j].node];
      pieces[j].whole = pieces[j].begin == ln->begin && pieces[j].end == ln->end;
      n_split_pieces += !pieces[j].whole;
    }
    // Left rows of a piece from tmp to idx + out_left, its right rows
    // (written backwards from the piece's end) to idx + out_right.
    auto move_back = [](const Piece& p, uint32_t* idx, const uint32_t* tmp) {
      std::memcpy(idx + p.out_left, tmp + p.begin, p.nleft * sizeof(uint32_t));
      const size_t nr = (p.end - p.begin) - p.nleft;
      uint32_t* dst = idx + p.out_right;
      const uint32_t* src = tmp + p.end - 1;
      for (size_t j = 0; j < nr; ++j) dst[j] = src[-(ptrdiff_t)j];
    };
    const Cuts& c = *data_.cuts;
    auto other = [this](const uint32_t* list) {
      return list == row_idx_.data() ? tmp_idx_.data() : row_idx_.data();
    };
    data_.matrix->visit([&](auto* bins) {  // uint8_t or uint16_t entries
    pool_->run_sized(rows_all * route_cost_, pieces.size(), [&](size_t pi, int) {
      Piece& p = pieces[pi];
      const uint32_t* idx = nodes[p.node]->rows;
      uint32_t* tmp = other(idx);
      const SplitCandidate& s = splits[p.node];
      const int nb = c.nbins(s.feature);
      size_t cs;  // the column's row stride
      const auto* col = feature_column(bins, s.feature, &cs);
      const RowRoute route = row_route(s, nb, split_sets[p.node]);
      if (cs == 1)  // the feature-major column: row_partition.h
        p.nleft = partition_column(col, route, idx, tmp, p.begin, p.end);
      else
        p.nleft = partition_rows_scalar(col, cs, route, idx, tmp, p.begin, p.end);
    });
    });
    child_rows->resize(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) (*child_rows)[i] = nodes[i]->rows;
    for (const Piece& p : pieces)
      if (p.whole) (*child_rows)[p.node] = other(nodes[p.node]->rows);
    std::vector<size_t> nleft(nodes.size(), 0);
    for (const Piece& p : pieces) nleft[p.node] += p.nleft;
    std::vector<size_t> lpos(nodes.size()), rpos(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      lpos[i] = nodes[i]->begin;
      rpos[i] = nodes[i]->begin + nleft[i];
    }
    for (Piece& p : pieces) {
      p.out_left = lpos[p.node];
      p.out_right = rpos[p.node];
      lpos[p.node] += p.nleft;
      rpos[p.node] += (p.end - p.begin) - p.nleft;
    }
    if (n_split_pieces > 0) {
      std::vector<const Piece*> rest;
      rest.reserve(n_split_pieces);
      size_t rest_rows = 0;
      for (const Piece& p : pieces)
        if (!p.whole) {
          rest.push_back(&p);
          rest_rows += p.end - p.begin;
        }
      pool_->run_sized(rest_rows, rest.size(), [&](size_t pi, int) {
        uint32_t* idx = nodes[rest[pi]->node]->rows;
        move_back(*rest[pi], idx, other(idx));
      });
    }
    return nleft;
  }

  // ---- last level ----
  // Splits of the nodes at depth max_depth - 1 (same order of tree nodes as
  // the general loop), then each of their rows gets its leaf's value added
  // to its margin, like the prediction update after a partition.
  void last_level(Tree* tree, int k, const std::vector<LevelNode*>& nodes,
                  const std::vector<SplitCandidate>& splits,
                  const std::vector<const CatWords*>& split_sets) {
    const SplitParams& sp = data_.split;
    const Quantizer& q = quant_[k];
    std::vector<float> vl(nodes.size()), vr(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      const LevelNode& p = *nodes[i];
      SplitChildren c =
          split_sets[i] ? apply_split(tree, p.id, p.sum, splits[i], sp, q, split_sets[i],
                                      (*data_.n_categories)[splits[i].feature])
                        : apply_split(tree, p.id, p.sum, splits[i], sp, q, (const CatWords*)nullptr, 0u);
      vl[i] = tree->value[c.left];
      vr[i] = tree->value[c.right];
    }
    size_t rows_all = 0;
    for (const LevelNode* ln : nodes) rows_all += ln->end - ln->begin;
    const Cuts& c = *data_.cuts;
    float* m = margins_.data();
    const int K = K_;
    data_.matrix->visit([&](auto* bins) {  // uint8_t or uint16_t entries
    update_leaves_by_row_range(
        *pool_, n_, nodes.size(),
        [&](size_t i) { return RowSpan{nodes[i]->rows, nodes[i]->begin, nodes[i]->end}; },
        rows_all * route_cost_, [&](size_t i, size_t b, size_t e) {
          const SplitCandidate& s = splits[i];
          size_t cs;
          const auto* col = feature_column(bins, s.feature, &cs);
          add_last_level_values(col, cs, row_route(s, c.nbins(s.feature), split_sets[i]), nodes[i]->rows, b, e,
                                vl[i], vr[i], m, K, k);
        });
    });
  }

  // ---- one tree ----
  // constraints, per-level/per-node column sampling, lossguide.
  void build_tree_general(int k, const std::vector<uint8_t>& feature_mask, Tree* tree) {
    GeneralGrowInput g;
    g.matrix = data_.matrix;
    g.cuts = data_.cuts;
    g.hist_offset = off_.data();
    g.total_bins = total_bins_;
    g.gpair = &gpair_[(size_t)k * n_];
    g.q = quant_[k];
    g.split = data_.split;
    g.ext = &data_.tree_ext;
    g.max_depth = data_.max_depth;
    g.feature_mask = feature_mask.data();
    g.seed = data_.seed;
    g.round = round_;
    g.group = k;
    g.row_idx = row_idx_.data();
    g.tmp_idx = tmp_idx_.data();
    g.n_sampled = n_sampled_;
    g.pool = pool_.get();
    g.cancel = data_.cancel;
    g.budget = data_.budget;
    g.margins = margins_.data();
    g.K = K_;
    g.n_rows = n_;
    g.in_sample = n_sampled_ < n_ ? in_sample_.data() : nullptr;
    g.n_categories = any_cat_ ? data_.n_categories : nullptr;  // categorical features
    g.cat_split = data_.cat_split;
    auto t0 = Clock::now();
    grow_tree_general(g, tree);
    t_split_ += since(t0);
  }

  void build_tree(int k, const std::vector<uint8_t>& feature_mask, Tree* tree) {
    if (data_.tree_ext.general()) return build_tree_general(k, feature_mask, tree);
    const Quantizer& q = quant_[k];
    const SplitParams& sp = data_.split;
    const GradSum* gp = &gpair_[(size_t)k * n_];
    auto t0 = Clock::now();
    // Root sum over the sampled rows (exact integers: any order); every row's
    // is summed by the quantization already.
    GradSum root_sum{0, 0};
    if (n_sampled_ == n_ && (size_t)k < all_rows_sum_.size()) {
      root_sum = all_rows_sum_[k];
    } else {
      const int nt = pool_->size();
      std::vector<GradSum> part((size_t)nt, GradSum{0, 0});
      pool_->run_blocks_sized(n_sampled_, n_sampled_, [&](size_t b, size_t e, int tid) {
        GradSum s{0, 0};
        for (size_t i = b; i < e; ++i) s = gs_add(s, gp[row_idx_[i]]);
        part[tid] = gs_add(part[tid], s);
      });
      for (const GradSum& s : part) root_sum = gs_add(root_sum, s);
    }

    cur_depth_ = 0;
    cur_level_nodes_ = 1;
    std::vector<LevelNode> level(1);
    level[0] = LevelNode{0, 0, n_sampled_, root_sum, nullptr};
    level[0].rows = row_idx_.data();
    tree->add_node(-1, leaf_value(sp, q, root_sum), to_h(q, root_sum.h));
    std::vector<LevelNode> leaves;
    if (data_.max_depth > 0) {
      level[0].hist = get_hist();
      build_histograms({&level[0]}, gp);
    }
    t_hist_ += since(t0);

    for (int depth = 0; depth < data_.max_depth && !level.empty(); ++depth) {
      check_cancel(data_.cancel);
      // Split evaluation: (node, feature) tasks, reduced in feature order.
      auto ts = Clock::now();
      const size_t L = level.size();
      cur_depth_ = depth + 1;  // of the children whose histograms this level builds
      BudgetCharge cand_charge(
          data_.budget,
          (double)(L * nf_) * sizeof(SplitCandidate) + (double)(L * cat_stride_) * sizeof(uint32_t),
          "the split candidates of " + std::to_string(L) + " nodes at tree depth " +
              std::to_string(depth) + " x " + std::to_string(nf_) + " features",
          "lower max_depth (now " + std::to_string(data_.max_depth) +
              ") or the number of features");
      std::vector<SplitCandidate> cand(L * nf_, no_split());
      if (any_cat_) cand_sets_.resize(L * cat_stride_);
      const bool fast = sp.max_delta_step == 0.0;
      const size_t T = total_bins_;
      // Below the root the level holds sibling pairs: a task scans both
      // siblings, so the smaller one's slice, just read by the larger one's
      // subtraction, is still in cache.
      const size_t gsz = (depth > 0 && L % 2 == 0) ? 2 : 1;
      // Tasks: (node group, block of features); smaller blocks when the
      // level has too few nodes to keep the threads busy (parallel_policy.h).
      const size_t scan_work = L * T * kCostScanBin;
      const int fb = scan_block_features(nf_, L / gsz, threads_for_work(scan_work, pool_->size()));
      const size_t nblk = (size_t)((nf_ + fb - 1) / fb);
      pool_->run_sized(scan_work, (L / gsz) * nblk, [&](size_t t, int tid) {
        const size_t i0 = (t / nblk) * gsz;
        const int f0 = (int)(t % nblk) * fb, f1 = std::min(nf_, f0 + fb);
        GainConsts k[2];
        for (size_t j = 0; j < gsz; ++j) {
          const LevelNode& ln = level[i0 + j];
          k[j] = GainConsts{q.g_inv, q.h_inv, sp.min_child_weight, sp.reg_lambda, sp.reg_alpha,
                            parent_gain(sp, q, ln.sum), ln.sum.g, ln.sum.h};
        }
        ScanScratch& s = scratch_[tid];
        for (int f = f0; f < f1; ++f) {
          for (size_t j = 0; j < gsz; ++j) {
            // Every feature, masked or not: the next level reads them all.
            const LevelNode& ln = level[i0 + j];
            if (!ln.pending_small) continue;
            const size_t s0 = off_[f], s1 = f + 1 < nf_ ? off_[f + 1] : T;
            GradSum* hh = ln.hist;
            const GradSum* sm = ln.pending_small;
            for (size_t x = s0; x < s1; ++x) hh[x] = gs_sub(hh[x], sm[x]);
          }
          if (!feature_mask[f]) continue;
          for (size_t j = 0; j < gsz; ++j) {
            const size_t i = i0 + j;
            if (is_cat_[f])
              cand[i * nf_ + f] = best_categorical_split_scan(level[i], f, k[j], fast, q,
                                                              &cand_sets_[i * cat_stride_],
                                                              cat_scratch_[tid]);
            else
              cand[i * nf_ + f] = fast ? best_split_feature_fast(level[i], f, k[j], s)
                                       : best_split_feature(level[i], f, q);
          }
        }
      });
      for (LevelNode& ln : level) ln.pending_small = nullptr;
      std::vector<LevelNode*> split_nodes;
      std::vector<SplitCandidate> splits;
      std::vector<CatWords> split_words((size_t)L);
      std::vector<const CatWords*> split_sets;  // null: numeric split
      for (size_t i = 0; i < L; ++i) {
        SplitCandidate best = no_split();
        for (int f = 0; f < nf_; ++f)
          if (better_split(cand[i * nf_ + f], best)) best = cand[i * nf_ + f];
        if (best.feature >= 0) {
          split_nodes.push_back(&level[i]);
          splits.push_back(best);
          const int ci = cat_index_[best.feature];
          if (is_cat_[best.feature])
            split_words[i] = CatWords{&cand_sets_[i * cat_stride_ + cat_woff_[ci]], cat_nw_[ci],
                                      (uint32_t)data_.cuts->nbins(best.feature)};
          split_sets.push_back(is_cat_[best.feature] ? &split_words[i] : nullptr);
        } else {
          hist_pool_->put(level[i].hist);
          level[i].hist = nullptr;
          leaves.push_back(level[i]);
        }
      }
      t_split_ += since(ts);
      if (split_nodes.empty()) {
        level.clear();
        break;
      }
      if (depth + 1 == data_.max_depth) {
        // The children are leaves: no partition (last_level_update.h).
        auto tu = Clock::now();
        last_level(tree, k, split_nodes, splits, split_sets);
        for (LevelNode& ln : level) {
          hist_pool_->put(ln.hist);
          ln.hist = nullptr;
        }
        level.clear();
        t_update_ += since(tu);
        break;
      }
      auto tp = Clock::now();
      std::vector<uint32_t*> child_rows;
      std::vector<size_t> nleft = partition(split_nodes, splits, split_sets, &child_rows);
      t_part_ += since(tp);

      auto th = Clock::now();
      const bool need_hist = depth + 1 < data_.max_depth;
      std::vector<LevelNode> next;
      next.reserve(split_nodes.size() * 2);
      for (size_t i = 0; i < split_nodes.size(); ++i) {
        const LevelNode& p = *split_nodes[i];
        SplitChildren c =
            split_sets[i] ? apply_split(tree, p.id, p.sum, splits[i], sp, q, split_sets[i],
                                        (*data_.n_categories)[splits[i].feature])
                          : apply_split(tree, p.id, p.sum, splits[i], sp, q, (const CatWords*)nullptr, 0u);
        next.push_back(LevelNode{c.left, p.begin, p.begin + nleft[i], c.left_sum, nullptr});
        next.back().rows = child_rows[i];
        next.push_back(LevelNode{c.right, p.begin + nleft[i], p.end, c.right_sum, nullptr});
        next.back().rows = child_rows[i];
      }
      if (need_hist) {
        // The smaller child gets a new histogram; the larger one takes over
        // its parent's, turned in place into parent - smaller (2 live
        // histograms per split instead of 3).
        std::vector<LevelNode*> build;
        for (size_t i = 0; i < split_nodes.size(); ++i) {
          LevelNode& a = next[2 * i];
          LevelNode& b = next[2 * i + 1];
          LevelNode* small = (a.end - a.begin) <= (b.end - b.begin) ? &a : &b;
          small->hist = get_hist();
          build.push_back(small);
        }
        cur_level_nodes_ = next.size();
        build_histograms(build, gp);
        // The larger child: parent - smaller, subtracted by the next level's
        // split scan (always run: need_hist means that level is scanned).
        for (size_t i = 0; i < split_nodes.size(); ++i) {
          LevelNode& a = next[2 * i];
          LevelNode& b = next[2 * i + 1];
          bool a_built = (a.end - a.begin) <= (b.end - b.begin);
          LevelNode& large = a_built ? b : a;
          large.hist = split_nodes[i]->hist;
          large.pending_small = a_built ? a.hist : b.hist;
          split_nodes[i]->hist = nullptr;
        }
      }
      for (LevelNode* p : split_nodes) {
        hist_pool_->put(p->hist);
        p->hist = nullptr;
      }
      level.swap(next);
      t_hist_ += since(th);
    }
    for (LevelNode& ln : level) {
      hist_pool_->put(ln.hist);
      ln.hist = nullptr;
      leaves.push_back(ln);
    }
    // Prediction update from leaf positions.
    auto tu = Clock::now();
    const int K = K_;
    update_leaves_by_row_range(
        *pool_, n_, leaves.size(),
        [&](size_t i) { return RowSpan{leaves[i].rows, leaves[i].begin, leaves[i].end}; },
        n_sampled_ * 2, [&](size_t i, size_t b, size_t e) {
          const float v = tree->value[leaves[i].id];
          const uint32_t* rows = leaves[i].rows;
          for (size_t j = b; j < e; ++j) margins_[(size_t)rows[j] * K + k] += v;
        });
    if (n_sampled_ < n_) {
      const BinnedMatrix& m = *data_.matrix;
      const Cuts& c = *data_.cuts;
      m.visit([&](auto* bins) {  // uint8_t or uint16_t entries
      const size_t d = (size_t)nf_;
      pool_->run_blocks_sized((n_ - n_sampled_) * (size_t)data_.max_depth * 4, n_,
                              [&](size_t b, size_t e, int) {
        for (size_t r = b; r < e; ++r) {
          if (in_sample_[r]) continue;
          int32_t node = 0;
          while (!tree->is_leaf(node)) {
            int f = tree->feature[node];
            const int bin = (int)bins[r * d + f];
            bool left = tree->bin_goes_left(node, bin, c.nbins(f));
            node = left ? tree->left[node] : tree->right[node];
          }
          margins_[r * K + k] += tree->value[node];
        }
      });
      });
    }
    t_update_ += since(tu);
  }

  BoostData data_;
  double hist_charged_ = 0;  // bytes of histograms charged to data_.budget
  int cur_depth_ = 0;        // for messages: the level being built
  size_t cur_level_nodes_ = 1;
  size_t n_ = 0;
  int nf_ = 0;
  int K_ = 1;
  std::vector<float> margins_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<uint32_t> off_;
  size_t total_bins_ = 0;
  std::unique_ptr<HistPool> hist_pool_;
  std::vector<ScanScratch> scratch_;
  std::vector<GradSum> gpair_;
  std::vector<Quantizer> quant_;
  std::vector<uint32_t> row_idx_, tmp_idx_;
  std::vector<uint8_t> in_sample_;
  size_t n_sampled_ = 0;
  std::vector<uint8_t> is_cat_;          // per feature: categorical splits
  bool any_cat_ = false;
  std::vector<int> cat_index_;           // per feature: index among the categorical ones, or -1
  int ncat_ = 0;
  // right bin sets of the level's candidates: per node cat_stride_ words,
  // categorical feature ci at cat_woff_[ci], cat_nw_[ci] words
  // (cat_set_words of its bins: 8 up to 256 bins).
  std::vector<uint32_t> cand_sets_;
  size_t cat_stride_ = 0;
  std::vector<size_t> cat_woff_;
  std::vector<int> cat_nw_;
  std::vector<CatScanScratch> cat_scratch_;  // best_categorical_split_cpu's, per thread
  SparseBins sparse_;             // feature blocks, elided features' row lists (sparse_bins.h)
  std::vector<JointBlock> joint_; // per block: its feature groups' records, if any (joint_bins.h)
  const JointBlock* joint_block(size_t i) const {
    return i < joint_.size() && !joint_[i].groups.empty() ? &joint_[i] : nullptr;
  }
  std::vector<uint32_t> cells_;   // per feature: its histogram cells (value bins + missing)
  double sparse_charged_ = 0;     // bytes of sparse_ charged to data_.budget
  // The bins feature-major (feature_column), when has_cols_.
  std::vector<uint8_t> cols8_;
  std::vector<uint16_t> cols16_;
  bool has_cols_ = false;
  // Cost of routing one row (partition, last level): parallel_policy.h.
  size_t route_cost_ = kCostPartitionRow;
  double cols_charged_ = 0;
  std::vector<uint8_t>& column_store(uint8_t) { return cols8_; }
  std::vector<uint16_t>& column_store(uint16_t) { return cols16_; }
  int round_ = 0;  // the round being built (column sampling seeds)
  ThreadChoice thread_choice_;  // one thread or all for a small training
  double t_grad_ = 0, t_hist_ = 0, t_split_ = 0, t_part_ = 0, t_update_ = 0;
};

}  // namespace

std::unique_ptr<TreeBackend> make_cpu_backend() { return std::unique_ptr<TreeBackend>(new CpuBackend()); }

}  // namespace gbdt
