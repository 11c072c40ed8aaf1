// The CPU backend's first gradient pass for single-output objectives, rows
// [b, e): (g, h) of each row stored as two doubles in its 16-byte slot (pass
// 2 quantizes them in place) and the largest |g| and h returned.
// The per-objective loop is instantiated for the common objectives so the
// gradient is inlined and the maxima stay in registers (a loop through
// scalar_gradient() per row reloads them: the slot stores may alias them).
// The very same gradient functions, so the values are bit for bit those of
// scalar_gradient(); a maximum does not depend on the order.
#pragma once
#include <cmath>
#include <cstring>

#include "gradients.h"

namespace gbdt {

struct GradMax {
  double g = 0.0, h = 0.0;
};

template <typename Fn>
inline GradMax gradient_rows(Fn fn, const float* margins, const float* y, const float* w, size_t b,
                             size_t e, void* slots) {
  double mg = 0.0, mh = 0.0;
  char* out = static_cast<char*>(slots);
  for (size_t r = b; r < e; ++r) {
    const GradHess gh = weighted(fn((double)margins[r], (double)y[r]), w, r);
    const double v[2] = {gh.g, gh.h};
    std::memcpy(out + r * sizeof v, v, sizeof v);
    const double ag = std::fabs(gh.g);
    mg = ag > mg ? ag : mg;
    mh = gh.h > mh ? gh.h : mh;
  }
  return GradMax{mg, mh};
}

// Rows [b, e) of binary:logistic / logitraw with AVX-512F or AVX2
// (gradient_simd.cpp), the bits of the loop below; false (nothing done)
// without AVX2.
bool logistic_pass_simd(const float* margins, const float* y, const float* w, size_t b, size_t e,
                        void* slots, GradMax* out);

// Rows [b, e) of reg:squarederror with AVX2 (gradient_simd.cpp), the bits
// of the loop below; false (nothing done) without AVX2.
bool squared_error_pass_simd(const float* margins, const float* y, const float* w, size_t b, size_t e,
                             void* slots, GradMax* out);

// Pass 2 on rows [b, e) with AVX2 (gradient_simd.cpp): each slot's (g, h)
// doubles replaced by quantize(g, g_scale), quantize(h, h_scale), times
// mult[r] when mult is not null (quantize_rows(), modulo 2^64), the same
// integers, which are added to sum[0], sum[1]; false (nothing done)
// without AVX2.
bool quantize_pass_simd(void* slots, size_t b, size_t e, double g_scale, double h_scale,
                        const int32_t* mult, int64_t sum[2]);

// Tests: 2 (the default) lets the passes above take their best path, 1
// AVX2 at most (the logistic pass's 4-row steps on an AVX-512 CPU), 0 none
// (they return false).  Not for concurrent use.
void set_gradient_simd_for_tests(int level);

// slots: 16 bytes per row (GradSum-sized), indexed by row.
inline GradMax gradient_pass(Objective obj, const GradParams& gp, const float* margins,
                             const float* y, const float* w, size_t b, size_t e, void* slots) {
  switch (obj) {
    case Objective::kSquaredError: {
      GradMax m;
      if (squared_error_pass_simd(margins, y, w, b, e, slots, &m)) return m;
      return gradient_rows([](double m, double t) { return grad_squared_error(m, t); }, margins, y,
                           w, b, e, slots);
    }
    case Objective::kLogistic:
    case Objective::kLogitRaw: {
      GradMax m;
      if (logistic_pass_simd(margins, y, w, b, e, slots, &m)) return m;
      return gradient_rows([](double m, double t) { return grad_logistic(m, t); }, margins, y, w,
                           b, e, slots);
    }
    default:
      return gradient_rows([obj, &gp](double m, double t) { return scalar_gradient(obj, m, t, gp); },
                           margins, y, w, b, e, slots);
  }
}

}  // namespace gbdt
