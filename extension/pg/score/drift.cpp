// gbdt_drift(model, relation)
//   -> TABLE(feature text, psi float8, ks float8, missing_rate_train float8,
//            missing_rate_now float8, unseen_category_rate float8)
//
// The rows of the relation against the model's training rows, on the
// model's own bins (metric/drift.h): one pass over the relation, read in
// batches bounded by work_mem as scoring reads them (privileges checked
// by the reader, cancel polled per row by it and between the engine's
// steps); each batch is predicted and binned on the engine's threads.  One
// row per feature and one row 'prediction', by PSI descending.  NULL
// columns: the missing rates of the prediction row, the unseen category
// rate of numeric features and of the prediction.  A model without a
// training distribution (imported, or trained before 0.3) is an error
// saying so; a relation lacking model features is an error naming them all.
#include <algorithm>
#include <cstring>
#include <vector>

#include "guard.h"
#include "model/model_type.h"
#include "read/array_features.h"
#include "read/relation_reader.h"
#include "read/scoring_layout.h"
#include "score/scoring.h"

#include "gbdt/evaluate.h"
#include "gbdt/model.h"
#include "gbdt/predict.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_drift);
}

namespace gbdt_pg {
namespace {

struct DriftSink {
  const gbdt::Model* m;
  ScoringLayout* layout;
  gbdt::DriftCounts counts;  // arrays in palloc'd memory
  int nf, K;
  float* x;      // batch rows x nf
  double* out;   // batch rows x K
  size_t bn, bcap;
};

void drift_flush(DriftSink* s) {
  if (s->bn == 0) return;
  const int nthread = scoring_threads();
  run_engine([&] {
    gbdt::predict_batch(*s->m, s->x, s->bn, s->out, nthread, cancel_callback());
    gbdt::add_drift_rows(*s->m, s->x, s->out, s->bn, nthread, &s->counts);
  });
  s->bn = 0;
}

void drift_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  DriftSink* s = (DriftSink*)arg;
  scoring_row(s->layout, slot, vals, nulls, 0, s->x + s->bn * (size_t)s->nf);
  if (++s->bn == s->bcap) drift_flush(s);
}

// Every model feature the relation has no column for (a feature "emb[i]"
// may be element i of array column emb), named at once.
void check_features_present(const RelInfo* rel, const gbdt::Model* m) {
  StringInfoData missing;
  initStringInfo(&missing);
  int n_missing = 0;
  for (const std::string& f : m->feature_names) {
    const char* name = model_to_server_string(f.c_str());
    if (find_column(rel, name) != nullptr) continue;
    char* base = nullptr;
    int index = 0;
    if (parse_element_name(name, &base, &index) && find_column(rel, base) != nullptr) continue;
    appendStringInfo(&missing, "%s\"%s\"", n_missing ? ", " : "", name);
    ++n_missing;
  }
  if (n_missing > 0)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("gbdt_drift: relation \"%s\" lacks %d feature column%s of the model: %s",
                           rel->name, n_missing, n_missing == 1 ? "" : "s", missing.data)));
}

// One output row, in PostgreSQL memory (the engine's DriftRow holds a
// std::string).
struct OutRow {
  char* feature;
  double psi, ks, missing_rate_train, missing_rate_now, unseen_category_rate;
  bool has_missing, has_unseen;
};

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_drift(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  if (m->training_dist.empty())
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("gbdt_drift: the model holds no training distribution"),
                    errdetail("Models imported from XGBoost (no training rows) and models "
                              "trained before gbdt 0.3 (model format version below 4) do not "
                              "store their training rows' bin counts."),
                    errhint("Retrain the model with gbdt_train (or gbdt_retrain) to compare "
                            "live rows with its training rows.")));
  RelInfo* rel = open_rel_info(PG_GETARG_OID(1));
  check_features_present(rel, m);
  DriftSink s;
  memset((void*)&s, 0, sizeof(s));
  s.m = m;
  s.nf = m->n_features();
  s.K = m->num_output_group > 0 ? m->num_output_group : 1;
  s.layout = scoring_layout(rel, m->feature_names, get_call_cache(fcinfo)->categories, nullptr,
                            nullptr, nullptr);
  const size_t xbytes = sizeof(float) * (size_t)(s.nf > 0 ? s.nf : 1);
  s.bcap = std::min(batch_rows(s.nf), budget_rows(s.K, xbytes));
  s.x = (float*)palloc_extended(xbytes * s.bcap, MCXT_ALLOC_HUGE);
  s.out = (double*)palloc_extended(sizeof(double) * s.bcap * (size_t)s.K, MCXT_ALLOC_HUGE);
  const int zero = MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO;
  s.counts.bin_counts = (uint64_t*)palloc_extended(sizeof(uint64_t) * m->cuts.total_hist_bins(), zero);
  s.counts.unseen = (uint64_t*)palloc_extended(sizeof(uint64_t) * (size_t)(s.nf + 1), zero);
  s.counts.pred_counts =
      (uint64_t*)palloc_extended(sizeof(uint64_t) * m->training_dist.pred_counts.size(), zero);

  read_relation(rel, s.layout->cols, s.layout->ncols, drift_row, &s, true);
  drift_flush(&s);
  if (s.counts.rows == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("gbdt_drift: relation \"%s\" has no rows", rel->name)));

  // The report is copied into palloc'd memory inside the engine call, so
  // nothing of C++ outlives it.
  const size_t nrows = (size_t)s.nf + 1;
  OutRow* rows = (OutRow*)palloc0(sizeof(OutRow) * nrows);
  run_engine([&] {
    const std::vector<gbdt::DriftRow> rep = gbdt::drift_report(*m, s.counts);
    for (size_t i = 0; i < rep.size() && i < nrows; ++i) {
      rows[i].feature = pstrdup_nothrow(rep[i].feature);
      rows[i].psi = rep[i].psi;
      rows[i].ks = rep[i].ks;
      rows[i].has_missing = rep[i].has_missing;
      rows[i].missing_rate_train = rep[i].missing_rate_train;
      rows[i].missing_rate_now = rep[i].missing_rate_now;
      rows[i].has_unseen = rep[i].has_unseen;
      rows[i].unseen_category_rate = rep[i].unseen_category_rate;
    }
  });

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum values[6];
  bool nulls[6];
  for (size_t i = 0; i < nrows; ++i) {
    const OutRow& o = rows[i];
    if (o.feature == nullptr) continue;
    memset(nulls, 0, sizeof(nulls));
    values[0] = CStringGetTextDatum(model_to_server_string(o.feature));
    values[1] = Float8GetDatum(o.psi);
    values[2] = Float8GetDatum(o.ks);
    values[3] = Float8GetDatum(o.missing_rate_train);
    values[4] = Float8GetDatum(o.missing_rate_now);
    values[5] = Float8GetDatum(o.unseen_category_rate);
    nulls[3] = nulls[4] = !o.has_missing;
    nulls[5] = !o.has_unseen;
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  return (Datum)0;
}
