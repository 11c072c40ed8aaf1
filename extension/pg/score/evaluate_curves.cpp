// The operating-point functions of a classification model on the rows of a
// relation (read and scored by read_eval_rows, evaluate_read.h):
//
//   gbdt_roc_curve(model, relation, target)
//     -> TABLE(threshold float8, tpr float8, fpr float8, precision float8, recall float8)
//   gbdt_confusion_matrix(model, relation, target, threshold float8 DEFAULT 0.5)
//     -> TABLE(actual text, predicted text, count bigint)
//   gbdt_calibration(model, relation, target, bins int DEFAULT 10)
//     -> TABLE(bin int, mean_predicted float8, observed_rate float8, count bigint)
//
// The ROC curve has one row per distinct P(class 1), descending, after a
// first row at threshold +Infinity (nothing predicted positive, precision 1
// as sklearn's precision_recall_curve ends); a row counts the rows with
// P(class 1) >= threshold as positive, so its trapezoid area is the AUC
// gbdt_evaluate reports.  The confusion matrix has a row for every pair of
// classes (class names, or label values as text), binary models predicting
// class 1 when P(class 1) > threshold, multiclass models their most
// probable class.  Calibration: equal-width bins of [0, 1] (bin 1 ..
// bins), those holding rows only, as sklearn's calibration_curve.
#include <algorithm>
#include <cmath>
#include <vector>

#include "guard.h"
#include "model/model_type.h"
#include "score/class_names.h"
#include "score/evaluate_read.h"
#include "score/scoring.h"

#include "gbdt/evaluate.h"
#include "gbdt/model.h"
#include "gbdt/train.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_roc_curve);
PG_FUNCTION_INFO_V1(gbdt_confusion_matrix);
PG_FUNCTION_INFO_V1(gbdt_calibration);
}

namespace gbdt_pg {
double threshold_arg(FunctionCallInfo fcinfo, int argno, const char* fn);  // evaluate.cpp

namespace {

constexpr int kMaxCalibrationBins = 10000;

// The model of argument 0 if it is a binary classifier, else an error.
const gbdt::Model* binary_model_arg(FunctionCallInfo fcinfo, const char* fn) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  if (!gbdt::objective_info(m->objective).binary)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("%s needs a binary classification model, not objective %s", fn,
                           model_objective_name(m))));
  return m;
}

// The rows' P(class 1) (binary:logitraw's margins turned into
// probabilities, as gbdt_evaluate does).
void to_probabilities(const EvalRows& r) {
  const gbdt::ObjectiveInfo& oi = gbdt::objective_info(r.model->objective);
  if (oi.eval_transform == nullptr) return;
  for (size_t i = 0; i < r.n; i++) {
    oi.eval_transform(&r.preds[i], 1);
    if ((i & 65535) == 65535) CHECK_FOR_INTERRUPTS();
  }
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_roc_curve(PG_FUNCTION_ARGS) {
  binary_model_arg(fcinfo, "gbdt_roc_curve");
  EvalRows r;
  r.fn = "gbdt_roc_curve";
  read_eval_rows(fcinfo, PG_GETARG_OID(1), text_to_cstring(PG_GETARG_TEXT_PP(2)), false, false,
                 &r);
  to_probabilities(r);
  // The points are copied into palloc'd memory inside the engine call, so
  // no C++ object is alive when a PostgreSQL error may be raised below.
  gbdt::CurvePoint* points = (gbdt::CurvePoint*)palloc_extended(
      sizeof(gbdt::CurvePoint) * (r.n + 1), MCXT_ALLOC_HUGE);  // at most n + 1 points
  size_t npoints = 0;
  run_engine([&] {
    const std::vector<gbdt::CurvePoint> v =
        gbdt::roc_points(r.preds, r.labels, r.n, cancel_callback());
    std::copy(v.begin(), v.end(), points);
    npoints = v.size();
  });
  const double P = (double)points[npoints - 1].tp, N = (double)points[npoints - 1].fp;
  if (P == 0 || N == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_roc_curve: target \"%s\" of relation \"%s\" has no rows of "
                           "class %s; the ROC curve is undefined",
                           r.target, r.rel->name, P == 0 ? "1" : "0")));
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum values[5];
  bool nulls[5] = {false, false, false, false, false};
  for (size_t i = 0; i < npoints; i++) {
    const gbdt::CurvePoint& c = points[i];
    const double predicted = (double)(c.tp + c.fp);
    values[0] = Float8GetDatum(c.threshold);
    values[1] = Float8GetDatum((double)c.tp / P);
    values[2] = Float8GetDatum((double)c.fp / N);
    values[3] = Float8GetDatum(predicted > 0 ? (double)c.tp / predicted : 1.0);
    values[4] = Float8GetDatum((double)c.tp / P);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    if ((i & 4095) == 4095) CHECK_FOR_INTERRUPTS();
  }
  return (Datum)0;
}

Datum gbdt_confusion_matrix(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  const gbdt::ObjectiveInfo& oi = gbdt::objective_info(m->objective);
  if (!oi.binary && !oi.multiclass)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("gbdt_confusion_matrix needs a classification model, not objective %s",
                           model_objective_name(m)),
                    errhint("Use gbdt_evaluate for the metrics of a regression model.")));
  const double threshold = threshold_arg(fcinfo, 3, "gbdt_confusion_matrix");
  EvalRows r;
  r.fn = "gbdt_confusion_matrix";
  read_eval_rows(fcinfo, PG_GETARG_OID(1), text_to_cstring(PG_GETARG_TEXT_PP(2)), false, true,
                 &r);
  const int K = oi.binary ? 2 : r.K;
  uint64_t* counts = r.confusion;
  if (oi.binary) {
    to_probabilities(r);
    counts = (uint64_t*)palloc0(sizeof(uint64_t) * 4);
    for (size_t i = 0; i < r.n; i++) {
      const int actual = r.labels[i] > 0.5f ? 1 : 0;
      const int predicted = r.preds[i] > threshold ? 1 : 0;
      counts[actual * 2 + predicted]++;
      if ((i & 65535) == 65535) CHECK_FOR_INTERRUPTS();
    }
  }
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum* names = (Datum*)palloc(sizeof(Datum) * K);
  for (int k = 0; k < K; k++) names[k] = class_name_datum(m, k);
  Datum values[3];
  bool nulls[3] = {false, false, false};
  for (int a = 0; a < K; a++) {
    for (int p = 0; p < K; p++) {
      values[0] = names[a];
      values[1] = names[p];
      values[2] = Int64GetDatum((int64)counts[(size_t)a * K + p]);
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
    CHECK_FOR_INTERRUPTS();
  }
  return (Datum)0;
}

Datum gbdt_calibration(PG_FUNCTION_ARGS) {
  binary_model_arg(fcinfo, "gbdt_calibration");
  const int bins = PG_GETARG_INT32(3);
  if (bins < 1 || bins > kMaxCalibrationBins)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_calibration: bins %d is outside [1, %d]", bins,
                           kMaxCalibrationBins)));
  EvalRows r;
  r.fn = "gbdt_calibration";
  read_eval_rows(fcinfo, PG_GETARG_OID(1), text_to_cstring(PG_GETARG_TEXT_PP(2)), false, false,
                 &r);
  to_probabilities(r);
  gbdt::CalibrationBin* cal = (gbdt::CalibrationBin*)palloc(sizeof(gbdt::CalibrationBin) * bins);
  size_t ncal = 0;
  run_engine([&] {
    const std::vector<gbdt::CalibrationBin> v =
        gbdt::calibration_bins(r.preds, r.labels, r.n, bins, cancel_callback());
    std::copy(v.begin(), v.end(), cal);
    ncal = v.size();
  });
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum values[4];
  bool nulls[4] = {false, false, false, false};
  for (size_t i = 0; i < ncal; i++) {
    const gbdt::CalibrationBin& b = cal[i];
    values[0] = Int32GetDatum(b.bin + 1);
    values[1] = Float8GetDatum(b.mean_predicted);
    values[2] = Float8GetDatum(b.observed_rate);
    values[3] = Int64GetDatum((int64)b.count);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  return (Datum)0;
}
