#include "xgb_json.h"
#include "../gbm/multi_quantile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "../predictor/explain.h"
#include "../common/json_parse.h"
#include "../objective/objective.h"
#include "../common/utf8.h"
#include "xgb_json_categorical.h"
#include "xgb_json_detail.h"

namespace gbdt {

namespace {

// Rewrites "d.ddde[+-]XX" (printf %e) in positional notation with at least
// one digit after the decimal point: the same decimal value, exactly.
std::string positional(const char* sci) {
  std::string s(sci);
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.erase(0, 1);
  size_t e = s.find_first_of("eE");
  int exp = e == std::string::npos ? 0 : std::atoi(s.c_str() + e + 1);
  std::string mant = e == std::string::npos ? s : s.substr(0, e);
  std::string digits;
  int point = 0;  // digits before the decimal point in mant
  bool seen_point = false;
  for (char c : mant) {
    if (c == '.') { seen_point = true; continue; }
    digits += c;
    if (!seen_point) ++point;
  }
  point += exp;
  std::string out;
  if (point <= 0) {
    out = "0." + std::string((size_t)(-point), '0') + digits;
  } else if ((size_t)point >= digits.size()) {
    out = digits + std::string((size_t)point - digits.size(), '0') + ".0";
  } else {
    out = digits.substr(0, (size_t)point) + "." + digits.substr((size_t)point);
  }
  // Trim trailing zeros after the point (keep one).
  size_t dot = out.find('.');
  size_t last = out.find_last_not_of('0');
  if (last != std::string::npos && last > dot) out.erase(last + 1);
  else out.erase(dot + 2);
  return neg ? "-" + out : out;
}

// Shortest decimal text that reads back as exactly f, whether the reader
// parses straight to float or to double and then rounds to float.  Always
// with a decimal point and without an exponent: XGBoost's JSON reader
// refuses an integer where it expects a float, and jsonb (which gbdt_export
// returns) prints numbers in positional notation anyway.  Non-finite values
// have no JSON (or jsonb) representation: an error.
std::string float_text(float f) {
  if (!std::isfinite(f))
    throw InvalidInput(std::string("the model holds a non-finite value (") +
                       (std::isnan(f) ? "NaN" : f > 0 ? "Infinity" : "-Infinity") +
                       ") that JSON cannot represent");
  char b[64];
  for (int prec = 5; prec <= 8; ++prec) {
    std::snprintf(b, sizeof b, "%.*e", prec, (double)f);
    if (std::strtof(b, nullptr) == f && (float)std::strtod(b, nullptr) == f) return positional(b);
  }
  std::snprintf(b, sizeof b, "%.16e", (double)f);
  return positional(b);
}

// XGBoost writes parameters as strings, floats in "%g"-like scientific form.
std::string float_param(float f) { return float_text(f); }

const char* xgb_objective(Objective o) { return objective_info(o).name; }

// Margin -> prediction-space intercept (XGBoost's base_score), and back:
// the objective's link (objective.h).
double margin_to_score(Objective o, double margin) {
  switch (objective_info(o).link) {
    case Link::kLogit: return 1.0 / (1.0 + std::exp(-margin));
    case Link::kLog: return std::exp(margin);
    default: return margin;
  }
}

// As XGBoost does it: in float.
float score_to_margin(Objective o, float s) {
  switch (objective_info(o).link) {
    case Link::kLogit: return -std::log(1.0f / s - 1.0f);
    case Link::kLog: return std::log(s);
    default: return s;
  }
}

// The float intercept text whose XGBoost margin is closest to `margin`.
std::string base_score_text(Objective o, double margin) {
  const float target = (float)margin;
  float s = (float)margin_to_score(o, margin);
  const Link link = objective_info(o).link;
  if (link == Link::kIdentity) return float_text(target);
  float best = s;
  double best_err = std::fabs((double)score_to_margin(o, s) - (double)target);
  float lo = s, hi = s;
  for (int i = 0; i < 16 && best_err > 0; ++i) {
    lo = std::nextafter(lo, -INFINITY);
    hi = std::nextafter(hi, INFINITY);
    for (float c : {lo, hi}) {
      if (!(c > 0) || (link == Link::kLogit && !(c < 1))) continue;
      double e = std::fabs((double)score_to_margin(o, c) - (double)target);
      if (e < best_err) {
        best_err = e;
        best = c;
      }
    }
  }
  return float_text(best);
}

void write_float_array(std::ostringstream& o, const char* name, const std::vector<float>& v) {
  o << '"' << name << "\":[";
  for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << float_text(v[i]);
  o << ']';
}

using xgb_json_detail::write_int_array;

void write_tree(std::ostringstream& o, const Tree& t, int id, int num_feature, float shift,
                const std::vector<uint32_t>& ncat) {
  const int32_t nn = t.num_nodes();
  std::vector<int32_t> left(nn), right(nn), parents(nn), split_indices(nn);
  std::vector<int> split_type(nn, 0), default_left(nn);
  std::vector<float> cond(nn), base_weights(nn), loss(nn), hess(nn);
  for (int32_t n = 0; n < nn; ++n) {
    const bool leaf = t.is_leaf(n);
    // A mirrored categorical node (xgb_json_categorical.h) swaps its children.
    const bool mirrored = xgb_mirrored_node(t, n);
    left[n] = leaf ? -1 : mirrored ? t.right[n] : t.left[n];
    right[n] = leaf ? -1 : mirrored ? t.left[n] : t.right[n];
    parents[n] = t.parent[n] < 0 ? 2147483647 : t.parent[n];
    split_indices[n] = leaf ? 0 : t.feature[n];
    if (!leaf && t.is_categorical(n)) split_type[n] = 1;  // a bit field or a code list alike
    default_left[n] = leaf ? 0 : (t.default_left[n] || mirrored ? 1 : 0);
    float v = shift != 0.0f ? shift + t.value[n] : t.value[n];
    base_weights[n] = v;
    cond[n] = leaf ? v : t.threshold[n];
    loss[n] = leaf ? 0.0f : t.gain[n];
    hess[n] = (float)t.cover[n];
  }
  o << '{';
  write_float_array(o, "base_weights", base_weights);
  write_xgb_tree_categories(o, t, ncat);
  write_int_array(o, "default_left", default_left);
  o << ",\"id\":" << id << ',';
  write_int_array(o, "left_children", left);
  o << ',';
  write_float_array(o, "loss_changes", loss);
  o << ',';
  write_int_array(o, "parents", parents);
  o << ',';
  write_int_array(o, "right_children", right);
  o << ',';
  write_float_array(o, "split_conditions", cond);
  o << ',';
  write_int_array(o, "split_indices", split_indices);
  o << ',';
  write_int_array(o, "split_type", split_type);
  o << ',';
  write_float_array(o, "sum_hessian", hess);
  o << ",\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"" << num_feature
    << "\",\"num_nodes\":\"" << nn << "\",\"size_leaf_vector\":\"1\"}}";
}

}  // namespace

std::string export_xgboost_json(const Model& m) {
  validate_model(m);
  check_xgb_export_size(m);
  const int K = m.num_output_group;
  const int d = m.n_features();
  const ObjectiveInfo& oi = objective_info(m.objective);
  const bool multi = oi.multiclass;

  // Intercepts.  One scalar is what every XGBoost version reads; distinct
  // per-class intercepts are folded into each class's first tree (the same
  // float sum our predictor forms first), falling back to a vector
  // base_score (XGBoost >= 3.0) only for a class without trees.
  std::vector<float> shift((size_t)K, 0.0f);
  std::vector<int> first_tree((size_t)K, -1);
  for (size_t i = 0; i < m.trees.size(); ++i)
    if (first_tree[m.tree_group[i]] < 0) first_tree[m.tree_group[i]] = (int)i;
  std::string base_score;
  if (!multi && K > 1) {
    // several quantiles: XGBoost 3.x's vector base_score, one per output.
    base_score = "[";
    for (int k = 0; k < K; ++k) base_score += (k ? "," : "") + base_score_text(m.objective, m.base_margin[k]);
    base_score += "]";
  } else if (!multi) {
    base_score = base_score_text(m.objective, m.base_margin[0]);
  } else {
    bool same = true;
    for (int k = 1; k < K; ++k) same = same && (float)m.base_margin[k] == (float)m.base_margin[0];
    bool all_have_trees = true;
    for (int k = 0; k < K; ++k) all_have_trees = all_have_trees && first_tree[k] >= 0;
    if (same) {
      base_score = float_text((float)m.base_margin[0]);
    } else if (all_have_trees) {
      base_score = "0";
      for (int k = 0; k < K; ++k) shift[k] = (float)m.base_margin[k];
    } else {
      base_score = "[";
      for (int k = 0; k < K; ++k) base_score += (k ? "," : "") + float_text((float)m.base_margin[k]);
      base_score += "]";
    }
  }

  std::ostringstream o;
  o << "{\"learner\":{\"attributes\":{";
  if (m.report.best_iteration >= 0) {
    o << "\"best_iteration\":\"" << m.report.best_iteration << '"';
    // Several metrics: validation_metric holds each round's values in
    // eval_metric's order; the best score is the last metric's.
    size_t nm = 1;
    for (char c : m.report.eval_metric) nm += c == ',';
    const size_t at = (size_t)m.report.best_iteration * nm + nm - 1;
    if (at < m.report.validation_metric.size())
      o << ",\"best_score\":\"" << json_number(m.report.validation_metric[at]) << '"';
  }
  o << "},\"feature_names\":[";
  for (int f = 0; f < d; ++f) o << (f ? "," : "") << json_escape(m.feature_names[f]);
  o << "],\"feature_types\":[";
  for (int f = 0; f < d; ++f) {
    const char* t = m.feature_types[f] == FeatureType::kInt           ? "int"
                    : m.feature_types[f] == FeatureType::kBool        ? "i"
                    : m.feature_types[f] == FeatureType::kCategorical ? "c"
                                                                      : "float";
    o << (f ? "," : "") << '"' << t << '"';
  }
  // a round is K * num_parallel_tree trees, group-major.
  const size_t tpr = (size_t)m.trees_per_round();
  o << "],\"gradient_booster\":{\"model\":{\"gbtree_model_param\":{\"num_parallel_tree\":\""
    << m.num_parallel_tree << "\",\"num_trees\":\""
    << m.trees.size() << "\"},\"iteration_indptr\":[";
  for (size_t r = 0; r <= m.trees.size() / tpr; ++r) o << (r ? "," : "") << r * tpr;
  o << "],\"tree_info\":[";
  for (size_t i = 0; i < m.trees.size(); ++i) o << (i ? "," : "") << m.tree_group[i];
  o << "],\"trees\":[";
  std::vector<uint32_t> ncat((size_t)d, 0);  // categories per feature (mirrored nodes)
  for (int f = 0; f < d && f < (int)m.categories.size(); ++f) ncat[f] = (uint32_t)m.categories[f].size();
  for (size_t i = 0; i < m.trees.size(); ++i) {
    if (i) o << ',';
    float s = (int)i == first_tree[m.tree_group[i]] ? shift[m.tree_group[i]] : 0.0f;
    write_tree(o, m.trees[i], (int)i, d, s, ncat);
  }
  o << "]";
  write_xgb_cats(o, m);
  o << "},\"name\":\"gbtree\"},\"learner_model_param\":{\"base_score\":\"" << base_score
    << "\",\"boost_from_average\":\"1\",\"num_class\":\"" << (multi ? K : 0)
    << "\",\"num_feature\":\"" << d << "\",\"num_target\":\"" << (multi ? 1 : K) << "\"},\"objective\":{\"name\":\""
    << xgb_objective(m.objective) << "\",";
  if (oi.xgb_objective_json) {
    o << oi.xgb_objective_json(m.params);  // the ranking objectives' lambdarank_param
  } else if (oi.xgb_param_object) {
    // The parameter's value: the model's record of it (num_class: K), else
    // the default; XGBoost writes it as a string (an array for quantiles).
    std::string v;
    if (oi.multiclass) {
      v = std::to_string(K);
    } else {
      double x = oi.param_default;
      for (const auto& kv : m.params)
        if (kv.first == oi.param_key) x = std::strtod(kv.second.c_str(), nullptr);
      if (!(x > 0)) x = oi.param_default;
      v = x == 1.0 && std::string(oi.param_key) == "scale_pos_weight" ? "1" : float_param((float)x);
      if (oi.xgb_param_array && K > 1) {  // one alpha per output
        v.clear();
        for (double a : model_quantile_alphas(m)) v += (v.empty() ? "" : ",") + float_param((float)a);
      }
      if (oi.xgb_param_array) v = "[" + v + "]";
    }
    o << "\"" << oi.xgb_param_object << "\":{\"" << oi.xgb_param_key << "\":\"" << v << "\"}";
  } else {
    o.seekp(-1, std::ios_base::cur);  // no parameters: drop the comma after the name
  }
  o << "}},\"version\":[3,0,0]}";
  return o.str();
}

// ---------------------------------------------------------------- import

namespace {

[[noreturn]] void unsupported(const std::string& what) {
  throw InvalidInput("XGBoost model not supported: " + what);
}
using xgb_json_detail::malformed;

JsonRef need(const JsonRef& obj, const std::string& key, const std::string& where) {
  JsonRef v = obj.get(key);
  if (!v.valid()) malformed("missing \"" + key + "\" in " + where);
  return v;
}

// Integer from a JSON number or a numeric string (XGBoost writes params as strings).
long long as_int(const JsonRef& v, const std::string& what) {
  double x;
  if (v.is_number()) {
    x = v.number();
  } else if (v.is_string()) {
    char* end = nullptr;
    x = std::strtod(v.str().c_str(), &end);
    if (v.str().empty() || *end != '\0') malformed(what + " is not a number");
  } else if (v.is_bool()) {
    x = v.boolean() ? 1 : 0;
  } else {
    malformed(what + " is not a number");
  }
  if (!(x == std::floor(x)) || std::fabs(x) > 9e15) malformed(what + " is not an integer");
  return (long long)x;
}

float as_float(const JsonRef& v, const std::string& what) {
  if (v.is_number()) return v.number_f();
  if (v.is_string()) {
    char* end = nullptr;
    float f = std::strtof(v.str().c_str(), &end);
    if (v.str().empty() || *end != '\0') malformed(what + " is not a number");
    return f;
  }
  malformed(what + " is not a number");
}

const JsonRef& need_array(const JsonRef& v, size_t n, const std::string& what) {
  if (!v.is_array()) malformed(what + " is not an array");
  if (n != (size_t)-1 && v.size() != n)
    malformed(what + " has " + std::to_string(v.size()) + " entries, expected " + std::to_string(n));
  return v;
}

// base_score: "0.5", "5E-1" or "[5E-1]" / "[a,b,c]" (XGBoost >= 3.0).
std::vector<float> parse_base_score(const JsonRef& v) {
  std::vector<float> out;
  if (v.is_number()) {
    out.push_back(v.number_f());
    return out;
  }
  if (!v.is_string()) malformed("base_score is not a string");
  std::string s = v.str();
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  if (b == std::string::npos) malformed("base_score is empty");
  s = s.substr(b, e - b + 1);
  if (!s.empty() && s.front() == '[') {
    if (s.back() != ']') malformed("base_score \"" + v.str() + "\" is not a number or a vector");
    s = s.substr(1, s.size() - 2);
  }
  size_t p = 0;
  while (p <= s.size()) {
    size_t q = s.find(',', p);
    if (q == std::string::npos) q = s.size();
    std::string t = s.substr(p, q - p);
    size_t tb = t.find_first_not_of(" \t"), te = t.find_last_not_of(" \t");
    if (tb == std::string::npos) malformed("base_score \"" + v.str() + "\" is not a number");
    t = t.substr(tb, te - tb + 1);
    char* end = nullptr;
    float f = std::strtof(t.c_str(), &end);
    if (*end != '\0') malformed("base_score \"" + v.str() + "\" is not a number");
    out.push_back(f);
    p = q + 1;
  }
  return out;
}

// The steps of import_xgboost_json, in the order it runs them.  Each reads
// one part of the document and fills its part of the model; the order of
// the checks (and so which error a broken document gets) is the driver's.

// The booster: only "gbtree" is supported.  Returns its "model" object.
JsonRef read_booster(const JsonRef& learner) {
  JsonRef gb = need(learner, "gradient_booster", "learner");
  std::string booster = need(gb, "name", "gradient_booster").is_string()
                            ? gb.get("name").str() : std::string("?");
  if (booster == "dart") unsupported("booster \"dart\" (only gbtree)");
  if (booster == "gblinear") unsupported("booster \"gblinear\" (only gbtree)");
  if (booster != "gbtree") unsupported("booster \"" + booster + "\" (only gbtree)");
  return need(gb, "model", "gradient_booster");
}

// The objective by its XGBoost name ("reg:linear" is the old name of
// reg:squarederror); sets m->objective.
const ObjectiveInfo& read_objective(const JsonRef& objj, std::string* oname, Model* m) {
  *oname = need(objj, "name", "objective").is_string() ? objj.get("name").str() : "";
  const ObjectiveInfo* found = *oname == "reg:linear" ? &objective_info(Objective::kSquaredError)
                                                      : find_objective(*oname);
  if (!found || (*oname != found->name && *oname != "reg:linear"))
    unsupported("objective \"" + *oname + "\" (supported: " + objective_name_list() + ")");
  m->objective = found->code;
  return *found;
}

// learner_model_param's num_feature, num_class and num_target: sets
// m->num_output_group and returns the number of features.
int read_outputs(const JsonRef& lmp, const ObjectiveInfo& oi, const std::string& oname, Model* m) {
  long long num_feature = as_int(need(lmp, "num_feature", "learner_model_param"), "num_feature");
  long long num_class = as_int(need(lmp, "num_class", "learner_model_param"), "num_class");
  long long num_target = 1;
  if (lmp.get("num_target").valid()) num_target = as_int(lmp.get("num_target"), "num_target");
  // XGBoost (1.6 .. 3.x) writes "1" for single-output and multi-class models
  // and the number of quantiles for reg:quantileerror; its own parameter has
  // the lower bound 1.  (Older documents leave it out: 1.)
  if (num_target < 1)
    malformed("learner_model_param.num_target = " + std::to_string(num_target) +
              " is out of range: must be >= 1 (1, or the number of quantiles of a "
              "reg:quantileerror model, at most " + std::to_string(kMaxQuantiles) + ")");
  // several quantiles are several targets; other multi-target models are not supported.
  if (num_target > 1 && oi.code != Objective::kQuantile)
    unsupported("multi-target models (num_target > 1)");
  if (num_target > kMaxQuantiles)
    malformed("num_target = " + std::to_string(num_target) + " is out of range: at most " +
              std::to_string(kMaxQuantiles) + " quantiles");
  if (num_feature < 1 || num_feature > kMaxFeatures)
    malformed("num_feature = " + std::to_string(num_feature) + " is out of range: must be in [1, " +
              std::to_string(kMaxFeatures) + "]");
  int K = 1;
  if (oi.multiclass) {
    if (num_class < 2 || num_class > kMaxClasses)
      malformed("num_class = " + std::to_string(num_class) + " is out of range for " + oname +
                ": must be in [2, " + std::to_string(kMaxClasses) + "]");
    K = (int)num_class;
  } else if (num_class > 1) {
    malformed("num_class = " + std::to_string(num_class) + " with objective " + oname);
  } else if (num_target > 1) {
    K = (int)num_target;  // one output per quantile
  }
  m->num_output_group = K;
  return (int)num_feature;
}

// The intercept: XGBoost stores it in prediction space (one value, or one
// per output) and converts it to a margin in float; so do we.
void read_base_score(const JsonRef& lmp, const ObjectiveInfo& oi, const std::string& oname,
                     Model* m) {
  const int K = m->num_output_group;
  std::vector<float> bs = parse_base_score(need(lmp, "base_score", "learner_model_param"));
  if (bs.size() != 1 && (int)bs.size() != K)
    malformed("base_score has " + std::to_string(bs.size()) + " values for " +
              std::to_string(K) + " outputs");
  m->base_margin.resize((size_t)K);
  for (int k = 0; k < K; ++k) {
    float s = bs.size() == 1 ? bs[0] : bs[(size_t)k];
    if (oi.link == Link::kLogit && !(s > 0 && s < 1))
      malformed("base_score must be in (0, 1) for " + oname);
    if (oi.link == Link::kLog && !(s > 0))
      malformed("base_score must be > 0 for " + oname);
    m->base_margin[k] = score_to_margin(m->objective, s);
    if (!std::isfinite(m->base_margin[k])) malformed("base_score is not finite");
  }
  m->base_score = bs[0];
}

// Feature names and types (both optional), then the class labels.
// Returns which features XGBoost marks categorical ("c").
std::vector<uint8_t> read_features(const JsonRef& learner, const ObjectiveInfo& oi, int d, Model* m) {
  const int K = m->num_output_group;
  JsonRef fnames = learner.get("feature_names");
  JsonRef ftypes = learner.get("feature_types");
  m->feature_names.resize((size_t)d);
  m->feature_types.assign((size_t)d, FeatureType::kFloat);
  if (fnames.valid() && fnames.is_array() && fnames.size() > 0) {
    need_array(fnames, (size_t)d, "feature_names");
    for (int f = 0; f < d; ++f) {
      if (!fnames.at(f).is_string()) malformed("feature_names entry is not a string");
      const std::string& name = fnames.at(f).str();
      if (name.size() > kMaxStringBytes)
        malformed("feature_names entry " + std::to_string(f) + " has " +
                  std::to_string(name.size()) + " bytes, more than the limit of " +
                  std::to_string(kMaxStringBytes));
      if (!valid_utf8(name))
        malformed("feature_names entry " + std::to_string(f) + " \"" + printable(name) +
                  "\" is not valid UTF-8");
      m->feature_names[f] = name;
    }
  } else {
    for (int f = 0; f < d; ++f) m->feature_names[f] = "f" + std::to_string(f);
  }
  std::vector<uint8_t> categorical((size_t)d, 0);
  if (ftypes.valid() && ftypes.is_array() && ftypes.size() > 0) {
    need_array(ftypes, (size_t)d, "feature_types");
    for (int f = 0; f < d; ++f) {
      if (!ftypes.at(f).is_string()) malformed("feature_types entry is not a string");
      const std::string& t = ftypes.at(f).str();
      if (t == "int") m->feature_types[f] = FeatureType::kInt;
      else if (t == "i") m->feature_types[f] = FeatureType::kBool;
      else if (t == "c") categorical[f] = 1;
    }
  }
  if (oi.binary) m->class_labels = {0.0, 1.0};
  if (oi.multiclass)
    for (int k = 0; k < K; ++k) m->class_labels.push_back(k);
  return categorical;
}

// The tree list, its tree_info (output group per tree) and
// gbtree_model_param (num_trees, num_parallel_tree; sets
// m->num_parallel_tree).
void read_tree_list(const JsonRef& gm, JsonRef* trees, JsonRef* tinfo, Model* m) {
  const int K = m->num_output_group;
  *trees = need(gm, "trees", "gradient_booster.model");
  need_array(*trees, (size_t)-1, "trees");
  *tinfo = need(gm, "tree_info", "gradient_booster.model");
  need_array(*tinfo, trees->size(), "tree_info");
  JsonRef gmp = gm.get("gbtree_model_param");
  if (gmp.valid() && gmp.get("num_trees").valid() &&
      as_int(gmp.get("num_trees"), "num_trees") != (long long)trees->size())
    malformed("num_trees does not match the number of trees");
  // num_parallel_tree trees per round and output group.
  if (gmp.valid() && gmp.get("num_parallel_tree").valid()) {
    const long long npt = as_int(gmp.get("num_parallel_tree"), "num_parallel_tree");
    if (npt < 1 || npt > kMaxParallelTrees)
      malformed("num_parallel_tree = " + std::to_string(npt) + " is out of range: must be in [1, " +
                std::to_string(kMaxParallelTrees) + "]");
    if (trees->size() % (size_t)(npt * K) != 0)
      malformed(std::to_string(trees->size()) + " trees are not whole rounds of num_parallel_tree " +
                std::to_string(npt) + " x " + std::to_string(K) + " output groups");
    m->num_parallel_tree = (int32_t)npt;
  }
}

// One tree's node arrays: the required ones (with nn entries each) and the
// optional ones, used only when they have nn entries.
struct XgbTreeArrays {
  JsonRef lc, rc, si, sc, dl, bw, lo, sh, st;
  bool has_bw = false, has_lo = false, has_sh = false, has_st = false;
};

XgbTreeArrays read_tree_arrays(const JsonRef& tj, const JsonRef& tp, const std::string& at) {
  XgbTreeArrays a;
  a.lc = need(tj, "left_children", at);
  need_array(a.lc, (size_t)-1, at + " left_children");
  const size_t nn = a.lc.size();
  if (nn < 1) malformed(at + " has no nodes");
  if (tp.valid() && tp.get("num_nodes").valid() &&
      as_int(tp.get("num_nodes"), "num_nodes") != (long long)nn)
    malformed(at + ": num_nodes does not match left_children");
  a.rc = need_array(need(tj, "right_children", at), nn, at + " right_children");
  a.si = need_array(need(tj, "split_indices", at), nn, at + " split_indices");
  a.sc = need_array(need(tj, "split_conditions", at), nn, at + " split_conditions");
  a.dl = need_array(need(tj, "default_left", at), nn, at + " default_left");
  a.bw = tj.get("base_weights");
  a.lo = tj.get("loss_changes");
  a.sh = tj.get("sum_hessian");
  a.st = tj.get("split_type");
  a.has_bw = a.bw.valid() && a.bw.is_array() && a.bw.size() == nn;
  a.has_lo = a.lo.valid() && a.lo.is_array() && a.lo.size() == nn;
  a.has_sh = a.sh.valid() && a.sh.is_array() && a.sh.size() == nn;
  a.has_st = a.st.valid() && a.st.is_array() && a.st.size() == nn;
  return a;
}

// The children of every node (L, R), and which nodes the root reaches
// (seen), each exactly once: a cycle or a shared node is an error.
void reachable_nodes(const XgbTreeArrays& a, const std::string& at, CancelPoller& poll,
                     std::vector<int64_t>* L, std::vector<int64_t>* R, std::vector<uint8_t>* seen) {
  const size_t nn = a.lc.size();
  L->resize(nn);
  R->resize(nn);
  for (size_t n = 0; n < nn; ++n) {
    poll.tick();
    (*L)[n] = as_int(a.lc.at(n), at + " left_children");
    (*R)[n] = as_int(a.rc.at(n), at + " right_children");
    if (((*L)[n] < 0) != ((*R)[n] < 0)) malformed(at + ": node " + std::to_string(n) + " has one child");
    if ((*L)[n] >= (int64_t)nn || (*R)[n] >= (int64_t)nn) malformed(at + ": child index out of range");
  }
  seen->assign(nn, 0);
  std::vector<int64_t> stack{0};
  while (!stack.empty()) {
    int64_t n = stack.back();
    stack.pop_back();
    if (n < 0 || n >= (int64_t)nn) malformed(at + ": child index out of range");
    if ((*seen)[n]) malformed(at + ": node " + std::to_string(n) + " reached twice");
    (*seen)[n] = 1;
    if ((*L)[n] >= 0) {
      stack.push_back((*L)[n]);
      stack.push_back((*R)[n]);
    }
  }
}

// Tree ti of the document, its reachable nodes renumbered in their original
// order (drops nodes deleted by pruning); appended to m with its group.
void import_tree(const JsonRef& tj, const JsonRef& group, size_t ti, int d,
                 const XgbImportLimits& lim, CancelPoller& poll, Model* m) {
  const int K = m->num_output_group;
  const std::string at = "tree " + std::to_string(ti);
  if (!tj.is_object()) malformed(at + " is not an object");
  const JsonRef left_of = tj.get("left_children");
  poll.tick(left_of.is_array() ? left_of.size() + 1 : 1);
  long long g = as_int(group, "tree_info");
  if (g < 0 || g >= K) malformed(at + ": output group " + std::to_string(g) + " out of range");
  JsonRef tp = tj.get("tree_param");
  if (tp.valid() && tp.get("size_leaf_vector").valid() &&
      as_int(tp.get("size_leaf_vector"), "size_leaf_vector") > 1)
    unsupported("vector-leaf (multi-target) trees");
  const XgbTreeArrays a = read_tree_arrays(tj, tp, at);
  const size_t nn = a.lc.size();
  // The tree's node arrays (about 45 bytes a node) before they are made;
  // charged for the rest of the import, as the model keeps them.
  if (lim.budget)
    lim.budget->charge((double)nn * 45.0, "the imported trees' nodes", "import a smaller model");
  const std::vector<std::vector<int32_t>> cat_sets = read_xgb_tree_categories(tj, nn, at, &poll);
  std::vector<std::vector<int32_t>> new_sets;  // by new node id

  std::vector<int64_t> L, R;
  std::vector<uint8_t> seen;
  reachable_nodes(a, at, poll, &L, &R, &seen);
  std::vector<int32_t> newid(nn, -1);
  int32_t cnt = 0;
  for (size_t n = 0; n < nn; ++n)
    if (seen[n]) newid[n] = cnt++;

  Tree t;
  for (size_t n = 0; n < nn; ++n) {
    if (!seen[n]) continue;
    const bool leaf = L[n] < 0;
    float cond = as_float(a.sc.at(n), at + " split_conditions");
    float w = a.has_bw ? as_float(a.bw.at(n), at + " base_weights") : (leaf ? cond : 0.0f);
    double cover = a.has_sh ? (double)as_float(a.sh.at(n), at + " sum_hessian") : 0.0;
    t.add_node(-1, leaf ? cond : w, cover);
    int32_t me = (int32_t)t.num_nodes() - 1;
    new_sets.emplace_back();
    if (leaf) continue;
    const bool cat_split = a.has_st && as_int(a.st.at(n), at + " split_type") != 0;
    if (cat_split) {
      new_sets.back() = cat_sets[n];
      if (new_sets.back().empty()) new_sets.back().push_back(-1);  // empty set
      cond = 0.0f;  // no threshold
    }
    long long f = as_int(a.si.at(n), at + " split_indices");
    if (f < 0 || f >= d)
      malformed(at + ": split feature " + std::to_string(f) + " out of range (num_feature " +
                std::to_string(d) + ")");
    if (std::isnan(cond) || cond == -INFINITY)
      malformed(at + ": split condition of node " + std::to_string(n) + " is NaN or -Infinity");
    t.left[me] = newid[L[n]];
    t.right[me] = newid[R[n]];
    t.feature[me] = (int32_t)f;
    t.threshold[me] = cond;
    t.default_left[me] = as_int(a.dl.at(n), at + " default_left") != 0 ? 1 : 0;
    t.gain[me] = a.has_lo ? as_float(a.lo.at(n), at + " loss_changes") : 0.0f;
  }
  for (int32_t n = 0; n < t.num_nodes(); ++n)
    if (!t.is_leaf(n)) {
      t.parent[t.left[n]] = n;
      t.parent[t.right[n]] = n;
    }
  set_tree_category_sets(&t, new_sets, lim, &poll);
  m->trees.push_back(std::move(t));
  m->tree_group.push_back((int32_t)g);
}

// Bin cuts from the split thresholds: per feature the sorted distinct
// thresholds plus one cut above them, so that threshold == cut[split_bin].
// A feature with more distinct thresholds than bins keeps an evenly
// spaced subset (split_bin then names the nearest cut at or below; scoring
// uses the thresholds and is exact either way).
void set_bin_cuts(int d, Model* m) {
  std::vector<std::vector<float>> th((size_t)d);
  for (const Tree& t : m->trees)
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (!t.is_leaf(n) && !t.is_categorical(n))
        th[t.feature[n]].push_back(t.threshold[n]);
  m->cuts.ptr.assign(1, 0);
  for (int f = 0; f < d; ++f) {
    auto& v = th[f];
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    std::vector<float> c;
    const size_t cap = (size_t)kMaxValueBins - 1;
    if (v.size() > cap) {
      for (size_t i = 0; i < cap; ++i) c.push_back(v[i * v.size() / cap]);
    } else {
      c = v;
    }
    float top;
    if (v.empty()) {
      top = 0.0f;
    } else {
      float mx = v.back();
      top = std::isfinite(mx) ? mx + (std::fabs(mx) + 1e-5f) : mx;
      if (!(top > mx)) top = std::nextafter(mx, INFINITY);
      if (!(top > mx)) top = mx;  // +inf threshold: no value is above it anyway
    }
    c.push_back(top);
    m->cuts.values.insert(m->cuts.values.end(), c.begin(), c.end());
    m->cuts.ptr.push_back((uint32_t)m->cuts.values.size());
    m->cuts.min_values.push_back(NAN);
  }
  for (Tree& t : m->trees)
    for (int32_t n = 0; n < t.num_nodes(); ++n) {
      if (t.is_leaf(n)) continue;
      const int f = t.feature[n];
      const float* c = m->cuts.feature_cuts(f);
      const int nb = m->cuts.nbins(f);
      // Last cut <= threshold among the value cuts (excluding the top one).
      int b = (int)(std::upper_bound(c, c + nb - 1, t.threshold[n]) - c) - 1;
      t.split_bin[n] = std::max(0, std::min(b, nb - 1));
    }
}

// One number of the objective parameter's text `whole` (for the error),
// as the float XGBoost holds, printed with 17 digits.
std::string param_number(const std::string& item, const ObjectiveInfo& oi, const std::string& whole) {
  char* end = nullptr;
  double x = std::strtod(item.c_str(), &end);
  if (item.empty() || *end != '\0' || !std::isfinite(x))
    malformed(std::string(oi.xgb_param_key) + " = \"" + whole + "\" is not a number");
  std::ostringstream f;
  f.precision(17);
  f << (double)(float)x;
  return f.str();
}

// The objective's parameter ("[9E-1]" for a quantile list of one; a list of
// several: one per output), recorded in m->params under its gbdt key.
void read_objective_param(const JsonRef& objj, const ObjectiveInfo& oi, Model* m) {
  const int K = m->num_output_group;
  JsonRef po = objj.get(oi.xgb_param_object);
  JsonRef pv = po.valid() ? po.get(oi.xgb_param_key) : JsonRef();
  if (!pv.valid() || !pv.is_string()) return;
  std::string t = pv.str();
  if (oi.xgb_param_array) {
    if (t.size() < 2 || t.front() != '[' || t.back() != ']')
      malformed(std::string(oi.xgb_param_key) + " = \"" + t + "\" is not a list");
    t = t.substr(1, t.size() - 2);
  }
  std::vector<std::string> items;
  for (size_t b = 0;;) {
    const size_t e = t.find(',', b);
    items.push_back(t.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  if (items.size() != (size_t)(oi.multiclass ? 1 : K))
    malformed(std::string(oi.xgb_param_key) + " = \"" + pv.str() + "\" lists " +
              std::to_string(items.size()) + " values for " + std::to_string(K) + " outputs");
  std::string list;
  for (size_t i = 0; i + 1 < items.size(); ++i) list += param_number(items[i], oi, pv.str()) + ",";
  const std::string last = param_number(items.back(), oi, pv.str());
  m->params.emplace_back(oi.param_key, items.size() > 1 ? "[" + list + last + "]" : last);
}

// Where the model came from: its objective and the objective's parameters.
void record_params(const JsonRef& objj, const ObjectiveInfo& oi, Model* m) {
  m->params.emplace_back("objective", objective_name(m->objective));
  if (oi.multiclass) m->params.emplace_back("num_class", std::to_string(m->num_output_group));
  if (oi.xgb_import_params) oi.xgb_import_params(objj, &m->params);  // lambdarank_param
  if (oi.import_param) read_objective_param(objj, oi, m);
  m->report.backend = "xgboost-import";
}

}  // namespace

Model import_xgboost_json(const std::string& json) { return import_xgboost_json(json, {}); }

Model import_xgboost_json(const std::string& json, const XgbImportLimits& lim) {
  JsonDoc doc(json, lim.cancel);  // polls per value
  return import_xgboost_value(doc.root(), lim);
}

Model import_xgboost_value(const JsonRef& root, const XgbImportLimits& lim) {
  CancelPoller poll(lim.cancel);  // per tree, by its nodes
  if (!root.is_object()) malformed("the top level is not an object");
  JsonRef learner = need(root, "learner", "the model");
  if (!learner.is_object()) malformed("\"learner\" is not an object");

  Model m;
  const JsonRef gm = read_booster(learner);
  const JsonRef objj = need(learner, "objective", "learner");
  std::string oname;
  const ObjectiveInfo& oi = read_objective(objj, &oname, &m);
  const JsonRef lmp = need(learner, "learner_model_param", "learner");
  const int d = read_outputs(lmp, oi, oname, &m);
  const int K = m.num_output_group;
  read_base_score(lmp, oi, oname, &m);
  const std::vector<uint8_t> categorical = read_features(learner, oi, d, &m);

  JsonRef trees, tinfo;
  read_tree_list(gm, &trees, &tinfo, &m);
  for (size_t ti = 0; ti < trees.size(); ++ti) import_tree(trees.at(ti), tinfo.at(ti), ti, d, lim, poll, &m);
  if (m.trees.size() % (size_t)K != 0)
    malformed(std::to_string(m.trees.size()) + " trees is not a multiple of " +
              std::to_string(K) + " classes");

  finish_imported_categories(&m, categorical, read_xgb_cats(gm, d), lim, &poll);
  set_bin_cuts(d, &m);
  record_params(objj, oi, &m);
  try {
    validate_model(m);  // finite values, limits (model_format.cpp)
  } catch (const CorruptModel& e) {
    malformed(e.what());
  }
  return m;
}

}  // namespace gbdt
