// The training matrix as 1-byte bin indices, row-major (n_rows x n_features).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "quantile.h"

namespace gbdt {

struct BinnedMatrix {
  size_t n_rows = 0;
  int n_features = 0;
  std::vector<uint8_t> bins;  // bins[r * n_features + f]

  uint8_t at(size_t r, int f) const { return bins[r * (size_t)n_features + f]; }
};

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
