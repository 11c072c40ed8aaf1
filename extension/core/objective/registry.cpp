// The list of objectives and the helpers their descriptions share.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "gradients.h"
#include "label_quantiles.h"
#include "objective.h"

namespace gbdt {

const std::vector<const ObjectiveInfo*>& all_objectives() {
  // In code order: all_objectives()[c]->code == c.
  static const std::vector<const ObjectiveInfo*> k = {
      &kObjSquaredError, &kObjLogistic,  &kObjSoftprob,   &kObjPoisson, &kObjAbsoluteError,
      &kObjPseudoHuber,  &kObjQuantile,  &kObjSquaredLog, &kObjGamma,   &kObjTweedie,
      &kObjLogitRaw,     &kObjHinge,     &kObjSoftmax,
      &kObjRankPairwise, &kObjRankNDCG,  &kObjRankMap,
      &kObjSurvivalCox,  &kObjSurvivalAft};
  return k;
}

const ObjectiveInfo& objective_info(Objective o) {
  const auto& all = all_objectives();
  const int c = (int)o;
  if (c < 0 || c >= (int)all.size() || (int)all[c]->code != c)
    throw std::logic_error("objective_info: unknown objective code " + std::to_string(c));
  return *all[c];
}

const ObjectiveInfo* find_objective(const std::string& name) {
  for (const ObjectiveInfo* o : all_objectives()) {
    if (name == o->name) return o;
    std::string a = o->aliases;
    size_t b = 0;
    while (b <= a.size() && !a.empty()) {
      size_t e = a.find(',', b);
      if (e == std::string::npos) e = a.size();
      if (a.compare(b, e - b, name) == 0 && e - b == name.size()) return o;
      b = e + 1;
    }
  }
  return nullptr;
}

std::string objective_name_list() {
  std::string r;
  for (const ObjectiveInfo* o : all_objectives()) r += (r.empty() ? "" : ", ") + std::string(o->name);
  return r;
}

namespace objective_detail {

double label_mean(const float* y, const float* w, size_t n) {
  if (!w) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += y[i];
    return n ? s / (double)n : 0.0;
  }
  double s = 0, sw = 0;
  for (size_t i = 0; i < n; ++i) {
    s += (double)w[i] * y[i];
    sw += w[i];
  }
  return sw > 0 ? s / sw : 0.0;
}

double label_quantile(const float* y, const float* w, size_t n, double alpha) {
  return label_quantile_polled(y, w, n, alpha, nullptr);
}

double newton_stump(Objective o, const float* y, const float* w, size_t n, const TrainParams& p) {
  GradParams gp;
  gp.huber_slope = p.huber_slope;
  gp.quantile_alpha = p.quantile_alpha;
  gp.tweedie_variance_power = p.tweedie_variance_power;
  gp.max_delta_step = p.effective_max_delta_step();
  double sg = 0, sh = 0;
  for (size_t i = 0; i < n; ++i) {
    GradHess gh = weighted(scalar_gradient(o, 0.0, (double)y[i], gp), w, i);
    sg += gh.g;
    sh += gh.h;
  }
  return -sg / std::max(sh, 1e-6);
}

void transform_identity(double*, int) {}
void transform_sigmoid(double* v, int) { v[0] = 1.0 / (1.0 + std::exp(-v[0])); }
void transform_exp(double* v, int) { v[0] = std::exp(v[0]); }

}  // namespace objective_detail
}  // namespace gbdt
