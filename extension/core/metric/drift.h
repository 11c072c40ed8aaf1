// Drift of live rows against a model's training rows, measured on the
// model's own bins (gbdt_drift).
//
// Training: training_distribution() counts the binned training rows per
// bin of each feature (value bins, then missing) and histograms the
// training predictions; the trainer stores the result in the model
// (Model::training_dist, format version 4).
//
// Live rows: DriftCounts are added up batch by batch (add_drift_rows) from
// the rows as scoring reads them (features as floats, NaN = missing) and
// their predictions, then drift_report() compares both distributions per
// feature and for the prediction:
//   PSI = sum over slots (q - p) * ln(q / p), p the training share and q
//         the live share of a slot, both floored at kDriftPsiEpsilon so that
//         an empty slot contributes a finite amount;
//   KS  = max over slots |P(slot <= s) - Q(slot <= s)| on the cumulative
//         shares, the slots in order: value bins ascending (a categorical
//         feature: by category code), then missing, then unseen categories.
// A categorical value whose code is not in the model's dictionary (the
// scoring code n for n categories) is counted in an "unseen" slot that the
// training never has.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/common.h"
#include "../common/interruptible.h"
#include "../data/binned_matrix.h"
#include "../model/model.h"

namespace gbdt {

// Floor of a slot's share in the PSI (1e-4: an empty slot against a slot of
// 1% adds about 0.04).
constexpr double kDriftPsiEpsilon = 1e-4;
// Bins of the training-prediction histogram of a single-output model:
// equal-frequency edges over the training predictions (fewer when they
// have fewer distinct values).  Multiclass: one bin per class index.
constexpr int kDriftPredictionBins = 20;

// The training distribution of model m (objective, outputs, cuts, trees
// set) on its training rows mx: margins holds the rows' raw margins (K per
// row) before any transform, of the distinct rows when row_of is given
// (row_of[r]: training row r's distinct row), else of mx's rows.  held_out
// (may be null): the rows of the same relation held out for validation
// (validation_fraction), counted too and predicted here from their bins,
// so that the distribution is the training relation's as a whole.
TrainingDistribution training_distribution(const Model& m, const BinnedMatrix& mx,
                                           const double* margins, const uint32_t* row_of,
                                           const BinnedMatrix* held_out, int nthread,
                                           const CancelFn& cancel);

// The same from the training rows' per-bin counts (Cuts::hist_offset
// layout) and their margins (n rows, or the distinct ones by row_of):
// the counts of rows that live on other servers (distributed training).
TrainingDistribution training_distribution_of_counts(const Model& m, std::vector<uint64_t> bin_counts,
                                                     size_t n, const double* margins,
                                                     const uint32_t* row_of,
                                                     const BinnedMatrix* held_out, int nthread,
                                                     const CancelFn& cancel);

// Adds the rows of mx per bin into slots (Cuts::hist_offset layout), one
// task per feature (each writes only its own slots), a cancel poll per
// step of rows.
void count_bins(const BinnedMatrix& mx, const Cuts& c, int nthread, CancelPoller* poll,
                std::vector<uint64_t>* slots);

// The scalar the prediction histogram is over, from one row's transformed
// outputs (K of them): the class index of the largest for a multiclass
// model, else the first output.
double drift_prediction_value(const Model& m, const double* outputs);

// The histogram bin of prediction value p (NaN: -1, not counted).
int drift_prediction_bin(const std::vector<double>& edges, double p);

// Live counts in the layout of TrainingDistribution, plus per feature the
// rows with an unseen category.  The arrays are the caller's, zeroed, of
// the sizes named (the glue keeps them in PostgreSQL memory across the
// batches of a relation).
struct DriftCounts {
  uint64_t rows = 0;
  uint64_t* bin_counts = nullptr;   // m.cuts.total_hist_bins()
  uint64_t* unseen = nullptr;       // m.n_features()
  uint64_t* pred_counts = nullptr;  // m.training_dist.pred_counts.size()
};

// Adds n live rows: x row-major (n x features, NaN = missing, categorical
// features as category codes), outputs their transformed predictions (n x
// K, as predict_batch gives them).  The features are counted on nthread
// threads.
void add_drift_rows(const Model& m, const float* x, const double* outputs, size_t n,
                    int nthread, DriftCounts* c);

struct DriftRow {
  std::string feature;        // feature name, or "prediction"
  double psi = 0, ks = 0;
  bool has_missing = false;   // the missing rates apply (features)
  double missing_rate_train = 0, missing_rate_now = 0;
  bool has_unseen = false;    // categorical features
  double unseen_category_rate = 0;
};

// One row per feature and one "prediction" row, by PSI descending (ties in
// feature order, the prediction last).  Throws InvalidInput when the model
// has no training distribution or there are no live rows.
std::vector<DriftRow> drift_report(const Model& m, const DriftCounts& live);

}  // namespace gbdt
