// gbdt_evaluate(model gbdt_model, relation regclass, target text) -> jsonb
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "guard.h"
#include "model/model_type.h"
#include "read/relation_reader.h"
#include "score/scoring.h"
#include "read/scoring_layout.h"
#include "score/target_classes.h"
#include "train/train_data.h"
#include "train/train_bounds.h"

#include "gbdt/explain.h"
#include "gbdt/evaluate.h"
#include "gbdt/train.h"
#include "gbdt/model.h"
#include "gbdt/predict.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_evaluate);
}

namespace gbdt_pg {
namespace {

// Memory: a batch of rows x (features + K outputs) bounded by work_mem
// (budget_rows), plus what the metrics need.  Single-output models (AUC
// needs every prediction) keep one prediction and one label per row;
// multi:softprob streams: per batch, each row's -log(p of its class) and
// whether its most probable class is right are added up, so nothing per
// row x class outlives a batch.  The sums run in row order with the same
// arithmetic as gbdt::compute_metric's mlogloss / merror.
struct EvalSink {
  const gbdt::Model* model;
  const char* target;
  const TargetClasses* classes;  // class names / label values -> class index
  ScoringLayout* layout;         // array columns expanded
  int nf;
  int K;
  bool stream;     // multi:softprob: metrics summed per batch
  MemoryContext cxt;
  float* labels;   // cap (kept rows), or bcap (this batch's rows) when streaming
  double* preds;   // cap (K == 1), unused when streaming
  size_t n;        // rows kept
  size_t cap;
  float* x;        // batch rows x nf
  double* out;     // batch rows x K (streaming)
  size_t bn;       // rows in the batch
  size_t bcap;
  uint64 skipped;
  double mlogloss_sum;  // streaming
  double error_sum;     // streaming
  // survival:aft's upper bounds (cap; null: none), reader column index.
  float* upper;
  int upper_col;
};

void eval_flush(EvalSink* s) {
  if (s->bn == 0) return;
  const gbdt::Model* m = s->model;
  const float* x = s->x;
  size_t bn = s->bn;
  const int K = s->K;
  double* out = s->stream ? s->out : s->preds + (s->n - s->bn) * (size_t)K;  // K quantiles
  int nthread = scoring_threads();
  run_engine([&] { gbdt::predict_batch(*m, x, bn, out, nthread, cancel_callback()); });
  if (s->stream) {
    const double eps = 1e-15;
    for (size_t i = 0; i < bn; i++) {
      const double* r = out + i * (size_t)K;
      const int y = (int)s->labels[i];
      s->mlogloss_sum -= std::log(std::max(r[y], eps));
      const int best = (int)(std::max_element(r, r + K) - r);
      s->error_sum += best != y;
    }
  }
  s->bn = 0;
}

void eval_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  EvalSink* s = (EvalSink*)arg;
  if (nulls[0] || (s->classes->kind != ValKind::kNone && std::isnan(vals[0]))) {
    s->skipped++;
    return;
  }
  float y = target_class(s->classes, slot->tts_values[0], vals[0]);
  const gbdt::ObjectiveInfo& oi = gbdt::objective_info(s->model->objective);
  if (oi.multiclass && (y < 0 || y >= (float)s->K || y != std::floor(y)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("target column \"%s\" has value %g, not a class of the model (0 .. %d)",
                           s->target, (double)y, s->K - 1)));
  if (!oi.multiclass && oi.label_ok && !oi.label_ok(y))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("target column \"%s\" has value %g: a %s model is "
                           "evaluated on %s",
                           s->target, (double)y, oi.name, oi.label_rule)));
  if (s->stream) {
    s->labels[s->bn] = y;
    s->n++;
  } else {
    if (s->n == s->cap) {
      size_t cap = s->cap * 2;
      s->labels = (float*)repalloc_huge(s->labels, sizeof(float) * cap);
      s->preds = (double*)repalloc_huge(s->preds, sizeof(double) * cap * (size_t)s->K);
      if (s->upper != nullptr) s->upper = (float*)repalloc_huge(s->upper, sizeof(float) * cap);
      s->cap = cap;
    }
    if (s->upper != nullptr)  // NULL = +Infinity (right-censored), as the training's
      s->upper[s->n] = nulls[s->upper_col] ? INFINITY : vals[s->upper_col];
    s->labels[s->n++] = y;
  }
  scoring_row(s->layout, slot, vals, nulls, 1, s->x + s->bn * s->nf);
  s->bn++;
  if (s->bn == s->bcap) eval_flush(s);
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_evaluate(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  Oid relid = PG_GETARG_OID(1);
  char* target = text_to_cstring(PG_GETARG_TEXT_PP(2));

  if (gbdt::objective_info(m->objective).ranking)  // ranking metrics are per query group
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_evaluate: a %s model is evaluated per query group: pass "
                           "group_column",
                           model_objective_name(m)),
                    errhint("gbdt_evaluate(model, relation, target, group_column)")));
  RelInfo* rel = open_rel_info(relid);
  TargetClasses classes;
  target_classes_for_model(rel, target, m, &classes);
  int nf = m->n_features();
  ScoringLayout* layout =
      scoring_layout(rel, m->feature_names, get_call_cache(fcinfo)->categories, nullptr, nullptr,
                     nullptr);
  // a survival:aft model's upper bounds, from the column named in its
  // params (a model without one, imported: rmse and mae only).
  const char* upper_column = gbdt::objective_info(m->objective).interval_labels
                                 ? init_model_param(m, "label_upper_bound_column")
                                 : nullptr;
  ValKind upper_kind = ValKind::kNone;
  if (upper_column != nullptr) {
    if (find_column(rel, upper_column) == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("label_upper_bound_column \"%s\" of the survival:aft model is not a "
                             "column of relation \"%s\"",
                             upper_column, rel->name),
                      errhint("gbdt_evaluate reads the upper bounds of the survival times from "
                              "the column the model was trained with (NULL or +Infinity = "
                              "right-censored).")));
    upper_kind = require_numeric_column(rel, upper_column, "label_upper_bound_column");
  }
  const int ncols = layout->ncols + 1 + (upper_column != nullptr ? 1 : 0);
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * ncols);
  cols[0] = ReaderColumn{target, classes.kind, true, true};
  memcpy(cols + 1, layout->cols, sizeof(ReaderColumn) * layout->ncols);
  if (upper_column != nullptr)
    cols[ncols - 1] = ReaderColumn{upper_column, upper_kind, false, false};

  EvalSink s;
  memset(&s, 0, sizeof(s));
  s.model = m;
  s.target = target;
  s.classes = &classes;
  s.layout = layout;
  s.nf = nf;
  s.K = m->num_output_group > 0 ? m->num_output_group : 1;
  s.cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt evaluate", ALLOCSET_DEFAULT_SIZES);
  s.stream = gbdt::objective_info(m->objective).multiclass;
  // several quantiles keep K predictions per row.
  const bool multi_quantile = m->objective == gbdt::Objective::kQuantile;
  if (!s.stream && s.K != 1 && !multi_quantile)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("gbdt_evaluate: objective %s with %d outputs is not supported",
                           model_objective_name(m), s.K)));
  size_t xbytes = sizeof(float) * (size_t)(nf > 0 ? nf : 1);
  s.bcap = std::min(batch_rows(nf), budget_rows(s.K, xbytes + sizeof(float)));
  s.x = (float*)MemoryContextAllocHuge(s.cxt, xbytes * s.bcap);
  if (s.stream) {
    s.cap = s.bcap;
    s.labels = (float*)MemoryContextAllocHuge(s.cxt, sizeof(float) * s.bcap);
    s.out = (double*)MemoryContextAllocHuge(s.cxt, sizeof(double) * s.bcap * (size_t)s.K);
  } else {
    s.cap = 16384;
    s.labels = (float*)MemoryContextAllocHuge(s.cxt, sizeof(float) * s.cap);
    s.preds = (double*)MemoryContextAllocHuge(s.cxt, sizeof(double) * s.cap * (size_t)s.K);
    if (upper_column != nullptr) {  // survival:aft's upper bounds
      s.upper = (float*)MemoryContextAllocHuge(s.cxt, sizeof(float) * s.cap);
      s.upper_col = ncols - 1;
    }
  }

  read_relation(rel, cols, ncols, eval_row, &s, true);
  eval_flush(&s);
  if (s.n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("relation \"%s\" has no rows with a non-NULL target \"%s\"", rel->name,
                           target)));

  if (!s.stream) {
    // AUC sorts and groups ties by prediction: NaN has no order and equals
    // nothing, so a model whose predictions come out NaN (a hostile model:
    // huge finite leaves adding up to inf - inf) has no metrics here.
    size_t nan_rows = 0;
    for (size_t i = 0; i < s.n; i++) {
      bool nan_row = false;
      for (int k = 0; k < s.K; k++) nan_row |= std::isnan(s.preds[i * (size_t)s.K + k]);
      nan_rows += nan_row ? 1 : 0;
    }
    if (nan_rows > 0)
      ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                      errmsg("gbdt_evaluate: the model predicts NaN for %zu of %zu rows of "
                             "relation \"%s\"; its metrics are undefined",
                             nan_rows, s.n, rel->name)));
  }
  char* json = nullptr;
  {
    const EvalSink* sp = &s;
    run_engine([&] {
      std::vector<std::pair<std::string, double>> metrics;
      if (sp->stream) {
        // As gbdt::evaluate_all for multi:softprob.
        metrics.emplace_back("mlogloss", sp->mlogloss_sum / sp->n);
        metrics.emplace_back("accuracy", 1.0 - sp->error_sum / sp->n);
      } else {
        metrics = gbdt::evaluate_model(*sp->model, sp->preds, sp->labels, sp->n);
        if (sp->upper != nullptr)  // survival:aft's interval metrics
          for (auto& kv : gbdt::evaluate_aft(*sp->model, sp->preds, sp->labels, sp->upper, sp->n,
                                             sp->target, upper_column))
            metrics.push_back(kv);
      }
      std::string out = "{\"rows\": " + std::to_string(sp->n) +
                        ", \"rows_skipped\": " + std::to_string(sp->skipped) +
                        ", \"objective\": " +
                        gbdt::json_escape(gbdt::objective_name(sp->model->objective));
      for (const auto& kv : metrics)
        out += ", " + gbdt::json_escape(kv.first) + ": " + gbdt::json_number(kv.second);  // json_escape quotes
      out += "}";
      json = pstrdup_nothrow(out);
    });
  }
  MemoryContextDelete(s.cxt);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
