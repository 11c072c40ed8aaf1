// Explaining the rows of a relation: gbdt_explain_table(model, relation,
// key) and gbdt_feature_importance(model, 'shap', relation).
//
// The relation is read as gbdt_predict_table's general path reads it
// (read_relation: the caller's privileges, row-level security, views; the
// key as (key)::text) in batches bounded by work_mem; each batch is
// explained on the engine's thread pool (one row per task, the calling
// thread working too and polling the cancel callback as TreeShap counts
// the nodes it visits, the workers checking the stop flag at the same
// points and stopping within a few thousand node visits once it fires),
// then written to the tuplestore (which respects work_mem) or folded into
// the mean |SHAP|.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "model/model_type.h"
#include "read/relation_reader.h"
#include "score/explain_shards.h"
#include "score/explain_value.h"
#include "score/partition_table.h"
#include "score/predict_shards.h"
#include "score/scoring.h"
#include "read/scoring_layout.h"

#include "gbdt/model.h"
#include "gbdt/threads.h"
#include "gbdt/explain.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_explain_table);
PG_FUNCTION_INFO_V1(gbdt_feature_importance_shap);
}

namespace gbdt_pg {
namespace {

// The engine side: C++ objects, created and destroyed inside run_engine
// or in drop_engine.
struct Engine {
  gbdt::TreeShap ts;
  gbdt::ThreadPool pool;
  std::vector<gbdt::TreeShap::Scratch> scratch;
  std::atomic<bool> stop{false};
  Engine(const gbdt::Model& m, int nthread)
      : ts(m, cancel_callback()), pool(nthread), scratch((size_t)std::max(1, nthread)) {}
};

struct Sink {
  const gbdt::Model* model;
  Engine* eng;
  int nf, K, W;
  ScoringLayout* layout;  // array columns expanded
  size_t cap, n;
  float* x;           // cap x nf
  double* phi;        // cap x K x W
  Datum* keys;        // cap
  bool* key_nulls;    // cap
  MemoryContext cxt;  // keys of the batch
  // gbdt_explain_table
  Tuplestorestate* store;
  TupleDesc desc;
  Datum* names;       // W feature names as text, 'bias' last
  int top_k;          // < 0: every feature; else the k of largest |contribution|
  int* order;         // W entries, the features written for one (row, class)
  // value_text (a declaration with that column): per feature the reader
  // column of its own column's text, or -1 (an array element, an absent
  // column: the value as read, feature_value_text); per row and feature
  // the text (in cxt) and its null flag.
  bool want_text;
  int* text_col;      // nf
  Datum* texts;       // cap x nf
  bool* text_nulls;   // cap x nf
  // gbdt_feature_importance: sum over rows of sum_k |phi[k][f]|
  double* abs_sum;    // nf, or NULL
  uint64 rows;
};

void drop_engine(Engine* e) noexcept {
  try {
    delete e;  // joins the workers
  } catch (...) {
  }
}

// The features to write for one (row, class) with contributions p (W of
// them, the bias last) into s->order; returns how many.  Every feature and
// the bias in feature order, or with top_k the k features of largest
// |contribution| (most first, ties by feature order, as gbdt_explain; a
// NaN contribution of a hostile model counts as the smallest) and the bias.
int written_features(Sink* s, const double* p) {
  const int nf = s->nf;
  for (int f = 0; f < s->W; f++) s->order[f] = f;
  if (s->top_k < 0) return s->W;
  auto size = [p](int f) { return std::isnan(p[f]) ? -1.0 : std::fabs(p[f]); };
  std::sort(s->order, s->order + nf, [&](int a, int b) {
    const double x = size(a), y = size(b);
    return x != y ? x > y : a < b;
  });
  const int shown = std::min(s->top_k, nf);
  s->order[shown] = nf;  // the bias, always
  return shown + 1;
}

// Explains the rows of the batch, then writes them out or sums them.
void flush(Sink* s) {
  if (s->n == 0) return;
  Engine* e = s->eng;
  const size_t n = s->n, nf = (size_t)s->nf, KW = (size_t)s->K * s->W;
  float* x = s->x;
  double* phi = s->phi;
  run_engine([&] {
    e->stop.store(false);
    const gbdt::CancelFn caller = [e] {
      if (e->stop.load(std::memory_order_relaxed)) return true;
      if (!interrupt_pending()) return false;
      e->stop.store(true);
      return true;
    };
    const gbdt::CancelFn worker = [e] { return e->stop.load(std::memory_order_relaxed); };
    e->pool.run(n, [&](size_t r, int tid) {
      try {
        e->ts.contributions(x + r * nf, phi + r * KW, e->scratch[(size_t)tid],
                            tid == 0 ? caller : worker);
      } catch (...) {
        e->stop.store(true);  // the others stop at their next check
        throw;
      }
    });
  });
  if (s->abs_sum != nullptr) {
    for (size_t r = 0; r < n; r++)
      for (int k = 0; k < s->K; k++)
        for (size_t f = 0; f < nf; f++) s->abs_sum[f] += std::fabs(phi[r * KW + k * s->W + f]);
    s->rows += n;
  } else {
    Datum values[5];
    bool nulls[5] = {false, false, false, false, true};
    const gbdt::Model* m = s->model;
    uint64 emitted = 0;
    for (size_t r = 0; r < n; r++) {
      values[0] = s->keys[r];
      nulls[0] = s->key_nulls[r];
      for (int k = 0; k < s->K; k++) {
        nulls[3] = m->num_output_group <= 1;
        values[3] = nulls[3] ? (Datum)0
                             : Float8GetDatum(k < (int)m->class_labels.size() ? m->class_labels[k]
                                                                              : (double)k);
        const double* p = phi + r * KW + (size_t)k * s->W;
        const int shown = written_features(s, p);
        for (int i = 0; i < shown; i++) {
          const int f = s->order[i];
          values[1] = s->names[f];
          values[2] = Float8GetDatum(p[f]);
          if (s->want_text) {
            // NULL for the bias and for a NULL value.
            nulls[4] = f >= s->nf || s->text_nulls[r * nf + f];
            values[4] = nulls[4] ? (Datum)0 : s->texts[r * nf + f];
          }
          tuplestore_putvalues(s->store, s->desc, values, nulls);
          if ((++emitted & 4095) == 0) CHECK_FOR_INTERRUPTS();
        }
      }
    }
  }
  s->n = 0;
  MemoryContextReset(s->cxt);
}

void reader_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  Sink* s = (Sink*)arg;
  const size_t i = s->n;
  scoring_row(s->layout, slot, vals, nulls, 1, s->x + i * s->nf);
  s->key_nulls[i] = nulls[0];
  s->keys[i] = (Datum)0;
  if (!nulls[0] && s->abs_sum == nullptr) {
    // Already (key)::text; copied.
    MemoryContext old = MemoryContextSwitchTo(s->cxt);
    s->keys[i] = datumCopy(slot->tts_values[0], false, -1);
    MemoryContextSwitchTo(old);
  }
  if (s->want_text) {
    MemoryContext old = MemoryContextSwitchTo(s->cxt);
    const float* x = s->x + i * s->nf;
    for (int f = 0; f < s->nf; f++) {
      const int c = s->text_col[f];
      Datum* t = &s->texts[i * s->nf + f];
      bool* tn = &s->text_nulls[i * s->nf + f];
      if (c < 0) {
        *t = feature_value_text(s->model, f, x[f], tn);
      } else {
        // Already (column)::text; copied.
        *tn = nulls[c];
        *t = *tn ? (Datum)0 : datumCopy(slot->tts_values[c], false, -1);
      }
    }
    MemoryContextSwitchTo(old);
  }
  s->n++;
  if (s->n == s->cap) flush(s);
}

// Reads the relation (with the key column when key != NULL) and explains
// every row into s (whose output fields the caller has set).
void explain_relation(Sink* s, const gbdt::Model* m, const ModelCategories* mc, Oid relid,
                      const char* key) {
  RelInfo* rel = open_rel_info(relid);
  const int nf = m->n_features();
  if (key != nullptr && find_column(rel, key) == nullptr) report_missing_column(rel, key);
  ScoringLayout* layout = scoring_layout(rel, m->feature_names, mc, nullptr, nullptr, nullptr);
  // With value_text, each feature of a column of its own is read a second
  // time as text, after the model's columns.
  int ncols = layout->ncols + 1;
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * (ncols + (s->want_text ? nf : 0)));
  memcpy(cols + 1, layout->cols, sizeof(ReaderColumn) * layout->ncols);
  if (s->want_text) {
    s->text_col = (int*)palloc(sizeof(int) * (nf > 0 ? nf : 1));
    for (int f = 0; f < nf; f++) {
      s->text_col[f] = -1;
      const int c = layout->col_of[f];
      if (c < 0 || layout->elem[f] > 0) continue;
      cols[ncols] = ReaderColumn{layout->cols[c].name, ValKind::kNone, false, false};
      s->text_col[f] = ncols++;
    }
  }
  if (key != nullptr) {
    cols[0] = ReaderColumn{key, ValKind::kNone, false, false};
  } else {
    // The reader hands column 0 as the key: read the first feature's
    // column twice rather than special-case the row callback.
    cols[0] = layout->ncols > 0 ? cols[1] : ReaderColumn{nullptr, ValKind::kNone, false, false};
  }
  s->layout = layout;
  s->model = m;
  s->nf = nf;
  s->K = m->num_output_group > 0 ? m->num_output_group : 1;
  s->W = nf + 1;
  // Memory: K x W doubles of contributions, nf floats and a key per row
  // (and with value_text nf texts, counted at 32 bytes each).
  const size_t text_bytes = s->want_text ? (sizeof(Datum) + sizeof(bool) + 32) * (size_t)nf : 0;
  s->cap = std::min<size_t>(1024, budget_rows(s->K * s->W, sizeof(float) * nf + 64 + text_bytes));
  s->x = (float*)palloc(sizeof(float) * s->cap * (nf > 0 ? nf : 1));
  s->phi = (double*)palloc(sizeof(double) * s->cap * s->K * s->W);
  s->keys = (Datum*)palloc(sizeof(Datum) * s->cap);
  s->key_nulls = (bool*)palloc(sizeof(bool) * s->cap);
  if (s->want_text) {
    s->texts = (Datum*)palloc(sizeof(Datum) * s->cap * (nf > 0 ? nf : 1));
    s->text_nulls = (bool*)palloc(sizeof(bool) * s->cap * (nf > 0 ? nf : 1));
  }
  s->cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt explain batch",
                                 ALLOCSET_DEFAULT_SIZES);
  const int nthread = scoring_threads();
  run_engine([&] { s->eng = new Engine(*m, nthread); });
  PG_TRY();
  {
    if (nf == 0 && key == nullptr) {
      // No feature to read: nothing to explain.
    } else {
      read_relation(rel, cols, ncols, reader_row, s, true);
    }
    flush(s);
  }
  PG_CATCH();
  {
    drop_engine(s->eng);  // stops and joins the workers before any buffer goes away
    s->eng = nullptr;
    PG_RE_THROW();
  }
  PG_END_TRY();
  drop_engine(s->eng);
  s->eng = nullptr;
  MemoryContextDelete(s->cxt);
}

// gbdt_explain_table's rows of one relation (the one called with, or a
// local partition of a parent explained on its shards).
struct LocalExplain {
  Sink* s;
  const gbdt::Model* m;
  const ModelCategories* mc;
  const char* key;
};

void explain_local_relation(void* arg, Oid relid) {
  const LocalExplain* e = (const LocalExplain*)arg;
  explain_relation(e->s, e->m, e->mc, relid, e->key);
}

// A partitioned table of postgres_fdw partitions: explained where its rows
// live (explain_shards.h); false when it is read here.
bool explained_on_shards(LocalExplain* e, Oid relid) {
  RelInfo* rel = open_rel_info(relid);
  if (rel->relkind != RELKIND_PARTITIONED_TABLE) return false;  // before the layout's work
  Form_pg_attribute key_attr = find_column(rel, e->key);
  if (key_attr == nullptr) report_missing_column(rel, e->key);
  ScoringLayout* layout = scoring_layout(rel, e->m->feature_names, e->mc, nullptr, nullptr, nullptr);
  ShardScoring* sc = shard_scoring_plan(rel, e->m, layout, e->key,
                                        predict_key_refusal(e->key, key_attr->atttypid));
  if (sc == nullptr) return false;
  Oid* types = (Oid*)palloc(sizeof(Oid) * (layout->nf > 0 ? layout->nf : 1));
  for (int f = 0; f < layout->nf; f++) types[f] = find_column(rel, layout->cols[f].name)->atttypid;
  ExplainShardsOut out{e->s->store, e->s->desc, key_attr->atttypid, layout, types, e->s->names,
                       e->s->top_k};
  explain_on_shards(sc, &out, explain_local_relation, e);
  return true;
}

struct ImpEntry {
  int feature;
  double value;
};

int cmp_importance(const void* a, const void* b) {
  const ImpEntry* x = (const ImpEntry*)a;
  const ImpEntry* y = (const ImpEntry*)b;
  if (x->value != y->value) return x->value > y->value ? -1 : 1;
  return x->feature - y->feature;
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

// gbdt_explain_table(model gbdt_model, relation regclass, key text
//                    [, top_k int])
//   -> TABLE(key text, feature text, contribution float8, class float8,
//            value_text text)
// gbdt_explain for every row of the relation: one row per (row, class,
// feature) with the value as the row has it (its column as text; an array
// element or absent column: the value as read; NULL for a NULL value and
// for the bias) and a 'bias' row per (row, class);
// top_k (the four-argument form, not strict): only the k features of
// largest |contribution| per (row, class), most first, and the bias; NULL
// top_k = every feature; NULL model, relation or key: no rows.
Datum gbdt_explain_table(PG_FUNCTION_ARGS) {
  int top_k = -1;
  if (PG_NARGS() >= 4) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2)) {
      InitMaterializedSRF(fcinfo, 0);
      return (Datum)0;
    }
    if (!PG_ARGISNULL(3)) {
      top_k = PG_GETARG_INT32(3);
      if (top_k < 0)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("gbdt_explain_table: top_k must be at least 0, got %d", top_k)));
    }
  }
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  if (m->partitions != nullptr) return partition_explain_table(fcinfo, m, top_k);  // partition_table.h
  Oid relid = PG_GETARG_OID(1);
  char* key = text_to_cstring(PG_GETARG_TEXT_PP(2));
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Sink* s = (Sink*)palloc0(sizeof(Sink));
  s->store = rsinfo->setResult;
  s->desc = rsinfo->setDesc;
  const int nf = m->n_features();
  s->names = (Datum*)palloc(sizeof(Datum) * (nf + 1));
  for (int f = 0; f < nf; f++)
    s->names[f] = PointerGetDatum(cstring_to_text(model_to_server_string(m->feature_names[f].c_str())));
  s->names[nf] = CStringGetTextDatum("bias");
  s->top_k = top_k;
  // The 0.2 declaration has no value_text column (the library serves both
  // until ALTER EXTENSION UPDATE).
  s->want_text = s->desc->natts >= 5;
  s->order = (int*)palloc(sizeof(int) * (nf + 1));
  LocalExplain local{s, m, get_call_cache(fcinfo)->categories, key};
  if (!explained_on_shards(&local, relid)) explain_local_relation(&local, relid);
  return (Datum)0;
}

// gbdt_feature_importance(model gbdt_model, kind text, relation regclass)
//   -> TABLE(feature text, importance float8), most important first
// kind 'shap': the mean over the relation's rows of |contribution| (summed
// over the classes of a multiclass model); NULL when the relation is empty.
Datum gbdt_feature_importance_shap(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  char* kind = text_to_cstring(PG_GETARG_TEXT_PP(1));
  if (strcmp(kind, "shap") != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("unknown feature importance kind \"%s\" with a relation", kind),
                    errhint("With a relation the kind is 'shap'; gain, total_gain, weight, "
                            "cover and total_cover take no relation.")));
  Oid relid = PG_GETARG_OID(2);
  const int nf = m->n_features();
  Sink* s = (Sink*)palloc0(sizeof(Sink));
  s->abs_sum = (double*)palloc0(sizeof(double) * (nf > 0 ? nf : 1));
  explain_relation(s, m, get_call_cache(fcinfo)->categories, relid, nullptr);

  ImpEntry* e = (ImpEntry*)palloc(sizeof(ImpEntry) * (nf > 0 ? nf : 1));
  for (int f = 0; f < nf; f++)
    e[f] = ImpEntry{f, s->rows > 0 ? s->abs_sum[f] / (double)s->rows : 0.0};
  qsort(e, nf, sizeof(ImpEntry), cmp_importance);
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum values[2];
  bool nulls[2] = {false, s->rows == 0};
  for (int i = 0; i < nf; i++) {
    values[0] = PointerGetDatum(
        cstring_to_text(model_to_server_string(m->feature_names[e[i].feature].c_str())));
    values[1] = Float8GetDatum(e[i].value);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  return (Datum)0;
}
