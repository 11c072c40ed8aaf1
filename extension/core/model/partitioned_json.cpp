// JSON views of a partitioned model (partitioned_json.h).
#include "partitioned_json.h"

#include <cmath>

#include "model.h"
#include "xgb_json.h"
#include "../objective/objective.h"
#include "../predictor/explain.h"

namespace gbdt {

namespace {

const char* fallback_name(PartitionFallback f) {
  switch (f) {
    case PartitionFallback::kNull: return "null";
    case PartitionFallback::kGlobal: return "global";
    default: return "error";
  }
}

std::string string_list(const std::vector<std::string>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_escape(v[i]);
  return s + "]";
}

std::string key_json(const PartitionGroup& g) {
  std::string s = "[";
  for (size_t c = 0; c < g.key.size(); ++c) s += (c ? ", " : "") + (g.key_null[c] ? std::string("null") : json_escape(g.key[c]));
  return s + "]";
}

}  // namespace

std::string partitioned_info_json(const PartitionedModel& pm) {
  std::string s = "{\"partitioned\": true, \"partition_by\": " + string_list(pm.column_names) +
                  ", \"partition_types\": " + string_list(pm.column_types) +
                  ", \"partition_fallback\": " + json_escape(fallback_name(pm.fallback));
  if (!pm.models.empty()) s += ", \"objective\": " + json_escape(objective_name(pm.models[0]->objective));
  s += ", \"num_partitions\": " + std::to_string(pm.groups.size()) + ", \"partitions\": [";
  for (size_t g = 0; g < pm.groups.size(); ++g) {
    const PartitionGroup& pg = pm.groups[g];
    s += (g ? ", " : "") + std::string("{\"key\": ") + key_json(pg) + ", \"rows\": " + std::to_string(pg.rows) +
         ", \"metric\": ";
    if (pg.metric_name.empty() || std::isnan(pg.metric))
      s += "null";
    else
      s += "{" + json_escape(pg.metric_name) + ": " + json_number(pg.metric) + "}";
    s += "}";
  }
  s += "]";
  if (pm.global) s += ", \"global\": {\"rows\": " + std::to_string(pm.global->report.rows_used + pm.global->report.rows_validation) + "}";
  return s + "}";
}

std::string export_partitioned_json(const PartitionedModel& pm) {
  std::string s = "{\"partition_by\": " + string_list(pm.column_names) + ", \"models\": [";
  for (size_t g = 0; g < pm.groups.size(); ++g)
    s += (g ? ", " : "") + std::string("{\"key\": ") + key_json(pm.groups[g]) +
         ", \"model\": " + export_xgboost_json(*pm.models[g]) + "}";
  s += "], \"global\": " + (pm.global ? export_xgboost_json(*pm.global) : std::string("null"));
  return s + "}";
}

}  // namespace gbdt
