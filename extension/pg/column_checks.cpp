#include "column_checks.h"

#include <cmath>

namespace gbdt_pg {

void check_columns(const float* const* cols, int nf, const float* labels, size_t n,
                   ColumnCheck* out) {
  for (int f = 0; f < nf; f++) {
    const float* x = cols[f];
    bool seen = false, constant = true, missing = false;
    float first = 0;
    size_t equal = 0, m = 0;
    double sx = 0, sy = 0;
    for (size_t r = 0; r < n; r++) {
      if (std::isnan(x[r])) {
        missing = true;
        continue;
      }
      if (!seen) {
        seen = true;
        first = x[r];
      } else if (x[r] != first) {
        constant = false;
      }
      if (x[r] == labels[r]) equal++;
      sx += x[r];
      sy += labels[r];
      m++;
    }
    double corr = 0;
    if (m > 1) {
      const double mx = sx / m, my = sy / m;
      double cxy = 0, cxx = 0, cyy = 0;
      for (size_t r = 0; r < n; r++) {
        if (std::isnan(x[r])) continue;
        const double dx = x[r] - mx, dy = labels[r] - my;
        cxy += dx * dy;
        cxx += dx * dx;
        cyy += dy * dy;
      }
      if (cxx > 0 && cyy > 0) corr = cxy / std::sqrt(cxx * cyy);
    }
    ColumnCheck& c = out[f];
    // Missing on some rows only: the missingness may tell something.
    c.constant = !seen || (constant && !missing);
    c.equal = n > 0 ? (double)equal / (double)n : 0;
    c.corr = corr;
    c.near_target = n > 0 && (c.equal >= 0.99 || std::fabs(corr) > 0.999);
  }
}

}  // namespace gbdt_pg
