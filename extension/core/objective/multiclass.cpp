// Multiclass: softprob (class probabilities) and softmax (the class).  Both
// train alike (one tree per class and round); the label check and the
// centered log-prior intercepts are the trainer's (they need num_class).
#include <algorithm>
#include <cmath>

#include "objective.h"

namespace gbdt {

namespace {
void softmax(double* v, int K) {
  double mx = v[0];
  for (int k = 1; k < K; ++k) mx = std::max(mx, v[k]);
  double s = 0;
  for (int k = 0; k < K; ++k) {
    v[k] = std::exp(v[k] - mx);
    s += v[k];
  }
  for (int k = 0; k < K; ++k) v[k] /= s;
}

ObjectiveInfo multiclass(Objective code, const char* name, const char* aliases) {
  ObjectiveInfo o;
  o.code = code;
  o.name = name;
  o.aliases = aliases;
  o.multiclass = true;
  o.default_metric = "mlogloss";
  o.label_rule = "class labels 0, 1, ..., num_class-1";
  o.transform = softmax;
  o.xgb_param_object = "softmax_multiclass_param";
  o.xgb_param_key = "num_class";
  o.param_key = "num_class";
  return o;
}
}  // namespace

const ObjectiveInfo kObjSoftprob = multiclass(Objective::kSoftprob, "multi:softprob", "multiclass");
// gbdt_predict returns the class (as XGBoost's predict); gbdt_predict_proba
// the probabilities.
const ObjectiveInfo kObjSoftmax = multiclass(Objective::kSoftmax, "multi:softmax", "");

}  // namespace gbdt
