// Features whose most frequent bin holds most rows (real columns
// are often mostly zero, mostly missing, rare flags, skewed codes, or constant).
// The CPU backend does not add such a feature's rows to the histogram one by
// one: per feature block, each row lists only its cells outside the elided
// features' dominant bins, and each dominant cell is filled afterwards as the
// node's sum minus the feature's other cells.  The node's sum is the integer
// sum of its rows' gradient pairs (the root's sum, or a split's left
// histogram prefix and parent - left), and integer sums are exact in any
// order, so every cell holds the very integers the row-by-row histogram
// holds: models are bit-identical, with less work (a row adds ~(1 - share)
// cells of such a feature instead of one) and without the store-to-load
// chains of consecutive rows adding into the same cell.  A constant feature
// is the extreme case: nothing to add at all.
//
// Layout: a block with elided features gets its own row records: the
// row's dense bins (contiguous, in feature order), then K slots (a fixed
// count, so the loop that adds them has no unpredictable branch), each a
// cell index relative to the block's first cell.  A row with fewer entries
// pads with elided features' dominant cells (overwritten by the fill, so the
// padding adds nothing), a row with more marks its last slot kOverflowSlot
// and keeps its entries in the block's overflow list.  K is chosen on a
// sample so that few rows overflow.  One record per row is one random
// memory access, as the row-major bin matrix's row is, and a shorter one.
//
// Which features are elided only changes speed: from a sample of rows, per
// block, the features whose dominant bin holds at least kSparseMinShare of
// the rows, most dominated first, as many as save the most cells per row
// (features elided minus the K slots plus one for the row's slot walk), if
// that saves at least a quarter of the block's cells.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../tree/split_math.h"

namespace gbdt {

// Features per histogram block (cpu_backend.cpp's (node, block) tasks).
constexpr int kHistFeatureBlock = 64;
constexpr double kSparseMinShare = 0.5;
constexpr size_t kSparseSampleRows = 16384;
constexpr uint16_t kOverflowSlot = 0xFFFF;

// One block of kHistFeatureBlock features [f0, f1).
struct SparseBlock {
  int f0 = 0, f1 = 0;
  std::vector<int> dense;    // features added row by row from their bins
  std::vector<int> elided;   // features whose dominant cell is filled from the node's sum
  // When elided is non-empty: row r's record at rec[r * stride]: the dense
  // features' bins (BinT each, in `dense` order), then K uint16 slots, each
  // a cell relative to the block's first cell, or padding (a dominant
  // cell); a last slot kOverflowSlot: the row's entries from the K-th on
  // are in the overflow list.
  int K = 0;
  size_t stride = 0;
  size_t slot_at = 0;        // byte offset of the slots in a record
  std::vector<uint8_t> rec;
  // Overflowing rows in increasing order; row over_rows[i]'s entries past
  // its first K - 1 are over_cells[over_ptr[i] .. over_ptr[i + 1]).
  std::vector<uint32_t> over_rows, over_ptr;
  std::vector<uint16_t> over_cells;
};

struct SparseBins {
  std::vector<int> dominant;  // per feature: its elided bin, or -1 (dense)
  std::vector<SparseBlock> blocks;
  bool any_elided = false;
  double bytes = 0;           // of the records and overflow lists
};

// Row r's entries past its first K - 1 slots (an overflowing row of b).
inline const uint16_t* overflow_cells(const SparseBlock& b, uint32_t r, const uint16_t** end) {
  const size_t i = (size_t)(std::lower_bound(b.over_rows.begin(), b.over_rows.end(), r) - b.over_rows.begin());
  *end = b.over_cells.data() + b.over_ptr[i + 1];
  return b.over_cells.data() + b.over_ptr[i];
}

namespace sparse_detail {

// Slots per row for the sampled rows' entry counts (rows_with[c]: rows
// with c entries, c < 256): 0 when no row has any, else the smallest k >= 1
// such that at most ns / 32 of the rows have more than k.
inline int slots_for(const std::vector<uint32_t>& rows_with, size_t ns) {
  if (rows_with[0] == ns) return 0;
  size_t over = ns - rows_with[0];
  for (int k = 1; k < (int)rows_with.size(); ++k) {
    over -= rows_with[k];
    if (over * 32 <= ns) return k;
  }
  return (int)rows_with.size();
}

// Records of block b for its elided features (dominant bin top[f]), K
// slots per row; false (b untouched) when they are not worth it or not
// allowed.
template <typename BinT, typename Allow>
bool fill_records(const BinT* bins, size_t n, int d, const uint32_t* hist_offset,
                  const std::vector<int>& top, int K, Allow& allow, SparseBlock* b, double* bytes) {
  auto entries = [&](size_t r) {
    const BinT* rb = bins + r * (size_t)d;
    size_t c = 0;
    for (int f : b->elided) c += (int)rb[f] != top[f];
    return c;
  };
  // Rows with more entries than K slots hold (all rows, not the sample).
  size_t over_rows = 0, over_cells = 0;
  auto count_over = [&]() {
    over_rows = over_cells = 0;
    for (size_t r = 0; r < n; ++r) {
      const size_t c = entries(r);
      if (c > (size_t)K) {
        ++over_rows;
        over_cells += c - (size_t)(K - 1);
      }
    }
  };
  count_over();
  if (K == 0 && over_rows > 0) {  // constant on the sample only
    if (b->elided.size() <= 2) return false;
    K = 1;
    count_over();
  }
  const size_t slot_at = b->dense.size() * sizeof(BinT);
  const size_t stride = slot_at + 2 * (size_t)K;
  const double need = (double)n * (double)stride + 8.0 * (double)over_rows + 4.0 + 2.0 * (double)over_cells;
  if (over_cells >= UINT32_MAX || !allow(need)) return false;
  *bytes += need;
  b->K = K;
  b->stride = stride;
  b->slot_at = slot_at;
  b->rec.resize(n * stride + 8);  // + 8: a record may be read as a whole word
  const uint32_t base = hist_offset[b->f0];
  // Padding: the elided features' dominant cells in turn.
  std::vector<uint16_t> pad;
  for (int f : b->elided) pad.push_back((uint16_t)(hist_offset[f] + top[f] - base));
  b->over_rows.reserve(over_rows);
  b->over_cells.reserve(over_cells);
  b->over_ptr.reserve(over_rows + 1);
  b->over_ptr.push_back(0);
  std::vector<uint16_t> row;
  std::vector<uint16_t> sl((size_t)K);
  for (size_t r = 0; r < n; ++r) {
    const BinT* rb = bins + r * (size_t)d;
    uint8_t* out = b->rec.data() + r * stride;
    for (size_t j = 0; j < b->dense.size(); ++j) {
      const BinT v = rb[b->dense[j]];
      std::memcpy(out + j * sizeof(BinT), &v, sizeof(BinT));
    }
    if (K == 0) continue;
    row.clear();
    for (int f : b->elided)
      if ((int)rb[f] != top[f]) row.push_back((uint16_t)(hist_offset[f] + rb[f] - base));
    if ((int)row.size() <= K) {
      for (int j = 0; j < K; ++j) sl[j] = j < (int)row.size() ? row[j] : pad[j % pad.size()];
    } else {
      for (int j = 0; j < K - 1; ++j) sl[j] = row[j];
      sl[K - 1] = kOverflowSlot;
      b->over_rows.push_back((uint32_t)r);
      b->over_cells.insert(b->over_cells.end(), row.begin() + (K - 1), row.end());
      b->over_ptr.push_back((uint32_t)b->over_cells.size());
    }
    std::memcpy(out + slot_at, sl.data(), 2 * (size_t)K);
  }
  return true;
}

}  // namespace sparse_detail

// The block layout of the row-major n x d bin matrix (entries of feature f
// in [0, cells[f]): value bins and its missing bin; cells at hist_offset[f]
// of a histogram).  min_share > 1: nothing elided.  `allow(bytes)` is asked
// before a block keeps its slots (a memory budget): when it refuses, the
// block stays dense.
template <typename BinT, typename Allow>
SparseBins build_sparse_bins(const BinT* bins, size_t n, int d, const uint32_t* hist_offset,
                             const uint32_t* cells, double min_share, Allow allow) {
  SparseBins s;
  s.dominant.assign((size_t)d, -1);
  // Per feature on a sample: the most frequent bin and its share.
  const size_t step = std::max<size_t>(1, n / kSparseSampleRows);
  const size_t ns = n == 0 ? 0 : (n + step - 1) / step;
  std::vector<int> top((size_t)d, -1);
  std::vector<double> share((size_t)d, 0.0);
  if (ns > 0 && min_share <= 1.0) {
    // One pass over the sampled rows, each read whole (row-major): feature
    // f's counts at count[at[f] ..).
    std::vector<size_t> at((size_t)d + 1, 0);
    for (int f = 0; f < d; ++f) at[f + 1] = at[f] + std::max<uint32_t>(1, cells[f]);
    std::vector<uint32_t> count(at[d], 0);
    for (size_t r = 0; r < n; r += step) {
      const BinT* rb = bins + r * (size_t)d;
      for (int f = 0; f < d; ++f) ++count[at[f] + std::min<uint32_t>(rb[f], cells[f] - 1)];
    }
    for (int f = 0; f < d; ++f) {
      const uint32_t* c = count.data() + at[f];
      const size_t top_at = (size_t)(std::max_element(c, c + (at[f + 1] - at[f])) - c);
      top[f] = (int)top_at;
      share[f] = (double)c[top_at] / (double)ns;
    }
  }
  for (int f0 = 0; f0 < d; f0 += kHistFeatureBlock) {
    SparseBlock b;
    b.f0 = f0;
    b.f1 = std::min(d, f0 + kHistFeatureBlock);
    const uint32_t range = (b.f1 < d ? hist_offset[b.f1] : hist_offset[d - 1] + cells[d - 1]) - hist_offset[f0];
    std::vector<int> cand;
    for (int f = b.f0; f < b.f1; ++f)
      if (top[f] >= 0 && share[f] >= min_share) cand.push_back(f);
    std::stable_sort(cand.begin(), cand.end(), [&](int a, int c) { return share[a] > share[c]; });
    // The prefix of cand that saves the most cells per sampled row.
    int best_m = 0, best_k = 0;
    double best_gain = 0;
    // A saving under a quarter of the block's cells per row does not pay
    // for the records (measured: none on tables with a few such features).
    const double min_gain = std::max(2.0, 0.25 * (b.f1 - b.f0));
    if (!cand.empty() && range < kOverflowSlot) {
      std::vector<uint8_t> cnt(ns, 0);
      for (size_t m = 1; m <= cand.size(); ++m) {
        const int f = cand[m - 1];
        std::vector<uint32_t> rows_with(256, 0);
        for (size_t i = 0; i < ns; ++i) {
          const int add = (int)bins[i * step * (size_t)d + f] != top[f];
          cnt[i] = (uint8_t)std::min(255, cnt[i] + add);
          ++rows_with[cnt[i]];
        }
        const int k = sparse_detail::slots_for(rows_with, ns);
        const double gain = (double)m - (k > 0 ? k + 1 : 0);
        if (gain >= min_gain && gain > best_gain) {
          best_gain = gain;
          best_m = (int)m;
          best_k = k;
        }
      }
    }
    std::vector<uint8_t> el((size_t)(b.f1 - b.f0), 0);
    for (int m = 0; m < best_m; ++m) el[cand[m] - b.f0] = 1;
    for (int f = b.f0; f < b.f1; ++f) (el[f - b.f0] ? b.elided : b.dense).push_back(f);
    if (!b.elided.empty() && !sparse_detail::fill_records(bins, n, d, hist_offset, top, best_k, allow, &b, &s.bytes)) {
      b.elided.clear();
      b.dense.clear();
      for (int f = b.f0; f < b.f1; ++f) b.dense.push_back(f);
    }
    if (!b.elided.empty()) {
      for (int f : b.elided) s.dominant[f] = top[f];
      s.any_elided = true;
    }
    s.blocks.push_back(std::move(b));
  }
  return s;
}

// The elided features' dominant cells of a histogram whose other cells of
// those features are complete: node sum - the feature's other cells
// (hist_offset[f] .. hist_offset[f] + cells[f]).  Whatever the dominant
// cell held (padding) is overwritten.
inline void fill_dominant_cells(GradSum* hist, const SparseBlock& b, const std::vector<int>& dom,
                                const uint32_t* hist_offset, const uint32_t* cells, GradSum node_sum) {
  for (int f : b.elided) {
    GradSum* h = hist + hist_offset[f];
    GradSum rest{0, 0};
    for (uint32_t x = 0; x < cells[f]; ++x)
      if ((int)x != dom[f]) rest = gs_add(rest, h[x]);
    h[dom[f]] = gs_sub(node_sum, rest);
  }
}

}  // namespace gbdt
