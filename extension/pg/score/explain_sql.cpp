// Explaining one row: gbdt_explain(model, row, top_k) and
// gbdt_explain_interactions(model, row), exact TreeSHAP (treeshap.h).
//
// The row is decoded as gbdt_predict decodes it (row_features: same
// column matching, same errors for a model/row mismatch).  For a
// single-output model the class column is NULL; for multi:softprob there
// is one set of rows per class, labelled with the class value.
#include <algorithm>
#include <cmath>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "model/model_type.h"
#include "score/explain_value.h"
#include "score/partition_route.h"
#include "score/scoring.h"

#include "gbdt/model.h"
#include "gbdt/explain.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_explain);
PG_FUNCTION_INFO_V1(gbdt_explain_interactions);
}

namespace gbdt_pg {
namespace {

// The class value of output group k (NULL for single-output models).
void class_datum(const gbdt::Model* m, int k, Datum* v, bool* isnull) {
  if (m->num_output_group <= 1) {
    *v = (Datum)0;
    *isnull = true;
    return;
  }
  *v = Float8GetDatum(k < (int)m->class_labels.size() ? m->class_labels[k] : (double)k);
  *isnull = false;
}

Datum feature_name(const gbdt::Model* m, int f) {
  if (f >= m->n_features()) return CStringGetTextDatum("bias");
  return PointerGetDatum(cstring_to_text(model_to_server_string(m->feature_names[f].c_str())));
}

// The row's columns, deformed once, to show each feature's value as the
// row has it (value_text).
struct RowText {
  TupleDesc desc;
  Datum* values;
  bool* nulls;
};

RowText row_text(HeapTupleHeader th) {
  RowText rt;
  rt.desc = lookup_rowtype_tupdesc_copy(HeapTupleHeaderGetTypeId(th), HeapTupleHeaderGetTypMod(th));
  rt.values = (Datum*)palloc(sizeof(Datum) * (rt.desc->natts > 0 ? rt.desc->natts : 1));
  rt.nulls = (bool*)palloc(sizeof(bool) * (rt.desc->natts > 0 ? rt.desc->natts : 1));
  HeapTupleData tmp;
  tmp.t_len = HeapTupleHeaderGetDatumLength(th);
  ItemPointerSetInvalid(&tmp.t_self);
  tmp.t_tableOid = InvalidOid;
  tmp.t_data = th;
  heap_deform_tuple(&tmp, rt.desc, rt.values, rt.nulls);
  return rt;
}

// value_text of feature f (x: the value as read): the text of the row's
// column of that name by its type's output function (category text,
// date/timestamp text, number as written), NULL when the value is NULL; a
// feature without a column of its name (an array element, an absent
// column) shows the value as read (feature_value_text).
Datum value_text(const RowText& rt, const gbdt::Model* m, int f, float x, bool* isnull) {
  const char* name = model_to_server_string(m->feature_names[f].c_str());
  for (int i = 0; i < rt.desc->natts; i++) {
    Form_pg_attribute a = TupleDescAttr(rt.desc, i);
    if (a->attisdropped || strcmp(NameStr(a->attname), name) != 0) continue;
    *isnull = rt.nulls[i];
    if (*isnull) return (Datum)0;
    Oid out;
    bool varlena;
    getTypeOutputInfo(a->atttypid, &out, &varlena);
    return CStringGetTextDatum(OidOutputFunctionCall(out, rt.values[i]));
  }
  return feature_value_text(m, f, x, isnull);
}

// The features of the row th for *m: a partitioned model's row goes to its
// key's sub-model (partition_route.h), which replaces *m.  Null when the
// key has no sub-model and the fallback is null.
const float* explained_row(FunctionCallInfo fcinfo, const gbdt::Model** m, HeapTupleHeader th) {
  if ((*m)->partitions == nullptr) return row_features(fcinfo, *m, th);
  CallCache* c = get_call_cache(fcinfo);
  PartitionRoute r;
  if (!partition_route(c, *m, th, &r)) return nullptr;
  *m = r.model;
  return row_features_in(c, r.slot, c->generation, r.categories, *m, th);
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

// gbdt_explain(model gbdt_model, "row" record, top_k int DEFAULT NULL)
//   -> TABLE(feature text, value float8, contribution float8, class float8,
//            value_text text)
// One row per feature (its value as read, NULL when missing; value_text:
// the value as the row has it, see value_text) and a 'bias' row (value and
// value_text NULL), per class; contributions and bias sum to the row's
// margin.
// top_k: only the k features of largest |contribution| per class (most
// first), plus the bias.  NULL model or row: no rows.
Datum gbdt_explain(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) {
    InitMaterializedSRF(fcinfo, 0);
    return (Datum)0;
  }
  int top_k = -1;
  if (!PG_ARGISNULL(2)) {
    top_k = PG_GETARG_INT32(2);
    if (top_k < 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("top_k must be at least 0, got %d", top_k)));
  }
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(1);
  const float* x = explained_row(fcinfo, &m, th);
  if (x == nullptr) {  // a partitioned model's unseen key with fallback null: no rows
    InitMaterializedSRF(fcinfo, 0);
    return (Datum)0;
  }
  const int nf = m->n_features();
  const int K = m->num_output_group > 0 ? m->num_output_group : 1;
  const int W = nf + 1;
  double* phi = (double*)palloc(sizeof(double) * (size_t)K * W);
  run_engine([&] {
    gbdt::TreeShap ts(*m, cancel_callback());
    gbdt::TreeShap::Scratch s;
    ts.contributions(x, phi, s, cancel_callback());
  });

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  // The 0.2 declaration has no value_text column (the library serves both
  // until ALTER EXTENSION UPDATE).
  const bool has_text = rsinfo->setDesc->natts >= 5;
  RowText rt{};
  if (has_text) rt = row_text(th);
  // Each feature's value_text, made on its first row (then shared by the
  // classes).
  Datum* texts = (Datum*)palloc(sizeof(Datum) * W);
  bool* text_nulls = (bool*)palloc(sizeof(bool) * W);
  bool* text_made = (bool*)palloc0(sizeof(bool) * W);
  int* order = (int*)palloc(sizeof(int) * W);
  Datum values[5];
  bool nulls[5];
  for (int k = 0; k < K; k++) {
    const double* p = phi + (size_t)k * W;
    int shown = nf;
    for (int f = 0; f < nf; f++) order[f] = f;
    if (top_k >= 0) {
      // Largest |contribution| first; ties by feature order.
      std::stable_sort(order, order + nf,
                       [p](int a, int b) { return std::fabs(p[a]) > std::fabs(p[b]); });
      shown = std::min(top_k, nf);
    }
    order[shown] = nf;  // the bias, always
    for (int i = 0; i <= shown; i++) {
      const int f = order[i];
      values[0] = feature_name(m, f);
      nulls[0] = false;
      nulls[1] = f >= nf || std::isnan(x[f]);
      values[1] = nulls[1] ? (Datum)0 : Float8GetDatum((double)x[f]);
      values[2] = Float8GetDatum(p[f]);
      nulls[2] = false;
      class_datum(m, k, &values[3], &nulls[3]);
      if (has_text && f < nf && !text_made[f]) {
        texts[f] = value_text(rt, m, f, x[f], &text_nulls[f]);
        text_made[f] = true;
      }
      nulls[4] = !(has_text && f < nf) || text_nulls[f];
      values[4] = nulls[4] ? (Datum)0 : texts[f];
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
      CHECK_FOR_INTERRUPTS();
    }
  }
  pfree(order);
  pfree(phi);
  return (Datum)0;
}

// gbdt_explain_interactions(model gbdt_model, "row" record)
//   -> TABLE(feature1 text, feature2 text, interaction float8, class float8)
// SHAP interaction values (XGBoost's pred_interactions): every pair of
// features plus the bias ('bias', 'bias'), per class; each feature's row
// sums to its contribution.  A partitioned model explains the row with its
// key's sub-model (no rows for an unseen key with fallback null).
Datum gbdt_explain_interactions(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(1);
  const float* x = explained_row(fcinfo, &m, th);
  if (x == nullptr) {  // a partitioned model's unseen key with fallback null: no rows
    InitMaterializedSRF(fcinfo, 0);
    return (Datum)0;
  }
  const int nf = m->n_features();
  const int K = m->num_output_group > 0 ? m->num_output_group : 1;
  const size_t W = (size_t)nf + 1;
  // K x W x W doubles: refuse beyond work_mem rather than allocate.
  if ((double)K * W * W * sizeof(double) > (double)work_mem * 1024.0)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("interaction values of %d features x %d classes need %.0f kB, more "
                           "than work_mem (%d kB)",
                           nf, K, (double)K * W * W * sizeof(double) / 1024.0, work_mem),
                    errhint("Raise work_mem for this query.")));
  double* out = (double*)palloc(sizeof(double) * (size_t)K * W * W);
  run_engine([&] {
    gbdt::TreeShap ts(*m, cancel_callback());
    gbdt::TreeShap::Scratch s;
    ts.interactions(x, out, s, cancel_callback());
  });

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum* names = (Datum*)palloc(sizeof(Datum) * W);
  for (size_t f = 0; f < W; f++) names[f] = feature_name(m, (int)f);
  Datum values[4];
  bool nulls[4] = {false, false, false, false};
  for (int k = 0; k < K; k++) {
    for (size_t i = 0; i < W; i++) {
      for (size_t j = 0; j < W; j++) {
        values[0] = names[i];
        values[1] = names[j];
        values[2] = Float8GetDatum(out[((size_t)k * W + i) * W + j]);
        class_datum(m, k, &values[3], &nulls[3]);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
      }
      CHECK_FOR_INTERRUPTS();
    }
  }
  pfree(out);
  return (Datum)0;
}
