#include "params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common.h"
#include "constraints.h"
#include "model_limits.h"

namespace gbdt {

const char* objective_name(Objective o) {
  switch (o) {
    case Objective::kSquaredError: return "reg:squarederror";
    case Objective::kLogistic: return "binary:logistic";
    case Objective::kSoftprob: return "multi:softprob";
    case Objective::kPoisson: return "count:poisson";
  }
  return "unknown";
}

bool parse_objective(const std::string& n, Objective* out) {
  if (n == "reg:squarederror" || n == "reg:linear" || n == "regression") {
    *out = Objective::kSquaredError;
  } else if (n == "binary:logistic" || n == "binary") {
    *out = Objective::kLogistic;
  } else if (n == "multi:softprob" || n == "multi:softmax" || n == "multiclass") {
    *out = Objective::kSoftprob;
  } else if (n == "count:poisson" || n == "poisson") {
    *out = Objective::kPoisson;
  } else {
    return false;
  }
  return true;
}

bool is_known_metric(const std::string& m) {
  static const char* k[] = {"rmse", "mae", "logloss", "auc", "error", "mlogloss", "merror",
                            "poisson-nloglik"};
  for (const char* s : k)
    if (m == s) return true;
  return false;
}

namespace {

double parse_number(const ParamKV& kv) {
  const char* s = kv.value.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  if (kv.value.empty() || end == s || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw InvalidInput("parameter \"" + kv.key + "\" must be a number, got \"" + kv.value + "\"");
  return v;
}

double get_real(const ParamKV& kv, double lo, double hi, bool lo_open, bool hi_open,
                const char* range) {
  double v = parse_number(kv);
  bool bad = (lo_open ? v <= lo : v < lo) || (hi_open ? v >= hi : v > hi);
  if (bad)
    throw InvalidInput("parameter \"" + kv.key + "\" = " + kv.value + " is out of range: must be " +
                       range);
  return v;
}

long long get_int(const ParamKV& kv, long long lo, long long hi, const char* range) {
  double v = parse_number(kv);
  if (v != std::floor(v))
    throw InvalidInput("parameter \"" + kv.key + "\" must be an integer, got \"" + kv.value + "\"");
  if (v < (double)lo || v > (double)hi)
    throw InvalidInput("parameter \"" + kv.key + "\" = " + kv.value + " is out of range: must be " +
                       range);
  return (long long)v;
}

bool get_bool(const ParamKV& kv) {
  const std::string& v = kv.value;
  if (v == "true" || v == "1" || v == "on" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "off" || v == "no") return false;
  throw InvalidInput("parameter \"" + kv.key + "\" must be a boolean, got \"" + v + "\"");
}

std::string fmt(double v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

// The parameter a key sets: aliases map to one name.
std::string canonical_key(const std::string& k) {
  static const char* const kAliases[][2] = {
      {"learning_rate", "eta"},        {"reg_lambda", "lambda"},
      {"reg_alpha", "alpha"},          {"min_split_loss", "gamma"},
      {"max_bins", "max_bin"},         {"n_estimators", "num_round"},
      {"num_boost_round", "num_round"}, {"nrounds", "num_round"},
      {"random_state", "seed"},        {"n_jobs", "nthread"},
      {"verbosity", "verbose"}};
  for (const auto& a : kAliases)
    if (k == a[0]) return a[1];
  return k;
}

// Two different keys that set the same parameter (eta and learning_rate)
// are an error naming both, not a silent pick.  The same key twice cannot
// come from jsonb (it keeps the last); the PostgreSQL glue appends the
// objective argument after the params, and the later value wins.
void check_duplicates(const std::vector<ParamKV>& kvs) {
  std::vector<std::pair<std::string, const std::string*>> seen;  // canonical, key
  for (const ParamKV& kv : kvs) {
    std::string c = canonical_key(kv.key);
    for (const auto& s : seen)
      if (s.first == c && *s.second != kv.key)
        throw InvalidInput("parameters \"" + *s.second + "\" and \"" + kv.key +
                           "\" both set " + c + ": give only one of them");
    seen.emplace_back(std::move(c), &kv.key);
  }
}

}  // namespace

void apply_params(const std::vector<ParamKV>& kvs, TrainParams* p) {
  check_duplicates(kvs);
  for (const ParamKV& kv : kvs) {
    const std::string& k = kv.key;
    if (k == "objective") {
      if (!parse_objective(kv.value, &p->objective))
        throw InvalidInput("parameter \"objective\" = \"" + kv.value +
                           "\" is not supported: must be one of reg:squarederror, "
                           "binary:logistic, multi:softprob, count:poisson");
      p->objective_set = true;
    } else if (k == "eta" || k == "learning_rate") {
      p->eta = get_real(kv, 0, 1, true, false, "in (0, 1]");
    } else if (k == "max_depth") {
      p->max_depth = (int)get_int(kv, 0, 16, "an integer in [1, 16]");
    } else if (k == "min_child_weight") {
      p->min_child_weight = get_real(kv, 0, 1e300, false, false, ">= 0");
    } else if (k == "lambda" || k == "reg_lambda") {
      p->reg_lambda = get_real(kv, 0, 1e300, false, false, ">= 0");
    } else if (k == "alpha" || k == "reg_alpha") {
      p->reg_alpha = get_real(kv, 0, 1e300, false, false, ">= 0");
    } else if (k == "gamma" || k == "min_split_loss") {
      p->gamma = get_real(kv, 0, 1e300, false, false, ">= 0");
    } else if (k == "max_delta_step") {
      p->max_delta_step = get_real(kv, 0, 1e300, false, false, ">= 0");
      p->max_delta_step_set = true;
    } else if (k == "max_bin" || k == "max_bins") {
      p->max_bin = (int)get_int(kv, 2, 256, "an integer in [2, 256]");
    } else if (k == "bin_sample_rows") {
      p->bin_sample_rows =
          get_int(kv, 0, 2147483647, "an integer in [0, 2147483647] (0 = automatic)");
    } else if (k == "subsample") {
      p->subsample = get_real(kv, 0, 1, true, false, "in (0, 1]");
    } else if (k == "colsample_bytree") {
      p->colsample_bytree = get_real(kv, 0, 1, true, false, "in (0, 1]");
    } else if (k == "base_score") {
      p->base_score = parse_number(kv);
      p->base_score_set = true;
    } else if (k == "num_round" || k == "n_estimators" || k == "num_boost_round" ||
               k == "nrounds") {
      p->num_round = (int)get_int(kv, 1, 100000, "an integer in [1, 100000]");
    } else if (k == "seed" || k == "random_state") {
      p->seed = (uint64_t)get_int(kv, 0, 9007199254740992LL, "an integer in [0, 2^53]");
    } else if (k == "nthread" || k == "n_jobs") {
      p->nthread = (int)get_int(kv, 0, 1024, "an integer in [0, 1024] (0 = all cores)");
    } else if (k == "num_class") {
      p->num_class = (int)get_int(kv, 2, kMaxClasses,
                                 ("an integer in [2, " + std::to_string(kMaxClasses) + "]").c_str());
    } else if (k == "validation_fraction") {
      p->validation_fraction = get_real(kv, 0, 1, false, true, "in [0, 1)");
    } else if (k == "early_stopping_rounds") {
      p->early_stopping_rounds = (int)get_int(kv, 0, 100000, "an integer in [0, 100000]");
    } else if (k == "eval_metric") {
      if (!is_known_metric(kv.value))
        throw InvalidInput("parameter \"eval_metric\" = \"" + kv.value +
                           "\" is not supported: must be one of rmse, mae, logloss, auc, error, "
                           "mlogloss, merror, poisson-nloglik");
      p->eval_metric = kv.value;
    } else if (k == "device") {
      if (kv.value != "auto" && kv.value != "cpu" && kv.value != "cuda" && kv.value != "gpu")
        throw InvalidInput("parameter \"device\" = \"" + kv.value +
                           "\" is not supported: must be auto, cpu or cuda");
      p->device = kv.value == "gpu" ? "cuda" : kv.value;
    } else if (k == "verbose" || k == "verbosity") {
      p->verbose = kv.value != "0" && kv.value != "false";
    } else if (k == "tree_method") {
      if (kv.value != "hist" && kv.value != "auto" && kv.value != "gpu_hist")
        throw InvalidInput("parameter \"tree_method\" = \"" + kv.value +
                           "\" is not supported: only hist");
    } else if (k == "grow_policy") {  // T: tree parameters
      if (kv.value != "depthwise" && kv.value != "lossguide")
        throw InvalidInput("parameter \"grow_policy\" = \"" + kv.value +
                           "\" is not supported: must be depthwise or lossguide");
      p->lossguide = kv.value == "lossguide";
    } else if (k == "max_leaves") {
      p->max_leaves = (int)get_int(kv, 0, 65536, "an integer in [0, 65536] (0 = no limit)");
    } else if (k == "colsample_bylevel") {
      p->colsample_bylevel = get_real(kv, 0, 1, true, false, "in (0, 1]");
    } else if (k == "colsample_bynode") {
      p->colsample_bynode = get_real(kv, 0, 1, true, false, "in (0, 1]");
    } else if (k == "monotone_constraints") {
      p->monotone_constraints = kv.value;
    } else if (k == "interaction_constraints") {
      p->interaction_constraints = kv.value;
    } else if (k == "sampling_method" || k == "process_type" || k == "multi_strategy" ||
               k == "num_parallel_tree" || k == "refresh_leaf" || k == "updater" ||
               k == "max_cached_hist_node" || k == "sketch_eps") {
      const char* only = k == "sampling_method" ? "uniform" : k == "process_type" ? "default"
                         : k == "multi_strategy" ? "one_output_per_tree"
                         : k == "num_parallel_tree" ? "1" : k == "refresh_leaf" ? "1" : nullptr;
      const bool is_default = only && (kv.value == only || (std::string(only) == "1" && kv.value == "true"));
      if (!is_default)
        throw InvalidInput("parameter \"" + k + "\" = \"" + kv.value + "\" is not supported" +
                           (only ? std::string(": only ") + only : std::string(" by gbdt's hist trainer")));
    } else {
      throw InvalidInput("unknown parameter \"" + k +
                         "\": allowed are eta (learning_rate), max_depth, min_child_weight, "
                         "lambda (reg_lambda), alpha (reg_alpha), gamma (min_split_loss), "
                         "max_delta_step, max_bin, bin_sample_rows, subsample, colsample_bytree, base_score, "
                         "num_round (n_estimators), seed, nthread, num_class, objective, "
                         "validation_fraction, early_stopping_rounds, eval_metric, device, "
                         "verbose, tree_method, grow_policy, max_leaves, colsample_bylevel, "
                         "colsample_bynode, monotone_constraints, interaction_constraints");
    }
  }
  (void)get_bool;
  check_tree_params(*p);  // T
}

std::vector<std::pair<std::string, std::string>> params_to_kv(const TrainParams& p) {
  std::vector<std::pair<std::string, std::string>> r;
  r.emplace_back("objective", objective_name(p.objective));
  if (p.objective == Objective::kSoftprob) r.emplace_back("num_class", std::to_string(p.num_class));
  r.emplace_back("eta", fmt(p.eta));
  r.emplace_back("max_depth", std::to_string(p.max_depth));
  r.emplace_back("min_child_weight", fmt(p.min_child_weight));
  r.emplace_back("lambda", fmt(p.reg_lambda));
  r.emplace_back("alpha", fmt(p.reg_alpha));
  r.emplace_back("gamma", fmt(p.gamma));
  r.emplace_back("max_delta_step", fmt(p.effective_max_delta_step()));
  r.emplace_back("max_bin", std::to_string(p.max_bin));
  if (p.bin_sample_rows > 0) r.emplace_back("bin_sample_rows", std::to_string(p.bin_sample_rows));
  r.emplace_back("subsample", fmt(p.subsample));
  r.emplace_back("colsample_bytree", fmt(p.colsample_bytree));
  if (p.base_score_set) r.emplace_back("base_score", fmt(p.base_score));
  r.emplace_back("num_round", std::to_string(p.num_round));
  r.emplace_back("seed", std::to_string(p.seed));
  if (p.validation_fraction > 0) r.emplace_back("validation_fraction", fmt(p.validation_fraction));
  if (p.early_stopping_rounds > 0)
    r.emplace_back("early_stopping_rounds", std::to_string(p.early_stopping_rounds));
  if (!p.eval_metric.empty()) r.emplace_back("eval_metric", p.eval_metric);
  // T: tree parameters, only when used (older trainings keep their record).
  if (p.lossguide) r.emplace_back("grow_policy", "lossguide");
  if (p.max_leaves > 0) r.emplace_back("max_leaves", std::to_string(p.max_leaves));
  if (p.colsample_bylevel < 1.0) r.emplace_back("colsample_bylevel", fmt(p.colsample_bylevel));
  if (p.colsample_bynode < 1.0) r.emplace_back("colsample_bynode", fmt(p.colsample_bynode));
  if (!p.monotone_constraints.empty())
    r.emplace_back("monotone_constraints", p.monotone_constraints);
  if (!p.interaction_constraints.empty())
    r.emplace_back("interaction_constraints", p.interaction_constraints);
  return r;
}

}  // namespace gbdt
