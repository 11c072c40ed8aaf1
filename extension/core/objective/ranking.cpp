// Learning to rank: rank:pairwise, rank:ndcg and rank:map with query
// groups (group_column).  The gradients are LambdaMART's, computed on the
// host for both backends (ranking_lambdarank.cpp, handed over through
// BoostData::external_gradients); the label rule, the default metric and
// the metrics are ranking_params.cpp's and ranking_metrics.cpp's; the
// XGBoost JSON "lambdarank_param" object is ranking_json.cpp's.
#include "objective.h"
#include "lambdarank.h"
#include "../model/xgb_json_ranking.h"

namespace gbdt {
using namespace objective_detail;

namespace {

ObjectiveInfo ranking(Objective code, const char* name, const char* aliases,
                      const char* default_metric) {
  ObjectiveInfo o;
  o.code = code;
  o.name = name;
  o.aliases = aliases;
  o.ranking = true;
  o.default_metric = default_metric;  // with lambdarank_pair_method = mean
  o.default_metric_of = rank_default_metric;  // ndcg@k / map@k for topk
  o.check_labels = check_rank_labels;
  // XGBoost 3.x's fitted intercept of the ranking objectives is ~0: the
  // scores start at margin 0 (base_score, when given, is the margin).
  o.base_margin = [](const float*, const float*, size_t, const TrainParams&) { return 0.0; };
  o.transform = transform_identity;  // the scores are margins
  o.xgb_objective_json = rank_objective_json;
  o.xgb_import_params = [](const JsonRef& objective,
                           std::vector<std::pair<std::string, std::string>>* params) {
    rank_params_from_json(objective, params);
  };
  return o;
}

}  // namespace

const ObjectiveInfo kObjRankPairwise =
    ranking(Objective::kRankPairwise, "rank:pairwise", "", "ndcg");
const ObjectiveInfo kObjRankNDCG = ranking(Objective::kRankNDCG, "rank:ndcg", "lambdarank", "ndcg");
const ObjectiveInfo kObjRankMap = ranking(Objective::kRankMap, "rank:map", "", "map");

}  // namespace gbdt
