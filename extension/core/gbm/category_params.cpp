#include "category_params.h"

#include <cerrno>
#include <cstdlib>

#include "../common/common.h"
#include "../common/json_parse.h"
#include "../model/model_limits.h"

namespace gbdt {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> parse_names(const std::string& value) {
  const std::string v = trim(value);
  std::vector<std::string> names;
  if (!v.empty() && v[0] == '[') {
    JsonDoc doc(v);
    JsonRef r = doc.root();
    for (size_t i = 0; i < r.size(); ++i) {
      JsonRef e = r.at(i);
      if (!e.is_string())
        throw InvalidInput("parameter \"categorical_features\": element " + std::to_string(i + 1) +
                           " is not a string: give column names, e.g. [\"zip\", \"store_id\"]");
      names.push_back(e.str());
    }
  } else {
    size_t start = 0;
    while (start <= v.size()) {
      size_t comma = v.find(',', start);
      if (comma == std::string::npos) comma = v.size();
      names.push_back(trim(v.substr(start, comma - start)));
      start = comma + 1;
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty())
      throw InvalidInput("parameter \"categorical_features\" = \"" + value +
                         "\" has an empty column name: give column names as a JSON array or "
                         "separated by commas");
    for (size_t j = 0; j < i; ++j)
      if (names[j] == names[i])
        throw InvalidInput("parameter \"categorical_features\" names column \"" + names[i] +
                           "\" more than once");
  }
  return names;
}

std::string join(const std::vector<std::string>& names) {
  std::string r;
  for (size_t i = 0; i < names.size(); ++i) r += (i ? "," : "") + names[i];
  return r;
}

}  // namespace

void apply_category_param(const ParamKV& kv, TrainParams* p) {
  if (kv.key == "categorical_features") {
    p->categorical_features = parse_names(kv.value);
    return;
  }
  // max_categories
  const std::string range = "an integer in [1, " + std::to_string(kMaxCategories) + "]";
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(kv.value.c_str(), &end, 10);
  if (kv.value.empty() || *end != '\0' || errno != 0 || v < 1 || v > kMaxCategories)
    throw InvalidInput("parameter \"max_categories\" = \"" + kv.value + "\" must be " + range);
  p->max_categories = (int)v;
}

std::string categorical_features_text(const TrainParams& p) {
  return join(p.categorical_features);
}

void category_params_to_kv(const TrainParams& p,
                           std::vector<std::pair<std::string, std::string>>* out) {
  if (!p.categorical_features.empty())
    out->emplace_back("categorical_features", join(p.categorical_features));
  if (p.max_categories != kMaxCategories)
    out->emplace_back("max_categories", std::to_string(p.max_categories));
}

}  // namespace gbdt
