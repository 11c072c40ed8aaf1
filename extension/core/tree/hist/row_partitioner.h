// Routing a node's rows by a split (numeric or categorical: RowRoute), from
// a feature-major bin column (stride 1): the rows idx[b..e) go from their
// row list into the other one, tmp, the left rows forward from b in their
// order, the right rows backward from e (tmp[e - 1] is the first right row).
// The CPU backend's partition and its tests use it; the result is the same
// with and without the vector paths.  RowPartitioner (below) holds the two
// row lists and the feature-major bin copy, and partitions the nodes of a
// depth-wise level.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../common/memory_budget.h"
#include "../../common/parallel_policy.h"
#include "../../common/thread_pool.h"
#include "../../data/binned_matrix.h"
#include "../apply_split.h"
#include "../split_math.h"
#include "level_node.h"

namespace gbdt {

// Bytes a feature-major column store needs after its last entry so that the
// vector path may read 4 bytes at any entry.
constexpr size_t kColumnPadding = 64;

// The routing of RowRoute as a function of the bin follows below; first the
// vector instructions of the routing: kBest is the widest the CPU has
// (AVX-512F, else AVX2, checked at run time); tests ask for each one that
// row_isa_available() says the CPU has (one it lacks runs the scalar loop).
enum class RowIsa { kBest, kScalar, kAvx2, kAvx512 };
bool row_isa_available(RowIsa isa);

// A split as the rows are routed by it: a numeric one (words null) sends
// the bins <= split_bin left; a categorical one sends the bins of its right
// set (bit b of words[0 .. nwords); bins past the words are not in it)
// right and every other bin left.  The missing bin nb goes left when
// default_left.
struct RowRoute {
  unsigned split_bin = 0;
  unsigned nb = 0;
  bool default_left = false;
  const uint32_t* words = nullptr;
  int nwords = 0;
};

// The route of split s of a feature with nb value bins (the partition and
// the last level of the depth-wise driver, the general grower); set: its
// right bin set when it is categorical (null: numeric).
inline RowRoute row_route(const SplitCandidate& s, int nb, const CatWords* set) {
  RowRoute r;
  r.split_bin = (unsigned)s.bin;
  r.nb = (unsigned)nb;
  r.default_left = s.default_left != 0;
  if (set) {
    r.words = set->words;
    r.nwords = set->nwords;
  }
  return r;
}

// The routing of RowRoute as a function of the bin, one type per kind of
// split so that the loops below carry no test of the kind; the set's words
// are held in locals (stores to the row lists cannot change them).
struct NumericLeft {
  unsigned split_bin, nb;
  bool dl;
  bool operator()(unsigned bin) const { return bin == nb ? dl : bin <= split_bin; }
};
struct SetLeft {
  const uint32_t* words;
  unsigned nbits;  // 32 * nwords
  unsigned nb;
  bool dl;
  bool operator()(unsigned bin) const {
    const bool in_set = bin < nbits && ((words[bin >> 5] >> (bin & 31)) & 1u) != 0;
    return bin == nb ? dl : !in_set;
  }
};

// fn(NumericLeft) or fn(SetLeft) for the route.
template <typename Fn>
inline auto visit_route(const RowRoute& r, Fn fn) {
  if (r.words != nullptr) return fn(SetLeft{r.words, 32u * (unsigned)r.nwords, r.nb, r.default_left});
  return fn(NumericLeft{r.split_bin, r.nb, r.default_left});
}

// Returns the number of left rows.  16 rows at a time with AVX-512, 8 with
// AVX2; a column store read here must have kColumnPadding bytes after its
// last entry and every row < 2^31.
size_t partition_column(const uint8_t* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                        size_t e, RowIsa isa = RowIsa::kBest);
size_t partition_column(const uint16_t* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                        size_t e, RowIsa isa = RowIsa::kBest);

// The scalar loop, any row stride (the row-major matrix: stride = its
// number of features; the bins of rows ahead are prefetched there), rows
// idx[i..e) with the next left row going to tmp[l] and the next right row
// to tmp[r - 1]; returns the final l (the vector path's tail uses it too).
// Left: NumericLeft or SetLeft.
template <typename BinT, typename Left>
inline size_t partition_rows_from(const BinT* col, size_t stride, Left goes_left, const uint32_t* idx,
                                  uint32_t* tmp, size_t i, size_t e, size_t l, size_t r) {
  const size_t pf = 32;
  for (; i < e; ++i) {
    if (stride > 1 && i + pf < e) __builtin_prefetch(col + (size_t)idx[i + pf] * stride);
    const uint32_t row = idx[i];
    const bool left = goes_left((unsigned)col[(size_t)row * stride]);
    // Branch-free: write to both ends, advance one.
    tmp[l] = row;
    tmp[r - 1] = row;
    l += left;
    r -= !left;
  }
  return l;
}

template <typename BinT>
inline size_t partition_rows_scalar(const BinT* col, size_t stride, const RowRoute& route, const uint32_t* idx,
                                    uint32_t* tmp, size_t b, size_t e) {
  return visit_route(route, [&](auto goes_left) {
    return partition_rows_from(col, stride, goes_left, idx, tmp, b, e, b, e) - b;
  });
}

// The last level of a depth-wise tree (leaf_update.h): rows idx[b..e)
// of a node get their leaf's value, vl (left) or vr (right), added to
// margins[row * K + k].  Any row stride; the scalar loop.
template <typename BinT, typename Left>
inline void add_leaf_values_from(const BinT* col, size_t stride, Left goes_left, const uint32_t* idx, size_t b,
                                 size_t e, float vl, float vr, float* margins, int K, int k) {
  const float v[2] = {vr, vl};
  for (size_t i = b; i < e; ++i) {
    const uint32_t row = idx[i];
    margins[(size_t)row * K + k] += v[goes_left((unsigned)col[(size_t)row * stride])];
  }
}

template <typename BinT>
inline void add_leaf_values_rows(const BinT* col, size_t stride, const RowRoute& route, const uint32_t* idx,
                                 size_t b, size_t e, float vl, float vr, float* margins, int K, int k) {
  visit_route(route, [&](auto goes_left) {
    add_leaf_values_from(col, stride, goes_left, idx, b, e, vl, vr, margins, K, k);
  });
}

// The same from a feature-major column (stride 1) with one output (K = 1),
// 16 rows at a time with AVX-512 (the column as for partition_column).
void add_leaf_values_column(const uint8_t* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e,
                            float vl, float vr, float* margins);
void add_leaf_values_column(const uint16_t* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e,
                            float vl, float vr, float* margins);

// The positions [*sb, *se) of the rows r0 <= row < r1 in a node's row list
// idx[b..e), which is in increasing or in decreasing order (partition keeps
// one or the other: RowPartitioner::update).  Leaf-value updates use it to
// hand each thread its own range of row numbers, so that no two threads
// write the same cache line of the margins.
inline void row_span_in_range(const uint32_t* idx, size_t b, size_t e, size_t r0, size_t r1,
                              size_t* sb, size_t* se) {
  const uint32_t* first = idx + b;
  const uint32_t* last = idx + e;
  const uint32_t *lo, *hi;
  if (e - b < 2 || idx[b] <= idx[e - 1]) {
    lo = std::partition_point(first, last, [r0](uint32_t r) { return r < r0; });
    hi = std::partition_point(lo, last, [r1](uint32_t r) { return r < r1; });
  } else {
    lo = std::partition_point(first, last, [r1](uint32_t r) { return r >= r1; });
    hi = std::partition_point(lo, last, [r0](uint32_t r) { return r >= r0; });
  }
  *sb = (size_t)(lo - idx);
  *se = (size_t)(hi - idx);
}

// The rows of the tree being grown: two row lists (a node's rows are a
// segment of one of them; a partition routes them into the other), and,
// with ample memory, a feature-major copy of the bins for routing rows, as
// XGBoost keeps its column matrix beside the row-major index (a split reads
// one column, its rows in increasing order).
class RowPartitioner {
 public:
  ~RowPartitioner() { release(); }
  // Sizes the row lists for n_rows rows; unless `keep` (a restart on the
  // same data), makes the column copy when copies are allowed and at most
  // half the budget is in use after it.
  void init(const BinnedMatrix* matrix, size_t n_rows, ThreadPool* pool, MemoryBudget* budget, bool copies,
            bool keep);
  // Returns the bytes of the column copy charged to the budget.
  void release();

  uint32_t* rows() { return row_idx_.data(); }
  // The other row list than `list`.
  uint32_t* other(const uint32_t* list) { return list == row_idx_.data() ? tmp_idx_.data() : row_idx_.data(); }
  // Cost of routing one row (partition, last level): parallel_policy.h.
  size_t route_cost() const { return route_cost_; }

  // Feature f's bins for routing rows (partition, last level): its column
  // in the feature-major copy when there is one (stride 1: a node's rows,
  // in increasing order, read nearby bytes), else in the row-major matrix.
  template <typename BinT>
  const BinT* feature_column(const BinT* bins, int f, size_t* stride) const {
    const void* cols = matrix_->wide ? (const void*)cols16_.data() : (const void*)cols8_.data();
    if (has_cols_) {
      *stride = 1;
      return (const BinT*)cols + (size_t)f * n_;
    }
    *stride = (size_t)nf_;
    return bins + f;
  }

  // Partition of each split node's segment by splits[i] (split_sets[i]:
  // its right bin set, null for a numeric split): left rows first.
  // Returns the number of left rows per node, and in (*child_rows)[i] the
  // row list that holds node i's children at its segment.
  std::vector<size_t> update(const std::vector<LevelNode*>& nodes, const std::vector<SplitCandidate>& splits,
                             const std::vector<const CatWords*>& split_sets, const Cuts& cuts,
                             std::vector<uint32_t*>* child_rows);

 private:
  struct Piece;
  void make_columns();
  void route_pieces(const std::vector<LevelNode*>& nodes, const std::vector<SplitCandidate>& splits,
                    const std::vector<const CatWords*>& split_sets, const Cuts& c, std::vector<Piece>& pieces,
                    size_t rows_all);
  template <typename Emit>
  void split_rows(const std::vector<LevelNode*>& nodes, size_t rows_all, Emit emit) const;
  std::vector<uint8_t>& column_store(uint8_t) { return cols8_; }
  std::vector<uint16_t>& column_store(uint16_t) { return cols16_; }

  const BinnedMatrix* matrix_ = nullptr;
  ThreadPool* pool_ = nullptr;
  MemoryBudget* budget_ = nullptr;
  size_t n_ = 0;
  int nf_ = 0;
  std::vector<uint32_t> row_idx_, tmp_idx_;
  // The bins feature-major (feature_column), when has_cols_.
  std::vector<uint8_t> cols8_;
  std::vector<uint16_t> cols16_;
  bool has_cols_ = false;
  size_t route_cost_ = kCostPartitionRow;
  double cols_charged_ = 0;
};

}  // namespace gbdt
