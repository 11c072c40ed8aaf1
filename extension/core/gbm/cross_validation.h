// Cross-validation (SQL: gbdt_cv): one binned matrix, a fold id per row,
// one booster per fold trained on the other folds' rows, and the per-round
// train/test metrics averaged over the folds, as xgboost.cv reports them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trainer.h"

namespace gbdt {

// The fold of row (or query group) `ordinal` among `nfold` with `seed`:
// floor(u * nfold) for the very number u in [0, 1) that the hashed
// validation_fraction split compares with the fraction (a row is a
// validation row when u < fraction).  SQL: gbdt_fold.
int hashed_fold(uint64_t seed, uint64_t ordinal, int nfold);

// The fold of every row of `in`:
// - plain: hashed_fold(seed, row ordinal, nfold);
// - ranking (query groups): hashed_fold of the row's query group code (the
//   groups numbered from 0 in order of first appearance), so a group is
//   never split;
// - stratified: the labels' distinct values sorted ascending are classes
//   0, 1, ...; the j-th row (0-based, in read order) of class c gets fold
//   (j + hashed_fold(seed, c, nfold)) mod nfold, so every fold holds an
//   equal share (within one row) of every class.
// InvalidInput when nfold < 2, nfold is more than the rows (or query
// groups), stratified is asked with query groups, or a fold has no rows.
// `cancel` is polled as the rows are assigned (throws Cancelled).
std::vector<int32_t> assign_folds(const BinnedInput& in, int nfold, uint64_t seed,
                                  bool stratified, const CancelFn& cancel = CancelFn());

// The per-round history of a cross-validation.  Index r * metrics.size()
// + i: round r (0-based), metric i.  Standard deviations are over the
// folds, population form (numpy.std, as xgboost.cv).
struct CvHistory {
  std::vector<std::string> metrics;
  int rounds = 0;
  std::vector<double> train_mean, train_std, test_mean, test_std;
  // early_stopping_rounds: the best round (0-based) of the last metric's
  // test mean; the history ends there (as xgboost.cv's).  -1 otherwise.
  int best_round = -1;
};

// Trains one booster per fold k on the rows with fold[r] != k (the cuts of
// `in`, computed from all rows) and scores every round on both sides.
// p.early_stopping_rounds stops on the mean test value of the last metric.
// validation_fraction and validation_relation are refused (the folds are
// the test rows).  Folds train concurrently on up to p.nthread threads
// (CPU); hooks.cancel is polled on the calling thread only, every 20 ms.
// hooks.budget's limit is shared among the concurrent folds.
CvHistory cross_validate(const BinnedInput& in, const TrainParams& p,
                         const std::vector<int32_t>& fold, int nfold, const TrainHooks& hooks,
                         const std::string& target_name);

}  // namespace gbdt
