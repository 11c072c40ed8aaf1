#include "constraints.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "../common/common.h"
#include "../objective/gradients.h"
#include "../common/json_parse.h"
#include "../gbm/params.h"

namespace gbdt {

namespace {

const char* kMonoName = "monotone_constraints";
const char* kInterName = "interaction_constraints";

[[noreturn]] void bad(const char* param, const std::string& what) {
  throw InvalidInput(std::string("parameter \"") + param + "\" " + what);
}

int feature_by_name(const char* param, const std::string& name,
                    const std::vector<std::string>& names) {
  for (size_t f = 0; f < names.size(); ++f)
    if (names[f] == name) return (int)f;
  std::string list;
  for (size_t f = 0; f < names.size() && f < 20; ++f) list += (f ? ", " : "") + names[f];
  if (names.size() > 20) list += ", ...";
  bad(param, "names column \"" + name + "\", which is not a feature column: the features are " +
                 list);
}

int monotone_value(double v, const std::string& text) {
  if (v != -1.0 && v != 0.0 && v != 1.0)
    bad(kMonoName, "has the value " + text + ": each constraint must be -1, 0 or 1");
  return (int)v;
}

int feature_by_index(const char* param, const JsonRef& v, int d) {
  const double x = v.number();
  if (x != std::floor(x) || x < 0 || x >= d)
    bad(param, "names feature index " + v.number_text() + ": indices must be integers in [0, " +
                   std::to_string(d - 1) + "]");
  return (int)x;
}

}  // namespace

std::vector<int8_t> parse_monotone_constraints(const std::string& text,
                                               const std::vector<std::string>& names) {
  const int d = (int)names.size();
  std::vector<int8_t> m((size_t)d, 0);
  std::string t = text;
  // XGBoost's tuple syntax "(1,0,-1)" is a JSON array in parentheses.
  size_t a = t.find_first_not_of(" \t\n\r");
  size_t b = t.find_last_not_of(" \t\n\r");
  if (a == std::string::npos) bad(kMonoName, "is empty: give \"(1,0,-1)\" or {\"column\": 1}");
  if (t[a] == '(' && t[b] == ')') t = "[" + t.substr(a + 1, b - a - 1) + "]";
  std::unique_ptr<JsonDoc> doc;
  try {
    doc.reset(new JsonDoc(t));
  } catch (const InvalidInput&) {
    bad(kMonoName, "= \"" + text +
                       "\" is not valid: give one of -1, 0, 1 per feature as \"(1,0,-1)\" or a "
                       "JSON object by column name {\"column\": 1}");
  }
  JsonRef r = doc->root();
  if (r.is_array()) {
    if ((int)r.size() > d)
      bad(kMonoName, "has " + std::to_string(r.size()) + " entries for " + std::to_string(d) +
                         " features: give at most one per feature column");
    for (size_t i = 0; i < r.size(); ++i) {
      JsonRef v = r.at(i);
      if (!v.is_number()) bad(kMonoName, "entry " + std::to_string(i) + " must be -1, 0 or 1");
      m[i] = (int8_t)monotone_value(v.number(), v.number_text());
    }
  } else if (r.is_object()) {
    for (size_t i = 0; i < r.size(); ++i) {
      const int f = feature_by_name(kMonoName, r.key(i), names);
      JsonRef v = r.at(i);
      if (!v.is_number())
        bad(kMonoName, "value of column \"" + r.key(i) + "\" must be -1, 0 or 1");
      m[(size_t)f] = (int8_t)monotone_value(v.number(), v.number_text());
    }
  } else {
    bad(kMonoName, "must be \"(1,0,-1)\" (one per feature) or a JSON object {\"column\": 1}");
  }
  for (int8_t c : m)
    if (c != 0) return m;
  return {};
}

std::vector<std::vector<int>> parse_interaction_constraints(
    const std::string& text, const std::vector<std::string>& names) {
  const int d = (int)names.size();
  std::unique_ptr<JsonDoc> doc;
  const char* form = ": give a list of lists of column names, e.g. [[\"a\",\"b\"],[\"c\"]], or of "
                     "feature indices, e.g. [[0,1],[2]]";
  try {
    doc.reset(new JsonDoc(text));
  } catch (const InvalidInput&) {
    bad(kInterName, "= \"" + text + "\" is not valid JSON" + form);
  }
  JsonRef r = doc->root();
  if (!r.is_array()) bad(kInterName, std::string("must be a list of lists") + form);
  std::vector<std::vector<int>> sets;
  for (size_t i = 0; i < r.size(); ++i) {
    JsonRef s = r.at(i);
    if (!s.is_array()) bad(kInterName, "entry " + std::to_string(i) + " is not a list" + form);
    std::vector<int> set;
    for (size_t j = 0; j < s.size(); ++j) {
      JsonRef v = s.at(j);
      if (v.is_string())
        set.push_back(feature_by_name(kInterName, v.str(), names));
      else if (v.is_number())
        set.push_back(feature_by_index(kInterName, v, d));
      else
        bad(kInterName, "entry " + std::to_string(i) + " holds a value that is neither a column "
                        "name nor a feature index" + form);
    }
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    if (!set.empty()) sets.push_back(std::move(set));
  }
  return sets;
}

std::string monotone_to_text(const std::vector<int8_t>& m) {
  std::string s = "(";
  for (size_t i = 0; i < m.size(); ++i) s += (i ? "," : "") + std::to_string((int)m[i]);
  return s + ")";
}

std::string interaction_to_text(const std::vector<std::vector<int>>& sets) {
  std::string s = "[";
  for (size_t i = 0; i < sets.size(); ++i) {
    s += i ? ",[" : "[";
    for (size_t j = 0; j < sets[i].size(); ++j) s += (j ? "," : "") + std::to_string(sets[i][j]);
    s += "]";
  }
  return s + "]";
}

void resolve_tree_params(TrainParams* p, const std::vector<std::string>& names,
                         TreeExtParams* out) {
  *out = TreeExtParams{};
  if (!p->monotone_constraints.empty()) {
    out->monotone = parse_monotone_constraints(p->monotone_constraints, names);
    p->monotone_constraints = out->monotone.empty() ? "" : monotone_to_text(out->monotone);
  }
  if (!p->interaction_constraints.empty()) {
    out->interaction = parse_interaction_constraints(p->interaction_constraints, names);
    p->interaction_constraints =
        out->interaction.empty() ? "" : interaction_to_text(out->interaction);
  }
  out->colsample_bylevel = p->colsample_bylevel;
  out->colsample_bynode = p->colsample_bynode;
  out->lossguide = p->lossguide;
  out->max_leaves = p->max_leaves;
}

void check_tree_params(const TrainParams& p) {
  if (p.max_depth != 0) return;
  if (!p.lossguide)
    throw InvalidInput(
        "parameter \"max_depth\" = 0 is out of range: must be an integer in [1, 16]");
  if (p.max_leaves <= 0)
    throw InvalidInput(
        "parameter \"max_depth\" = 0 (no depth limit) needs max_leaves > 0 with grow_policy "
        "lossguide: set max_leaves to an integer in [1, 65536] or max_depth in [1, 16]");
}

void sample_feature_subset(std::vector<uint8_t>* mask, double frac, uint64_t seed, int round,
                           int group, uint64_t salt, int64_t index) {
  if (frac >= 1.0) return;
  std::vector<int> on;
  for (size_t f = 0; f < mask->size(); ++f)
    if ((*mask)[f]) on.push_back((int)f);
  const int k = (int)on.size();
  if (k == 0) return;
  const int keep = std::max(1, (int)std::lround(frac * k));
  uint64_t state = mix64(seed ^ salt) ^ mix64((uint64_t)round + 1) ^
                   mix64(((uint64_t)group << 40) ^ (uint64_t)(index + 1));
  for (int i = 0; i < keep; ++i) {  // partial Fisher-Yates
    state = mix64(state);
    const int j = i + (int)(state % (uint64_t)(k - i));
    std::swap(on[i], on[j]);
  }
  std::fill(mask->begin(), mask->end(), 0);
  for (int i = 0; i < keep; ++i) (*mask)[on[i]] = 1;
}

void interaction_allowed(const std::vector<std::vector<int>>& sets, const std::vector<int>& used,
                         int n_features, std::vector<uint8_t>* allowed) {
  if (sets.empty() || used.empty()) {
    allowed->assign((size_t)n_features, 1);
    return;
  }
  allowed->assign((size_t)n_features, 0);
  for (const std::vector<int>& s : sets)
    if (std::includes(s.begin(), s.end(), used.begin(), used.end()))
      for (int f : s) (*allowed)[f] = 1;
}

void NodeFeatureSampler::mask(int depth, int32_t node_id, const std::vector<int>& used,
                              std::vector<uint8_t>* out) {
  out->assign(tree_mask_, tree_mask_ + nf_);
  if (ext_.colsample_bylevel < 1.0) {
    if ((size_t)depth >= level_.size()) level_.resize((size_t)depth + 1);
    std::vector<uint8_t>& lm = level_[(size_t)depth];
    if (lm.empty()) {
      lm = *out;
      sample_feature_subset(&lm, ext_.colsample_bylevel, seed_, round_, group_, 0x1E7E1ULL, depth);
    }
    *out = lm;
  }
  if (ext_.colsample_bynode < 1.0)
    sample_feature_subset(out, ext_.colsample_bynode, seed_, round_, group_, 0x90DEULL, node_id);
  if (!ext_.interaction.empty()) {
    interaction_allowed(ext_.interaction, used, nf_, &allowed_);
    for (int f = 0; f < nf_; ++f) (*out)[f] &= allowed_[f];
  }
}

void add_used_feature(std::vector<int>* used, int f) {
  auto it = std::lower_bound(used->begin(), used->end(), f);
  if (it == used->end() || *it != f) used->insert(it, f);
}

}  // namespace gbdt
