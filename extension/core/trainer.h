// The boosting loop: binning, base score, sampling, validation, early
// stopping; tree building is delegated to a TreeBackend.
#pragma once
#include <string>
#include <vector>

#include "common.h"
#include "model.h"
#include "params.h"
#include "binned_matrix.h"
#include "quantile.h"

namespace gbdt {

struct TrainInput {
  ColumnInput features;                    // n_rows, NaN = missing
  const float* labels = nullptr;           // n_rows, no NULLs (skipped by the loader)
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
};

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
