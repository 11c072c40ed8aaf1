// Gradients computed outside the backends (BoostData::external_gradients,
// ranking.h's LambdaRank), turned into the quantized gradient pairs the
// backends build trees from: the same scale rule (make_quantizer of the
// maxima) and rounding as the backends' own gradients, on the host, so the
// CPU and CUDA backends grow the same trees from them.
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

#include "gradients.h"
#include "../tree/split_math.h"

namespace gbdt {

// Fills out[0..n) and returns the quantizer used.
inline Quantizer quantize_external(const double* g, const double* h, size_t n, GradSum* out) {
  double mg = 0, mh = 0;
  for (size_t r = 0; r < n; ++r) {
    mg = std::max(mg, std::fabs(g[r]));
    mh = std::max(mh, h[r]);
  }
  Quantizer q = make_quantizer(mg, mh, n);
  for (size_t r = 0; r < n; ++r) out[r] = GradSum{quantize(g[r], q.g_scale), quantize(h[r], q.h_scale)};
  return q;
}

// Host buffers of the backends' external gradient pass.
struct ExternalGradients {
  std::vector<double> g, h;
  std::vector<float> margins;  // CUDA: the downloaded margins
};

}  // namespace gbdt
