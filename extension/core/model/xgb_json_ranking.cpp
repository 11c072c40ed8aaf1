#include "xgb_json_ranking.h"

#include <cstdlib>

namespace gbdt {

namespace {
const std::string* find(const std::vector<std::pair<std::string, std::string>>& p,
                        const char* key) {
  for (const auto& kv : p)
    if (kv.first == key) return &kv.second;
  return nullptr;
}
const char* bool01(const std::string* v, bool dflt) {
  if (!v) return dflt ? "1" : "0";
  return (*v == "true" || *v == "1") ? "1" : "0";
}
}  // namespace

std::string rank_objective_json(const std::vector<std::pair<std::string, std::string>>& p) {
  const std::string* method = find(p, "lambdarank_pair_method");
  const std::string* npair = find(p, "lambdarank_num_pair_per_sample");
  std::string m = method ? *method : "topk";
  // XGBoost writes "not set" as 2^32 - 1; a set value as itself.
  std::string n = npair ? *npair : "4294967295";
  std::string o = "\"lambdarank_param\":{\"lambdarank_bias_norm\":\"1\",\"lambdarank_normalization\":\"";
  o += bool01(find(p, "lambdarank_normalization"), true);
  o += "\",\"lambdarank_num_pair_per_sample\":\"" + n + "\",\"lambdarank_pair_method\":\"" + m;
  o += "\",\"lambdarank_score_normalization\":\"";
  o += bool01(find(p, "lambdarank_score_normalization"), true);
  o += "\",\"lambdarank_unbiased\":\"0\",\"ndcg_exp_gain\":\"";
  o += bool01(find(p, "ndcg_exp_gain"), true);
  o += "\"}";
  return o;
}

void rank_params_from_json(JsonRef obj, std::vector<std::pair<std::string, std::string>>* out) {
  JsonRef lp = obj.get("lambdarank_param");
  if (!lp.valid() || !lp.is_object()) return;
  auto text = [&](const char* k) -> std::string {
    JsonRef v = lp.get(k);
    if (!v.valid()) return "";
    if (v.is_string()) return v.str();
    if (v.is_number()) return v.number_text();
    if (v.is_bool()) return v.boolean() ? "1" : "0";
    return "";
  };
  auto flag = [](const std::string& v) { return v == "1" || v == "true" ? "true" : "false"; };
  std::string m = text("lambdarank_pair_method");
  if (m == "topk" || m == "mean") out->emplace_back("lambdarank_pair_method", m);
  std::string n = text("lambdarank_num_pair_per_sample");
  if (!n.empty()) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(n.c_str(), &end, 10);
    if (end && *end == '\0' && v >= 1 && v <= 1000000)
      out->emplace_back("lambdarank_num_pair_per_sample", n);
  }
  for (const char* k : {"ndcg_exp_gain", "lambdarank_normalization",
                        "lambdarank_score_normalization"}) {
    std::string v = text(k);
    if (!v.empty()) out->emplace_back(k, flag(v));
  }
}

}  // namespace gbdt
