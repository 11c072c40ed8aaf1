// survival objectives (XGBoost 3.x): survival:cox and survival:aft.
// Both predict on the log link (hazard ratios / times exp(margin)) and have
// their gradients computed on the host for both backends (survival.h).
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "../common/json_parse.h"
#include "objective.h"
#include "survival.h"

namespace gbdt {
using namespace objective_detail;

namespace {

const std::string* param_of(const std::vector<std::pair<std::string, std::string>>& params,
                            const char* key) {
  for (const auto& kv : params)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

// XGBoost's AFTParam: "aft_loss_param": {distribution, scale}.
std::string aft_objective_json(const std::vector<std::pair<std::string, std::string>>& params) {
  const std::string* d = param_of(params, "aft_loss_distribution");
  const std::string* s = param_of(params, "aft_loss_distribution_scale");
  double scale = s ? std::strtod(s->c_str(), nullptr) : 1.0;
  if (!(scale > 0) || !std::isfinite(scale)) scale = 1.0;
  std::ostringstream o;
  o << std::setprecision(9) << (float)scale;
  return std::string("\"aft_loss_param\":{\"aft_loss_distribution\":\"") + (d ? *d : "normal") +
         "\",\"aft_loss_distribution_scale\":\"" + o.str() + "\"}";
}

void aft_import_params(const JsonRef& objective,
                       std::vector<std::pair<std::string, std::string>>* params) {
  JsonRef a = objective.get("aft_loss_param");
  std::string dist = "normal";
  double scale = 1.0;
  if (a.valid()) {
    JsonRef d = a.get("aft_loss_distribution");
    if (d.valid() && d.is_string()) {
      int k = 0;
      if (!parse_aft_distribution(d.str(), &k))
        throw InvalidInput("XGBoost model not supported: aft_loss_distribution \"" + d.str() +
                           "\" (supported: normal, logistic, extreme)");
      dist = d.str();
    }
    JsonRef s = a.get("aft_loss_distribution_scale");
    if (s.valid() && s.is_string()) {
      char* end = nullptr;
      const double x = std::strtod(s.str().c_str(), &end);
      if (s.str().empty() || *end != '\0' || !(x > 0) || !std::isfinite(x))
        throw InvalidInput("XGBoost model is malformed: aft_loss_distribution_scale = \"" +
                           s.str() + "\" is not a number > 0");
      scale = (double)(float)x;
    }
  }
  std::ostringstream o;
  o.precision(17);
  o << scale;
  params->emplace_back("aft_loss_distribution", dist);
  params->emplace_back("aft_loss_distribution_scale", o.str());
}

}  // namespace

// Label = time, negative = right-censored; predicts hazard ratios.
const ObjectiveInfo kObjSurvivalCox = [] {
  ObjectiveInfo o;
  o.code = Objective::kSurvivalCox;
  o.name = "survival:cox";
  o.link = Link::kLog;
  o.default_metric = "cox-nloglik";
  o.check_labels = check_cox_labels;
  // XGBoost 3.x's fitted intercept: one Newton step from margin 0 with the
  // gradients in float (its GradientPair), as its FitStump.
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams&) {
    std::vector<double> g(n), h(n);
    std::vector<float> zero(n, 0.0f);
    cox_gradients(y, w, cox_order(y, n), zero.data(), g.data(), h.data());
    double sg = 0, sh = 0;
    for (size_t i = 0; i < n; ++i) {
      sg += (double)(float)g[i];
      sh += (double)(float)h[i];
    }
    return sh > 0 ? -sg / sh : 0.0;
  };
  o.transform = transform_exp;
  o.host_gradients = survival_gradients;
  return o;
}();

// Interval labels [target, label_upper_bound_column]; predicts times.
const ObjectiveInfo kObjSurvivalAft = [] {
  ObjectiveInfo o;
  o.code = Objective::kSurvivalAft;
  o.name = "survival:aft";
  o.link = Link::kLog;
  o.default_metric = "aft-nloglik";
  o.interval_labels = true;
  // XGBoost 3.x keeps base_score 0.5 for survival:aft (no fitted intercept).
  o.base_margin = [](const float*, const float*, size_t, const TrainParams&) {
    return std::log(0.5);
  };
  o.transform = transform_exp;
  o.eval_transform = transform_identity;  // the AFT metrics read the margins, as XGBoost's
  o.host_gradients = survival_gradients;
  o.xgb_objective_json = aft_objective_json;
  o.xgb_import_params = aft_import_params;
  return o;
}();

}  // namespace gbdt
