// The tree-building interface with two implementations: the CPU backend
// (tree/hist/updater.cpp) and the CUDA backend (cuda/).  Both grow trees level by
// level on the binned matrix with quantized (integer) gradient sums and decide
// splits with split_math.h, so they build the same trees.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../data/binned_matrix.h"
#include "categorical_split.h"
#include "../common/common.h"
#include "constraints.h"
#include "../objective/elementwise_grad.h"
#include "../common/memory_budget.h"
#include "../gbm/params.h"
#include "split_math.h"
#include "tree.h"

namespace gbdt {

struct BoostData {
  const BinnedMatrix* matrix = nullptr;  // training rows
  const Cuts* cuts = nullptr;
  const float* labels = nullptr;         // n_rows
  size_t n_rows = 0;
  int num_group = 1;                     // K trees per round
  Objective objective = Objective::kSquaredError;
  // the objective's parameters and the row weights of the gradients
  // (null: unweighted; with scale_pos_weight folded in).
  GradParams grad{};
  const float* weights = nullptr;        // n_rows
  // row_dedup.h: each row stands for multiplicity[r] identical training
  // rows (null: for itself), rows_represented in all (the quantizer's row
  // count; 0: n_rows).  Only the CPU backend reads them.
  const int32_t* multiplicity = nullptr;  // n_rows
  size_t rows_represented = 0;
  SplitParams split{};
  // The CPU backend's copies of the bins in other layouts: row records that
  // skip each mostly-one-bin feature's dominant bin (sparse_bins.h) and a
  // feature-major copy for routing rows.  The same model either way; tests
  // turn them off.
  bool cpu_bin_copies = true;
  int max_depth = 6;
  double subsample = 1.0;
  uint64_t seed = 0;
  int nthread = 1;
  CancelFn cancel;
  // Histograms and per-level buffers whose number depends on the data are
  // charged here as they are made (null: no limit).
  MemoryBudget* budget = nullptr;
  // Categorical features (categorical_split.h): per feature its number of
  // categories, 0 for numeric ones; null when no feature is categorical.
  const std::vector<uint32_t>* n_categories = nullptr;
  CatSplitParams cat_split{4, 64};
  // gradients computed outside the backend (ranking.h's LambdaRank, for
  // objectives whose rows are not independent).  When set (num_group 1),
  // called once per round on the calling thread with the current training
  // margins (n_rows); fills n_rows gradients and hessians, which the
  // backend quantizes with ranking_external.h.
  std::function<void(int round, const float* margins, double* grad, double* hess)>
      external_gradients;
  // constraints, per-level/per-node column sampling, lossguide (the CPU
  // backend grows with tree_grower.h when tree_ext.general()).
  TreeExtParams tree_ext;
};

class TreeBackend {
 public:
  virtual ~TreeBackend() = default;
  virtual std::string name() const = 0;
  // Takes the data and the initial margins (n_rows * num_group, row-major).
  virtual void init(const BoostData& data, const std::vector<float>& init_margins) = 0;
  // One boosting round: gradients from the current margins, then one tree per
  // output group appended to *out (split_bin set, threshold filled later by the
  // trainer), and the training margins updated with the new trees' leaves.
  // feature_mask[f] == 0 excludes feature f (colsample_bytree).
  virtual void boost_round(int round, const std::vector<uint8_t>& feature_mask,
                           std::vector<Tree>* out) = 0;
  // The current training margins (n_rows * num_group).
  virtual void margins(std::vector<float>* out) = 0;
  // Time spent per phase so far, for benchmarks ("histogram", "partition", ...).
  virtual std::vector<std::pair<std::string, double>> phase_seconds() const { return {}; }
};

std::unique_ptr<TreeBackend> make_cpu_backend();

// CUDA backend (cuda/); without a CUDA build these report "not compiled".
bool cuda_compiled();
// Number of usable CUDA devices (0 when no driver / no device).
int cuda_device_count();
// Human-readable build/device description for gbdt_build_info().
std::string cuda_build_info_json();
// Throws ResourceError (with needed vs free memory) when the data does not fit.
std::unique_ptr<TreeBackend> make_cuda_backend(const BoostData& data);

}  // namespace gbdt
