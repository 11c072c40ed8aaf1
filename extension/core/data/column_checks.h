// Checks of the feature columns against the target on the rows held as
// floats before binning (every row when the relation fits the cut sample,
// else the sample): constant columns, and columns that copy or nearly equal
// the target (a leak: equal on >= 99% of the rows, or |correlation| > 0.999).
#pragma once

#include <cstddef>

namespace gbdt {

struct ColumnCheck {
  bool constant;     // the same value on every row, or missing on every row
  double equal;      // fraction of rows where the value equals the label
  double corr;       // Pearson correlation with the label (0 when undefined)
  bool near_target;  // equal >= 0.99 or |corr| > 0.999
};

// cols[f][r], labels[r] (r < n); out[f] for f < nf.  With AVX2 the sums
// run in vector registers, in the scalar loops' order (the same results);
// vector_path false takes the scalar loops (tests).
void check_columns(const float* const* cols, int nf, const float* labels, size_t n,
                   ColumnCheck* out, bool vector_path = true);

}  // namespace gbdt
