// JSON views of a partitioned model (partitioned_json.h).
#include "partitioned_json.h"

#include <cmath>

#include "model.h"
#include "xgb_json.h"
#include "../common/json_parse.h"
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

[[noreturn]] void bad_partitioned(const std::string& what) {
  throw InvalidInput("invalid partitioned model JSON: " + what);
}

JsonRef member(const JsonRef& obj, const char* name) {
  JsonRef v = obj.get(name);
  if (!v.valid()) bad_partitioned(std::string("missing \"") + name + "\"");
  return v;
}

// A list of strings (the key columns' names or types), 1..kMaxPartitionColumns of them.
std::vector<std::string> string_array(const JsonRef& v, const char* name) {
  if (!v.is_array() || v.size() == 0 || v.size() > kMaxPartitionColumns)
    bad_partitioned(std::string("\"") + name + "\" must be an array of 1 to " +
                    std::to_string(kMaxPartitionColumns) + " strings");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v.at(i).is_string() || v.at(i).str().empty() || v.at(i).str().size() > kMaxStringBytes)
      bad_partitioned(std::string("\"") + name + "\" holds a value that is not a non-empty string");
    out.push_back(v.at(i).str());
  }
  return out;
}

PartitionFallback fallback_of(const JsonRef& v) {
  if (!v.valid()) return PartitionFallback::kError;
  if (v.is_string() && v.str() == "error") return PartitionFallback::kError;
  if (v.is_string() && v.str() == "null") return PartitionFallback::kNull;
  if (v.is_string() && v.str() == "global") return PartitionFallback::kGlobal;
  bad_partitioned("\"partition_fallback\" must be \"error\", \"null\" or \"global\"");
}

// One entry of "models": its key (one string or null per key column), rows
// and the imported sub-model's bytes.
PartitionGroup import_group(const JsonRef& e, size_t ncols, size_t g, const XgbImportLimits& lim) {
  const std::string at = "models[" + std::to_string(g) + "]";
  if (!e.is_object()) bad_partitioned(at + " is not an object");
  const JsonRef key = member(e, "key");
  if (!key.is_array() || key.size() != ncols)
    bad_partitioned(at + ".key must be an array of " + std::to_string(ncols) + " values");
  PartitionGroup pg;
  for (size_t c = 0; c < ncols; ++c) {
    const JsonRef v = key.at(c);
    if (!v.is_null() && !(v.is_string() && v.str().size() <= kMaxStringBytes))
      bad_partitioned(at + ".key holds a value that is neither a string nor null");
    pg.key.push_back(v.is_null() ? std::string() : v.str());
    pg.key_null.push_back(v.is_null() ? 1 : 0);
  }
  const JsonRef rows = member(e, "rows");
  if (!rows.is_number() || !(rows.number() >= 1 && rows.number() <= 9.0e15) ||
      rows.number() != std::floor(rows.number()))
    bad_partitioned(at + ".rows must be a positive integer");
  pg.rows = (uint64_t)rows.number();
  pg.metric = std::nan("");
  pg.bytes = serialize_model(import_xgboost_value(member(e, "model"), lim));
  return pg;
}

}  // namespace

std::vector<uint8_t> import_model_json(const std::string& json, const XgbImportLimits& lim) {
  JsonDoc doc(json, lim.cancel);
  const JsonRef root = doc.root();
  if (!root.is_object() || !root.get("partition_by").valid())
    return serialize_model(import_xgboost_value(root, lim));
  PartitionedModel pm;
  pm.column_names = string_array(root.get("partition_by"), "partition_by");
  pm.column_types = string_array(member(root, "partition_types"), "partition_types");
  if (pm.column_types.size() != pm.column_names.size())
    bad_partitioned("\"partition_types\" must name one type per \"partition_by\" column");
  pm.fallback = fallback_of(root.get("partition_fallback"));
  const JsonRef models = member(root, "models");
  if (!models.is_array() || models.size() == 0 || models.size() > kMaxPartitionGroups)
    bad_partitioned("\"models\" must be an array of 1 to " + std::to_string(kMaxPartitionGroups) + " entries");
  for (size_t g = 0; g < models.size(); ++g)
    pm.groups.push_back(import_group(models.at(g), pm.column_names.size(), g, lim));
  const JsonRef global = root.get("global");
  const bool has_global = global.valid() && !global.is_null();
  if (has_global != (pm.fallback == PartitionFallback::kGlobal))
    bad_partitioned("a \"global\" model is given exactly when \"partition_fallback\" is \"global\"");
  if (has_global) pm.global_bytes = serialize_model(import_xgboost_value(global, lim));
  std::vector<uint8_t> bytes;
  try {
    bytes = serialize_partitioned(pm);
    deserialize_partitioned(bytes.data(), bytes.size(), lim.budget);  // duplicate keys, limits
  } catch (const std::invalid_argument& e) {
    bad_partitioned(e.what());
  } catch (const CorruptModel& e) {
    bad_partitioned(e.what());
  }
  return bytes;
}

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
  std::string s = "{\"partition_by\": " + string_list(pm.column_names) +
                  ", \"partition_types\": " + string_list(pm.column_types) +
                  ", \"partition_fallback\": " + json_escape(fallback_name(pm.fallback)) + ", \"models\": [";
  for (size_t g = 0; g < pm.groups.size(); ++g)
    s += (g ? ", " : "") + std::string("{\"key\": ") + key_json(pm.groups[g]) +
         ", \"rows\": " + std::to_string(pm.groups[g].rows) +
         ", \"model\": " + export_xgboost_json(*pm.models[g]) + "}";
  s += "], \"global\": " + (pm.global ? export_xgboost_json(*pm.global) : std::string("null"));
  return s + "}";
}

}  // namespace gbdt
