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
};

// The active request (set by gbdt_cv around its gbdt_train call), or null.
CvRequest* cv_request();

// Assigns the folds and cross-validates `data` into the active request's
// history.  C++ only (runs inside catch_engine): throws gbdt::InvalidInput
// for bad folds, gbdt::Cancelled on cancel.
void run_cv_request(gbdt::BinnedInput&& data, const gbdt::TrainParams& p,
                    const gbdt::TrainHooks& hooks, const char* target);

}  // namespace gbdt_pg
