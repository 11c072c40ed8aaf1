// Objectives for counts and positive targets on the log link: Poisson,
// gamma and Tweedie regression.
#include <algorithm>
#include <cmath>

#include "objective.h"

namespace gbdt {
using namespace objective_detail;

namespace {
bool non_negative(float y) { return y >= 0.0f; }
bool positive(float y) { return y > 0.0f; }
double log_mean(const float* y, const float* w, size_t n, const TrainParams&) {
  return std::log(std::max(label_mean(y, w, n), 1e-6));
}
}  // namespace

const ObjectiveInfo kObjPoisson = [] {
  ObjectiveInfo o;
  o.code = Objective::kPoisson;
  o.name = "count:poisson";
  o.aliases = "poisson";
  o.link = Link::kLog;
  o.default_metric = "poisson-nloglik";
  o.label_ok = non_negative;
  o.label_rule = "labels >= 0";
  o.label_hint = " (counts)";
  o.base_margin = log_mean;
  o.transform = transform_exp;
  o.xgb_param_object = "poisson_regression_param";
  o.xgb_param_key = "max_delta_step";
  o.param_key = "max_delta_step";
  o.param_default = 0.7;
  return o;
}();

const ObjectiveInfo kObjGamma = [] {
  ObjectiveInfo o;
  o.code = Objective::kGamma;
  o.name = "reg:gamma";
  o.aliases = "gamma";
  o.link = Link::kLog;
  o.default_metric = "gamma-deviance";
  o.label_ok = positive;
  o.label_rule = "labels > 0";
  o.label_hint = "; for labels that can be 0 use reg:tweedie or count:poisson";
  o.base_margin = log_mean;
  o.transform = transform_exp;
  o.xgb_param_object = "reg_loss_param";
  o.xgb_param_key = "scale_pos_weight";
  o.param_key = "scale_pos_weight";
  o.param_default = 1;
  return o;
}();

const ObjectiveInfo kObjTweedie = [] {
  ObjectiveInfo o;
  o.code = Objective::kTweedie;
  o.name = "reg:tweedie";
  o.aliases = "tweedie";
  o.link = Link::kLog;
  o.default_metric = "tweedie-nloglik";  // @tweedie_variance_power, added by the trainer
  o.label_ok = non_negative;
  o.label_rule = "labels >= 0";
  o.label_hint = "; use reg:squarederror for negative labels";
  o.base_margin = log_mean;
  o.transform = transform_exp;
  o.xgb_param_object = "tweedie_regression_param";
  o.xgb_param_key = "tweedie_variance_power";
  o.param_key = "tweedie_variance_power";
  o.param_default = 1.5;
  o.import_param = true;
  return o;
}();

}  // namespace gbdt
