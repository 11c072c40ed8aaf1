// The metrics of one training (XGBoost's evals): the validation rows'
// margins kept up to date tree by tree, the metrics of every round, early
// stopping on the last metric, and the final metrics of the training rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../data/binned_matrix.h"
#include "../metric/metrics.h"
#include "../model/model.h"
#include "../objective/objective.h"
#include "params.h"
#include "trainer.h"

namespace gbdt {

class TreeBackend;

// Margins -> what the metrics see (probabilities for binary:logitraw).
void eval_transform(const ObjectiveInfo& oi, const Model& m, double* v);

// The training rows as the final metrics read them: all of them, and the
// distinct ones the backend trained on when identical rows were merged
// (row_dedup.h; `row_of` maps each row to its distinct row).
struct ScoredRows {
  const BinnedMatrix* matrix = nullptr;  // the rows the backend holds
  const uint32_t* row_of = nullptr;      // null: not deduplicated
  const float* labels = nullptr;         // every training row's
  const float* weights = nullptr;        // null: unweighted
  size_t n = 0;
  const std::vector<uint32_t>* query_group = nullptr;
  const std::vector<float>* labels_upper = nullptr;
  // For the model's training distribution (metric/drift.h): every training
  // row's bins (not deduplicated), the rows validation_fraction held out
  // (null: none) and the threads to count them on.
  const BinnedMatrix* training_rows = nullptr;
  const BinnedMatrix* held_out = nullptr;
  int nthread = 1;
  // The rows live elsewhere (distributed training): their margins and bin
  // counts come from there (null: from the matrices above).
  RemoteRows* remote = nullptr;
};

class Evaluator {
 public:
  // `metrics` resolved for p's objective (resolve_metrics); `valid` and
  // `missing_bin` outlive the evaluator.
  Evaluator(const TrainParams& p, int num_group, std::vector<std::string> metrics,
            const ValidationRows& valid, const std::vector<int>& missing_bin);

  const std::vector<std::string>& metrics() const { return metrics_; }

  // The validation margins start from m's base margins, or (continued
  // training) from the init model's predictions, whose rounds' metrics
  // start the history: it has one value per round of the whole model.
  void start(const Model* init, Model* m);

  // After the last `trees` trees of m (round `round`, 0-based, of this
  // training) were added: scores them on the validation rows, records the
  // metrics, logs the round; true when early stopping ends the training.
  bool after_round(int round, int trees, Model* m, const TrainHooks& hooks);

  // Early stopping: keeps the trees up to the best round (the init model's
  // `init_rounds` are always kept); sets the report's best_iteration.
  void keep_best(int init_rounds, int trees_per_round, Model* m) const;

  // The training rows' metrics on the trees kept: the backend's margins,
  // or, when early stopping dropped trees, the rows scored with the kept
  // ones in the order and precision of predict_margin_row.
  // `margins`: the training's margins buffer, reused.
  void final_metrics(const ScoredRows& rows, TreeBackend* backend, std::vector<float>* margins,
                     const CancelFn& cancel, Model* m) const;

 private:
  double metric(const std::string& name, const double* pred, const float* labels, size_t nr,
                const float* w, const std::vector<uint32_t>& groups,
                const std::vector<float>& upper) const;

  const TrainParams& p_;
  const ObjectiveInfo& oi_;
  const int K_;
  const std::vector<std::string> metrics_;
  const ValidationRows& valid_;
  const std::vector<int>& missing_bin_;
  MetricParams mp_;
  std::vector<double> vmargin_, vpred_;
  const bool higher_;  // higher is better for the last metric (auc, ranking)
  double best_ = 0;
  int best_round_ = -1;
};

}  // namespace gbdt
