// gbdt_evaluate(model gbdt_model, relation regclass, target text
//               [, threshold float8]) -> jsonb
//
// The rows are read and scored by read_eval_rows (evaluate_read.h); the
// metrics come from the engine (gbdt::evaluate_model, class_metrics.h).
// threshold (default 0.5, in [0, 1]) is where a binary model's accuracy,
// precision, recall and f1 count a row as predicted positive
// (P(class 1) > threshold).
#include <cmath>
#include <string>
#include <vector>

#include "guard.h"
#include "model/model_type.h"
#include "score/evaluate_read.h"
#include "score/partition_table.h"
#include "score/scoring.h"

#include "gbdt/evaluate.h"
#include "gbdt/explain.h"
#include "gbdt/model.h"
#include "gbdt/train.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_evaluate);
}

namespace gbdt_pg {

// A threshold argument: NULL or outside [0, 1] is an error naming it.
double threshold_arg(FunctionCallInfo fcinfo, int argno, const char* fn) {
  if (PG_NARGS() <= argno) return 0.5;
  if (PG_ARGISNULL(argno))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("%s: threshold must not be NULL", fn)));
  const double t = PG_GETARG_FLOAT8(argno);
  if (!(t >= 0.0 && t <= 1.0))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("%s: threshold %g is outside [0, 1]", fn, t),
                    errhint("threshold is the probability of class 1 above which a row is "
                            "predicted positive.")));
  return t;
}

char* eval_metrics_json(const EvalRows* rp, double threshold, const char* objective) {
  char* json = nullptr;
  run_engine([&] {
    std::vector<std::pair<std::string, double>> metrics;
    if (rp->stream) {
      // As gbdt::evaluate_all for multi:softprob, then the F1 scores.
      metrics.emplace_back("mlogloss", rp->mlogloss_sum / rp->n);
      metrics.emplace_back("accuracy", 1.0 - rp->error_sum / rp->n);
      metrics.emplace_back("f1_macro", gbdt::f1_macro_of(rp->class_tp, rp->class_actual, rp->class_predicted, rp->K));
      metrics.emplace_back("f1_micro", gbdt::f1_micro_of(rp->class_tp, rp->n, rp->K));
    } else {
      metrics = gbdt::evaluate_model(*rp->model, rp->preds, rp->labels, rp->n, threshold, cancel_callback());
      if (rp->upper != nullptr)  // survival:aft's interval metrics
        for (auto& kv :
             gbdt::evaluate_aft(*rp->model, rp->preds, rp->labels, rp->upper, rp->n, rp->target, rp->upper_column))
          metrics.push_back(kv);
    }
    std::string out = "{\"rows\": " + std::to_string(rp->n) + ", \"rows_skipped\": " + std::to_string(rp->skipped) +
                      ", \"objective\": " +
                      gbdt::json_escape(objective != nullptr ? objective : gbdt::objective_name(rp->model->objective));
    for (const auto& kv : metrics)
      out += ", " + gbdt::json_escape(kv.first) + ": " + gbdt::json_number(kv.second);  // json_escape quotes
    out += "}";
    json = pstrdup_nothrow(out);
  });
  return json;
}

}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_evaluate(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  if (m->partitions != nullptr) return partition_evaluate(fcinfo, m);  // per key (partition_table.h)
  Oid relid = PG_GETARG_OID(1);
  char* target = text_to_cstring(PG_GETARG_TEXT_PP(2));
  const double threshold = threshold_arg(fcinfo, 3, "gbdt_evaluate");

  if (gbdt::objective_info(m->objective).ranking)  // ranking metrics are per query group
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_evaluate: a %s model is evaluated per query group: pass "
                           "group_column",
                           model_objective_name(m)),
                    errhint("gbdt_evaluate(model, relation, target, group_column)")));
  EvalRows r;
  read_eval_rows(fcinfo, relid, target, true, false, &r);
  char* json = eval_metrics_json(&r, threshold, nullptr);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
