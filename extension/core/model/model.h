// A trained model: everything needed to score, explain and re-serialize it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../gbm/params.h"
#include "../data/quantile.h"
#include "model_limits.h"
#include "../tree/tree.h"
#include "partitioned.h"

namespace gbdt {

// kCategorical: the feature's values are category codes 0..n-1 (as floats,
// NaN = missing) whose names are Model::categories[f].
enum class FeatureType : uint8_t { kFloat = 0, kInt = 1, kBool = 2, kCategorical = 3 };
constexpr int kNumFeatureTypes = 4;

struct TrainingReport {
  uint64_t rows_used = 0;        // rows trained on (after validation split)
  uint64_t rows_skipped = 0;     // rows with a NULL label
  uint64_t rows_validation = 0;  // rows held out for validation
  std::string eval_metric;       // name of the metric in the histories
  std::vector<double> train_metric;       // per round, on the training rows
  std::vector<double> validation_metric;  // per round (empty without validation)
  int32_t best_iteration = -1;   // best round (0-based) when early stopping
  // Not serialized (models are byte-identical across threads and devices):
  double seconds_load = 0, seconds_bin = 0, seconds_train = 0;
  std::string backend = "cpu";
};

// What gbdt_drift compares live rows with (metric/drift.h): the training
// rows' distribution on the model's own bins, stored in the model (format
// version 4).  Empty (rows == 0) for models trained before it, imported
// ones (no training rows) and hand-built ones.
struct TrainingDistribution {
  // Rows counted: the training rows and those held out for validation
  // (validation_fraction) of the training relation.
  uint64_t rows = 0;
  // Per feature f, Cuts::nbins(f) + 1 slots from Cuts::hist_offset(f): the
  // rows per value bin, then the missing rows.  A categorical feature has
  // one bin per category code, so these are its counts per category.
  std::vector<uint64_t> bin_counts;
  // Histogram of the training predictions (as gbdt_predict gives them:
  // probability of a binary model, value of a regression, class index of
  // a multiclass one): bin b holds edges[b-1] <= p < edges[b], so
  // pred_counts has pred_edges.size() + 1 entries; NaN predictions are
  // not counted.
  std::vector<double> pred_edges;
  std::vector<uint64_t> pred_counts;
  bool empty() const { return rows == 0; }
};

struct Model {
  Objective objective = Objective::kSquaredError;
  int32_t num_output_group = 1;          // K for multi:softprob, else 1
  double base_score = 0.0;               // in prediction space (XGBoost's base_score)
  std::vector<double> base_margin;       // per output group, margin space
  std::vector<std::string> feature_names;
  std::vector<FeatureType> feature_types;
  std::vector<double> class_labels;      // classification: label value of class i
  // Classification with text/enum/bool labels: the label of class i (UTF-8);
  // empty when the labels are numbers (class_labels).
  std::vector<std::string> class_names;
  // Categorical features: categories[f][c] is the value (UTF-8) of category
  // code c of feature f; empty for numeric features.  Either empty (no
  // categorical feature) or one entry per feature.
  std::vector<std::vector<std::string>> categories;
  Cuts cuts;                             // bin boundaries used in training
  std::vector<Tree> trees;
  std::vector<int32_t> tree_group;       // output group of each tree
  // trees per round and output group (num_parallel_tree).  A round's
  // trees are group-major as XGBoost stores them: group 0's trees, then
  // group 1's, ...
  int32_t num_parallel_tree = 1;
  std::vector<std::pair<std::string, std::string>> params;  // canonical training params
  TrainingReport report;
  TrainingDistribution training_dist;   // see TrainingDistribution
  // A partitioned model (partitioned.h: gbdt_train's partition_by) has no
  // trees of its own: its sub-models are here, and serialize_model /
  // deserialize_model write and read its container instead.
  std::shared_ptr<const PartitionedModel> partitions;

  bool has_categorical() const {
    for (const auto& c : categories)
      if (!c.empty()) return true;
    return false;
  }
  int n_features() const { return (int)feature_names.size(); }
  int trees_per_round() const { return num_output_group * num_parallel_tree; }
  int num_rounds() const {
    return trees_per_round() > 0 ? (int)trees.size() / trees_per_round() : 0;
  }
};

// ---- serialized format (model_format.cpp) ----
// Binary: magic "GBDTMDL\0", u32 format version, u64 payload length, payload,
// u64 FNV-1a checksum of everything before it; little-endian throughout.
// Decoding validates every length, count and index, the limits of
// model_limits.h, UTF-8 strings and finite floats, and throws CorruptModel
// on any inconsistency.
std::vector<uint8_t> serialize_model(const Model& m);
Model deserialize_model(const uint8_t* data, size_t len);
// Text form: "gbdt1:" + base64 of the binary form.
std::string model_to_text(const Model& m);
std::string bytes_to_text(const uint8_t* bytes, size_t n);
std::vector<uint8_t> text_to_bytes(const std::string& text);  // throws CorruptModel
// Validation (trees acyclic, children/feature ids in range, limits, strings
// valid UTF-8, stored floats finite where they must be: see model_format.cpp).
void validate_model(const Model& m);

// ---- prediction (predict.cpp) ----
// Raw margins of one row (features as float, NaN = missing) into out[K].
// ntree_limit_rounds <= 0: all rounds.
void predict_margin_row(const Model& m, const float* x, double* out, int rounds = 0);
// Transforms margins to prediction space in place: probability for
// binary:logistic, class probabilities for multi:softprob, exp for poisson.
void transform_margins(const Model& m, double* margins);
// The scalar answer of gbdt_predict: value (regression), P(class 1) (binary),
// class label of the most probable class (multiclass).
double predict_value_row(const Model& m, const float* x);
// Batch: row-major x (n x n_features) into out (n x K) after transform.
void predict_batch(const Model& m, const float* x, size_t n, double* out, int nthread);

}  // namespace gbdt
