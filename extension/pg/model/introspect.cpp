// Model introspection: gbdt_model_info, gbdt_trees, gbdt_feature_importance.
#include <algorithm>
#include <string>
#include <vector>

#include <cmath>

#include "score/class_names.h"
#include "convert.h"
#include "guard.h"
#include "model/model_type.h"

#include "gbdt/explain.h"
#include "gbdt/model.h"

extern "C" {
#include "utils/json.h"
PG_FUNCTION_INFO_V1(gbdt_model_info);
PG_FUNCTION_INFO_V1(gbdt_trees);
PG_FUNCTION_INFO_V1(gbdt_feature_importance);
}

using namespace gbdt_pg;

namespace {
// info || {"categories": {"feature": ["a", "b", ...], ...}}: the
// dictionary of each categorical feature, its category values in code
// order (code 0 first), as the model stores them.  Every value is listed:
// the model's limits on categories bound the dictionaries.  No key when no
// feature has a dictionary.
Datum add_category_lists(const gbdt::Model* m, Datum info) {
  const size_t nf = std::min(m->categories.size(), (size_t)m->n_features());
  StringInfoData b;
  initStringInfo(&b);
  appendStringInfoString(&b, "{\"categories\": {");
  bool any = false;
  uint64 listed = 0;
  for (size_t f = 0; f < nf; f++) {
    const std::vector<std::string>& names = m->categories[f];
    if (names.empty()) continue;
    if (any) appendStringInfoString(&b, ", ");
    any = true;
    escape_json(&b, model_to_server_string(m->feature_names[f].c_str()));
    appendStringInfoString(&b, ": [");
    for (size_t c = 0; c < names.size(); c++) {
      if (c) appendStringInfoString(&b, ", ");
      escape_json(&b, model_to_server_string(names[c].c_str()));
      if ((++listed & 4095) == 0) CHECK_FOR_INTERRUPTS();
    }
    appendStringInfoChar(&b, ']');
  }
  appendStringInfoString(&b, "}}");
  if (!any) return info;
  Datum extra = DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
  return DirectFunctionCall2(jsonb_concat, info, extra);
}
}  // namespace

// gbdt_model_info(model gbdt_model) -> jsonb
Datum gbdt_model_info(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  char* json = nullptr;
  if (m->partitions != nullptr) {  // keys, row counts and metrics (partitioned_json.h)
    run_engine([&] { json = pstrdup_nothrow(gbdt::partitioned_info_json(*m->partitions)); });
    PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(model_to_server_string(json))));
  }
  run_engine([&] { json = pstrdup_nothrow(gbdt::model_info_json(*m)); });
  Datum info = DirectFunctionCall1(jsonb_in, CStringGetDatum(model_to_server_string(json)));
  info = add_class_names(m, info);  // class names of text/bool labels
  PG_RETURN_DATUM(add_category_lists(m, info));
}

// gbdt_trees(model gbdt_model) -> TABLE(tree int, node int, class int,
//   feature text, threshold float8, default_left bool, left_child int,
//   right_child int, leaf_value float8, gain float8, cover float8,
//   categories text[])
// A categorical split (Tree::is_categorical) has a NULL threshold and lists
// the categories that go right; the 0.1 declaration has no categories
// column (the library serves both until ALTER EXTENSION UPDATE).
namespace {
Datum right_categories(const gbdt::Model* m, const gbdt::Tree& tr, int32 n, int f) {
  const std::vector<std::string>* names =
      f >= 0 && (size_t)f < m->categories.size() ? &m->categories[f] : nullptr;
  // The set's codes (a bit field or a code list, tree.h), counted first.
  size_t total = 0;
  tr.for_each_cat_code(n, [&total](uint32_t) { ++total; });
  int count = 0;
  Datum* elems = (Datum*)palloc(sizeof(Datum) * (total + 1));
  tr.for_each_cat_code(n, [&](uint32_t code) {
    const char* name = names != nullptr && code < names->size()
                           ? model_to_server_string((*names)[code].c_str())
                           : psprintf("%u", code);
    elems[count++] = CStringGetTextDatum(name);
  });
  return PointerGetDatum(construct_array(elems, count, TEXTOID, -1, false, TYPALIGN_INT));
}
}  // namespace

Datum gbdt_trees(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  int nf = m->n_features();
  Datum values[12];
  bool nulls[12];
  const bool has_cat_column = rsinfo->setDesc->natts >= 12;
  uint64 emitted = 0;
  for (size_t t = 0; t < m->trees.size(); t++) {
    const gbdt::Tree& tr = m->trees[t];
    int32 nn = tr.num_nodes();
    if (tr.right.size() < (size_t)nn || tr.feature.size() < (size_t)nn ||
        tr.threshold.size() < (size_t)nn || tr.default_left.size() < (size_t)nn ||
        tr.value.size() < (size_t)nn || tr.gain.size() < (size_t)nn ||
        tr.cover.size() < (size_t)nn)
      ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
                      errmsg("invalid gbdt_model: tree %zu has inconsistent node arrays", t)));
    int group = t < m->tree_group.size() ? m->tree_group[t] : 0;
    for (int32 n = 0; n < nn; n++) {
      memset(nulls, 0, sizeof(nulls));
      nulls[11] = true;
      values[0] = Int32GetDatum((int32)t);
      values[1] = Int32GetDatum(n);
      values[2] = Int32GetDatum(group);
      if (tr.is_leaf(n)) {
        nulls[3] = nulls[4] = nulls[5] = nulls[6] = nulls[7] = true;
        values[8] = Float8GetDatum((double)tr.value[n]);
      } else {
        int f = tr.feature[n];
        if (f >= 0 && f < nf)
          values[3] = CStringGetTextDatum(model_to_server_string(m->feature_names[f].c_str()));
        else
          nulls[3] = true;
        values[4] = Float8GetDatum((double)tr.threshold[n]);
        if (tr.is_categorical(n)) {
          nulls[4] = true;
          if (has_cat_column) {
            values[11] = right_categories(m, tr, n, f);
            nulls[11] = false;
          }
        }
        values[5] = BoolGetDatum(tr.default_left[n] != 0);
        values[6] = Int32GetDatum(tr.left[n]);
        values[7] = Int32GetDatum(tr.right[n]);
        nulls[8] = true;
      }
      values[9] = Float8GetDatum((double)tr.gain[n]);
      values[10] = Float8GetDatum(tr.cover[n]);
      tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
      if (!nulls[3]) pfree(DatumGetPointer(values[3]));
      if (!nulls[11]) pfree(DatumGetPointer(values[11]));
      if ((++emitted & 4095) == 0) CHECK_FOR_INTERRUPTS();
    }
  }
  return (Datum)0;
}

namespace {
struct ImpEntry {
  int feature;
  double importance;
};
int cmp_importance(const void* a, const void* b) {
  const ImpEntry* x = (const ImpEntry*)a;
  const ImpEntry* y = (const ImpEntry*)b;
  // NaN (a hostile model) sorts last: a consistent order for qsort.
  const bool xn = std::isnan(x->importance), yn = std::isnan(y->importance);
  if (xn != yn) return xn ? 1 : -1;
  if (x->importance > y->importance) return -1;
  if (x->importance < y->importance) return 1;
  return x->feature - y->feature;
}
}  // namespace

// gbdt_feature_importance(model gbdt_model, kind text DEFAULT 'gain')
//   -> TABLE(feature text, importance float8), most important first
Datum gbdt_feature_importance(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  const char* kind = PG_ARGISNULL(1) ? "gain" : text_to_cstring(PG_GETARG_TEXT_PP(1));
  int nf = m->n_features();
  double* imp = (double*)palloc0(sizeof(double) * (nf > 0 ? nf : 1));
  run_engine([&] {
    std::vector<double> v = gbdt::feature_importance(*m, std::string(kind), cancel_callback());
    size_t k = std::min(v.size(), (size_t)nf);
    std::copy(v.begin(), v.begin() + k, imp);
  });
  ImpEntry* e = (ImpEntry*)palloc(sizeof(ImpEntry) * (nf > 0 ? nf : 1));
  for (int f = 0; f < nf; f++) e[f] = ImpEntry{f, imp[f]};
  qsort(e, nf, sizeof(ImpEntry), cmp_importance);

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  Datum values[2];
  bool nulls[2] = {false, false};
  for (int i = 0; i < nf; i++) {
    values[0] = CStringGetTextDatum(model_to_server_string(m->feature_names[e[i].feature].c_str()));
    values[1] = Float8GetDatum(e[i].importance);
    tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
  }
  return (Datum)0;
}
