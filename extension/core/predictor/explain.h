// Model introspection: info as JSON, feature importance.
#pragma once
#include <string>
#include <vector>

#include "../common/common.h"
#include "../model/model.h"

namespace gbdt {

// kind: "gain" (average gain of the feature's splits), "total_gain", "weight"
// (number of splits), "cover" (average cover), "total_cover".
// Throws InvalidInput for an unknown kind.  One value per feature.  cancel
// is polled every 65536 nodes (throws Cancelled).
std::vector<double> feature_importance(const Model& m, const std::string& kind,
                                       const CancelFn& cancel = CancelFn());

// JSON object: objective, num_class, classes, features (name + type),
// rounds, trees, base_score, params, rows_used, rows_skipped,
// rows_validation, eval_metric, validation_history, best_iteration, backend.
std::string model_info_json(const Model& m);

// JSON string escaping helper, shared by JSON writers.
std::string json_escape(const std::string& s);
// Shortest round-tripping text for a double ("null" for NaN/inf).
std::string json_number(double v);

}  // namespace gbdt
