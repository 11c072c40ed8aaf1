#include "params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "../common/common.h"
#include "../common/interruptible.h"
#include "../tree/constraints.h"
#include "../common/json_parse.h"
#include "../model/model_limits.h"
#include "../objective/objective.h"
#include "category_params.h"  // categorical_features, max_categories
#include "dropin_params.h"
#include "../objective/lambdarank.h"
#include "../objective/survival.h"  // survival:aft parameters

namespace gbdt {

const char* objective_name(Objective o) {
  const int c = (int)o;
  if (c < 0 || c >= kNumObjectives) return "unknown";
  return objective_info(o).name;
}

bool parse_objective(const std::string& n, Objective* out) {
  const ObjectiveInfo* o = find_objective(n);
  if (!o) return false;
  *out = o->code;
  return true;
}

namespace {

// Metric names; "@" takes a number after it (error@0.7, tweedie-nloglik@1.2).
const char* const kMetrics[] = {"rmse",  "mae",      "logloss", "auc",  "aucpr", "error", "mlogloss",
                                "merror", "poisson-nloglik", "rmsle", "mape", "mphe",
                                "quantile", "gamma-deviance", "gamma-nloglik", "error@",
                                "tweedie-nloglik@", "cox-nloglik", "aft-nloglik",
                                "interval-regression-accuracy"};

double parse_number_text(const std::string& t, bool* ok) {
  const char* s = t.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s, &end);
  *ok = !t.empty() && end != s && *end == '\0' && errno != ERANGE && std::isfinite(v);
  return v;
}

}  // namespace

bool is_known_metric(const std::string& m) {
  for (const char* s : kMetrics) {
    const std::string k = s;
    if (k.back() == '@') {
      if (m.compare(0, k.size(), k) != 0) continue;
      bool ok = false;
      parse_number_text(m.substr(k.size()), &ok);
      if (ok) return true;
    } else if (m == k) {
      return true;
    }
  }
  return is_rank_metric(m);  // ndcg, ndcg@k, map, map@k, pre, pre@k
}

std::vector<std::string> split_metrics(const std::string& list) {
  std::vector<std::string> r;
  size_t b = 0;
  while (b < list.size()) {
    size_t e = list.find(',', b);
    if (e == std::string::npos) e = list.size();
    std::string t = list.substr(b, e - b);
    size_t i = t.find_first_not_of(' '), j = t.find_last_not_of(' ');
    if (i != std::string::npos) r.push_back(t.substr(i, j - i + 1));
    b = e + 1;
  }
  return r;
}

namespace {

double parse_number(const ParamKV& kv) {
  bool ok = false;
  double v = parse_number_text(kv.value, &ok);
  if (!ok)
    throw InvalidInput("parameter \"" + kv.key + "\" must be a number, got \"" + kv.value + "\"");
  return v;
}

std::string fmt(double v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

using KVList = std::vector<std::pair<std::string, std::string>>;

// One parameter: names, type, allowed values, default and doc (the README
// table is generated from these), how a value is applied, how the
// training's value is recorded by params_to_kv (null: not recorded), and
// how the TrainParams field is read (null: not a number or boolean).  The
// order of the table is the order of params_to_kv.  The bounds of a number
// or integer are declared here once, with the text the errors and the
// README say; the apply functions check against them (REAL(), get_int),
// and test_param_table.cpp checks text, bounds and TrainParams defaults
// against each other.
struct ParamDef {
  const char* name;
  const char* aliases;  // comma-separated
  const char* type;     // number, integer, string, list, boolean
  ParamRange range;     // allowed values, as the errors say them, and bounds
  const char* default_text;
  const char* doc;
  void (*apply)(const ParamKV& kv, const ParamDef& d, TrainParams* p);
  void (*record)(const TrainParams& p, KVList* out);
  double (*get)(const TrainParams& p) = nullptr;  // numbers: the value, for the bounds test
};

double get_real(const ParamKV& kv, const ParamRange& r) {
  double v = parse_number(kv);
  bool bad = (r.lo_open ? v <= r.lo : v < r.lo) || (r.hi_open ? v >= r.hi : v > r.hi);
  if (bad)
    throw InvalidInput("parameter \"" + kv.key + "\" = " + kv.value + " is out of range: must be " +
                       r.text);
  return v;
}

long long get_int(const ParamKV& kv, const ParamDef& d) {
  double v = parse_number(kv);
  if (v != std::floor(v))
    throw InvalidInput("parameter \"" + kv.key + "\" must be an integer, got \"" + kv.value + "\"");
  if (v < d.range.lo || v > d.range.hi)
    throw InvalidInput("parameter \"" + kv.key + "\" = " + kv.value + " is out of range: must be " +
                       d.range.text);
  return (long long)v;
}

#define REAL() get_real(kv, d.range)

bool uses(const TrainParams& p, Objective o) { return p.objective == o; }

// the ranking parameters' booleans.
bool rank_bool(const ParamKV& kv) {
  const std::string& v = kv.value;
  if (v == "true" || v == "1" || v == "on" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "off" || v == "no") return false;
  throw InvalidInput("parameter \"" + kv.key + "\" must be a boolean (true or false), got \"" + v +
                     "\"");
}

// a refused hist-updater parameter: only its default (`only`; "1" also
// accepts "true"), or none at all (null), with the tree parameters' messages.
void only_default(const ParamKV& kv, const ParamDef&, const char* only) {
  const bool is_default =
      only && (kv.value == only || (std::string(only) == "1" && kv.value == "true"));
  if (!is_default)
    throw InvalidInput("parameter \"" + kv.key + "\" = \"" + kv.value + "\" is not supported" +
                       (only ? std::string(": only ") + only
                             : std::string(" by gbdt's hist trainer")));
}

const ParamDef kParams[] = {
    {"objective", "", "string", "", "inferred (see Objectives)",
     "The learning task, by XGBoost's name (see Objectives)",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       if (!parse_objective(kv.value, &p->objective))
         throw InvalidInput("parameter \"objective\" = \"" + kv.value +
                            "\" is not supported: must be one of " + objective_name_list());
       p->objective_set = true;
     },
     [](const TrainParams& p, KVList* r) {
       r->emplace_back("objective", objective_name(p.objective));
       if (objective_info(p.objective).multiclass)
         r->emplace_back("num_class", std::to_string(p.num_class));
     }},
    {"num_class", "", "integer", {"an integer in [2, 10000]", 2, kMaxClasses, false, false}, "max label + 1",
     "Number of classes; `multi:softprob` and `multi:softmax` only",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       static_assert(kMaxClasses == 10000, "update num_class's range text");
       p->num_class = (int)get_int(kv, d);
     },
     nullptr},  // recorded with the objective
    {"eta", "learning_rate", "number", {"in (0, 1]", 0, 1, true, false}, "0.3", "Step size shrinkage of each tree",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->eta = REAL(); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("eta", fmt(p.eta)); },
     [](const TrainParams& p) { return (double)p.eta; }},
    {"max_depth", "", "integer", {"an integer in [1, 16]", 1, 16, false, false}, "6",
     "Maximum depth of a tree; 0 or -1 (LightGBM's no depth limit) only with `grow_policy` "
     "`lossguide` and `max_leaves` > 0",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       // 0 and -1 (no limit) pass here; check_tree_params refuses them
       // without lossguide.
       if (kv.value == "0" || kv.value == "-1") {
         p->max_depth = 0;
         return;
       }
       p->max_depth = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) { r->emplace_back("max_depth", std::to_string(p.max_depth)); },
     [](const TrainParams& p) { return (double)p.max_depth; }},
    {"min_child_weight", "min_sum_hessian_in_leaf", "number", {">= 0", 0, 1e300, false, false}, "1", "Minimum hessian (weight) sum in a child",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->min_child_weight = REAL();
     },
     [](const TrainParams& p, KVList* r) { r->emplace_back("min_child_weight", fmt(p.min_child_weight)); },
     [](const TrainParams& p) { return (double)p.min_child_weight; }},
    {"lambda", "reg_lambda,lambda_l2", "number", {">= 0", 0, 1e300, false, false}, "1", "L2 regularization of leaf weights",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->reg_lambda = REAL(); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("lambda", fmt(p.reg_lambda)); },
     [](const TrainParams& p) { return (double)p.reg_lambda; }},
    {"alpha", "reg_alpha,lambda_l1", "number", {">= 0", 0, 1e300, false, false}, "0", "L1 regularization of leaf weights",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->reg_alpha = REAL(); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("alpha", fmt(p.reg_alpha)); },
     [](const TrainParams& p) { return (double)p.reg_alpha; }},
    {"gamma", "min_split_loss", "number", {">= 0", 0, 1e300, false, false}, "0", "Minimum loss reduction to split",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->gamma = REAL(); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("gamma", fmt(p.gamma)); },
     [](const TrainParams& p) { return (double)p.gamma; }},
    {"max_delta_step", "", "number", {">= 0", 0, 1e300, false, false}, "0 (0.7 for `count:poisson`)",
     "Maximum absolute leaf value before eta (0 = no limit)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->max_delta_step = REAL();
       p->max_delta_step_set = true;
     },
     [](const TrainParams& p, KVList* r) {
       r->emplace_back("max_delta_step", fmt(p.effective_max_delta_step()));
     },
     [](const TrainParams& p) { return (double)p.max_delta_step; }},
    {"max_bin", "max_bins", "integer", {"an integer in [2, 256]", 2, 256, false, false}, "256",
     "Maximum number of histogram bins per feature",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->max_bin = (int)get_int(kv, d); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("max_bin", std::to_string(p.max_bin)); },
     [](const TrainParams& p) { return (double)p.max_bin; }},
    {"bin_sample_rows", "", "integer", {"an integer in [0, 2147483647] (0 = automatic)", 0, 2147483647, false, false}, "0",
     "The bin boundaries are computed from every row up to this many rows, else from this many "
     "evenly spaced rows; automatic = 2^18 rows up to 64 features, 2^24 / features for wider "
     "tables (at least 8192), so the sample's floats stay within 64 MB (like LightGBM's "
     "`bin_construct_sample_cnt`)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->bin_sample_rows = get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.bin_sample_rows > 0) r->emplace_back("bin_sample_rows", std::to_string(p.bin_sample_rows));
     },
     [](const TrainParams& p) { return (double)p.bin_sample_rows; }},
    {"subsample", "bagging_fraction", "number", {"in (0, 1]", 0, 1, true, false}, "1", "Share of the rows sampled per round",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->subsample = REAL(); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("subsample", fmt(p.subsample)); },
     [](const TrainParams& p) { return (double)p.subsample; }},
    {"colsample_bytree", "feature_fraction", "number", {"in (0, 1]", 0, 1, true, false}, "1", "Share of the features sampled per tree",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->colsample_bytree = REAL(); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("colsample_bytree", fmt(p.colsample_bytree)); },
     [](const TrainParams& p) { return (double)p.colsample_bytree; }},
    {"base_score", "", "number", "a number (in the objective's prediction range)",
     "estimated from the labels",
     "The initial prediction, in prediction space: in (0, 1) for `binary:logistic`, > 0 for the "
     "log-link objectives (`count:poisson`, `reg:gamma`, `reg:tweedie`)",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       p->base_score = parse_number(kv);
       p->base_score_set = true;
     },
     [](const TrainParams& p, KVList* r) {
       if (p.base_score_set) r->emplace_back("base_score", fmt(p.base_score));
     }},
    {"num_round", "n_estimators,num_boost_round,nrounds,num_iterations", "integer", {"an integer in [1, 100000]", 1, 100000, false, false},
     "100", "Number of boosting rounds",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->num_round = (int)get_int(kv, d); },
     [](const TrainParams& p, KVList* r) { r->emplace_back("num_round", std::to_string(p.num_round)); },
     [](const TrainParams& p) { return (double)p.num_round; }},
    {"seed", "random_state", "integer", {"an integer in [0, 2^53]", 0, 9007199254740992LL, false, false}, "0",
     "Seed of the row and feature sampling and of the validation split",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->seed = (uint64_t)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) { r->emplace_back("seed", std::to_string(p.seed)); },
     [](const TrainParams& p) { return (double)p.seed; }},
    {"validation_fraction", "", "number", {"in [0, 1)", 0, 1, false, true}, "0",
     "Share of the rows held out for validation (metrics per round, early stopping)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->validation_fraction = REAL();
     },
     [](const TrainParams& p, KVList* r) {
       if (p.validation_fraction > 0) r->emplace_back("validation_fraction", fmt(p.validation_fraction));
     },
     [](const TrainParams& p) { return (double)p.validation_fraction; }},
    // validation rows from a relation of the user's (read by the glue).
    {"validation_relation", "", "string",
     "a table or view name (a JSON string); not with `validation_fraction`", "none",
     "A table or view of validation rows (same target and feature columns) instead of "
     "`validation_fraction`: metrics per round, early stopping",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       if (!kv.is_string || kv.value.empty())
         throw InvalidInput("parameter \"validation_relation\" must be a relation name (a JSON "
                            "string), got " + kv.value);
       p->validation_relation = kv.value;
     },
     [](const TrainParams& p, KVList* r) {
       if (!p.validation_relation.empty())
         r->emplace_back("validation_relation", p.validation_relation);
     }},
    {"early_stopping_rounds", "", "integer", {"an integer in [0, 100000]", 0, 100000, false, false}, "0",
     "Stop after this many rounds without improvement of the last `eval_metric` (0 = off); "
     "needs `validation_fraction` > 0 or a `validation_relation`",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->early_stopping_rounds = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.early_stopping_rounds > 0)
         r->emplace_back("early_stopping_rounds", std::to_string(p.early_stopping_rounds));
     },
     [](const TrainParams& p) { return (double)p.early_stopping_rounds; }},
    {"eval_metric", "", "list",
     "rmse, mae, logloss, auc, aucpr, error, error@t, mlogloss, merror, poisson-nloglik, rmsle, mape, "
     "mphe, quantile, gamma-deviance, gamma-nloglik, tweedie-nloglik@p, ndcg, ndcg@k, map, map@k, "
     "pre, pre@k, cox-nloglik, aft-nloglik, interval-regression-accuracy",
     "the objective's (see Objectives)",
     "Metrics computed per round: one name, a comma-separated list or a JSON array; early "
     "stopping follows the last",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       std::vector<std::string> names;
       if (!kv.value.empty() && kv.value[0] == '[') {
         try {
           JsonDoc doc(kv.value);
           JsonRef a = doc.root();
           for (size_t i = 0; a.is_array() && i < a.size(); ++i) {
             if (!a.at(i).is_string()) throw InvalidInput("");
             names.push_back(a.at(i).str());
           }
           if (!a.is_array()) throw InvalidInput("");
         } catch (const std::exception&) {
           throw InvalidInput("parameter \"eval_metric\" = " + kv.value +
                              " is not a JSON array of metric names");
         }
       } else {
         names = split_metrics(kv.value);
       }
       if (names.empty())
         throw InvalidInput("parameter \"eval_metric\" is empty: must be one or more of " +
                            std::string(d.range.text));
       std::string joined;
       for (const std::string& n : names) {
         if (!is_known_metric(n))
           throw InvalidInput("parameter \"eval_metric\" = \"" + n +
                              "\" is not supported: must be one of " + d.range.text);
         joined += (joined.empty() ? "" : ",") + n;
       }
       p->eval_metric = joined;
     },
     [](const TrainParams& p, KVList* r) {
       if (!p.eval_metric.empty()) r->emplace_back("eval_metric", p.eval_metric);
     }},
    // categorical columns (read by the PostgreSQL loader), recorded only
    // when not at their defaults.
    {"categorical_features", "", "list",
     "column names: a JSON array or comma-separated names", "none",
     "Integer columns to treat as categorical (text, enum and boolean columns are categorical "
     "anyway); see [Categorical features](#categorical-features)",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) { apply_category_param(kv, p); },
     [](const TrainParams& p, KVList* r) {
       if (!p.categorical_features.empty())
         r->emplace_back("categorical_features", categorical_features_text(p));
     }},
    {"max_categories", "", "integer", {"an integer in [1, 65536]", 1, kMaxCategories, false, false}, "65536",
     "The most distinct values a categorical column may have",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       static_assert(kMaxCategories == 65536, "update max_categories's range text");
       apply_category_param(kv, p);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.max_categories != kMaxCategories)
         r->emplace_back("max_categories", std::to_string(p.max_categories));
     },
     [](const TrainParams& p) { return (double)p.max_categories; }},
    // categorical splits (categorical_split.h), recorded only when set
    // away from their defaults.
    {"max_cat_to_onehot", "", "integer", {"an integer in [1, 65536]", 1, 65536, false, false}, "4",
     "A categorical feature with fewer categories (value bins) than this gets one-hot splits "
     "(one category against the rest), else partition splits",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->max_cat_to_onehot = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.max_cat_to_onehot != 4) r->emplace_back("max_cat_to_onehot", std::to_string(p.max_cat_to_onehot));
     },
     [](const TrainParams& p) { return (double)p.max_cat_to_onehot; }},
    {"max_cat_threshold", "", "integer", {"an integer in [1, 65536]", 1, 65536, false, false}, "64",
     "Most categories in the set of a categorical partition split",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->max_cat_threshold = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.max_cat_threshold != 64) r->emplace_back("max_cat_threshold", std::to_string(p.max_cat_threshold));
     },
     [](const TrainParams& p) { return (double)p.max_cat_threshold; }},
    {"cat_smooth", "", "number", {">= 0 (0 = off)", 0, 1e300, false, false}, "0",
     "LightGBM's: partition splits order the categories by G / (H + cat_smooth) and leave out "
     "categories with fewer rows at the node than this (0 = off: by weight, all categories)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->cat_smooth = REAL(); },
     [](const TrainParams& p, KVList* r) {
       if (p.cat_smooth != 0.0) r->emplace_back("cat_smooth", fmt(p.cat_smooth));
     },
     [](const TrainParams& p) { return p.cat_smooth; }},
    {"cat_l2", "", "number", {">= 0 (0 = off)", 0, 1e300, false, false}, "0",
     "LightGBM's: L2 added to `lambda` in the children's gains of a categorical partition split",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->cat_l2 = REAL(); },
     [](const TrainParams& p, KVList* r) {
       if (p.cat_l2 != 0.0) r->emplace_back("cat_l2", fmt(p.cat_l2));
     },
     [](const TrainParams& p) { return p.cat_l2; }},
    {"min_data_per_group", "", "integer",
     {"an integer in [0, 2147483647] (0 = off)", 0, 2147483647, false, false}, "0",
     "LightGBM's: a categorical partition split's set grows by at least this many rows between "
     "candidates and leaves at least this many rows outside it (estimated as for "
     "`min_data_in_leaf`)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->min_data_per_group = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.min_data_per_group > 0)
         r->emplace_back("min_data_per_group", std::to_string(p.min_data_per_group));
     },
     [](const TrainParams& p) { return (double)p.min_data_per_group; }},
    // learning to rank (objective_ranking.cpp), recorded for the ranking
    // objectives only (XGBoost's LambdaRankParam names and defaults).
    {"group_column", "qid_column", "string", "a non-empty column name", "none",
     "The column identifying the query group of each row; needs a ranking objective (`rank:ndcg` "
     "is the default with it). Rows of a group need not be contiguous",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       if (kv.value.empty())
         throw InvalidInput("parameter \"" + kv.key +
                            "\" must be the name of the query-group column (a non-empty string)");
       p->group_column = kv.value;
     },
     [](const TrainParams& p, KVList* r) {
       if (is_rank_objective(p.objective) && !p.group_column.empty())
         r->emplace_back("group_column", p.group_column);
     }},
    {"lambdarank_pair_method", "", "string", "topk or mean", "topk",
     "Pairs of the ranking objectives: `topk`, each of the top documents with every document "
     "below it; `mean`, random partners per document",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       if (kv.value != "topk" && kv.value != "mean")
         throw InvalidInput("parameter \"lambdarank_pair_method\" = \"" + kv.value +
                            "\" is not supported: must be " + d.range.text);
       p->rank_pair_topk = kv.value == "topk";
     },
     [](const TrainParams& p, KVList* r) {
       if (is_rank_objective(p.objective))
         r->emplace_back("lambdarank_pair_method", p.rank_pair_topk ? "topk" : "mean");
     }},
    {"lambdarank_num_pair_per_sample", "", "integer", "an integer in [1, 1000000]",
     "32 for topk, 1 for mean",
     "`topk`: the truncation (documents at the top); `mean`: the pairs per document; a round "
     "may form at most 4294967296 pairs over all query groups",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       bool ok = false;
       double v = parse_number_text(kv.value, &ok);
       if (!ok || v != std::floor(v) || v < 1 || v > 1000000)
         throw InvalidInput("parameter \"lambdarank_num_pair_per_sample\" = " + kv.value +
                            " is out of range: must be " + d.range.text);
       p->rank_num_pair = (int)v;
     },
     [](const TrainParams& p, KVList* r) {
       if (is_rank_objective(p.objective))
         r->emplace_back("lambdarank_num_pair_per_sample",
                         std::to_string(rank_params_of(p).num_pair));
     }},
    {"ndcg_exp_gain", "", "boolean", "true or false", "true",
     "NDCG gain 2^relevance - 1 (relevance degrees 0 to 31); false: the relevance itself",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) { p->ndcg_exp_gain = rank_bool(kv); },
     [](const TrainParams& p, KVList* r) {
       if (is_rank_objective(p.objective))
         r->emplace_back("ndcg_exp_gain", p.ndcg_exp_gain ? "true" : "false");
     },
     [](const TrainParams& p) { return (double)p.ndcg_exp_gain; }},
    {"lambdarank_normalization", "", "boolean", "true or false", "true",
     "Normalize the lambda gradients by the number of pairs",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       p->lambdarank_normalization = rank_bool(kv);
     },
     [](const TrainParams& p, KVList* r) {
       if (is_rank_objective(p.objective) && !p.lambdarank_normalization)
         r->emplace_back("lambdarank_normalization", "false");
     },
     [](const TrainParams& p) { return (double)p.lambdarank_normalization; }},
    {"lambdarank_score_normalization", "", "boolean", "true or false", "true",
     "Normalize the pair's delta metric by the difference of the scores",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       p->lambdarank_score_normalization = rank_bool(kv);
     },
     [](const TrainParams& p, KVList* r) {
       if (is_rank_objective(p.objective) && !p.lambdarank_score_normalization)
         r->emplace_back("lambdarank_score_normalization", "false");
     },
     [](const TrainParams& p) { return (double)p.lambdarank_score_normalization; }},
    {"lambdarank_unbiased", "", "boolean", "only false", "false",
     "Position-debiased LambdaMART is not implemented; only false is accepted",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) {
       if (rank_bool(kv))
         throw InvalidInput("parameter \"lambdarank_unbiased\" = true is not supported: only false "
                            "(position-debiased LambdaMART is not implemented)");
     },
     nullptr},
    // sample-weight column of gbdt_train (XGBoost's weight), read by the
    // glue; recorded only when given (other trainings keep their bytes).
    {"weight_column", "weight", "string", "a column name (a JSON string)", "none (unweighted)",
     "Column of row weights (XGBoost's `weight`): numeric, no NULLs, >= 0 and not all zero; "
     "scales each row's gradient and hessian and its share of the metrics",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       if (!kv.is_string || kv.value.empty())
         throw InvalidInput("parameter \"" + kv.key + "\" must name a column (a JSON string)");
       p->weight_column = kv.value;
     },
     [](const TrainParams& p, KVList* r) {
       if (!p.weight_column.empty()) r->emplace_back("weight_column", p.weight_column);
     }},
    // tree parameters, recorded only when used (older trainings keep
    // their record); the cross-parameter check is check_tree_params, after
    // all parameters are applied.
    {"grow_policy", "", "string", "depthwise or lossguide", "depthwise",
     "Tree growth policy: `depthwise` (level by level), `lossguide` (best first by loss "
     "reduction; CPU and CUDA grow the same trees)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       if (kv.value != "depthwise" && kv.value != "lossguide")
         throw InvalidInput("parameter \"grow_policy\" = \"" + kv.value +
                            "\" is not supported: must be " + d.range.text);
       p->lossguide = kv.value == "lossguide";
     },
     [](const TrainParams& p, KVList* r) {
       if (p.lossguide) r->emplace_back("grow_policy", "lossguide");
     }},
    {"max_leaves", "num_leaves", "integer", {"an integer in [0, 65536] (0 = no limit)", 0, 65536, false, false}, "0",
     "Maximum number of leaves of a tree, both grow policies; `max_depth` = 0 (no depth limit) "
     "needs `lossguide` and `max_leaves` > 0",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->max_leaves = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.max_leaves > 0) r->emplace_back("max_leaves", std::to_string(p.max_leaves));
     },
     [](const TrainParams& p) { return (double)p.max_leaves; }},
    {"num_parallel_tree", "", "integer", {"an integer in [1, 1000]", 1, kMaxParallelTrees, false, false}, "1",
     "Trees per round and output group, grown on the same gradients, each with its own "
     "`subsample`/`colsample_*` sample; their leaves are scaled by `eta` / `num_parallel_tree` "
     "and summed (random forests: `eta` 1, `subsample` or `colsample_bynode` < 1)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->num_parallel_tree = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.num_parallel_tree > 1)
         r->emplace_back("num_parallel_tree", std::to_string(p.num_parallel_tree));
     },
     [](const TrainParams& p) { return (double)p.num_parallel_tree; }},
    {"colsample_bylevel", "", "number", {"in (0, 1]", 0, 1, true, false}, "1",
     "Share of the tree's features sampled per depth",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->colsample_bylevel = REAL(); },
     [](const TrainParams& p, KVList* r) {
       if (p.colsample_bylevel < 1.0) r->emplace_back("colsample_bylevel", fmt(p.colsample_bylevel));
     },
     [](const TrainParams& p) { return (double)p.colsample_bylevel; }},
    {"colsample_bynode", "", "number", {"in (0, 1]", 0, 1, true, false}, "1",
     "Share of the level's features sampled per node (XGBoost: bytree, then bylevel, then "
     "bynode; deterministic from `seed`)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->colsample_bynode = REAL(); },
     [](const TrainParams& p, KVList* r) {
       if (p.colsample_bynode < 1.0) r->emplace_back("colsample_bynode", fmt(p.colsample_bynode));
     },
     [](const TrainParams& p) { return (double)p.colsample_bynode; }},
    {"monotone_constraints", "", "string",
     "`\"(1,0,-1)\"` (one of -1, 0, 1 per feature, in column order) or an object by column name "
     "`{\"price\": 1}`",
     "none",
     "Split candidates that break the order are rejected and leaf weights bounded as in "
     "XGBoost, so predictions are monotone in each constrained feature; numeric features only "
     "(a constraint on a categorical feature is an error)",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) { p->monotone_constraints = kv.value; },
     [](const TrainParams& p, KVList* r) {
       if (!p.monotone_constraints.empty())
         r->emplace_back("monotone_constraints", p.monotone_constraints);
     }},
    {"interaction_constraints", "", "list",
     "a list of lists of column names `[[\"a\",\"b\"],[\"c\"]]` or feature indices `[[0,1],[2]]`",
     "none",
     "A branch only splits on features of a set that holds every feature used above it "
     "(categorical columns too)",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) { p->interaction_constraints = kv.value; },
     [](const TrainParams& p, KVList* r) {
       if (!p.interaction_constraints.empty())
         r->emplace_back("interaction_constraints", p.interaction_constraints);
     }},
    // objective parameters, recorded for the objectives that use them
    // and whenever set to another value than the default.
    {"huber_slope", "", "number", {"> 0", 0, 1e300, true, false}, "1",
     "Slope of `reg:pseudohubererror` and of the `mphe` metric",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->huber_slope = REAL(); },
     [](const TrainParams& p, KVList* r) {
       if (uses(p, Objective::kPseudoHuber) || p.huber_slope != 1.0)
         r->emplace_back("huber_slope", fmt(p.huber_slope));
     },
     [](const TrainParams& p) { return (double)p.huber_slope; }},
    {"quantile_alpha", "", "number", {"in (0, 1)", 0, 1, true, true}, "0.5",
     "Quantile of `reg:quantileerror` and of the `quantile` metric; a list of several "
     "(a JSON array `[0.1, 0.5, 0.9]`, each in (0, 1)) trains one output per quantile in one "
     "model (see Objectives)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       const size_t b = kv.value.find_first_not_of(" \t\n");
       if (b != std::string::npos && kv.value[b] == '[') {
         // XGBoost's list form: one alpha is the number, several train one
         // output each.
         std::vector<std::string> items;
         try {
           JsonDoc doc(kv.value);
           JsonRef a = doc.root();
           if (!a.is_array() || a.size() == 0) throw InvalidInput("");
           for (size_t i = 0; i < a.size(); ++i) {
             if (!a.at(i).is_number()) throw InvalidInput("");
             items.push_back(a.at(i).number_text());
           }
         } catch (const std::exception&) {
           throw InvalidInput("parameter \"quantile_alpha\" = " + kv.value +
                              " is not a number or a non-empty JSON array of numbers");
         }
         if (items.size() > (size_t)kMaxQuantiles)
           throw InvalidInput("parameter \"quantile_alpha\" lists " + std::to_string(items.size()) +
                              " quantiles: at most " + std::to_string(kMaxQuantiles));
         std::vector<double> alphas;
         for (const std::string& it : items) {
           ParamKV one = kv;
           one.value = it;
           alphas.push_back(get_real(one, d.range));
         }
         p->quantile_alpha = alphas[0];
         p->quantile_alphas.clear();
         if (alphas.size() > 1) p->quantile_alphas = alphas;
         return;
       }
       p->quantile_alpha = REAL();
       p->quantile_alphas.clear();
     },
     [](const TrainParams& p, KVList* r) {
       if (p.quantile_alphas.size() > 1) {
         std::string v = "[";
         for (size_t i = 0; i < p.quantile_alphas.size(); ++i)
           v += (i ? "," : "") + fmt(p.quantile_alphas[i]);
         r->emplace_back("quantile_alpha", v + "]");
       } else if (uses(p, Objective::kQuantile) || p.quantile_alpha != 0.5) {
         r->emplace_back("quantile_alpha", fmt(p.quantile_alpha));
       }
     },
     [](const TrainParams& p) { return (double)p.quantile_alpha; }},
    {"tweedie_variance_power", "", "number", {"in [1, 2)", 1, 2, false, true}, "1.5",
     "Variance power of `reg:tweedie`",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->tweedie_variance_power = REAL();
     },
     [](const TrainParams& p, KVList* r) {
       if (uses(p, Objective::kTweedie) || p.tweedie_variance_power != 1.5)
         r->emplace_back("tweedie_variance_power", fmt(p.tweedie_variance_power));
     },
     [](const TrainParams& p) { return (double)p.tweedie_variance_power; }},
    {"scale_pos_weight", "", "number", {"> 0", 0, 1e300, true, false}, "1",
     "Weight of the rows labelled 1 in the gradients (binary objectives), as XGBoost",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->scale_pos_weight = REAL();
     },
     [](const TrainParams& p, KVList* r) {
       if (p.scale_pos_weight != 1.0) r->emplace_back("scale_pos_weight", fmt(p.scale_pos_weight));
     },
     [](const TrainParams& p) { return (double)p.scale_pos_weight; }},
    // survival:aft (survival.h), recorded for survival:aft only.
    {"label_upper_bound_column", "", "string", "a column name (a JSON string)", "none",
     "`survival:aft`: the column of the upper bounds of the survival times (XGBoost's "
     "`label_upper_bound`; the target is the lower bound): NULL or +Infinity = right-censored, "
     "equal to the target = uncensored; a target of 0 = left-censored",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       if (!kv.is_string || kv.value.empty())
         throw InvalidInput("parameter \"label_upper_bound_column\" must name a column (a JSON "
                            "string), got " + kv.value);
       p->label_upper_bound_column = kv.value;
     },
     [](const TrainParams& p, KVList* r) {
       if (!p.label_upper_bound_column.empty())
         r->emplace_back("label_upper_bound_column", p.label_upper_bound_column);
     }},
    {"aft_loss_distribution", "", "string", "normal, logistic or extreme", "normal",
     "`survival:aft`: the distribution of the noise of log(time)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       if (!parse_aft_distribution(kv.value, &p->aft_distribution))
         throw InvalidInput("parameter \"aft_loss_distribution\" = \"" + kv.value +
                            "\" is not supported: must be " + d.range.text);
     },
     [](const TrainParams& p, KVList* r) {
       if (uses(p, Objective::kSurvivalAft))
         r->emplace_back("aft_loss_distribution", aft_distribution_name(p.aft_distribution));
     }},
    {"aft_loss_distribution_scale", "", "number", {"> 0", 0, 1e300, true, false}, "1",
     "`survival:aft`: the scale (sigma) of that distribution",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->aft_scale = REAL(); },
     [](const TrainParams& p, KVList* r) {
       if (uses(p, Objective::kSurvivalAft))
         r->emplace_back("aft_loss_distribution_scale", fmt(p.aft_scale));
     },
     [](const TrainParams& p) { return (double)p.aft_scale; }},
    // Not recorded: how and where to train, not what.
    {"nthread", "n_jobs", "integer", {"an integer in [0, 1024] (0 = all cores)", 0, 1024, false, false}, "0",
     "Threads (0 = all cores)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) { p->nthread = (int)get_int(kv, d); },
     nullptr,
     [](const TrainParams& p) { return (double)p.nthread; }},
    {"device", "", "string", "auto, cpu or cuda", "the `gbdt.device` setting",
     "Where to train (`gpu` means `cuda`)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       if (kv.value != "auto" && kv.value != "cpu" && kv.value != "cuda" && kv.value != "gpu")
         throw InvalidInput("parameter \"device\" = \"" + kv.value +
                            "\" is not supported: must be " + d.range.text);
       p->device = kv.value == "gpu" ? "cuda" : kv.value;
     },
     nullptr},
    {"distributed", "", "string", "auto, on or off", "auto",
     "On a partitioned table whose partitions are postgres_fdw foreign tables of servers with "
     "gbdt: `auto` and `on` train where the rows live (each server bins its own rows and builds "
     "their histograms), `off` reads every row through this server; `on` refuses what cannot "
     "train there, `auto` then reads the rows here",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       if (kv.value != "auto" && kv.value != "on" && kv.value != "off")
         throw InvalidInput("parameter \"distributed\" = \"" + kv.value +
                            "\" is not supported: must be " + d.range.text);
       p->distributed = kv.value;
     },
     nullptr},
    {"verbose", "verbosity", "boolean",
     "false, 0 or a negative number = off, anything else = on; `verbosity` 0 or 1 = off, 2 or 3 = "
     "on (XGBoost's levels: warnings are always sent)",
     "the `gbdt.log_progress` setting", "Log the progress of the training",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) {
       bool number = false;
       const double v = parse_number_text(kv.value, &number);
       if (number)  // XGBoost verbosity 0..3 (1 = warnings), LightGBM verbose -1..
         p->verbose = kv.key == "verbosity" ? v >= 2 : v > 0;
       else
         p->verbose = kv.value != "false";
     },
     nullptr},
    {"row_dedup", "", "boolean", "true or false", "true",
     "Train once on each set of identical rows (same bins, label, weight, initial margin) with "
     "their count, where that builds the same model (CPU, no `subsample`, objectives with "
     "per-row gradients)",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) { p->row_dedup = rank_bool(kv); },
     nullptr,
     [](const TrainParams& p) { return (double)p.row_dedup; }},
    {"tree_method", "", "string", "only hist (auto, approx and gpu_hist train as hist)", "hist",
     "`auto`, `approx` and `gpu_hist` are accepted and mean `hist` (`exact` is refused)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) {
       if (kv.value != "hist" && kv.value != "auto" && kv.value != "approx" &&
           kv.value != "gpu_hist")
         throw InvalidInput("parameter \"tree_method\" = \"" + kv.value +
                            "\" is not supported: " + d.range.text);
     },
     nullptr},
    // XGBoost keys a pasted dict carries that change nothing here (gbdt
    // always validates, reads text/enum columns as categories, treats NULL
    // and NaN as missing): accepted at the values that mean gbdt's
    // behaviour, the others refused.  Not recorded.
    {"booster", "", "string", "only gbtree", "gbtree", "Accepted as `gbtree`; `dart` and `gblinear` are refused",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) {
       if (kv.value != "gbtree")
         throw InvalidInput("parameter \"booster\" = \"" + kv.value +
                            "\" is not supported: only gbtree (dart and gblinear are not "
                            "implemented)");
     },
     nullptr},
    {"enable_categorical", "", "boolean", "true or false", "true",
     "Accepted and inert: text, enum and boolean columns are categorical anyway, integer "
     "columns by `categorical_features`",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) { rank_bool(kv); }, nullptr},
    {"validate_parameters", "", "boolean", "true or false", "true",
     "Accepted and inert: parameters are always validated",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) { rank_bool(kv); }, nullptr},
    {"disable_default_eval_metric", "", "boolean", "true or false", "false",
     "Accepted and inert: the report always holds the metrics of `eval_metric` or the "
     "objective's default",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) { rank_bool(kv); }, nullptr},
    {"missing", "", "string", "only NaN (a JSON string \"NaN\")", "NaN",
     "Accepted as NaN: NULL and NaN are the missing values; another sentinel is refused "
     "(map it to NULL in a view)",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) {
       if (kv.value != "NaN" && kv.value != "nan" && kv.value != "NAN")
         throw InvalidInput("parameter \"missing\" = " + kv.value +
                            " is not supported: only NaN (NULL and NaN are the missing values; "
                            "map another sentinel to NULL in a view)");
     },
     nullptr},
    {"predictor", "", "string", "auto, cpu_predictor or gpu_predictor", "auto",
     "Accepted and inert (XGBoost's deprecated predictor choice)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) {
       if (kv.value != "auto" && kv.value != "cpu_predictor" && kv.value != "gpu_predictor")
         throw InvalidInput("parameter \"predictor\" = \"" + kv.value +
                            "\" is not supported: must be " + d.range.text);
     },
     nullptr},
    {"silent", "", "boolean", "true or false", "false",
     "Accepted and inert (XGBoost's deprecated silent; see `verbose`)",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) { rank_bool(kv); }, nullptr},
    // LightGBM names without an XGBoost alias (the others are aliases above:
    // learning_rate, num_iterations, num_leaves, feature_fraction,
    // bagging_fraction, lambda_l1, lambda_l2, min_sum_hessian_in_leaf).
    {"is_unbalance", "", "boolean", "true or false", "false",
     "LightGBM's: `scale_pos_weight` = negatives / positives of the training rows (binary "
     "objectives; not with `scale_pos_weight`); the model records that `scale_pos_weight`",
     [](const ParamKV& kv, const ParamDef&, TrainParams* p) { p->is_unbalance = rank_bool(kv); },
     nullptr,
     [](const TrainParams& p) { return (double)p.is_unbalance; }},
    {"bagging_freq", "subsample_freq", "integer", "0 or 1", "1 with `bagging_fraction`",
     "LightGBM's: 1 samples the rows every round, as `subsample` (`bagging_fraction`) always "
     "does; 0 only without a `bagging_fraction` below 1",
     [](const ParamKV& kv, const ParamDef&, TrainParams*) {
       if (kv.value != "0" && kv.value != "1")
         throw InvalidInput("parameter \"" + kv.key + "\" = " + kv.value +
                            " is not supported: only 0 or 1 (gbdt samples the rows every round)");
     },
     nullptr},
    {"min_data_in_leaf", "min_child_samples", "integer",
     {"an integer in [0, 2147483647] (0 = no limit)", 0, 2147483647, false, false}, "0",
     "LightGBM's: the fewest training rows in a leaf; a child's rows are estimated from its "
     "hessian sum as LightGBM does (exact with a constant hessian, e.g. squared error)",
     [](const ParamKV& kv, const ParamDef& d, TrainParams* p) {
       p->min_data_in_leaf = (int)get_int(kv, d);
     },
     [](const TrainParams& p, KVList* r) {
       if (p.min_data_in_leaf > 0) r->emplace_back("min_data_in_leaf", std::to_string(p.min_data_in_leaf));
     },
     [](const TrainParams& p) { return (double)p.min_data_in_leaf; }},
    // XGBoost hist-updater parameters gbdt does not implement: only
    // their defaults are accepted (nothing recorded), the others refused.
    {"sampling_method", "", "string", "only uniform", "uniform", "Refused unless `uniform`",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) { only_default(kv, d, "uniform"); },
     nullptr},
    {"multi_strategy", "", "string", "only one_output_per_tree", "one_output_per_tree",
     "Refused unless `one_output_per_tree`",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) {
       only_default(kv, d, "one_output_per_tree");
     },
     nullptr},
    {"process_type", "", "string", "only default", "default", "Refused unless `default`",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) { only_default(kv, d, "default"); },
     nullptr},
    {"refresh_leaf", "", "integer", "only 1", "1", "Refused unless 1",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) { only_default(kv, d, "1"); },
     nullptr},
    {"updater", "", "string", "not supported by gbdt's hist trainer", "", "Refused",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) { only_default(kv, d, nullptr); },
     nullptr},
    {"max_cached_hist_node", "", "integer", "not supported by gbdt's hist trainer", "", "Refused",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) { only_default(kv, d, nullptr); },
     nullptr},
    {"sketch_eps", "", "number", "not supported by gbdt's hist trainer", "", "Refused",
     [](const ParamKV& kv, const ParamDef& d, TrainParams*) { only_default(kv, d, nullptr); },
     nullptr},
};
#undef REAL

bool has_alias(const ParamDef& d, const std::string& k) {
  for (const std::string& a : split_metrics(d.aliases))
    if (a == k) return true;
  return false;
}

const ParamDef* find_param(const std::string& k) {
  for (const ParamDef& d : kParams)
    if (k == d.name || has_alias(d, k)) return &d;
  return nullptr;
}

// The parameter a key sets: aliases map to one name.
std::string canonical_key(const std::string& k) {
  const ParamDef* d = find_param(k);
  return d ? d->name : k;
}

std::string allowed_list() {
  std::string r;
  for (const ParamDef& d : kParams) {
    if (std::string(d.doc).rfind("Refused", 0) == 0) continue;  // refused hist-updater params
    r += (r.empty() ? "" : ", ") + std::string(d.name);
    if (*d.aliases) r += " (" + split_metrics(d.aliases)[0] + ")";
  }
  return r;
}

// The first line names the key and, when one is close, the known name it
// is probably a typo of; the line after it (the PostgreSQL glue's
// errdetail) lists the allowed names.
std::string unknown_param_message(const std::string& key) {
  const std::string near = nearest_param_name(key, known_param_names());
  std::string m = "unknown parameter \"" + key + "\"";
  if (!near.empty()) m += " (did you mean \"" + near + "\"?)";
  return m + "\nAllowed are " + allowed_list() + ".";
}

// Two different keys that set the same parameter to different values (eta
// and learning_rate) are an error naming both, not a silent pick; the same
// value twice (a pasted dict with both spellings) is accepted.  The same key twice cannot
// come from jsonb (it keeps the last); the PostgreSQL glue appends the
// objective argument after the params, and the later value wins.
void check_duplicates(const std::vector<ParamKV>& kvs) {
  std::vector<std::pair<std::string, const ParamKV*>> seen;  // canonical, key
  for (const ParamKV& kv : kvs) {
    std::string c = canonical_key(kv.key);
    for (const auto& s : seen)
      if (s.first == c && s.second->key != kv.key && s.second->value != kv.value)
        throw InvalidInput("parameters \"" + s.second->key + "\" and \"" + kv.key +
                           "\" both set " + c + ": give only one of them");
    seen.emplace_back(std::move(c), &kv);
  }
}

}  // namespace

std::vector<std::string> known_param_names() {
  std::vector<std::string> r;
  for (const ParamDef& d : kParams) {
    r.emplace_back(d.name);
    for (const std::string& a : split_metrics(d.aliases)) r.push_back(a);
  }
  return r;
}

std::vector<ParamInfo> param_table() {
  std::vector<ParamInfo> r;
  for (const ParamDef& d : kParams)
    r.push_back(ParamInfo{d.name, d.aliases, d.type, d.range, d.default_text, d.get});
  return r;
}

void resolve_is_unbalance(const float* labels, size_t n, const CancelFn& cancel, TrainParams* p) {
  if (!p->is_unbalance) return;
  if (!objective_info(p->objective).binary)
    throw InvalidInput(std::string("parameter \"is_unbalance\" needs a binary objective, got ") +
                       objective_name(p->objective));
  CancelPoller poll(cancel);
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    pos += labels[i] == 1.0f ? 1 : 0;
    poll.tick();
  }
  if (pos == 0 || pos == n) return;  // one class: nothing to balance
  p->scale_pos_weight = (double)(n - pos) / (double)pos;
}

void apply_params(const std::vector<ParamKV>& kvs, TrainParams* p) {
  check_duplicates(kvs);
  for (const ParamKV& kv : kvs) {
    const ParamDef* d = find_param(kv.key);
    if (!d) throw InvalidInput(unknown_param_message(kv.key));
    d->apply(kv, *d, p);
  }
  check_dropin_params(kvs, p);  // LightGBM's keys that act together
  check_tree_params(*p);  // cross-parameter check, after all are applied
}

std::vector<std::pair<std::string, std::string>> params_to_kv(const TrainParams& p) {
  KVList r;
  for (const ParamDef& d : kParams)
    if (d.record) d.record(p, &r);
  return r;
}

const char* param_type(const std::string& key) {
  const ParamDef* d = find_param(key);
  return d ? d->type : nullptr;
}

std::string params_markdown_table() {
  std::string t = "| Parameter | Aliases | Type | Allowed | Default | Description |\n";
  t += "|---|---|---|---|---|---|\n";
  for (const ParamDef& d : kParams) {
    std::string al;
    for (const std::string& a : split_metrics(d.aliases)) al += (al.empty() ? "" : ", ") + ("`" + a + "`");
    std::string range = *d.range.text ? d.range.text : (std::string(d.name) == "objective" ? "see Objectives" : "");
    t += "| `" + std::string(d.name) + "` | " + al + " | " + d.type + " | " + range + " | " +
         d.default_text + " | " + d.doc + " |\n";
  }
  return t;
}

}  // namespace gbdt
