// The boosting loop: binning, base score, sampling, validation, early
// stopping; tree building is delegated to a TreeBackend.
#pragma once
#include <string>
#include <vector>

#include "common.h"
#include "model.h"
#include "params.h"
#include "binned_matrix.h"
#include "memory_budget.h"
#include "quantile.h"

namespace gbdt {

struct TrainInput {
  ColumnInput features;                    // n_rows, NaN = missing
  const float* labels = nullptr;           // n_rows, no NULLs (skipped by the loader)
  const float* weights = nullptr;          // C: n_rows row weights (null = unweighted)
  std::vector<std::string> feature_names;
  std::vector<FeatureType> feature_types;
  uint64_t rows_skipped = 0;               // NULL labels, for the report
  double seconds_load = 0;                 // for the report
};

// Training data already binned (the streaming loader's output): cuts whose
// value range is set (set_value_range), every row's bins and label.
struct BinnedInput {
  Cuts cuts;
  BinnedMatrix matrix;
  std::vector<float> labels;               // matrix.n_rows
  std::vector<float> weights;              // C: matrix.n_rows, or empty = unweighted
  std::vector<std::string> feature_names;
  std::vector<FeatureType> feature_types;
  uint64_t rows_skipped = 0;
  double seconds_load = 0;
  double seconds_bin = 0;
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

int default_nthread();

}  // namespace gbdt
