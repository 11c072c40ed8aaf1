// Row-major float batches (a table pass's decoded rows) into columns, and
// the check for infinities that comes before: the raw pass's worker runs
// both on every batch.
#pragma once
#include <cstddef>

namespace gbdt {

// Copies columns [0, m) of rows [r0, r1) of x (row-major, ncols floats a
// row, m <= ncols) to dst[j][at + (r - r0)]: each column's values land
// contiguously.  8 x 8 blocks are transposed in AVX2 registers where the
// CPU has AVX2.
void rows_to_columns(const float* x, size_t ncols, size_t r0, size_t r1, size_t m, float* const* dst,
                     size_t at);

// The same, one value at a time (tests compare the two).
void rows_to_columns_scalar(const float* x, size_t ncols, size_t r0, size_t r1, size_t m,
                            float* const* dst, size_t at);

// Whether any of x[0, n) is +inf or -inf.
bool any_infinite(const float* x, size_t n);

}  // namespace gbdt
