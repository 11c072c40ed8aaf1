// One description per objective (XGBoost's names and semantics): what the
// trainer, the predictor, the metrics and the XGBoost JSON interop need to
// know about it.  The gradients are in objective_grad.h (GBDT_HD, shared by
// the CPU and CUDA backends); the descriptions in objective_<family>.cpp and
// the list of them in objective_registry.cpp.  Adding an objective: a code
// in params.h, its gradient in objective_grad.h (+ the dispatch in
// gradients.h), its description in its family's file, one registry entry.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../gbm/params.h"

namespace gbdt {

class JsonRef;  // json_parse.h

// How a base_score given in prediction space maps to a margin.
enum class Link { kIdentity, kLogit, kLog };

struct ObjectiveInfo {
  Objective code = Objective::kSquaredError;
  const char* name = "";     // XGBoost's name
  const char* aliases = "";  // other accepted names, comma-separated ("" = none)
  bool multiclass = false;   // one output per class (num_class)
  bool binary = false;       // labels 0/1, class labels {0, 1}
  Link link = Link::kIdentity;
  const char* default_metric = "rmse";
  // Labels: the accepted values (null = any finite) and, for the error, what
  // the labels must be and what to use instead (label_hint is appended as
  // is after label_rule: it starts with a space or a semicolon).
  bool (*label_ok)(float y) = nullptr;
  const char* label_rule = "";
  const char* label_hint = "";
  // Intercept estimated from the (weighted; w may be null) labels, in
  // margin space, when base_score is not given (XGBoost 3.x's rules).
  double (*base_margin)(const float* y, const float* w, size_t n, const TrainParams& p) = nullptr;
  // Margins -> predictions (in place, K values of one row), and the form
  // the metrics see (null: the same).
  void (*transform)(double* v, int K) = nullptr;
  void (*eval_transform)(double* v, int K) = nullptr;
  // "Adaptive" leaves (XGBoost's reg:absoluteerror and reg:quantileerror):
  // after each tree, every leaf becomes eta times this quantile of the
  // residuals of its rows (null: the Newton leaves stay).
  double (*leaf_quantile)(const TrainParams& p) = nullptr;
  // XGBoost JSON "objective" object: the parameter object and its one key,
  // the model parameter (params_to_kv) it comes from, its default, whether
  // XGBoost writes it as an array ("[9E-1]"), and whether an import records
  // it into the model's params.
  const char* xgb_param_object = nullptr;
  const char* xgb_param_key = nullptr;
  const char* param_key = nullptr;
  double param_default = 0;
  bool xgb_param_array = false;
  bool import_param = false;
  // learning to rank (objective_ranking.cpp, ranking.h): the rows come
  // in query groups (group_column), the gradients are LambdaMART's computed
  // on the host (BoostData::external_gradients) and the metrics (ndcg, map,
  // pre) are per group.
  bool ranking = false;
  // The default metric when it depends on the parameters (null:
  // default_metric).
  std::string (*default_metric_of)(const TrainParams& p) = nullptr;
  // A label check that depends on the parameters (null: label_ok);
  // throws InvalidInput naming the target column.
  void (*check_labels)(const float* y, size_t n, const TrainParams& p,
                       const std::string& target) = nullptr;
  // XGBoost JSON of objectives with several parameters (null: the one
  // parameter above): the members after "name" of the "objective" object
  // from the model's params, and the params an import records from it.
  std::string (*xgb_objective_json)(const std::vector<std::pair<std::string, std::string>>& params) =
      nullptr;
  void (*xgb_import_params)(const JsonRef& objective,
                            std::vector<std::pair<std::string, std::string>>* params) = nullptr;
  // gradients computed on the host for both backends
  // (BoostData::external_gradients), for objectives whose rows are not
  // independent (survival:cox) or that read the labels' upper bounds
  // (survival:aft); null: the backends' scalar_gradient.  y_upper: the
  // upper bounds (null without).
  std::function<void(int round, const float* margins, double* g, double* h)> (*host_gradients)(
      Objective o, const float* y, const float* y_upper, const float* w, size_t n,
      const TrainParams& p) = nullptr;
  // every row has an interval label: the target is the lower bound and
  // label_upper_bound_column gives the upper bound (survival:aft).
  bool interval_labels = false;
};

// The description of a code (throws std::logic_error for an unknown code).
const ObjectiveInfo& objective_info(Objective o);
// The objective a name or alias stands for; null when none.
const ObjectiveInfo* find_objective(const std::string& name);
// "reg:squarederror, binary:logistic, ..." for error messages.
std::string objective_name_list();
// Every registered objective, in code order.
const std::vector<const ObjectiveInfo*>& all_objectives();

// Helpers shared by the family files.
namespace objective_detail {
// Weighted mean of the labels (the plain sum / n when w is null).
double label_mean(const float* y, const float* w, size_t n);
// XGBoost's quantile of the labels: unweighted, linear between order
// statistics at alpha (n + 1); weighted, the first value whose cumulative
// weight reaches alpha of the total.
double label_quantile(const float* y, const float* w, size_t n, double alpha);
// One Newton step from margin 0 (XGBoost's stump intercept):
// -sum(w g) / sum(w h) of the objective's gradient at margin 0.
double newton_stump(Objective o, const float* y, const float* w, size_t n, const TrainParams& p);
void transform_identity(double* v, int K);
void transform_sigmoid(double* v, int K);
void transform_exp(double* v, int K);
}  // namespace objective_detail

// Registry entries (objective_<family>.cpp).
extern const ObjectiveInfo kObjSquaredError, kObjAbsoluteError, kObjPseudoHuber, kObjQuantile,
    kObjSquaredLog;                                        // objective_regression.cpp
extern const ObjectiveInfo kObjPoisson, kObjGamma, kObjTweedie;  // objective_positive.cpp
extern const ObjectiveInfo kObjLogistic, kObjLogitRaw, kObjHinge;  // objective_binary.cpp
extern const ObjectiveInfo kObjSoftprob, kObjSoftmax;     // objective_multiclass.cpp
extern const ObjectiveInfo kObjRankPairwise, kObjRankNDCG, kObjRankMap;  // objective_ranking.cpp
extern const ObjectiveInfo kObjSurvivalCox, kObjSurvivalAft;  // objective_survival.cpp

}  // namespace gbdt
