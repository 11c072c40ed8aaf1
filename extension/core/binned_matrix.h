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

}  // namespace gbdt
