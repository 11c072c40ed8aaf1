// Scoring one row: gbdt_predict(model, record), gbdt_predict(model, float8[]),
// gbdt_predict_proba(model, record).
#include <cmath>

#include "read/category_dict.h"
#include "read/array_features.h"
#include "score/class_names.h"
#include "guard.h"
#include "gbdt/predict.h"
#include "model/model_cache_pg.h"
#include "model/model_type.h"
#include "score/partition_route.h"
#include "score/scoring.h"
#include "read/scoring_layout.h"
#include "settings.h"

#include "gbdt/model.h"
#include "gbdt/train.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_predict_row);
PG_FUNCTION_INFO_V1(gbdt_predict_array);
PG_FUNCTION_INFO_V1(gbdt_predict_proba);
}

namespace gbdt_pg {
namespace {

// Feature -> attribute mapping for one row type, cached per call site.
struct RowMap {
  Oid typid;
  int32 typmod;
  uint64_t model_generation;
  TupleDesc desc;   // copy, in the cache context
  int nf;
  int* attidx;      // per feature: 0-based attribute index, -1: absent (scored as missing)
  CategoryColumn** cats;  // per feature: categorical lookups (NULL: numeric)
  ValKind* kinds;   // per feature (the element kind for an array element)
  int* elem;        // per feature: 0, or i for element i of an array column (name[i])
  int* elen;        // per feature: the array's length in the model
  float* ebuf;      // one array column's elements
  Datum* values;    // natts
  bool* nulls;      // natts
  float* x;         // nf
  int missing_mode;  // gbdt.missing_features when built
};

void free_row_map(RowMap* rm) {
  FreeTupleDesc(rm->desc);
  pfree(rm->attidx);
  pfree(rm->kinds);
  pfree(rm->cats);
  pfree(rm->elem);
  pfree(rm->elen);
  pfree(rm->ebuf);
  pfree(rm->values);
  pfree(rm->nulls);
  pfree(rm->x);
  pfree(rm);
}

RowMap* build_row_map(CallCache* c, const ModelCategories* categories, const gbdt::Model* m, Oid typid,
                      int32 typmod) {
  int nf = m->n_features();
  TupleDesc td = lookup_rowtype_tupdesc(typid, typmod);
  AbsentFeatures absent;  // the features the row type lacks, named at once
  absent_features_init(&absent);
  const char* badtype_col = nullptr;
  Oid badtype = InvalidOid;
  MemoryContext old = MemoryContextSwitchTo(c->mcxt);
  RowMap* rm = (RowMap*)palloc0(sizeof(RowMap));
  rm->typid = typid;
  rm->typmod = typmod;
  rm->missing_mode = guc_missing_features;
  rm->desc = CreateTupleDescCopy(td);
  rm->nf = nf;
  rm->attidx = (int*)palloc(sizeof(int) * (nf > 0 ? nf : 1));
  rm->kinds = (ValKind*)palloc(sizeof(ValKind) * (nf > 0 ? nf : 1));
  rm->cats = (CategoryColumn**)palloc0(sizeof(CategoryColumn*) * (nf > 0 ? nf : 1));
  rm->elem = (int*)palloc0(sizeof(int) * (nf > 0 ? nf : 1));
  rm->elen = (int*)palloc0(sizeof(int) * (nf > 0 ? nf : 1));
  int max_elen = 1;
  rm->values = (Datum*)palloc(sizeof(Datum) * (td->natts > 0 ? td->natts : 1));
  rm->nulls = (bool*)palloc(sizeof(bool) * (td->natts > 0 ? td->natts : 1));
  rm->x = (float*)palloc(sizeof(float) * (nf > 0 ? nf : 1));
  MemoryContextSwitchTo(old);
  for (int f = 0; f < nf && badtype_col == nullptr; f++) {
    const char* name = model_to_server_string(m->feature_names[f].c_str());
    int found = -1;
    for (int i = 0; i < td->natts; i++) {
      Form_pg_attribute a = TupleDescAttr(td, i);
      if (!a->attisdropped && strcmp(NameStr(a->attname), name) == 0) {
        found = i;
        break;
      }
    }
    // "emb[i]": element i of array column emb (array_features.h).
    char* base = nullptr;
    int index = 0;
    if (found < 0 && parse_element_name(name, &base, &index)) {
      for (int i = 0; i < td->natts; i++) {
        Form_pg_attribute a = TupleDescAttr(td, i);
        if (!a->attisdropped && strcmp(NameStr(a->attname), base) == 0 &&
            array_element_kind(a->atttypid) != ValKind::kNone) {
          found = i;
          break;
        }
      }
      if (found >= 0) {
        rm->attidx[f] = found;
        rm->kinds[f] = array_element_kind(TupleDescAttr(td, found)->atttypid);
        rm->elem[f] = index;
        // The model's length of this array (its largest element), once per
        // array column: the elements of a column are consecutive features.
        const int len =
            f > 0 && rm->elem[f - 1] > 0 && rm->attidx[f - 1] == found
                ? rm->elen[f - 1]
                : model_array_length(m->feature_names,
                                     m->feature_names[f].substr(0, m->feature_names[f].rfind('[')).c_str());
        rm->elen[f] = len;
        if (len > max_elen) max_elen = len;
        continue;
      }
    }
    if (found < 0) {
      absent_features_add(&absent, base != nullptr ? base : name);
      rm->attidx[f] = -1;
      continue;
    }
    Oid t = TupleDescAttr(td, found)->atttypid;
    ValKind k = kind_for_type(t);
    if (k == ValKind::kNone && (categories == nullptr)) {
      badtype_col = name;
      badtype = t;
      break;
    }
    // Categorical features, and type mismatches between the column and the
    // model's feature (errors naming the column).
    old = MemoryContextSwitchTo(c->mcxt);
    k = scoring_column_kind(m, categories, f, t, name, &rm->cats[f]);
    MemoryContextSwitchTo(old);
    rm->attidx[f] = found;
    rm->kinds[f] = k;
  }
  rm->ebuf = (float*)MemoryContextAlloc(c->mcxt, sizeof(float) * max_elen);
  ReleaseTupleDesc(td);
  if (badtype_col != nullptr || absent.count > 0) {
    if (badtype_col == nullptr && guc_missing_features == kMissingFeaturesAsMissing)
      return rm;  // absent features score as missing values
    free_row_map(rm);
    absent_features_allowed(&absent, nullptr);  // the error naming every absent column
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("column \"%s\" has unsupported type %s", badtype_col,
                           format_type_be(badtype)),
                    errhint("Supported types are " GBDT_SUPPORTED_TYPES ".")));
  }
  return rm;
}

}  // namespace

// The row's features as floats (NULL/NaN -> NaN), in a buffer of the cache.
const float* row_features(FunctionCallInfo fcinfo, const gbdt::Model* m, HeapTupleHeader th) {
  CallCache* c = get_call_cache(fcinfo);
  return row_features_in(c, &c->extra, c->generation, c->categories, m, th);
}

void free_row_features(void* slot) {
  if (slot != nullptr) free_row_map((RowMap*)slot);
}

const float* row_features_in(CallCache* c, void** slot, uint64_t generation,
                             const ModelCategories* categories, const gbdt::Model* m,
                             HeapTupleHeader th) {
  Oid typid = HeapTupleHeaderGetTypeId(th);
  int32 typmod = HeapTupleHeaderGetTypMod(th);
  RowMap* rm = (RowMap*)*slot;
  if (rm == nullptr || rm->model_generation != generation || rm->typid != typid ||
      rm->typmod != typmod || rm->missing_mode != guc_missing_features) {
    if (rm != nullptr) {
      *slot = nullptr;
      free_row_map(rm);
    }
    rm = build_row_map(c, categories, m, typid, typmod);
    rm->model_generation = generation;
    *slot = rm;
  }
  HeapTupleData tmp;
  tmp.t_len = HeapTupleHeaderGetDatumLength(th);
  ItemPointerSetInvalid(&tmp.t_self);
  tmp.t_tableOid = InvalidOid;
  tmp.t_data = th;
  heap_deform_tuple(&tmp, rm->desc, rm->values, rm->nulls);
  int expanded = -1;  // the array column in ebuf
  for (int f = 0; f < rm->nf; f++) {
    int i = rm->attidx[f];
    if (i < 0) {  // absent from the row type (gbdt.missing_features = 'missing')
      rm->x[f] = NAN;
      continue;
    }
    if (rm->elem[f] > 0) {
      if (expanded != i) {
        expand_array(rm->values[i], rm->nulls[i], rm->kinds[f], rm->elen[f],
                     NameStr(TupleDescAttr(rm->desc, i)->attname), rm->ebuf, false);
        expanded = i;
      }
      rm->x[f] = rm->ebuf[rm->elem[f] - 1];
      continue;
    }
    rm->x[f] = rm->nulls[i]                         ? NAN
               : rm->kinds[f] == ValKind::kCategory ? category_code(rm->cats[f], rm->values[i])
                                                    : (float)datum_to_double(rm->values[i], rm->kinds[f]);
  }
  return rm->x;
}

namespace {

// gbdt_predict of one row over the model's laid-out trees, kept with the
// backend's cache entry of the model (built on its first row).
double value_row(FunctionCallInfo fcinfo, const gbdt::Model* m, const float* x) {
  gbdt::ModelCacheEntry* e = get_call_cache(fcinfo)->shared;  // pinned by the call site
  double v = 0;
  run_engine([&] {
    if (e != nullptr && e->model.get() == m) {
      if (e->forest == nullptr) model_cache_forest(e, *m);
      v = gbdt::predict_value_row(*m, *e->forest, x, cancel_callback());
    } else {
      v = gbdt::predict_value_row(*m, x, cancel_callback());
    }
  });
  return v;
}

}  // namespace

}  // namespace gbdt_pg

using namespace gbdt_pg;

// gbdt_predict(model gbdt_model, row record) -> float8
Datum gbdt_predict_row(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(1);
  if (m->partitions != nullptr) {  // the row's key's sub-model (partition_route.h)
    CallCache* c = get_call_cache(fcinfo);
    PartitionRoute r;
    if (!partition_route(c, m, th, &r)) PG_RETURN_NULL();
    const float* x = row_features_in(c, r.slot, c->generation, r.categories, r.model, th);
    double v = 0;
    run_engine([&] { v = gbdt::predict_value_row(*r.model, x, cancel_callback()); });
    PG_RETURN_FLOAT8(v);
  }
  const float* x = row_features(fcinfo, m, th);
  PG_RETURN_FLOAT8(value_row(fcinfo, m, x));
}

// gbdt_predict(model gbdt_model, features float8[]) -> float8
Datum gbdt_predict_array(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  ArrayType* arr = PG_GETARG_ARRAYTYPE_P(1);
  int nf = m->n_features();
  if (ARR_NDIM(arr) > 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("features must be a one-dimensional array")));
  Datum* elems;
  bool* enulls;
  int n;
  deconstruct_array(arr, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &enulls, &n);
  if (n != nf)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("the model has %d features but the array has %d elements", nf, n)));
  float* x = (float*)palloc(sizeof(float) * (nf > 0 ? nf : 1));
  for (int i = 0; i < n; i++) x[i] = enulls[i] ? NAN : (float)DatumGetFloat8(elems[i]);
  double v = value_row(fcinfo, m, x);
  pfree(x);
  PG_RETURN_FLOAT8(v);
}

// gbdt_predict_proba(model gbdt_model, row record) -> TABLE(class float8, probability float8)
Datum gbdt_predict_proba(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  HeapTupleHeader th = PG_GETARG_HEAPTUPLEHEADER(1);
  const float* x = nullptr;
  if (m->partitions != nullptr) {  // the row's key's sub-model (partition_route.h)
    CallCache* c = get_call_cache(fcinfo);
    PartitionRoute r;
    if (!partition_route(c, m, th, &r)) {  // fallback "null": no probabilities
      InitMaterializedSRF(fcinfo, 0);
      return (Datum)0;
    }
    m = r.model;
    x = row_features_in(c, r.slot, c->generation, r.categories, r.model, th);
  }
  if (m->objective != gbdt::Objective::kLogistic && !gbdt::objective_info(m->objective).multiclass)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("the model is not a classifier (objective %s)", model_objective_name(m)),
                    errhint("gbdt_predict_proba needs a binary:logistic, multi:softprob or multi:softmax model.")));
  if (x == nullptr) x = row_features(fcinfo, m, th);
  int K = m->num_output_group > 0 ? m->num_output_group : 1;
  double* out = (double*)palloc(sizeof(double) * K);
  run_engine([&] {
    gbdt::predict_margin_row(*m, x, out, 0, cancel_callback());
    gbdt::transform_margins(*m, out);
  });

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum values[3];
  bool nulls[3] = {false, false, false};
  // class_name, the third column (0.2); a 0.1 declaration has two.
  const bool named = rsinfo->setDesc->natts >= 3;
  auto label = [m](int k) -> double {
    return k < (int)m->class_labels.size() ? m->class_labels[k] : (double)k;
  };
  if (m->objective == gbdt::Objective::kLogistic) {
    double p1 = out[0];
    values[0] = Float8GetDatum(label(0));
    values[1] = Float8GetDatum(1.0 - p1);
    if (named) values[2] = class_name_datum(m, 0);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    values[0] = Float8GetDatum(label(1));
    values[1] = Float8GetDatum(p1);
    if (named) values[2] = class_name_datum(m, 1);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  } else {
    for (int k = 0; k < K; k++) {
      values[0] = Float8GetDatum(label(k));
      values[1] = Float8GetDatum(out[k]);
      if (named) values[2] = class_name_datum(m, k);
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
  }
  pfree(out);
  return (Datum)0;
}
