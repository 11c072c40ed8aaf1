#include "gradient_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../../common/parallel_policy.h"
#include "../../objective/gradient_pass.h"
#include "../../objective/gradients.h"

namespace gbdt {

namespace {

// Pass 1 stores the double (g, h) of a row in its 16-byte slot (no extra
// n x K x 16-byte buffer); pass 2 reads it back and quantizes in place.
void put_gh(GradSum* slot, double g, double h) {
  double v[2] = {g, h};
  std::memcpy(slot, v, sizeof v);
}
void get_gh(const GradSum* slot, double* g, double* h) {
  double v[2];
  std::memcpy(v, slot, sizeof v);
  *g = v[0];
  *h = v[1];
}

}  // namespace

void gradient_pairs(const GradientJob& j, ThreadPool* pool, GradSum* gp, std::vector<double>* max_g,
                    std::vector<double>* max_h) {
  static_assert(sizeof(GradSum) == 2 * sizeof(double), "gradient slot holds two doubles");
  const int K = j.K;
  const size_t n = j.n;
  const int nt = pool->size();
  std::vector<double> mg((size_t)nt * K, 0.0), mh((size_t)nt * K, 0.0);
  const float* y = j.labels;
  const float* wt = j.weights;
  const float* margins = j.margins;
  const GradParams gpar = j.grad;
  const Objective obj = j.objective;
  pool->run_blocks_sized(n * (size_t)K * kCostGradientRow, n, [&](size_t b, size_t e, int tid) {
    double* tg = &mg[(size_t)tid * K];
    double* th = &mh[(size_t)tid * K];
    if (!objective_is_multiclass(obj)) {  // gradient_pass.h
      const GradMax mx = gradient_pass(obj, gpar, margins, y, wt, b, e, gp);
      tg[0] = std::max(tg[0], mx.g);
      th[0] = std::max(th[0], mx.h);
      return;
    }
    for (size_t r = b; r < e; ++r) {
      const float* m = &margins[r * K];
      double mx, sum;
      softmax_prepare(m, K, &mx, &sum);
      for (int k = 0; k < K; ++k) {
        GradHess gh = weighted(softmax_gradient(m, k, mx, sum, (int)y[r]), wt, r);
        put_gh(&gp[(size_t)k * n + r], gh.g, gh.h);
        double ag = std::fabs(gh.g);
        if (ag > tg[k]) tg[k] = ag;
        if (gh.h > th[k]) th[k] = gh.h;
      }
    }
  });
  max_g->assign(K, 0.0);
  max_h->assign(K, 0.0);
  for (int k = 0; k < K; ++k)
    for (int t = 0; t < nt; ++t) {
      (*max_g)[k] = std::max((*max_g)[k], mg[(size_t)t * K + k]);
      (*max_h)[k] = std::max((*max_h)[k], mh[(size_t)t * K + k]);
    }
}

std::vector<GradSum> quantize_pairs(GradSum* gp, size_t n, int K, const std::vector<Quantizer>& quant,
                                    const int32_t* mult, ThreadPool* pool) {
  const int nt = pool->size();
  // The sums of all rows' quantized pairs per group (a tree's root sum
  // when every row is in the round's sample): per thread, then added.
  std::vector<GradSum> sums((size_t)nt * K, GradSum{0, 0});
  pool->run_blocks_sized(n * (size_t)K * 2, n, [&](size_t b, size_t e, int tid) {
    for (int k = 0; k < K; ++k) {
      const double gs = quant[k].g_scale, hs = quant[k].h_scale;
      GradSum* slot = gp + (size_t)k * n;
      GradSum& sum = sums[(size_t)tid * K + k];
      int64_t s2[2] = {0, 0};
      if (quantize_pass_simd(slot, b, e, gs, hs, mult, s2)) {  // gradient_pass.h
        sum = gs_add(sum, GradSum{s2[0], s2[1]});
        continue;
      }
      if (mult) {
        for (size_t r = b; r < e; ++r) {
          double g, h;
          get_gh(&slot[r], &g, &h);
          slot[r] = quantize_rows(g, h, quant[k], mult[r]);
          sum = gs_add(sum, slot[r]);
        }
        continue;
      }
      for (size_t r = b; r < e; ++r) {
        double g, h;
        get_gh(&slot[r], &g, &h);
        slot[r] = GradSum{quantize(g, gs), quantize(h, hs)};
        sum = gs_add(sum, slot[r]);
      }
    }
  });
  std::vector<GradSum> all(K, GradSum{0, 0});
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < K; ++k) all[k] = gs_add(all[k], sums[(size_t)t * K + k]);
  return all;
}

}  // namespace gbdt
