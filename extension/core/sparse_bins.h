// Features whose most frequent bin holds most rows (issue 15: real columns
// are mostly zero, mostly missing, rare flags, skewed codes, or constant).
// The CPU backend does not add such a feature's rows to the histogram one by
// one: per feature block, each row lists only its entries outside the
// feature's dominant bin (a CSR of histogram cells), and the dominant bin's
// cell is filled afterwards as the node's sum minus the feature's other
// cells.  The node's sum is the integer sum of its rows' gradient pairs (the
// root's sum, or a split's left histogram prefix and parent - left), and
// integer sums are exact in any order, so every cell holds the very integers
// the row-by-row histogram holds: models are bit-identical, with less work
// (a row adds ~(1 - share) cells of such a feature instead of one) and
// without the store-to-load chains of consecutive rows adding into the same
// cell.  A constant feature is the extreme case: no entries at all.
//
// Which features are elided only changes speed; it is decided from a sample
// of rows (kSparseSampleRows), a feature being elided when its dominant bin
// holds at least kSparseMinShare of the sample.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "split_math.h"

namespace gbdt {

// Features per histogram block (cpu_backend.cpp's (node, block) tasks).
constexpr int kHistFeatureBlock = 64;
// A feature is elided when its most frequent bin holds this share of the
// sampled rows: a sparse entry (CSR walk) costs about twice a dense cell,
// and the dense cells of a dominant bin form store-to-load chains.
constexpr double kSparseMinShare = 0.5;
constexpr size_t kSparseSampleRows = 65536;

// One block of kHistFeatureBlock features [f0, f1).
struct SparseBlock {
  int f0 = 0, f1 = 0;
  std::vector<int> dense;        // features added row by row from the bin matrix
  std::vector<int> elided;       // features filled from the node's sum
  // When elided is non-empty: row r's entries are ent[rowptr[r] .. rowptr[r+1]),
  // each the histogram cell (hist_offset[f] + bin) of an elided feature whose
  // bin is not its dominant one.
  std::vector<uint32_t> rowptr;  // n_rows + 1
  std::vector<uint32_t> ent;
};

struct SparseBins {
  std::vector<int> dominant;     // per feature: its elided bin, or -1 (dense)
  std::vector<SparseBlock> blocks;
  bool any_elided = false;
  double bytes = 0;              // of the row pointers and entries
};

// The elided bin of each feature of the row-major n x d bin matrix (bins
// of feature f in [0, cells[f]), cells[f] = value bins + 1 missing): the
// most frequent bin of a sample of rows when it holds at least min_share of
// them, else -1.
template <typename BinT>
std::vector<int> dominant_bins(const BinT* bins, size_t n, int d, const uint32_t* cells,
                               double min_share) {
  std::vector<int> dom((size_t)d, -1);
  if (n == 0 || min_share > 1.0) return dom;
  const size_t step = std::max<size_t>(1, n / kSparseSampleRows);
  size_t sampled = 0;
  std::vector<size_t> base((size_t)d + 1, 0);
  for (int f = 0; f < d; ++f) base[f + 1] = base[f] + cells[f];
  std::vector<uint32_t> count(base[d], 0);
  for (size_t r = 0; r < n; r += step, ++sampled) {
    const BinT* rb = bins + r * (size_t)d;
    for (int f = 0; f < d; ++f) ++count[base[f] + std::min<uint32_t>(rb[f], cells[f] - 1)];
  }
  for (int f = 0; f < d; ++f) {
    uint32_t best = 0;
    int at = -1;
    for (uint32_t b = 0; b < cells[f]; ++b)
      if (count[base[f] + b] > best) {
        best = count[base[f] + b];
        at = (int)b;
      }
    if (at >= 0 && (double)best >= min_share * (double)sampled) dom[f] = at;
  }
  return dom;
}

// The blocks for `dom` (dominant_bins).  A block's row entries take
// 4 * (n + 1 + entries) bytes; `allow(bytes)` is asked before a block keeps
// them (a memory budget): when it refuses, or when the entries would not
// fit 32-bit offsets, the block's features stay dense.
template <typename BinT, typename Allow>
SparseBins build_sparse_bins(const BinT* bins, size_t n, int d, const uint32_t* hist_offset,
                             std::vector<int> dom, Allow allow) {
  SparseBins s;
  s.dominant = std::move(dom);
  for (int f0 = 0; f0 < d; f0 += kHistFeatureBlock) {
    SparseBlock b;
    b.f0 = f0;
    b.f1 = std::min(d, f0 + kHistFeatureBlock);
    for (int f = b.f0; f < b.f1; ++f) (s.dominant[f] >= 0 ? b.elided : b.dense).push_back(f);
    if (!b.elided.empty()) {
      // Count, then fill (row order, then feature order within a row).
      size_t total = 0;
      for (size_t r = 0; r < n; ++r) {
        const BinT* rb = bins + r * (size_t)d;
        for (int f : b.elided) total += (int)rb[f] != s.dominant[f];
      }
      const double bytes = 4.0 * ((double)n + 1.0 + (double)total);
      if (total + n >= UINT32_MAX || !allow(bytes)) {
        for (int f : b.elided) s.dominant[f] = -1;
        b.dense.clear();
        b.elided.clear();
        for (int f = b.f0; f < b.f1; ++f) b.dense.push_back(f);
      } else {
        s.bytes += bytes;
        b.rowptr.resize(n + 1);
        b.ent.resize(total);
        uint32_t k = 0;
        for (size_t r = 0; r < n; ++r) {
          b.rowptr[r] = k;
          const BinT* rb = bins + r * (size_t)d;
          for (int f : b.elided)
            if ((int)rb[f] != s.dominant[f]) b.ent[k++] = hist_offset[f] + rb[f];
        }
        b.rowptr[n] = k;
        s.any_elided = true;
      }
    }
    s.blocks.push_back(std::move(b));
  }
  return s;
}

// The elided features' dominant cells of a histogram whose other cells of
// those features are complete: node sum - the feature's other cells
// (hist_offset[f] .. hist_offset[f] + cells[f]).
inline void fill_dominant_cells(GradSum* hist, const SparseBlock& b, const std::vector<int>& dom,
                                const uint32_t* hist_offset, const uint32_t* cells, GradSum node_sum) {
  for (int f : b.elided) {
    GradSum* h = hist + hist_offset[f];
    GradSum rest{0, 0};
    for (uint32_t x = 0; x < cells[f]; ++x) rest = gs_add(rest, h[x]);
    // rest includes the dominant cell (zero: no row added to it).
    h[dom[f]] = gs_sub(node_sum, rest);
  }
}

}  // namespace gbdt
