// Routing a node's rows by a split (numeric or categorical: RowRoute), from
// a feature-major bin column (stride 1): the rows idx[b..e) go from their
// row list into the other one, tmp, the left rows forward from b in their
// order, the right rows backward from e (tmp[e - 1] is the first right row).
// The CPU backend's partition and its tests use it; the result is the same
// with and without the vector paths.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gbdt {

// Bytes a feature-major column store needs after its last entry so that the
// vector path may read 4 bytes at any entry.
constexpr size_t kColumnPadding = 64;

// The vector instructions of the routing: kBest is the widest the CPU has
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

// The last level of a depth-wise tree (last_level_update.h): rows idx[b..e)
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
// one or the other: CpuBackend::partition).  Leaf-value updates use it to
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

}  // namespace gbdt
