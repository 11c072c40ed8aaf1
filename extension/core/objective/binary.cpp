// Binary classification: logistic (probability), logitraw (margin) and
// hinge (0/1 class).
#include <algorithm>
#include <cmath>

#include "objective.h"

namespace gbdt {
using namespace objective_detail;

namespace {
bool zero_one(float y) { return y == 0.0f || y == 1.0f; }
}  // namespace

const ObjectiveInfo kObjLogistic = [] {
  ObjectiveInfo o;
  o.code = Objective::kLogistic;
  o.name = "binary:logistic";
  o.aliases = "binary";
  o.binary = true;
  o.link = Link::kLogit;
  o.default_metric = "logloss";
  o.label_ok = zero_one;
  o.label_rule = "labels 0 or 1 (false/true)";
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams&) {
    double m = std::min(std::max(label_mean(y, w, n), 1e-6), 1 - 1e-6);
    return std::log(m / (1 - m));
  };
  o.transform = transform_sigmoid;
  o.xgb_param_object = "reg_loss_param";
  o.xgb_param_key = "scale_pos_weight";
  o.param_key = "scale_pos_weight";
  o.param_default = 1;
  return o;
}();

// The margin is the prediction; the metrics (logloss, auc, error) see the
// probability sigmoid(margin).
const ObjectiveInfo kObjLogitRaw = [] {
  ObjectiveInfo o;
  o.code = Objective::kLogitRaw;
  o.name = "binary:logitraw";
  o.binary = true;
  o.default_metric = "logloss";
  o.label_ok = zero_one;
  o.label_rule = "labels 0 or 1 (false/true)";
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams&) {
    return label_mean(y, w, n);  // XGBoost 3.x: the mean, used as the margin
  };
  o.transform = transform_identity;
  o.eval_transform = transform_sigmoid;
  o.xgb_param_object = "reg_loss_param";
  o.xgb_param_key = "scale_pos_weight";
  o.param_key = "scale_pos_weight";
  o.param_default = 1;
  return o;
}();

const ObjectiveInfo kObjHinge = [] {
  ObjectiveInfo o;
  o.code = Objective::kHinge;
  o.name = "binary:hinge";
  o.binary = true;
  o.default_metric = "error";
  o.label_ok = zero_one;
  o.label_rule = "labels 0 or 1 (false/true)";
  // The stump's class (0 or 1) as the margin, as XGBoost.
  o.base_margin = [](const float* y, const float* w, size_t n, const TrainParams& p) {
    return newton_stump(Objective::kHinge, y, w, n, p) > 0 ? 1.0 : 0.0;
  };
  o.transform = [](double* v, int) { v[0] = v[0] > 0 ? 1.0 : 0.0; };
  return o;
}();

}  // namespace gbdt
