// The boosting loop: binning, base score, sampling, validation, early
// stopping; tree building is delegated to a TreeBackend.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "../common/common.h"
#include "../model/model.h"
#include "params.h"
#include "../data/binned_matrix.h"
#include "../common/memory_budget.h"
#include "../data/quantile.h"

namespace gbdt {

struct TrainInput {
  ColumnInput features;                    // n_rows, NaN = missing
  const float* labels = nullptr;           // n_rows, no NULLs (skipped by the loader)
  const float* weights = nullptr;          // n_rows row weights (null = unweighted)
  std::vector<std::string> feature_names;
  std::vector<FeatureType> feature_types;
  // Categorical features: category names per feature (empty for numeric
  // ones; the whole vector empty when none is categorical); such a feature
  // is FeatureType::kCategorical and its values are codes 0..n-1 (NaN =
  // missing).  Copied into Model::categories.
  std::vector<std::vector<std::string>> categories;
  uint64_t rows_skipped = 0;               // NULL labels, for the report
  double seconds_load = 0;                 // for the report
  // query group of each row (dense codes 0.., first appearance order),
  // for the ranking objectives; null = no groups.
  const uint32_t* query_group = nullptr;
  // survival:aft's upper bounds of the labels (n_rows; +inf = right-
  // censored), null = none.
  const float* labels_upper = nullptr;
};

// Training data already binned (the streaming loader's output): cuts whose
// value range is set (set_value_range), every row's bins and label.
struct BinnedInput {
  Cuts cuts;
  BinnedMatrix matrix;
  std::vector<float> labels;               // matrix.n_rows
  std::vector<float> weights;              // matrix.n_rows, or empty = unweighted
  std::vector<std::string> feature_names;
  std::vector<FeatureType> feature_types;
  // As TrainInput::categories; the cuts of a categorical feature must be
  // categorical_cuts() (cuts_from_sample with the category counts).
  std::vector<std::vector<std::string>> categories;
  uint64_t rows_skipped = 0;
  double seconds_load = 0;
  double seconds_bin = 0;
  // query group code of each row (ranking), or empty.
  std::vector<uint32_t> query_group;
  // survival:aft's upper bounds of the labels (matrix.n_rows), or empty.
  std::vector<float> labels_upper;
};

struct TrainHooks {
  CancelFn cancel;     // polled on the calling thread
  LogFn log;           // verbose progress (calling thread)
  // "auto" resolution: returns the device to use; default "cpu".
  std::string default_device = "auto";
  // Called when device "auto" fell back to the CPU for a reason worth telling.
  LogFn notice;
  // Charged with every large allocation of the training (null: no limit).
  MemoryBudget* budget = nullptr;
};

// What a training's memory depends on.
struct TrainShape {
  size_t n_rows = 0;            // all rows (training and validation)
  int n_features = 0;
  size_t hist_bins = 0;         // Cuts::total_hist_bins(), or n_features * (max_bin + 1)
  int num_class = 1;            // output groups
  // Several quantiles (a quantile_alpha list): each output trains on its
  // own backend, which holds its own row buffers.
  bool output_backends = false;
  int nthread = 1;
  int max_depth = 6;
  double validation_fraction = 0;
  bool subsample = false;
};

// Bytes a training needs, by part.  Histograms beyond the root's grow with
// the trees (data-dependent: the nodes a level splits) and are charged to
// the budget as they are made, as are each level's split candidates.
struct MemoryEstimate {
  double data = 0;        // binned matrix, labels, validation copy
  double per_class = 0;   // gradients, margins, predictions: rows x classes
  double rows = 0;        // row partition indices, row sample
  double histogram = 0;   // one node's histogram
  double histograms = 0;  // the root's, with per-thread partial sums
  double tree = 0;        // one tree of max_depth (in memory and serialized)
  double minimum() const { return data + per_class + rows + histograms + tree; }
};
MemoryEstimate estimate_training_memory(const TrainShape& s);

// Bytes charged per tree node (the Tree's arrays, its serialized copy and
// the result).
constexpr double kTreeNodeBytes = 128;

// Objective inferred from the labels when params.objective_set is false:
// two distinct values {0,1} (or booleans) -> binary:logistic, else regression.
// Validates labels against the objective (throws InvalidInput naming the target).
Model train_model(const TrainInput& in, TrainParams params, const TrainHooks& hooks,
                  const std::string& target_name = "label");

// Cuts (compute_cuts from `sample_rows` rows, 0 = cut_sample_rows(d)) and
// bins of every row of a float input; labels copied.  train_model's first
// step, and the loaders' for data held as floats.
BinnedInput bin_input(const TrainInput& in, int max_bin, size_t sample_rows, int nthread);

// The same on binned data; consumes `in` (the validation split moves rows
// in place).  train_model() bins its float input and calls this.
Model train_binned(BinnedInput&& in, TrainParams params, const TrainHooks& hooks,
                   const std::string& target_name = "label");

// ---- the user's validation rows and continued training ----

// Validation rows binned with the training cuts (the hashed
// validation_fraction split, or a validation relation of the user's).
struct ValidationRows {
  BinnedMatrix matrix;
  std::vector<float> labels;
  std::vector<float> weights;  // empty = unweighted (a validation relation is unweighted)
  std::vector<float> x;  // row-major floats, kept for a continued training (or empty)
  std::vector<uint32_t> query_group;  // ranking (query group code per row, or empty)
  std::vector<float> labels_upper;    // survival:aft's upper bounds (or empty)
};

class TreeBackend;
struct BoostData;

// Training rows that live on other servers (distributed/): the trainer
// holds their labels and weights (BinnedInput::labels, ::weights, and a
// matrix of their count with no bins); their bins stay where they are, and
// the trainer asks for what it would otherwise read from the matrix.
class RemoteRows {
 public:
  virtual ~RemoteRows() = default;
  // Bins the rows where they live with in->cuts and moves the
  // validation_fraction rows (p) into *valid, their bins too, as
  // split_validation does with a matrix at hand.
  virtual void bin_and_split(const TrainParams& p, BinnedInput* in, ValidationRows* valid) = 0;
  // The tree backend over the rows (BoostData and the resolved parameters
  // as the trainer made them).
  virtual std::unique_ptr<TreeBackend> make_backend(const BoostData& bd, const TrainParams& p) = 0;
  // Every training row's margins (n x K) from the model's first `trees`
  // trees, as the trainer rescores its rows after early stopping.
  virtual std::vector<float> margins_of_trees(size_t trees) = 0;
  // The training rows' count per histogram bin (Cuts::hist_offset layout).
  virtual std::vector<uint64_t> bin_counts() = 0;
};

// validation_fraction's split leaves both sides a row, or this throws
// InvalidInput saying how many each got.
void check_validation_split(const TrainParams& p, size_t n_valid, size_t n_all);

// What a training may start from besides its rows (continue_training.h).
struct TrainExtras {
  // Continued training (XGBoost's xgb_model): the rows are binned with this
  // model's cuts, its trees come first, margins start from its predictions,
  // rounds are numbered after its rounds.  Checked by check_init_model().
  const Model* init_model = nullptr;
  // The user's validation rows (instead of validation_fraction); consumed.
  ValidationRows* validation = nullptr;
  // init_model's margins on the training rows (n x K, predict_margin_row's
  // values on the rows' floats); null: computed on the bins.
  const std::vector<float>* init_margins = nullptr;
  // The rows live elsewhere (distributed training); null: in the matrix.
  RemoteRows* remote = nullptr;
};

Model train_binned(BinnedInput&& in, TrainParams params, const TrainHooks& hooks,
                   const std::string& target_name, const TrainExtras& extras);

// Whether row `row` (0-based, among the rows with a target, in the order
// they are read) is a validation row of validation_fraction = `fraction`
// with `seed` (SQL: gbdt_validation_row).
bool hashed_validation_row(uint64_t seed, uint64_t row, double fraction);

int default_nthread();

}  // namespace gbdt
