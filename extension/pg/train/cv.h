// gbdt_cv's request to gbdt_train: while one is active, gbdt_train reads,
// checks and bins the relation as always, then cross-validates those rows
// (gbdt::cross_validate) instead of training one model, and returns NULL.
#pragma once

#include "pg_includes.h"

#include "gbdt/train.h"

namespace gbdt_pg {

struct CvRequest {
  int nfold;
  bool stratified;
  uint64_t seed;
  gbdt::CvHistory* history;  // filled by run_cv_request
  // gbdt_tune: the parameters each trial sets on top of the call's (null:
  // one cross-validation into history); one history per trial, all on the
  // same binned rows and folds.
  const std::vector<std::vector<gbdt::ParamKV>>* trials = nullptr;
  std::vector<gbdt::CvHistory>* trial_histories = nullptr;
};

// The active request (set by gbdt_cv around its gbdt_train call), or null.
CvRequest* cv_request();

// Assigns the folds and cross-validates `data` into the active request's
// history.  C++ only (runs inside catch_engine): throws gbdt::InvalidInput
// for bad folds, gbdt::Cancelled on cancel.
void run_cv_request(gbdt::BinnedInput&& data, const gbdt::TrainParams& p,
                    const gbdt::TrainHooks& hooks, const char* target);

constexpr int64 kMaxSeed = 9007199254740992LL;  // 2^53, as the seed parameter
constexpr int kMaxFolds = 1000;
// nfold in [2, kMaxFolds] and seed in [0, 2^53], else an error naming it.
void check_fold_args(int nfold, int64 seed);

// Calls gbdt_train with this call's first five arguments (relation, target,
// features, objective, params) and `req` active; the request is cleared
// also on error.
void run_cv_train(FunctionCallInfo fcinfo, CvRequest* req);

}  // namespace gbdt_pg
