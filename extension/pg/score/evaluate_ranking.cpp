// gbdt_evaluate(model gbdt_model, relation regclass, target text,
//               group_column text [, weight_column text]) -> jsonb
// Ranking metrics of a model on the rows of a relation, per query group
// (the group column's values, any type, compared as text): ndcg, ndcg@k,
// map, map@k, pre@k for k in 1, 3, 5, 10, and the model's own eval metric.
// weight_column (XGBoost's group weights): one weight per query group,
// every row of a group carrying it (finite, >= 0, not NULL); each metric is
// then sum(w_g * metric_g) / sum(w_g) as XGBoost's (gbdt::rank_metric).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "guard.h"
#include "model/model_type.h"
#include "read/relation_reader.h"
#include "score/scoring.h"
#include "read/scoring_layout.h"
#include "train/train_groups.h"

#include "gbdt/explain.h"
#include "gbdt/model.h"
#include "gbdt/predict.h"
#include "gbdt/evaluate.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_evaluate_ranking);
}

namespace gbdt_pg {
namespace {

struct RankEvalSink {
  const gbdt::Model* model;
  int nf;
  ScoringLayout* layout;  // array columns expanded
  GroupCoder* groups;
  float* labels;   // cap
  double* preds;   // cap
  float* weights;  // cap; null without a weight column
  int weight_col;  // reader index of the weight column
  const char* weight_column;
  size_t n, cap;
  float* x;        // batch rows x nf
  size_t bn, bcap;
  uint64 skipped;
};

void rank_eval_flush(RankEvalSink* s) {
  if (s->bn == 0) return;
  const gbdt::Model* m = s->model;
  const float* x = s->x;
  size_t bn = s->bn;
  double* out = s->preds + (s->n - s->bn);
  int nthread = scoring_threads();
  run_engine([&] { gbdt::predict_batch(*m, x, bn, out, nthread, cancel_callback()); });
  s->bn = 0;
}

void rank_eval_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  RankEvalSink* s = (RankEvalSink*)arg;
  if (nulls[0] || std::isnan(vals[0])) {
    s->skipped++;
    return;
  }
  const int gc = s->layout->ncols + 1;
  group_coder_add(s->groups, slot->tts_values[gc], nulls[gc]);
  if (s->n == s->cap) {
    size_t cap = s->cap * 2;
    s->labels = (float*)repalloc_huge(s->labels, sizeof(float) * cap);
    s->preds = (double*)repalloc_huge(s->preds, sizeof(double) * cap);
    if (s->weights != nullptr) s->weights = (float*)repalloc_huge(s->weights, sizeof(float) * cap);
    s->cap = cap;
  }
  if (s->weights != nullptr) {
    const float w = vals[s->weight_col];
    if (nulls[s->weight_col])
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("weight column \"%s\" contains NULL", s->weight_column),
                      errhint("Every row with a target needs its query group's weight >= 0.")));
    if (!(w >= 0) || !std::isfinite(w))
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight column \"%s\" contains %g: weights must be finite and >= 0",
                             s->weight_column, (double)w)));
    s->weights[s->n] = w;
  }
  s->labels[s->n++] = vals[0];
  scoring_row(s->layout, slot, vals, nulls, 1, s->x + s->bn * s->nf);
  s->bn++;
  if (s->bn == s->bcap) rank_eval_flush(s);
}

bool model_param_true(const gbdt::Model* m, const char* key, bool dflt) {
  for (const auto& kv : m->params)
    if (kv.first == key) return kv.second == "true" || kv.second == "1";
  return dflt;
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_evaluate_ranking(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  Oid relid = PG_GETARG_OID(1);
  char* target = text_to_cstring(PG_GETARG_TEXT_PP(2));
  char* group = text_to_cstring(PG_GETARG_TEXT_PP(3));
  // The 5-argument form (STRICT: a NULL weight column gives NULL).
  char* weight = PG_NARGS() > 4 ? text_to_cstring(PG_GETARG_TEXT_PP(4)) : nullptr;
  if (m->num_output_group != 1)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("gbdt_evaluate with group_column needs a single-output model, not "
                           "objective %s",
                           model_objective_name(m))));

  RelInfo* rel = open_rel_info(relid);
  ValKind tkind = require_numeric_column(rel, target, "target");
  if (find_column(rel, group) == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("group_column \"%s\" is not a column of relation \"%s\"", group,
                           rel->name)));
  ValKind wkind = ValKind::kNone;
  if (weight != nullptr) {
    if (strcmp(weight, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight_column \"%s\" is the target", weight)));
    if (strcmp(weight, group) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight_column \"%s\" is the group_column", weight)));
    wkind = require_numeric_column(rel, weight, "weight");
  }
  int nf = m->n_features();
  ScoringLayout* layout =
      scoring_layout(rel, m->feature_names, get_call_cache(fcinfo)->categories, nullptr, nullptr,
                     nullptr);
  const int ncols = layout->ncols + 2 + (weight != nullptr ? 1 : 0);
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * ncols);
  cols[0] = ReaderColumn{target, tkind, true, true};
  memcpy(cols + 1, layout->cols, sizeof(ReaderColumn) * layout->ncols);
  cols[layout->ncols + 1] = ReaderColumn{group, ValKind::kNone, false, false};
  if (weight != nullptr) cols[layout->ncols + 2] = ReaderColumn{weight, wkind, false, false};

  MemoryContext cxt =
      AllocSetContextCreate(CurrentMemoryContext, "gbdt evaluate ranking", ALLOCSET_DEFAULT_SIZES);
  RankEvalSink s;
  memset(&s, 0, sizeof(s));
  s.model = m;
  s.nf = nf;
  s.layout = layout;
  s.groups = group_coder_create(cxt, group);
  size_t xbytes = sizeof(float) * (size_t)(nf > 0 ? nf : 1);
  s.bcap = std::min(batch_rows(nf), budget_rows(1, xbytes + sizeof(float)));
  s.x = (float*)MemoryContextAllocHuge(cxt, xbytes * s.bcap);
  s.cap = 16384;
  s.labels = (float*)MemoryContextAllocHuge(cxt, sizeof(float) * s.cap);
  s.preds = (double*)MemoryContextAllocHuge(cxt, sizeof(double) * s.cap);
  if (weight != nullptr) {
    s.weights = (float*)MemoryContextAllocHuge(cxt, sizeof(float) * s.cap);
    s.weight_col = layout->ncols + 2;
    s.weight_column = weight;
  }

  read_relation(rel, cols, ncols, rank_eval_row, &s, true);
  rank_eval_flush(&s);
  if (s.n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("relation \"%s\" has no rows with a non-NULL target \"%s\"", rel->name,
                           target)));
  for (size_t i = 0; i < s.n; i++)
    if (std::isnan(s.preds[i]))
      ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                      errmsg("gbdt_evaluate: the model predicts NaN for rows of relation \"%s\"; "
                             "its ranking metrics are undefined",
                             rel->name)));
  for (size_t i = 0; i < s.n; i++)
    if (s.labels[i] < 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("target column \"%s\" has value %g: relevance labels must be >= 0",
                             target, (double)s.labels[i])));

  const bool exp_gain = model_param_true(m, "ndcg_exp_gain", true);
  if (exp_gain)
    for (size_t i = 0; i < s.n; i++)
      if (s.labels[i] != std::floor(s.labels[i]) || s.labels[i] > 31)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("target column \"%s\" has value %g: NDCG with exponential gain "
                               "needs relevance degrees 0, 1, ..., 31",
                               target, (double)s.labels[i])));
  // One weight per query group (names the group and both weights otherwise).
  group_coder_check_weights(s.groups, s.weights, weight);
  const std::vector<uint32_t>* codes = &group_coder_codes(s.groups);
  char* json = nullptr;
  {
    const RankEvalSink* sp = &s;
    EngineError err;
    catch_engine(&err, [&] {
      const gbdt::QueryGroups q = gbdt::make_query_groups(codes->data(), sp->n);
      std::vector<std::string> names = {"ndcg", "ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10",
                                        "map",  "map@10", "pre@1",  "pre@5",  "pre@10"};
      // The model's own metrics (a comma-separated list since 0.2).
      for (const std::string& own : gbdt::split_metrics(sp->model->report.eval_metric))
        if (gbdt::is_rank_metric(own) &&
            std::find(names.begin(), names.end(), own) == names.end())
          names.push_back(own);
      std::string out = "{\"rows\": " + std::to_string(sp->n) +
                        ", \"rows_skipped\": " + std::to_string(sp->skipped) +
                        ", \"groups\": " + std::to_string(q.size()) + ", \"objective\": " +
                        gbdt::json_escape(gbdt::objective_name(sp->model->objective));
      for (const std::string& nm : names)
        out += ", " + gbdt::json_escape(nm) + ": " +
               gbdt::json_number(
                   gbdt::rank_metric(nm, q, sp->preds, sp->labels, exp_gain, sp->weights));
      out += "}";
      json = pstrdup_nothrow(out);
    });
    if (err.kind != EngineErrKind::kNone) raise_engine_error(&err, default_style());
  }
  MemoryContextDelete(cxt);
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
