// XGBoost JSON of the ranking objectives (gbdt_export / gbdt_import hooks
// of xgb_json.cpp): the objective's "lambdarank_param" object, written from
// and read into the model's recorded parameters.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "../common/json_parse.h"

namespace gbdt {

// The members after "name" of the objective object ("lambdarank_param":
// {...}) from the model's params (XGBoost 3.x's defaults where absent).
std::string rank_objective_json(const std::vector<std::pair<std::string, std::string>>& params);

// The ranking parameters of an imported objective object, appended to params.
void rank_params_from_json(JsonRef objective,
                           std::vector<std::pair<std::string, std::string>>* params);

}  // namespace gbdt
