// Regression objectives on the identity link: squared error, absolute
// error, pseudo-Huber, quantile (pinball) and squared log error.
#include <cmath>

#include "objective.h"

namespace gbdt {
using namespace objective_detail;

namespace {
bool above_minus_one(float y) { return y > -1.0f; }
}  // namespace

const ObjectiveInfo kObjSquaredError = [] {
  ObjectiveInfo o;
  o.code = Objective::kSquaredError;
  o.name = "reg:squarederror";
  o.aliases = "reg:linear,regression";
  o.default_metric = "rmse";
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams&) {
    return label_mean(y, w, n);
  };
  o.transform = transform_identity;
  o.xgb_param_object = "reg_loss_param";
  o.xgb_param_key = "scale_pos_weight";
  o.param_key = "scale_pos_weight";
  o.param_default = 1;
  return o;
}();

// Leaves refit to the median of their residuals, as XGBoost's adaptive trees.
const ObjectiveInfo kObjAbsoluteError = [] {
  ObjectiveInfo o;
  o.code = Objective::kAbsoluteError;
  o.name = "reg:absoluteerror";
  o.aliases = "l1,regression_l1";
  o.default_metric = "mae";
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams&) {
    return label_quantile(y, w, n, 0.5);
  };
  o.transform = transform_identity;
  o.leaf_quantile = [](const TrainParams&) { return 0.5; };
  return o;
}();

const ObjectiveInfo kObjPseudoHuber = [] {
  ObjectiveInfo o;
  o.code = Objective::kPseudoHuber;
  o.name = "reg:pseudohubererror";
  o.default_metric = "mphe";
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams& p) {
    return newton_stump(Objective::kPseudoHuber, y, w, n, p);
  };
  o.transform = transform_identity;
  o.xgb_param_object = "pseudo_huber_param";
  o.xgb_param_key = "huber_slope";
  o.param_key = "huber_slope";
  o.param_default = 1.0;
  o.import_param = true;
  return o;
}();

const ObjectiveInfo kObjQuantile = [] {
  ObjectiveInfo o;
  o.code = Objective::kQuantile;
  o.name = "reg:quantileerror";
  o.aliases = "quantile";
  o.default_metric = "quantile";
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams& p) {
    return label_quantile(y, w, n, p.quantile_alpha);
  };
  o.transform = transform_identity;
  o.leaf_quantile = [](const TrainParams& p) { return p.quantile_alpha; };
  o.xgb_param_object = "quantile_loss_param";
  o.xgb_param_key = "quantile_alpha";
  o.param_key = "quantile_alpha";
  o.param_default = 0.5;
  o.xgb_param_array = true;
  o.import_param = true;
  return o;
}();

const ObjectiveInfo kObjSquaredLog = [] {
  ObjectiveInfo o;
  o.code = Objective::kSquaredLog;
  o.name = "reg:squaredlogerror";
  o.default_metric = "rmsle";
  o.label_ok = above_minus_one;
  o.label_rule = "labels > -1";
  o.label_hint = " (log1p of the label must exist); use reg:squarederror for other labels";
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams& p) {
    return newton_stump(Objective::kSquaredLog, y, w, n, p);
  };
  o.transform = transform_identity;
  return o;
}();

}  // namespace gbdt
