// The pooled metrics of gbdt_evaluate on a partitioned model: one metrics
// object over every scored row, each row predicted by its own key's
// sub-model (or the global model for an unseen key), computed by the metric
// code of an ordinary gbdt_evaluate (eval_metrics_json, evaluate_read.h).
//
// How the models' rows pool:
//  - "concat": the models share one objective and number of outputs and
//    are no multiclass models (binary ones also share their two classes):
//    the rows' predictions and labels are put one after another and
//    evaluated as one model's (the first model's parameters: the metric
//    parameters, such as the Tweedie power or the quantile alphas, are
//    those of the one training);
//  - "union": every model is binary:logistic, multi:softprob or
//    multi:softmax, and some are multiclass or their classes differ (a key
//    that saw only some of the classes; a key with two of them trains
//    binary:logistic unless the objective was given): multiclass metrics
//    (mlogloss, accuracy, f1_macro, f1_micro) over the union of the class
//    names (or label values), a class its sub-model never saw having
//    probability 0 for the row, as scikit-learn's log_loss and f1_score of
//    the concatenated probabilities with labels = that union; a binary
//    model's row has probabilities (1 - p, p);
//  - otherwise (objectives that differ otherwise, binary:logitraw or
//    binary:hinge models of different classes): no pooled metrics, and
//    pool_refusal says why.
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"
#include "score/evaluate_read.h"

namespace gbdt_pg {

struct PartitionPool;

// A pool for the rows of models[0 .. n) (each a sub-model or the global
// model that gbdt_evaluate will read rows for); names[i] names model i in
// a refusal ("key store=east", "the global model").
PartitionPool* pool_start(const gbdt::Model* const* models, const char* const* names, int n);

// Why the models' rows do not pool (null: they do).
const char* pool_refusal(const PartitionPool* p);

// Adds model i's rows as read_eval_rows read them (r->model is models[i]).
void pool_add(PartitionPool* p, int i, const EvalRows* r);

// Rows left out without being read (a key whose every target is NULL).
void pool_skip(PartitionPool* p, uint64 rows);

// The pooled metrics as gbdt_evaluate's JSON object (threshold: binary
// models' as gbdt_evaluate's; the union's metrics take the most probable
// class), or null when no row was added or the rows do not pool.
char* pool_metrics_json(PartitionPool* p, double threshold);

}  // namespace gbdt_pg
