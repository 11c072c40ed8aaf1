// The training matrix as bin indices, row-major (n_rows x n_features): one
// byte per entry (`bins`), or two (`bins16`, `wide`) when some feature has
// more than 255 value bins (a categorical feature with more than 255
// categories, one bin per category: see categorical_split.h).  Numeric
// features never have more than 255 value bins, so a matrix without such a
// feature is 1 byte per entry, exactly as before.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "quantile.h"

namespace gbdt {

// std::allocator, except that resize() leaves elements of a trivial type
// uninitialized instead of zeroing them: a matrix's pages are first touched
// when its entries are written, so while the loader's float columns are
// binned (and given back page by page, page_release.h) the bins grow as the
// floats shrink instead of all being resident at once.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new ((void*)p) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new ((void*)p) U(std::forward<A>(a)...);
  }
};

struct BinnedMatrix {
  size_t n_rows = 0;
  int n_features = 0;
  bool wide = false;             // entries in bins16 (else bins)
  // Entries are unspecified after resize_entries() until written (every
  // producer writes every entry).
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> bins;     // bins[r * n_features + f]
  std::vector<uint16_t, DefaultInitAllocator<uint16_t>> bins16;  // the same layout when wide

  uint32_t at(size_t r, int f) const {
    const size_t i = r * (size_t)n_features + f;
    return wide ? (uint32_t)bins16[i] : (uint32_t)bins[i];
  }
  void set(size_t r, int f, uint32_t b) {
    const size_t i = r * (size_t)n_features + f;
    if (wide) bins16[i] = (uint16_t)b; else bins[i] = (uint8_t)b;
  }
  // Sizes the entries for n_rows x n_features (of the current width).
  void resize_entries() {
    const size_t n = n_rows * (size_t)n_features;
    if (wide) bins16.resize(n); else bins.resize(n);
  }
  // Calls fn with the typed entry pointer (const uint8_t* or const
  // uint16_t*): hot loops dispatch once, then run a template on the type.
  template <class Fn> void visit(Fn&& fn) const {
    if (wide) fn((const uint16_t*)bins16.data()); else fn((const uint8_t*)bins.data());
  }
  template <class Fn> void visit_mut(Fn&& fn) {
    if (wide) fn(bins16.data()); else fn(bins.data());
  }
  // The leaf of row r in tree t (Tree::leaf_of_bins on the row's entries).
  template <class TreeT> int32_t leaf_of_row(const TreeT& t, size_t r, const int* missing_bin) const {
    const size_t o = r * (size_t)n_features;
    return wide ? t.leaf_of_bins(bins16.data() + o, missing_bin)
                : t.leaf_of_bins(bins.data() + o, missing_bin);
  }
};

// Whether a matrix binned with `cuts` needs 2-byte entries: some feature's
// bin indices (value bins and its missing bin) exceed 255.
inline bool cuts_need_wide_bins(const Cuts& cuts) {
  for (int f = 0; f < cuts.n_features(); ++f)
    if (cuts.nbins(f) > kMaxValueBins) return true;
  return false;
}

// Tests: which search bins values (bin_matrix, RowBinner).  0: the widest
// the CPU runs (default); 1: AVX2 lanes where the CPU has AVX2; 2: scalar.
void set_bin_kernel_for_tests(int kernel);

// Bins the given rows (all rows when `rows` is null) of the input with `cuts`.
BinnedMatrix bin_matrix(const ColumnInput& in, const Cuts& cuts, int nthread,
                        const std::vector<uint32_t>* rows = nullptr);

// Bins rows as they arrive (the streaming loader's last pass over a table):
// each row is written as d floats (NaN = missing) into a chunk buffer, and
// every full chunk is binned in parallel into the next rows of the matrix,
// so the float copy of the table is never resident.  Gives the same bins as
// bin_matrix() and tracks each feature's value range for set_value_range().
class RowBinner {
 public:
  RowBinner(const Cuts& cuts, size_t n_rows, int nthread);
  ~RowBinner();
  RowBinner(const RowBinner&) = delete;
  RowBinner& operator=(const RowBinner&) = delete;

  // Where to write the next row's d floats.
  float* next_row() {
    if (buffered_ == chunk_rows_) flush();
    return chunk_.data() + (buffered_++) * (size_t)d_;
  }
  // Time spent binning so far (the rest of a load is reading).
  double seconds_binning() const { return seconds_; }
  // After exactly n_rows rows: the matrix and the rows' value range.
  BinnedMatrix finish(ValueRange* range);

 private:
  void flush();
  struct Impl;
  Impl* impl_;
  int d_;
  size_t n_rows_, chunk_rows_, buffered_ = 0, done_ = 0;
  double seconds_ = 0;
  std::vector<float> chunk_;
  BinnedMatrix m_;
};

}  // namespace gbdt
