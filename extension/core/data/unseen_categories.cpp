#include "unseen_categories.h"

#include <cmath>
#include <stdexcept>

namespace gbdt {

size_t bin_unseen_categories_as_missing(const std::vector<std::vector<std::string>>& categories,
                                        const Cuts& cuts, const ColumnInput& x, BinnedMatrix* m) {
  const int d = m->n_features;
  if ((int)x.columns.size() != d || x.n_rows != m->n_rows)
    throw std::logic_error("bin_unseen_categories_as_missing: input and matrix differ");
  size_t changed = 0;
  for (int f = 0; f < d && f < (int)categories.size(); ++f) {
    const size_t n = categories[f].size();
    if (n == 0) continue;
    const uint32_t missing = (uint32_t)cuts.nbins(f);
    const float* col = x.columns[f];
    for (size_t r = 0; r < m->n_rows; ++r)
      if (!std::isnan(col[r]) && col[r] >= (float)n) {
        m->set(r, f, missing);
        ++changed;
      }
  }
  return changed;
}

}  // namespace gbdt
