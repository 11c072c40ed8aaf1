// HistogramBuilder (histogram.h).
#include "histogram.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../../common/parallel_policy.h"

namespace gbdt {

namespace {

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

}  // namespace

void HistogramBuilder::release() {
  if (budget_) budget_->release(hist_charged_ + sparse_charged_);
  hist_charged_ = sparse_charged_ = 0;
}

void HistogramBuilder::init(const BinnedMatrix* matrix, size_t n_rows, const Cuts& c, ThreadPool* pool, MemoryBudget* budget,
                            int max_depth, bool cpu_bin_copies, bool keep) {
  if (!keep) release();
  matrix_ = matrix;
  pool_ = pool;
  budget_ = budget;
  max_depth_ = max_depth;
  nf_ = matrix->n_features;
  n_ = n_rows;
  off_.resize(nf_);
  for (int f = 0; f < nf_; ++f) off_[f] = c.hist_offset(f);
  total_bins_ = c.total_hist_bins();
  if (keep) return;
  pool_hist_.reset(new HistPool(total_bins_));
  cells_.resize(nf_);
  for (int f = 0; f < nf_; ++f) cells_[f] = (f + 1 < nf_ ? off_[f + 1] : (uint32_t)total_bins_) - off_[f];
  build_strategies(matrix, budget, cpu_bin_copies);
}

// Features mostly in one bin (sparse_bins.h): their dominant cells are
// filled from the node's sum; the row lists are charged to the budget (a
// block that does not fit stays dense).  Low-cardinality features of the
// other blocks in groups (joint_bins.h), their records charged as the row
// lists are.
void HistogramBuilder::build_strategies(const BinnedMatrix* matrix, MemoryBudget* budget, bool cpu_bin_copies) {
  auto allow = [&](double bytes) { return !budget || budget->try_charge(bytes); };
  matrix->visit([&](auto* bins) {
    const double share = cpu_bin_copies ? kSparseMinShare : 2.0;
    sparse_ = build_sparse_bins(bins, n_, nf_, off_.data(), cells_.data(), share, allow);
  });
  joint_.clear();
  if (cpu_bin_copies) {
    double jbytes = 0;
    // Records written by row ranges on the pool.
    auto par = [this](size_t n, auto fn) {
      pool_->run_blocks_sized(n * (size_t)nf_, n, [&fn](size_t b, size_t e, int) { fn(b, e); });
    };
    matrix->visit([&](auto* bins) {
      for (const SparseBlock& b : sparse_.blocks)
        joint_.push_back(b.elided.empty()
                             ? build_joint_block(bins, n_, nf_, b.f0, b.f1, cells_.data(), allow, &jbytes, par)
                             : JointBlock{});
    });
    sparse_.bytes += jbytes;
  }
  if (budget) sparse_charged_ = sparse_.bytes;
}

void HistogramBuilder::print_blocks() const {
  for (size_t i = 0; i < sparse_.blocks.size(); ++i) {
    const SparseBlock& b = sparse_.blocks[i];
    const JointBlock* jb = joint_block(i);
    std::fprintf(stderr, "hist block %d-%d: dense %zu, elided %zu, slots %d, overflow rows %zu, groups %zu\n", b.f0,
                 b.f1, b.dense.size(), b.elided.size(), b.K, b.over_rows.size(), jb ? jb->groups.size() : (size_t)0);
  }
}

GradSum* HistogramBuilder::get() {
  if (budget_ && !pool_hist_->has_free()) {
    const double bytes = 16.0 * (double)total_bins_;
    budget_->charge(bytes,
                    "histogram " + std::to_string(pool_hist_->count() + 1) + " (tree depth " +
                        std::to_string(depth_) + ", " + std::to_string(level_nodes_) + " nodes at that depth, " +
                        std::to_string(nf_) + " features x " + std::to_string(total_bins_) + " bins in all)",
                    "lower max_depth (now " + std::to_string(max_depth_) +
                        "), max_bin or the number of features, or raise min_child_weight");
    hist_charged_ += bytes;
  }
  return pool_hist_->get();
}

void HistogramBuilder::subtract(GradSum* parent, const GradSum* small) const {
  subtract_cells(parent, small, 0, total_bins_);
}


void HistogramBuilder::build(const std::vector<LevelNode*>& nodes, const GradSum* gp) {
  if (nodes.empty()) return;
  size_t rows_all = 0;
  for (const LevelNode* ln : nodes) rows_all += ln->end - ln->begin;
  const size_t work = rows_all * (size_t)nf_ * kCostHistCell;
  const int nt = threads_for_work(work, pool_->size());
  // Wide data: (node, block of features) tasks, each filling its own slice
  // of the node's histogram (a slice that stays in cache; no per-thread
  // copies to merge).  Integer sums: the same histograms.
  if (sparse_.blocks.size() >= 2 * (size_t)nt) return build_by_blocks(nodes, gp, work);
  build_by_rows(nodes, gp, work, rows_all, nt);
}

void HistogramBuilder::build_by_blocks(const std::vector<LevelNode*>& nodes, const GradSum* gp, size_t work) {
  const int d = nf_;
  const uint32_t* off = off_.data();
  const size_t T = total_bins_;
  const std::vector<SparseBlock>& blocks = sparse_.blocks;
  const size_t nblk = blocks.size();
  matrix_->visit([&](auto* bins) {  // uint8_t or uint16_t entries
    pool_->run_sized(work, nodes.size() * nblk, [&](size_t t, int) {
      const LevelNode* ln = nodes[t / nblk];
      const SparseBlock& blk = blocks[t % nblk];
      const size_t s0 = off[blk.f0], s1 = blk.f1 < nf_ ? off[blk.f1] : T;
      std::memset(ln->hist + s0, 0, sizeof(GradSum) * (s1 - s0));
      accumulate_block(ln->hist, bins, d, off, blk, joint_block(t % nblk), ln->rows, ln->begin, ln->end, gp);
      fill_dominant_cells(ln->hist, blk, sparse_.dominant, off, cells_.data(), ln->sum);
    });
  });
}

void HistogramBuilder::build_by_rows(const std::vector<LevelNode*>& nodes, const GradSum* gp, size_t work,
                                     size_t rows_all, int nt) {
  const int d = nf_;
  const uint32_t* off = off_.data();
  const size_t T = total_bins_;
  const std::vector<SparseBlock>& blocks = sparse_.blocks;
  const size_t nblk = blocks.size();
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
      GradSum* dst = i == 0 ? ln->hist : get();
      if (i > 0) extra.push_back(dst);
      parts.push_back(Part{ln, b, e, dst});
    }
    if (!extra.empty()) merges.emplace_back(ln, std::move(extra));
  }
  // Largest ranges first: the last ones handed out are the shortest.
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& a, const Part& b) { return a.end - a.begin > b.end - b.begin; });
  matrix_->visit([&](auto* bins) {  // uint8_t or uint16_t entries
    pool_->run_sized(work, parts.size(), [&](size_t pi, int) {
      const Part& p = parts[pi];
      GradSum* hst = p.dst;
      std::memset(hst, 0, sizeof(GradSum) * T);
      for (size_t bi = 0; bi < nblk; ++bi)
        accumulate_block(hst, bins, d, off, blocks[bi], joint_block(bi), p.node->rows, p.begin, p.end, gp);
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
    for (GradSum* s : src) pool_hist_->put(s);
  }
  // Elided features (sparse_bins.h): their dominant cell from the node's sum.
  if (sparse_.any_elided)
    for (LevelNode* ln : nodes)
      for (const SparseBlock& blk : blocks) fill_dominant_cells(ln->hist, blk, sparse_.dominant, off, cells_.data(), ln->sum);
}

}  // namespace gbdt
