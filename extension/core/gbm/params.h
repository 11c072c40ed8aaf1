// Training parameters with XGBoost's names, aliases and defaults.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../common/interruptible.h"

namespace gbdt {

enum class Objective : int32_t {
  kSquaredError = 0,   // reg:squarederror
  kLogistic = 1,       // binary:logistic
  kSoftprob = 2,       // multi:softprob
  kPoisson = 3,        // count:poisson
  // the objectives added in 0.2 (objective_*.cpp describe each one).
  kAbsoluteError = 4,  // reg:absoluteerror
  kPseudoHuber = 5,    // reg:pseudohubererror
  kQuantile = 6,       // reg:quantileerror
  kSquaredLog = 7,     // reg:squaredlogerror
  kGamma = 8,          // reg:gamma
  kTweedie = 9,        // reg:tweedie
  kLogitRaw = 10,      // binary:logitraw
  kHinge = 11,         // binary:hinge
  kSoftmax = 12,       // multi:softmax (trains like softprob, predicts the class)
  // learning to rank (objective_ranking.cpp, ranking.h).
  kRankPairwise = 13,  // rank:pairwise
  kRankNDCG = 14,      // rank:ndcg
  kRankMap = 15,       // rank:map
  // survival (objective_survival.cpp, survival.h).
  kSurvivalCox = 16,   // survival:cox
  kSurvivalAft = 17,   // survival:aft
};
// Number of objective codes (stored models hold a code below this).
constexpr int kNumObjectives = 18;

const char* objective_name(Objective o);
// Returns false when the name is not a supported objective.
bool parse_objective(const std::string& name, Objective* out);

struct TrainParams {
  Objective objective = Objective::kSquaredError;
  bool objective_set = false;    // given explicitly (param or argument)
  int num_class = 0;             // multi:softprob only; 0 = infer from labels
  double eta = 0.3;
  int max_depth = 6;
  double min_child_weight = 1.0;
  double reg_lambda = 1.0;
  double reg_alpha = 0.0;
  double gamma = 0.0;
  double max_delta_step = 0.0;   // 0.7 for count:poisson unless set
  bool max_delta_step_set = false;
  int max_bin = 256;
  // Rows the cuts are computed from (an evenly spaced sample when the data
  // has more); 0 = cut_sample_rows(d): 2^18 up to 64 features, fewer for
  // wider data, so the sample's float copy stays within 64 MiB.
  int64_t bin_sample_rows = 0;
  double subsample = 1.0;
  double colsample_bytree = 1.0;
  double base_score = 0.0;
  bool base_score_set = false;   // false: estimated from the target
  int num_round = 100;
  uint64_t seed = 0;
  int nthread = 0;               // 0 = all cores
  double validation_fraction = 0.0;
  // validation rows from a relation of the user's (its name as given;
  // read by the PostgreSQL glue).  Exclusive with validation_fraction.
  std::string validation_relation;
  int early_stopping_rounds = 0; // 0 = off
  std::string eval_metric;       // empty = objective's default; a comma-separated list
  std::string device = "";       // "", "auto", "cpu", "cuda"
  // Training across servers (gbdt/distributed.h): "auto", "on", "off".
  std::string distributed = "auto";
  bool verbose = false;
  // train on the distinct rows with their multiplicity where that is
  // exact (row_dedup.h); not recorded (the model is the same either way).
  bool row_dedup = true;
  // Not a parameter (tests only): the CPU backend's copies of the bins in
  // other layouts (sparse_bins.h's row records, the feature-major copy for
  // routing rows), which give the same model either way.
  bool cpu_bin_copies = true;
  // B (categorical columns, read by the PostgreSQL loader): integer columns
  // declared categorical (text/enum/bool columns are categorical anyway),
  // and the most distinct values a categorical column may have.
  std::vector<std::string> categorical_features;
  int max_categories = 65536;  // kMaxCategories
  // categorical splits (categorical_split.h); params_to_kv lists them
  // only when not at their defaults.
  int max_cat_to_onehot = 4;     // one-hot splits below this many categories
  int max_cat_threshold = 64;    // most categories in a partition split's set
  // LightGBM's categorical regularization of partition splits
  // (categorical_split.h; 0 = off).
  double cat_smooth = 0.0;
  double cat_l2 = 0.0;
  int min_data_per_group = 0;
  // tree parameters (constraints.h; resolved against the feature names
  // by resolve_tree_params, which rewrites the texts in index form).
  std::string monotone_constraints;     // "" = none
  std::string interaction_constraints;  // "" = none
  double colsample_bylevel = 1.0;
  double colsample_bynode = 1.0;
  bool lossguide = false;               // grow_policy
  int max_leaves = 0;                   // 0 = no limit
  int min_data_in_leaf = 0;             // fewest rows in a leaf (LightGBM's), 0 = no limit
  // trees grown per round and output group on the same gradients, each
  // with its own row/column sample, leaves scaled by eta / num_parallel_tree
  // (XGBoost's boosted random forests).
  int num_parallel_tree = 1;
  // objective parameters (XGBoost's names and defaults).
  double huber_slope = 1.0;             // reg:pseudohubererror, metric mphe
  double quantile_alpha = 0.5;          // reg:quantileerror, metric quantile
  // several quantiles (XGBoost's list form with more than one value):
  // one output per alpha, in this order; empty = the one quantile_alpha.
  std::vector<double> quantile_alphas;
  double tweedie_variance_power = 1.5;  // reg:tweedie, in [1, 2)
  double scale_pos_weight = 1.0;        // binary objectives: weight of label 1
  // LightGBM's is_unbalance: scale_pos_weight = negatives / positives of
  // the training rows, set by resolve_is_unbalance once the labels are known.
  bool is_unbalance = false;
  // learning to rank (ranking_params.cpp).  group_column names the
  // query-group column (read by the PostgreSQL glue); the rest are
  // XGBoost's LambdaRankParam with its defaults.
  std::string group_column;
  bool rank_pair_topk = true;       // lambdarank_pair_method: topk (true) or mean
  int rank_num_pair = 0;            // lambdarank_num_pair_per_sample; 0 = not set (32 topk, 1 mean)
  bool ndcg_exp_gain = true;
  bool lambdarank_normalization = true;
  bool lambdarank_score_normalization = true;
  // sample-weight column of gbdt_train (XGBoost's weight); read by the
  // glue, kept in the model's params when given.
  std::string weight_column;
  // survival:aft (survival.h): the column of the labels' upper bounds
  // (read by the glue; the target is the lower bound), XGBoost's
  // aft_loss_distribution (0 normal, 1 logistic, 2 extreme) and
  // aft_loss_distribution_scale.
  std::string label_upper_bound_column;
  int aft_distribution = 0;
  double aft_scale = 1.0;

  double effective_max_delta_step() const {
    if (max_delta_step_set) return max_delta_step;
    return objective == Objective::kPoisson ? 0.7 : 0.0;
  }
};

// One user-supplied parameter: key and value as text, plus whether the value
// was a JSON string (so "6" and 6 can be told apart when that matters).
struct ParamKV {
  std::string key;
  std::string value;
  bool is_string = false;
};

// Applies the given key/values to *p.  Throws InvalidInput naming the key and
// the allowed range for unknown keys, bad types and out-of-range values, and
// naming both keys when two set the same parameter (aliases: eta and
// learning_rate, lambda and reg_lambda, ...).
void apply_params(const std::vector<ParamKV>& kvs, TrainParams* p);

// is_unbalance (LightGBM): sets p->scale_pos_weight to the training rows'
// negatives / positives (labels 1 are positive, as scale_pos_weight
// weighs them); nothing when is_unbalance is off or the rows hold one
// class only.  Throws InvalidInput when the objective is not binary,
// Cancelled when cancel reports a cancel (polled through the rows).
void resolve_is_unbalance(const float* labels, size_t n, const CancelFn& cancel, TrainParams* p);

// Canonical list of the parameters that define a training, for the model's
// record (gbdt_model_info) and for retraining.
std::vector<std::pair<std::string, std::string>> params_to_kv(const TrainParams& p);

// Valid names for eval_metric (one name; error@t and tweedie-nloglik@p
// take a number).
bool is_known_metric(const std::string& m);
// The names of a comma-separated eval_metric list (spaces trimmed).
std::vector<std::string> split_metrics(const std::string& list);
// The type of the parameter a key (name or alias) sets: "number",
// "integer", "string" or "list"; null for an unknown key.
const char* param_type(const std::string& key);
// The README's parameter table (markdown), from the table of parameters.
std::string params_markdown_table();

// The allowed values of a parameter: the text the errors and the README
// say and, for a number or an integer, the bounds apply_params checks
// (has_bounds false for the others).
struct ParamRange {
  const char* text = "";
  double lo = 0, hi = 0;
  bool lo_open = false, hi_open = false;
  bool has_bounds = false;
  ParamRange(const char* t) : text(t) {}  // NOLINT: a plain text is the common case
  ParamRange(const char* t, double l, double h, bool lo_o, bool hi_o)
      : text(t), lo(l), hi(h), lo_open(lo_o), hi_open(hi_o), has_bounds(true) {}
};

// One row of the table of parameters (for the unit test that checks the
// TrainParams defaults and the bounds against it).  get reads the
// parameter's TrainParams field as a number (booleans 0/1); null when the
// parameter is not a number or a boolean.
struct ParamInfo {
  const char* name;
  const char* aliases;  // comma-separated
  const char* type;
  ParamRange range;
  const char* default_text;
  double (*get)(const TrainParams& p);
};
std::vector<ParamInfo> param_table();

// Every name and alias apply_params accepts.
std::vector<std::string> known_param_names();

}  // namespace gbdt
