// gbdt_predict_quantiles(model, row record) -> float8[]: the predictions
// of a reg:quantileerror model, one per quantile in the order of its
// quantile_alpha list (one element for a model of one quantile).
#include "score/scoring.h"

#include "guard.h"
#include "model/model_type.h"

#include "gbdt/model.h"
#include "gbdt/train.h"
#include "gbdt/predict.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_predict_quantiles);
}

using namespace gbdt_pg;

Datum gbdt_predict_quantiles(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  if (m->objective != gbdt::Objective::kQuantile)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("gbdt_predict_quantiles needs a reg:quantileerror model, not objective %s",
                           model_objective_name(m)),
                    errhint("Use gbdt_predict for one value per row.")));
  HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(1);
  const float* x = row_features(fcinfo, m, th);
  const int K = m->num_output_group > 0 ? m->num_output_group : 1;
  double* out = (double*)palloc(sizeof(double) * K);
  run_engine([&] {
    gbdt::predict_margin_row(*m, x, out, 0, cancel_callback());
    gbdt::transform_margins(*m, out);
  });
  Datum* d = (Datum*)palloc(sizeof(Datum) * K);
  for (int k = 0; k < K; k++) d[k] = Float8GetDatum(out[k]);
  ArrayType* a = construct_array(d, K, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
  pfree(out);
  pfree(d);
  PG_RETURN_ARRAYTYPE_P(a);
}
