// gbdt_fold(ordinal bigint, nfold int, seed bigint DEFAULT 0) -> int
// gbdt_cv(relation regclass, target text, features text[] DEFAULT NULL,
//         objective text DEFAULT NULL, params jsonb DEFAULT '{}',
//         nfold int DEFAULT 5, stratified bool DEFAULT false,
//         seed bigint DEFAULT 0)
//   -> TABLE(round int, metric text, train_mean float8, train_std float8,
//            test_mean float8, test_std float8)
//
// gbdt_cv runs gbdt_train's whole read (parameters, features, labels, the
// one load and binning) with a CvRequest active, so the folds see exactly
// the rows, features and bins gbdt_train would train on; the engine then
// trains one booster per fold (gbdt/train.h cross_validate).
#include "train/cv.h"

extern "C" {
#include "funcapi.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_fold);
PG_FUNCTION_INFO_V1(gbdt_cv);
Datum gbdt_train(PG_FUNCTION_ARGS);
}

namespace gbdt_pg {

namespace {
CvRequest* active_request = nullptr;

}  // namespace

void check_fold_args(int nfold, int64 seed) {
  if (nfold < 2 || nfold > kMaxFolds)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("nfold = %d is out of range: must be in [2, %d]", nfold, kMaxFolds)));
  if (seed < 0 || seed > kMaxSeed)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("seed = " INT64_FORMAT " is out of range: must be an integer in "
                           "[0, 2^53]",
                           seed)));
}

CvRequest* cv_request() { return active_request; }

void run_cv_request(gbdt::BinnedInput&& data, const gbdt::TrainParams& p,
                    const gbdt::TrainHooks& hooks, const char* target) {
  CvRequest* r = active_request;
  const std::vector<int32_t> folds = gbdt::assign_folds(data, r->nfold, r->seed, r->stratified,
                                                            hooks.cancel);
  if (r->trials == nullptr) {
    *r->history = gbdt::cross_validate(data, p, folds, r->nfold, hooks, target);
    return;
  }
  for (const std::vector<gbdt::ParamKV>& trial : *r->trials) {
    if (hooks.cancel && hooks.cancel()) throw gbdt::Cancelled();
    gbdt::TrainParams q = p;
    gbdt::apply_params(trial, &q);
    r->trial_histories->push_back(gbdt::cross_validate(data, q, folds, r->nfold, hooks, target));
  }
}

}  // namespace gbdt_pg

using namespace gbdt_pg;

extern "C" Datum gbdt_fold(PG_FUNCTION_ARGS) {
  const int64 ordinal = PG_GETARG_INT64(0);
  const int nfold = PG_GETARG_INT32(1);
  const int64 seed = PG_GETARG_INT64(2);
  if (ordinal < 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("ordinal = " INT64_FORMAT " is out of range: must be >= 0 (rows are "
                           "numbered from 0)",
                           ordinal)));
  check_fold_args(nfold, seed);
  // Plain arithmetic (no allocation, no exception).
  PG_RETURN_INT32(gbdt::hashed_fold((uint64_t)seed, (uint64_t)ordinal, nfold));
}

namespace gbdt_pg {

void run_cv_train(FunctionCallInfo fcinfo, CvRequest* req) {
  if (active_request != nullptr)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("gbdt_cv and gbdt_tune cannot run inside one another")));
  LOCAL_FCINFO(call, 6);
  InitFunctionCallInfoData(*call, nullptr, 6, PG_GET_COLLATION(), nullptr, nullptr);
  for (int a = 0; a < 5; a++) {
    call->args[a].value = PG_GETARG_DATUM(a);
    call->args[a].isnull = PG_ARGISNULL(a);
  }
  call->args[5].value = (Datum)0;
  call->args[5].isnull = true;  // no init_model
  active_request = req;
  PG_TRY();
  {
    (void)gbdt_train(call);
  }
  PG_FINALLY();
  {
    active_request = nullptr;
  }
  PG_END_TRY();
}

}  // namespace gbdt_pg

extern "C" Datum gbdt_cv(PG_FUNCTION_ARGS) {
  for (int a : {0, 1, 5, 6, 7})
    if (PG_ARGISNULL(a))
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("%s must not be NULL",
                             a == 0 ? "relation" : a == 1 ? "target" : a == 5 ? "nfold"
                             : a == 6 ? "stratified" : "seed")));
  const int nfold = PG_GETARG_INT32(5);
  const int64 seed = PG_GETARG_INT64(7);
  check_fold_args(nfold, seed);

  CvRequest req{nfold, PG_GETARG_BOOL(6), (uint64_t)seed, nullptr};
  req.history = new (std::nothrow) gbdt::CvHistory();
  if (req.history == nullptr)
    ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
  PG_TRY();
  {
    run_cv_train(fcinfo, &req);
  }
  PG_CATCH();
  {
    delete req.history;
    PG_RE_THROW();
  }
  PG_END_TRY();

  // Copy the history into palloc'd rows, then free the C++ object, so no
  // error below can leave it behind.
  const gbdt::CvHistory& h = *req.history;
  const int M = (int)h.metrics.size(), R = h.rounds;
  const size_t cells = (size_t)R * (size_t)M;
  double* v = (double*)palloc(sizeof(double) * 4 * (cells > 0 ? cells : 1));
  char** names = (char**)palloc(sizeof(char*) * (M > 0 ? M : 1));
  for (size_t i = 0; i < cells; i++) {
    v[4 * i] = h.train_mean[i];
    v[4 * i + 1] = h.train_std[i];
    v[4 * i + 2] = h.test_mean[i];
    v[4 * i + 3] = h.test_std[i];
  }
  for (int i = 0; i < M; i++) names[i] = pstrdup(h.metrics[(size_t)i].c_str());
  delete req.history;

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  for (int r = 0; r < R; r++)
    for (int i = 0; i < M; i++) {
      CHECK_FOR_INTERRUPTS();
      const double* c = &v[4 * ((size_t)r * M + i)];
      Datum values[6] = {Int32GetDatum(r + 1), CStringGetTextDatum(names[i]),
                         Float8GetDatum(c[0]), Float8GetDatum(c[1]), Float8GetDatum(c[2]),
                         Float8GetDatum(c[3])};
      bool nulls[6] = {false, false, false, false, false, false};
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
  return (Datum)0;
}
