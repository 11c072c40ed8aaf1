// The rows of an evaluation (gbdt_evaluate, gbdt_roc_curve,
// gbdt_confusion_matrix, gbdt_calibration): the relation read in batches
// bounded by work_mem, each batch scored, its target mapped to the model's
// classes (target_classes.h).
//
// Single-output models keep one prediction and one label per row (AUC and
// the curves need every prediction), as predict_batch gives them
// (binary:logistic: P(class 1); binary:logitraw: margins).
// multi:softprob / multi:softmax stream: per batch, each row's
// -log(p of its class), whether its most probable class is right, and the
// (actual, predicted) counts are added up, so nothing per row x class
// outlives a batch.
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"
#include "read/relation_reader.h"
#include "score/target_classes.h"

namespace gbdt_pg {

struct EvalRows {
  const char* fn = "gbdt_evaluate";  // the SQL function, for messages
  const gbdt::Model* model = nullptr;
  RelInfo* rel = nullptr;
  const char* target = nullptr;
  int K = 1;
  bool stream = false;          // multiclass: sums only
  size_t n = 0;                 // rows evaluated
  uint64 skipped = 0;           // rows with a NULL target
  float* labels = nullptr;      // n (single output)
  double* preds = nullptr;      // n x K (single output, several quantiles)
  float* upper = nullptr;       // survival:aft's upper bounds (n), or null
  const char* upper_column = nullptr;
  double mlogloss_sum = 0;      // streaming
  double error_sum = 0;         // streaming
  uint64_t* class_tp = nullptr;         // streaming: K, rows of class k predicted k
  uint64_t* class_actual = nullptr;     // streaming: K, rows of class k
  uint64_t* class_predicted = nullptr;  // streaming: K, rows predicted k
  uint64_t* confusion = nullptr;        // K x K [actual * K + predicted] when asked for
};

// Reads and scores relation relid for the model of argument 0 (out->fn
// names the calling function in messages); target
// names the label column.  with_upper: survival:aft reads the upper-bound
// column of its params; with_confusion: multiclass keeps the K x K counts
// (at most kMaxConfusionClasses classes).  No rows with a non-NULL target,
// or a NaN prediction of a single-output model: an error.  Memory lives in
// the current memory context.
constexpr int kMaxConfusionClasses = 1024;
void read_eval_rows(FunctionCallInfo fcinfo, Oid relid, const char* target, bool with_upper,
                    bool with_confusion, EvalRows* out);

// read_eval_rows for model m with its category lookups mc (null: none)
// rather than the model of argument 0 (a partitioned model's sub-model).
struct ModelCategories;
void read_eval_rows_of(const gbdt::Model* m, const ModelCategories* mc, Oid relid, const char* target, bool with_upper,
                       bool with_confusion, EvalRows* out);

// A multiclass row's sums in r (r->stream): its class y, its r->K class
// probabilities o (in row order, with the same arithmetic as
// gbdt::compute_metric's mlogloss and merror).
void stream_row(EvalRows* r, int y, const double* o);

// gbdt_evaluate's JSON object of rows r (evaluate.cpp): rows, rows_skipped,
// objective (r->model's, or `objective` when not null) and the metrics of
// the objective (gbdt::evaluate_model; multiclass from r's streamed sums),
// threshold as gbdt_evaluate's.  Palloc'd text.
char* eval_metrics_json(const EvalRows* r, double threshold, const char* objective);

}  // namespace gbdt_pg
