// Parameters of categorical features (their block of TrainParams):
// categorical_features (integer columns declared categorical) and
// max_categories (the most distinct values of a categorical column).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "params.h"

namespace gbdt {

// categorical_features: a JSON array of column names ('["a", "b"]') or
// comma-separated names ("a, b"; spaces around names are dropped);
// max_categories: an integer in [1, kMaxCategories].  Throws InvalidInput
// naming the parameter and what is allowed.
void apply_category_param(const ParamKV& kv, TrainParams* p);

// categorical_features as params_to_kv records it (names joined by commas).
std::string categorical_features_text(const TrainParams& p);

// Appends them to a canonical parameter list, only when not the defaults
// (trainings that do not use them keep their exact list).
void category_params_to_kv(const TrainParams& p,
                           std::vector<std::pair<std::string, std::string>>* out);

}  // namespace gbdt
