#include "score/evaluate_read.h"

#include <algorithm>
#include <cmath>

#include "guard.h"
#include "model/model_type.h"
#include "read/scoring_layout.h"
#include "score/scoring.h"
#include "score/shard_scoring.h"
#include "train/train_bounds.h"
#include "train/train_data.h"

#include "gbdt/model.h"
#include "gbdt/predict.h"
#include "gbdt/train.h"

namespace gbdt_pg {
namespace {

// Memory: a batch of rows x (features + K outputs) bounded by work_mem
// (budget_rows), plus what the metrics need (see evaluate_read.h).  The
// streamed sums run in row order with the same arithmetic as
// gbdt::compute_metric's mlogloss / merror.
struct EvalSink {
  EvalRows* r;
  const TargetClasses* classes;  // class names / label values -> class index
  ScoringLayout* layout;         // array columns expanded
  int nf;
  float* blabels;  // this batch's labels when streaming
  size_t cap;      // rows r->labels / r->preds hold (single output)
  float* x;        // batch rows x nf
  double* out;     // batch rows x K (streaming)
  size_t bn;       // rows in the batch
  size_t bcap;
  int upper_col;   // reader column of the upper bounds
};

}  // namespace

void stream_row(EvalRows* r, int y, const double* o) {
  const double eps = 1e-15;
  const int K = r->K;
  r->mlogloss_sum -= std::log(std::max(o[y], eps));
  const int best = (int)(std::max_element(o, o + K) - o);
  r->error_sum += best != y;
  r->class_actual[y]++;
  r->class_predicted[best]++;
  if (best == y) r->class_tp[y]++;
  if (r->confusion != nullptr) r->confusion[(size_t)y * K + best]++;
}

namespace {

void eval_flush(EvalSink* s) {
  if (s->bn == 0) return;
  EvalRows* r = s->r;
  const gbdt::Model* m = r->model;
  const float* x = s->x;
  size_t bn = s->bn;
  const int K = r->K;
  double* out = r->stream ? s->out : r->preds + (r->n - s->bn) * (size_t)K;  // K quantiles
  int nthread = scoring_threads();
  run_engine([&] { gbdt::predict_batch(*m, x, bn, out, nthread, cancel_callback()); });
  if (r->stream)
    for (size_t i = 0; i < bn; i++) stream_row(r, (int)s->blabels[i], out + i * (size_t)K);
  s->bn = 0;
}

// The class index of a row's target (d: its value, or its text for a
// pass-through target; val: its value as read), checked against the
// model; false for a row left out (a NULL or NaN target).
bool eval_label(EvalSink* s, Datum d, bool isnull, float val, float* label) {
  EvalRows* r = s->r;
  if (isnull || (s->classes->kind != ValKind::kNone && std::isnan(val))) {
    r->skipped++;
    return false;
  }
  float y = target_class(s->classes, d, val);
  const gbdt::ObjectiveInfo& oi = gbdt::objective_info(r->model->objective);
  if (oi.multiclass && (y < 0 || y >= (float)r->K || y != std::floor(y)))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("target column \"%s\" has value %g, not a class of the model (0 .. %d)",
                           r->target, (double)y, r->K - 1)));
  if (!oi.multiclass && oi.label_ok && !oi.label_ok(y))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("target column \"%s\" has value %g: a %s model is "
                           "evaluated on %s",
                           r->target, (double)y, oi.name, oi.label_rule)));
  *label = y;
  return true;
}

// Room for one more row of a single-output model.
void reserve_row(EvalSink* s) {
  EvalRows* r = s->r;
  if (r->n < s->cap) return;
  size_t cap = s->cap * 2;
  r->labels = (float*)repalloc_huge(r->labels, sizeof(float) * cap);
  r->preds = (double*)repalloc_huge(r->preds, sizeof(double) * cap * (size_t)r->K);
  if (r->upper != nullptr) r->upper = (float*)repalloc_huge(r->upper, sizeof(float) * cap);
  s->cap = cap;
}

void eval_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  EvalSink* s = (EvalSink*)arg;
  EvalRows* r = s->r;
  float y;
  if (!eval_label(s, slot->tts_values[0], nulls[0], vals[0], &y)) return;
  if (r->stream) {
    s->blabels[s->bn] = y;
    r->n++;
  } else {
    reserve_row(s);
    if (r->upper != nullptr)  // NULL = +Infinity (right-censored), as the training's
      r->upper[r->n] = nulls[s->upper_col] ? INFINITY : vals[s->upper_col];
    r->labels[r->n++] = y;
  }
  scoring_row(s->layout, slot, vals, nulls, 1, s->x + s->bn * s->nf);
  s->bn++;
  if (s->bn == s->bcap) eval_flush(s);
}

// survival:aft's upper-bound column (from the model's params), or null.
const char* upper_bound_column(const RelInfo* rel, const gbdt::Model* m, ValKind* kind) {
  const char* upper_column = gbdt::objective_info(m->objective).interval_labels
                                 ? init_model_param(m, "label_upper_bound_column")
                                 : nullptr;
  if (upper_column == nullptr) return nullptr;
  if (find_column(rel, upper_column) == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("label_upper_bound_column \"%s\" of the survival:aft model is not a "
                           "column of relation \"%s\"",
                           upper_column, rel->name),
                    errhint("gbdt_evaluate reads the upper bounds of the survival times from "
                            "the column the model was trained with (NULL or +Infinity = "
                            "right-censored).")));
  *kind = require_numeric_column(rel, upper_column, "label_upper_bound_column");
  return upper_column;
}

// AUC sorts and groups ties by prediction: NaN has no order and equals
// nothing, so a model whose predictions come out NaN (a hostile model:
// huge finite leaves adding up to inf - inf) has no metrics here.
void check_no_nan_predictions(const EvalRows* r) {
  size_t nan_rows = 0;
  for (size_t i = 0; i < r->n; i++) {
    bool nan_row = false;
    for (int k = 0; k < r->K; k++) nan_row |= std::isnan(r->preds[i * (size_t)r->K + k]);
    nan_rows += nan_row ? 1 : 0;
    if ((i & 65535) == 65535) CHECK_FOR_INTERRUPTS();
  }
  if (nan_rows > 0)
    ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                    errmsg("%s: the model predicts NaN for %zu of %zu rows of "
                           "relation \"%s\"; its metrics are undefined",
                           r->fn, nan_rows, r->n, r->rel->name)));
}

// ---- rows scored on the shard servers (shard_scoring.h) ----

// A shard's rows: (target as text, prediction), or for a multiclass model
// K rows (target as text, probability) per row, in class order.
struct ShardEval {
  EvalSink* s;
  bool as_text;     // a pass-through target: its text as it comes
  FmgrInfo in;      // else the target type's input function here
  Oid ioparam;
  MemoryContext row_cxt;
  int k;            // multiclass: probabilities of the current row so far
  bool keep;        // multiclass: the current row is evaluated
  float y;          // multiclass: its class
  double* o;        // multiclass: its K probabilities
};

char* value_sql(const char* schema) {
  return psprintf("SELECT t.key, t.prediction FROM %s.gbdt_predict_table($1::%s.gbdt_model, "
                  "$2::pg_catalog.regclass, $3) AS t",
                  schema, schema);
}

char* proba_sql(const char* schema) {
  return psprintf("SELECT t.key, t.probability FROM %s.gbdt_predict_proba_table("
                  "$1::%s.gbdt_model, $2::pg_catalog.regclass, $3) AS t",
                  schema, schema);
}

// The class of a shard row's target, converted as the rows read here are
// (the target type's input function, then the reader's conversion); false
// for a row left out.
bool shard_row_label(ShardEval* e, const PGresult* row, float* y) {
  MemoryContext old = MemoryContextSwitchTo(e->row_cxt);
  bool isnull;
  Datum d = shard_row_text(row, 0, &isnull);
  float val = NAN;
  if (!isnull && !e->as_text) {
    const ValKind kind = e->s->classes->kind;
    d = InputFunctionCall(&e->in, text_to_cstring(DatumGetTextPP(d)), e->ioparam, -1);
    const double v = datum_to_double(d, kind);
    val = (float)v;
    if (std::isinf(val)) report_nonfinite(e->s->r->target, true, d, kind, v);
  }
  const bool keep = eval_label(e->s, d, isnull, val, y);
  MemoryContextSwitchTo(old);
  MemoryContextReset(e->row_cxt);
  return keep;
}

void shard_value_row(void* arg, const PGresult* row) {
  ShardEval* e = (ShardEval*)arg;
  EvalRows* r = e->s->r;
  float y;
  if (!shard_row_label(e, row, &y)) return;
  reserve_row(e->s);
  r->preds[r->n] = shard_row_float8(row, 1);
  r->labels[r->n++] = y;
}

void shard_proba_row(void* arg, const PGresult* row) {
  ShardEval* e = (ShardEval*)arg;
  EvalRows* r = e->s->r;
  if (e->k == 0) e->keep = shard_row_label(e, row, &e->y);
  e->o[e->k++] = shard_row_float8(row, 1);
  if (e->k < r->K) return;
  e->k = 0;
  if (!e->keep) return;
  stream_row(r, (int)e->y, e->o);
  r->n++;
}

// Why the shards cannot give this evaluation's rows exactly (null: they can).
const char* shard_eval_refusal(const EvalRows* r, Oid target_type) {
  if (r->upper_column != nullptr) return "survival:aft reads label_upper_bound_column here";
  if (!r->stream && r->K != 1) return "the model predicts several quantiles";
  switch (target_type) {
    case INT2OID: case INT4OID: case INT8OID: case FLOAT4OID: case FLOAT8OID:
    case NUMERICOID: case BOOLOID: case TEXTOID: case VARCHAROID:
      return nullptr;
    default:
      return psprintf("target \"%s\" is of type %s (numbers, booleans and text come back "
                      "from the shard servers)",
                      r->target, format_type_be(target_type));
  }
}

// Every partition of sc in partition order: a shard's rows from its
// server, a local partition's read and scored here.
void eval_on_shards(EvalSink* s, ShardScoring* sc, Oid target_type, const ReaderColumn* cols,
                    int ncols) {
  EvalRows* r = s->r;
  ShardEval e;
  memset(&e, 0, sizeof e);
  e.s = s;
  e.as_text = s->classes->kind == ValKind::kNone;
  if (!e.as_text) {
    Oid in;
    getTypeInputInfo(target_type, &in, &e.ioparam);
    fmgr_info(in, &e.in);
  }
  e.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt shard row", ALLOCSET_SMALL_SIZES);
  if (r->stream) e.o = (double*)palloc(sizeof(double) * (size_t)r->K);
  shard_scoring_start(sc, r->stream ? proba_sql : value_sql, nullptr);
  for (int i = 0; i < sc->n; i++) {
    if (sc->parts[i].shard < 0) {
      read_relation(open_rel_info(sc->parts[i].relid), cols, ncols, eval_row, s, true);
      eval_flush(s);  // its predictions stored before the next partition's rows
      continue;
    }
    shard_scoring_read(sc, i, r->stream ? shard_proba_row : shard_value_row, &e);
    if (e.k != 0)
      ereport(ERROR, (errcode(ERRCODE_PROTOCOL_VIOLATION),
                      errmsg("%s: a row's class probabilities ended early",
                             sc->group->s[sc->parts[i].shard].label)));
  }
  shard_scoring_end(sc);
  MemoryContextDelete(e.row_cxt);
}

uint64_t* zeroed_counts(size_t k) { return (uint64_t*)palloc_extended(sizeof(uint64_t) * k, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO); }

}  // namespace

void read_eval_rows(FunctionCallInfo fcinfo, Oid relid, const char* target, bool with_upper,
                    bool with_confusion, EvalRows* r) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  read_eval_rows_of(m, get_call_cache(fcinfo)->categories, relid, target, with_upper, with_confusion, r);
}

void read_eval_rows_of(const gbdt::Model* m, const ModelCategories* mc, Oid relid, const char* target, bool with_upper,
                       bool with_confusion, EvalRows* r) {
  r->model = m;
  r->target = target;
  RelInfo* rel = open_rel_info(relid);
  r->rel = rel;
  TargetClasses* classes = (TargetClasses*)palloc0(sizeof(TargetClasses));
  *classes = TargetClasses();
  target_classes_for_model(rel, target, m, classes);
  int nf = m->n_features();
  ScoringLayout* layout = scoring_layout(rel, m->feature_names, mc, nullptr, nullptr, nullptr);
  ValKind upper_kind = ValKind::kNone;
  const char* upper_column = with_upper ? upper_bound_column(rel, m, &upper_kind) : nullptr;
  r->upper_column = upper_column;
  const int ncols = layout->ncols + 1 + (upper_column != nullptr ? 1 : 0);
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * ncols);
  cols[0] = ReaderColumn{target, classes->kind, true, true};
  memcpy(cols + 1, layout->cols, sizeof(ReaderColumn) * layout->ncols);
  if (upper_column != nullptr)
    cols[ncols - 1] = ReaderColumn{upper_column, upper_kind, false, false};

  EvalSink s;
  memset(&s, 0, sizeof(s));
  s.r = r;
  s.classes = classes;
  s.layout = layout;
  s.nf = nf;
  r->K = m->num_output_group > 0 ? m->num_output_group : 1;
  r->stream = gbdt::objective_info(m->objective).multiclass;
  // several quantiles keep K predictions per row.
  const bool multi_quantile = m->objective == gbdt::Objective::kQuantile;
  if (!r->stream && r->K != 1 && !multi_quantile)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("%s: objective %s with %d outputs is not supported", r->fn,
                           model_objective_name(m), r->K)));
  size_t xbytes = sizeof(float) * (size_t)(nf > 0 ? nf : 1);
  s.bcap = std::min(batch_rows(nf), budget_rows(r->K, xbytes + sizeof(float)));
  s.x = (float*)palloc_extended(xbytes * s.bcap, MCXT_ALLOC_HUGE);
  if (r->stream) {
    s.blabels = (float*)palloc_extended(sizeof(float) * s.bcap, MCXT_ALLOC_HUGE);
    s.out = (double*)palloc_extended(sizeof(double) * s.bcap * (size_t)r->K, MCXT_ALLOC_HUGE);
    r->class_tp = zeroed_counts(r->K);
    r->class_actual = zeroed_counts(r->K);
    r->class_predicted = zeroed_counts(r->K);
    if (with_confusion) {
      if (r->K > kMaxConfusionClasses)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("gbdt_confusion_matrix: the model has %d classes; at most %d "
                               "are supported",
                               r->K, kMaxConfusionClasses)));
      r->confusion = zeroed_counts((size_t)r->K * r->K);
    }
  } else {
    s.cap = 16384;
    r->labels = (float*)palloc_extended(sizeof(float) * s.cap, MCXT_ALLOC_HUGE);
    r->preds = (double*)palloc_extended(sizeof(double) * s.cap * (size_t)r->K, MCXT_ALLOC_HUGE);
    if (upper_column != nullptr) {
      r->upper = (float*)palloc_extended(sizeof(float) * s.cap, MCXT_ALLOC_HUGE);
      s.upper_col = ncols - 1;
    }
  }

  // A partitioned table of postgres_fdw partitions: scored where its rows live.
  const Oid target_type = find_column(rel, target)->atttypid;
  ShardScoring* sc = shard_scoring_plan(rel, m, layout, target, shard_eval_refusal(r, target_type));
  if (sc != nullptr)
    eval_on_shards(&s, sc, target_type, cols, ncols);
  else
    read_relation(rel, cols, ncols, eval_row, &s, true);
  eval_flush(&s);
  if (r->n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("relation \"%s\" has no rows with a non-NULL target \"%s\"", rel->name,
                           target)));
  if (!r->stream) check_no_nan_predictions(r);
  pfree(s.x);
}

}  // namespace gbdt_pg
