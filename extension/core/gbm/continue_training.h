// Continued training (XGBoost's xgb_model) and the user's own validation
// rows (XGBoost's evals): the engine parts that prepare a training's
// TrainExtras (trainer.h).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "../metric/metrics.h"
#include "../model/model.h"
#include "trainer.h"

namespace gbdt {

// Checks that `init` can be continued on rows with these features (same
// names in the same order; a missing one is named) and takes its objective,
// num_class and max_bin into *p: an explicit objective or num_class that
// differs, a base_score, or a model without bin boundaries (imported) is an
// InvalidInput naming the parameter.
void check_init_model(const Model& init, const std::vector<std::string>& feature_names,
                      TrainParams* p);

// Both a validation relation and validation_fraction: InvalidInput naming both.
void check_validation_params(const TrainParams& p);

// Bins every row of a float input with the given cuts (an init model's, or
// the training's for validation rows); labels copied.
BinnedInput bin_with_cuts(const TrainInput& in, const Cuts& cuts, int nthread);

// Validation rows from floats, binned with the training cuts.  With
// keep_floats the row-major floats are kept (a continued training scores
// the init model's rounds on them exactly as gbdt_predict does).
// weights: null = unweighted, else one per row.
ValidationRows make_validation_rows(const ColumnInput& x, const float* labels,
                                    const Cuts& cuts, int nthread, bool keep_floats,
                                    const float* weights = nullptr);

// The init model's raw margins (n x K, float, tree order: the values of
// predict_margin_row) on a float input.
std::vector<float> init_model_margins(const Model& init, const ColumnInput& x, int nthread);

// Margins of the validation rows after each of init's rounds, with the
// metrics after each round appended to *history (round-major, as the
// training's validation_metric; weighted by v.weights when given); *margins
// ends at the whole init model's margins.  On v.x (floats) when kept, else
// on the bins.  metric(name, pred) computes one metric on the validation
// rows' transformed predictions (the training's own metric function: the
// ranking metrics need the rows' query groups).
using ValidationMetricFn = std::function<double(const std::string& name, const double* pred)>;
void init_model_validation(const Model& init, const ValidationRows& v,
                           const std::vector<std::string>& metrics, const ValidationMetricFn& metric,
                           std::vector<double>* margins, std::vector<double>* history);

// Continued training on a float input: bins with init's cuts, starts from
// init's margins and appends num_round rounds (optionally validated on
// `valid`, floats).  Training 10 rounds and continuing 10 gives the bytes
// of training 20 at once when the rows (hence the cuts) are the same.
Model continue_training(const TrainInput& in, const Model& init, TrainParams p,
                        const TrainHooks& hooks, const std::string& target_name = "label",
                        const TrainInput* valid = nullptr);

}  // namespace gbdt
