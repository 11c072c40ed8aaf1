// gbdt_predict_class(model, row) and the class-name helpers of class_names.h.
#include "score/class_names.h"

#include <cmath>

#include "convert.h"
#include "guard.h"
#include "model/model_type.h"
#include "gbdt/train.h"
#include "gbdt/predict.h"
#include "score/partition_route.h"
#include "score/scoring.h"

extern "C" {
#include "utils/json.h"
PG_FUNCTION_INFO_V1(gbdt_predict_class);
}

namespace gbdt_pg {

Datum class_name_datum(const gbdt::Model* m, int k) {
  if (k >= 0 && k < (int)m->class_names.size())
    return CStringGetTextDatum(model_to_server_string(m->class_names[k].c_str()));
  double v = k >= 0 && k < (int)m->class_labels.size() ? m->class_labels[k] : (double)k;
  return CStringGetTextDatum(DatumGetCString(DirectFunctionCall1(float8out, Float8GetDatum(v))));
}

Datum add_class_names(const gbdt::Model* m, Datum info) {
  if (m->class_names.empty()) return info;
  StringInfoData b;
  initStringInfo(&b);
  appendStringInfoString(&b, "{\"class_names\": [");
  for (size_t i = 0; i < m->class_names.size(); i++) {
    if (i) appendStringInfoString(&b, ", ");
    escape_json(&b, model_to_server_string(m->class_names[i].c_str()));
  }
  appendStringInfoString(&b, "]}");
  Datum extra = DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
  return DirectFunctionCall2(jsonb_concat, info, extra);
}

}  // namespace gbdt_pg

using namespace gbdt_pg;

// gbdt_predict_class(model gbdt_model, row record) -> text: the most
// probable class by name (binary: the second class when P(class 1) > 0.5).
Datum gbdt_predict_class(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(1);
  const float* x = nullptr;
  if (m->partitions != nullptr) {  // the row's key's sub-model (partition_route.h)
    CallCache* c = get_call_cache(fcinfo);
    PartitionRoute r;
    if (!partition_route(c, m, th, &r)) PG_RETURN_NULL();  // fallback "null"
    m = r.model;
    x = row_features_in(c, r.slot, c->generation, r.categories, r.model, th);
  }
  const gbdt::ObjectiveInfo& info = gbdt::objective_info(m->objective);
  if (!info.binary && !info.multiclass)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("the model is not a classifier (objective %s)", model_objective_name(m)),
                    errhint("gbdt_predict_class needs a binary:* or multi:* model; "
                            "use gbdt_predict for a regression.")));
  if (x == nullptr) x = row_features(fcinfo, m, th);
  const int K = m->num_output_group > 0 ? m->num_output_group : 1;
  double* out = (double*)palloc(sizeof(double) * K);
  run_engine([&] {
    gbdt::predict_margin_row(*m, x, out, 0, cancel_callback());
    // The form the metrics see (binary:logitraw: the probability).
    (info.eval_transform != nullptr ? info.eval_transform : info.transform)(out, K);
  });
  int best = 0;
  if (info.binary) {
    best = out[0] > 0.5 ? 1 : 0;
  } else {
    for (int k = 1; k < K; k++)
      if (out[k] > out[best]) best = k;
  }
  pfree(out);
  PG_RETURN_DATUM(class_name_datum(m, best));
}
