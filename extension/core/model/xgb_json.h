// Interop with XGBoost's JSON model format (Booster.save_model("m.json")).
#pragma once
#include <string>

#include "model.h"
#include "xgb_json_categorical.h"

namespace gbdt {

// The model in XGBoost's JSON schema (gbtree booster), loadable by
// xgboost.Booster(model_file=...) of XGBoost >= 1.7 with the same
// predictions.  base_score is written as a scalar in prediction space (the
// form every version reads); per-class intercepts of a multiclass model that
// differ between classes are folded into the first tree of each class, since
// older XGBoost versions have a single intercept.
std::string export_xgboost_json(const Model& m);

// Reads an XGBoost JSON model: gbtree booster; objectives reg:squarederror
// (alias reg:linear), binary:logistic, multi:softprob, multi:softmax,
// count:poisson; numeric and categorical splits (xgb_json_categorical.h).
// The result scores rows like XGBoost.
// Bin cuts are rebuilt from the split thresholds.  Anything else (gblinear,
// dart, vector leaves, other objectives) throws
// InvalidInput saying what is not supported.
Model import_xgboost_json(const std::string& json);
// The same within lim (xgb_json_categorical.h): the model's arrays charged
// to lim.budget before they are made (MemoryLimitExceeded when over), and
// lim.cancel polled in every loop over the input (Cancelled).
Model import_xgboost_json(const std::string& json, const XgbImportLimits& lim);
// The same from a parsed value (a sub-model of a partitioned export).
class JsonRef;
Model import_xgboost_value(const JsonRef& root, const XgbImportLimits& lim);

}  // namespace gbdt
