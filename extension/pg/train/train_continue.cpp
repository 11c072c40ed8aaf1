#include "train/train_continue.h"
#include "gbdt/load_internals.h"

#include <cmath>
#include <string>
#include <vector>

extern "C" {
#include "catalog/namespace.h"
#include "utils/regproc.h"
}

#include "gbdt/train.h"
#include "guard.h"
#include "model/model_type.h"
#include "module.h"
#include "train/train_data.h"
#include "read/category_dict.h"
#include "train/label_classes.h"
#include "read/scoring_layout.h"
#include "score/target_classes.h"
#include "read/array_features.h"
#include "train/train_groups.h"
#include "train/train_bounds.h"

namespace gbdt_pg {
namespace {

// the weight and group columns of a continued training's rows.
struct RowExtras {
  const char* weight_column;  // null: none (read second, after the target)
  ValKind weight_kind;
  const char* group_column;   // null: none (read last, as text)
  GroupCoder* groups;
  // survival:aft's upper bounds (null: none), read after the group column.
  const char* upper_column;
  ValKind upper_kind;
  UpperBounds* upper;
};

// Rows of a relation as float columns (NULL/NaN targets skipped, counted).
struct Rows {
  const RelInfo* rel;
  MemoryContext cxt;
  const MemoryShape* memory;
  int nf;
  size_t n, cap;
  float** cols;
  float* labels;
  uint64 skipped;
  // the validation relation's rows are read as a model's features
  // (array columns expanded, categories through the training's
  // dictionaries) and its target through the training's classes.
  const TargetClasses* classes;  // null: the target value as it is
  ScoringLayout* layout;         // null: one column per feature
  float* rowbuf;                 // layout: one row's features
  // weights (null: none) and the group column (RowExtras).
  const RowExtras* extras;
  float* weights;
  int first;      // reader index of the first feature column
  int group_col;  // reader index of the group column
  int upper_col;  // reader index of the upper bound column
};

// A weight read with a row: finite and >= 0 (the training reader's rule).
float checked_weight(const char* column, float w, bool isnull) {
  if (isnull)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("weight column \"%s\" contains NULL", column),
                    errhint("Every row with a target needs a weight >= 0 (0 leaves the row "
                            "out of the training).")));
  if (!(w >= 0) || !std::isfinite(w))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("weight column \"%s\" contains %g: weights must be finite and >= 0",
                           column, (double)w)));
  return w;
}

// The floats read_rows keeps per row: the features, the label and the weight.
inline double floats_per_row(int nf, bool weighted) { return (double)nf + 1 + (weighted ? 1 : 0); }

// Rows read without a training's memory shape (a validation relation):
// their float columns at the capacity they grow to, cap rows, within
// gbdt.max_memory.
void check_rows_memory(const Rows* s, size_t cap) {
  const double bytes = (double)cap * sizeof(float) * floats_per_row(s->nf, s->weights != nullptr);
  const double limit = max_memory_bytes();
  if (bytes <= limit) return;
  ereport(ERROR,
          (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
           errmsg("validation relation \"%s\" needs more than gbdt.max_memory = %s: %zu rows of %d "
                  "features read so far",
                  s->rel->name, format_bytes(limit), s->n, s->nf),
           errhint("Validate on fewer rows (e.g. a view with TABLESAMPLE), or ask a superuser for a "
                   "higher gbdt.max_memory.")));
}

void rows_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  Rows* s = (Rows*)arg;
  const bool text_target = s->classes != nullptr && s->classes->kind == ValKind::kNone;
  if (nulls[0] || (!text_target && std::isnan(vals[0]))) {
    s->skipped++;
    return;
  }
  if (s->n == s->cap) {
    size_t cap = s->cap * 2;
    if (s->memory)
      check_memory_estimate((double)s->n + 1, s->nf, (double)s->n + 1, true, *s->memory);
    else
      check_rows_memory(s, cap);
    s->labels = (float*)repalloc_huge(s->labels, sizeof(float) * cap);
    if (s->weights != nullptr) s->weights = (float*)repalloc_huge(s->weights, sizeof(float) * cap);
    for (int f = 0; f < s->nf; f++)
      s->cols[f] = (float*)repalloc_huge(s->cols[f], sizeof(float) * cap);
    s->cap = cap;
  }
  size_t i = s->n++;
  s->labels[i] = s->classes != nullptr ? target_class(s->classes, slot->tts_values[0], vals[0])
                                       : vals[0];
  if (s->weights != nullptr)
    s->weights[i] = checked_weight(s->extras->weight_column, vals[1], nulls[1]);
  if (s->extras != nullptr && s->extras->groups != nullptr)
    group_coder_add(s->extras->groups, slot->tts_values[s->group_col], nulls[s->group_col]);
  if (s->extras != nullptr && s->extras->upper != nullptr)  // survival:aft's upper bounds
    upper_bounds_add(s->extras->upper, vals[s->upper_col], nulls[s->upper_col]);
  if (s->layout != nullptr) {
    scoring_row(s->layout, slot, vals, nulls, s->first, s->rowbuf);
    for (int f = 0; f < s->nf; f++) s->cols[f][i] = s->rowbuf[f];
    return;
  }
  for (int f = 0; f < s->nf; f++) s->cols[f][i] = vals[f + s->first];
}

void read_rows(const RelInfo* rel, const char* target, ValKind tk, int nf, const char** names,
               const ValKind* kinds, const MemoryShape* memory, MemoryContext cxt, Rows* s,
               const TargetClasses* classes = nullptr, ScoringLayout* layout = nullptr,
               const RowExtras* extras = nullptr) {
  MemoryContext old = MemoryContextSwitchTo(cxt);
  memset(s, 0, sizeof(*s));
  s->extras = extras;
  const bool weighted = extras != nullptr && extras->weight_column != nullptr;
  const bool grouped = extras != nullptr && extras->group_column != nullptr;
  s->first = weighted ? 2 : 1;
  s->classes = classes;
  s->layout = layout;
  s->rel = rel;
  s->cxt = cxt;
  s->memory = memory;
  s->nf = nf;
  if (memory && rel->reltuples > 0)
    check_memory_estimate(rel->reltuples, nf, rel->reltuples, false, *memory);
  // The first allocation from the row estimate, never more rows than the
  // floats of gbdt.max_memory hold: an estimate far above the rows (the
  // first page's density for a heap never analyzed) must not allocate what
  // the checks above and on growth would refuse; growth takes the rest.
  const double est = estimated_rows(rel);
  const double fit_rows = max_memory_bytes() / (sizeof(float) * floats_per_row(nf, weighted));
  s->cap = est > 1024 && est < 1e8 && est < fit_rows ? (size_t)est + 1 : 1024;
  s->labels = (float*)MemoryContextAllocHuge(cxt, sizeof(float) * s->cap);
  if (weighted) s->weights = (float*)MemoryContextAllocHuge(cxt, sizeof(float) * s->cap);
  s->cols = (float**)palloc(sizeof(float*) * (nf > 0 ? nf : 1));
  for (int f = 0; f < nf; f++) s->cols[f] = (float*)MemoryContextAllocHuge(cxt, sizeof(float) * s->cap);
  const int first = s->first;
  int ncols = (layout != nullptr ? layout->ncols : nf) + first;
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * (ncols + 2));
  cols[0] = ReaderColumn{target, tk, true, true};
  if (weighted) cols[1] = ReaderColumn{extras->weight_column, extras->weight_kind, true, false};
  if (layout != nullptr) {
    memcpy(cols + first, layout->cols, sizeof(ReaderColumn) * layout->ncols);
    s->rowbuf = (float*)palloc(sizeof(float) * (nf > 0 ? nf : 1));
  } else {
    for (int f = 0; f < nf; f++) cols[f + first] = ReaderColumn{names[f], kinds[f], true, false};
  }
  if (grouped) {  // passed through as text
    s->group_col = ncols;
    cols[ncols++] = ReaderColumn{extras->group_column, ValKind::kNone, false, false};
  }
  if (extras != nullptr && extras->upper != nullptr) {  // +Infinity allowed (right-censored)
    s->upper_col = ncols;
    cols[ncols++] = ReaderColumn{extras->upper_column, extras->upper_kind, false, false};
  }
  MemoryContextSwitchTo(old);
  read_relation(rel, cols, ncols, rows_row, s, false);
}

// C++ objects of the loads, deleted when the data context goes (also on
// error or cancel).
struct Owned {
  gbdt::BinnedInput* data;
  gbdt::ValidationRows* validation;
  std::vector<float>* margins;
};

void delete_owned(void* arg) {
  Owned* o = (Owned*)arg;
  delete o->data;
  delete o->validation;
  delete o->margins;
  o->data = nullptr;
  o->validation = nullptr;
  o->margins = nullptr;
}

Owned* owned_in(MemoryContext cxt) {
  Owned* o = (Owned*)MemoryContextAllocZero(cxt, sizeof(Owned));
  MemoryContextCallback* cb =
      (MemoryContextCallback*)MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
  cb->func = delete_owned;
  cb->arg = o;
  MemoryContextRegisterResetCallback(cxt, cb);
  return o;
}

gbdt::ColumnInput columns_of(const Rows& s) {
  gbdt::ColumnInput x;
  x.n_rows = s.n;
  x.columns.assign(s.cols, s.cols + s.nf);
  return x;
}

// A column the training names (its param `param`) that the validation
// relation must have too: an error naming both when it does not.
void require_validation_column(const RelInfo* vrel, const char* column, const char* param,
                               const char* hint) {
  if (find_column(vrel, column) == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("%s \"%s\" of the training does not exist in validation_relation \"%s\"",
                           param, column, vrel->name),
                    errhint("%s", hint)));
}

}  // namespace

const gbdt::Model* init_model_arg(FunctionCallInfo fcinfo, int argno) {
  if (PG_NARGS() <= argno || PG_ARGISNULL(argno)) return nullptr;
  return get_model_arg(fcinfo, argno);
}

void init_model_features(const RelInfo* rel, const char* target, const gbdt::Model* init,
                         ArrayType* features, FeatureSet* fs) {
  const int nf = init->n_features();
  const int n1 = nf > 0 ? nf : 1;
  fs->n = 0;
  fs->names = (const char**)palloc(sizeof(char*) * n1);
  fs->model_names = (const char**)palloc(sizeof(char*) * n1);
  fs->kinds = (ValKind*)palloc(sizeof(ValKind) * n1);
  fs->widths = (int*)palloc(sizeof(int) * n1);
  fs->elem_kinds = (ValKind*)palloc(sizeof(ValKind) * n1);
  fs->has_arrays = false;
  for (int f = 0; f < nf; f++) {
    const char* model_name = pstrdup(init->feature_names[f].c_str());
    const char* name = model_to_server_string(model_name);
    if (strcmp(name, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("column \"%s\" is the target but a feature of init_model", target)));
    Form_pg_attribute a = find_column(rel, name);
    char* base = nullptr;
    int index = 0;
    if (a == nullptr && parse_element_name(name, &base, &index) &&
        find_column(rel, base) != nullptr) {
      // element `index` of array column `base` (the init model's
      // elements of one column are consecutive, 1 .. L).
      Form_pg_attribute b = find_column(rel, base);
      const int i = fs->n - 1;
      if (i >= 0 && fs->kinds[i] == ValKind::kArray && strcmp(fs->names[i], base) == 0 &&
          index == fs->widths[i] + 1) {
        fs->widths[i]++;
        continue;
      }
      if (index != 1)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("feature \"%s\" of init_model is not in array order (elements of "
                               "array column \"%s\" must be 1, 2, ...)",
                               name, base)));
      const ValKind ek = array_element_kind(b->atttypid);
      if (ek == ValKind::kNone)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("column \"%s\" has type %s, but init_model's feature \"%s\" is an "
                               "element of an array column",
                               base, format_type_be(b->atttypid), name)));
      fs->names[fs->n] = base;
      fs->model_names[fs->n] = server_to_model_string(base);
      fs->kinds[fs->n] = ValKind::kArray;
      fs->widths[fs->n] = 1;
      fs->elem_kinds[fs->n] = ek;
      fs->has_arrays = true;
      fs->n++;
      continue;
    }
    if (a == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("column \"%s\" of relation \"%s\" does not exist, but init_model "
                             "was trained on it",
                             name, rel->name),
                      errhint("Continued training reads the init model's %d feature columns "
                              "by name.", nf)));
    fs->names[fs->n] = name;
    fs->model_names[fs->n] = model_name;
    fs->widths[fs->n] = 1;
    fs->elem_kinds[fs->n] = ValKind::kNone;
    // a categorical feature of the init model reads its column through
    // the init model's dictionary (load_continue_data); the column must be
    // of a type that can be categorical.
    const bool categorical = (size_t)f < init->feature_types.size() &&
                             init->feature_types[f] == gbdt::FeatureType::kCategorical;
    if (categorical) {
      CatSource src;
      if (!category_source_for(getBaseType(a->atttypid), &src))
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("column \"%s\" has type %s, but init_model's feature \"%s\" is "
                               "categorical",
                               name, format_type_be(a->atttypid), name),
                        errhint("Pass a text, varchar, char, enum, boolean or integer column.")));
      fs->kinds[fs->n] = ValKind::kCategory;
    } else {
      fs->kinds[fs->n] = require_numeric_column(rel, name, "feature");
    }
    fs->n++;
  }
  if (features == nullptr) return;
  Datum* elems;
  bool* enulls;
  int nelems;
  deconstruct_array(features, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &nelems);
  bool same = nelems == fs->n;
  for (int i = 0; same && i < nelems; i++)
    same = !enulls[i] && strcmp(TextDatumGetCString(elems[i]), fs->names[i]) == 0;
  if (!same)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("features must be those of init_model (%d columns, in its order) or "
                           "NULL",
                           fs->n)));
}

void check_init_target(const gbdt::Model* init, const char* target, bool text_target,
                       ValKind target_kind) {
  if (text_target || init->class_names.empty()) return;
  if (target_kind == ValKind::kBool && init->class_names.size() == 2 &&
      init->class_names[0] == "false" && init->class_names[1] == "true")
    return;
  StringInfoData names;
  initStringInfo(&names);
  for (size_t i = 0; i < init->class_names.size() && i < 10; i++)
    appendStringInfo(&names, "%s'%s'", i > 0 ? ", " : "",
                     model_to_server_string(init->class_names[i].c_str()));
  if (init->class_names.size() > 10) appendStringInfoString(&names, ", ...");
  ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                  errmsg("target column \"%s\" is not a class label, but init_model was trained "
                         "on the classes %s",
                         target, names.data),
                  errhint("Continue it on a text, enum or boolean target holding those classes.")));
}

void init_label_classes(const gbdt::Model* init, const char* target, LabelClasses* out) {
  if (init->class_names.empty())
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("target column \"%s\" is a class label (text), but init_model "
                           "(objective %s) was trained on a numeric target",
                           target, gbdt::objective_name(init->objective)),
                    errhint("Continue it on the numeric target it was trained on.")));
  const int k = (int)init->class_names.size();
  *out = LabelClasses();
  out->k = k;
  out->text = true;
  out->names = (char**)palloc(sizeof(char*) * k);
  out->model_names = (const char**)palloc(sizeof(char*) * k);
  for (int i = 0; i < k; i++) {
    out->model_names[i] = pstrdup(init->class_names[i].c_str());
    out->names[i] = (char*)model_to_server_string(out->model_names[i]);
  }
  out->by_bytes = order_names_by_bytes(out->names, k);  // complete, as text_label_classes'
}

namespace {

// The training's length of array column `column` (0: not an array column).
int training_array_length(void* arg, const char* column) {
  const FeatureSet* fs = (const FeatureSet*)arg;
  for (int i = 0; i < fs->n; i++)
    if (fs->kinds[i] == ValKind::kArray && strcmp(fs->names[i], column) == 0) return fs->widths[i];
  return 0;
}

void delete_categories_cb(void* arg) {
  ModelCategories** mc = (ModelCategories**)arg;
  delete_model_categories(*mc);
  *mc = nullptr;
}

// A slot for scoring dictionaries, deleted when cxt goes (also on error).
ModelCategories** categories_slot(MemoryContext cxt) {
  ModelCategories** mc = (ModelCategories**)MemoryContextAllocZero(cxt, sizeof(ModelCategories*));
  MemoryContextCallback* cb =
      (MemoryContextCallback*)MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
  cb->func = delete_categories_cb;
  cb->arg = mc;
  MemoryContextRegisterResetCallback(cxt, cb);
  return mc;
}

}  // namespace

void load_continue_data(const LoadSpec& spec, TrainPlus* plus, MemoryContext cxt,
                        LoadResult* out) {
  const FeatureSet* fs = spec.features;
  const gbdt::Model* init = plus->init;
  // the rows are read as the init model's features (scoring_layout.h):
  // array columns expanded, categorical columns through the init model's
  // dictionaries (a value it has not seen is the code "unseen", n).
  ModelCategories** mc = categories_slot(cxt);
  run_engine([&] { *mc = build_model_categories(*init); });
  ScoringLayout* layout = scoring_layout(spec.rel, init->feature_names, *mc, nullptr,
                                         training_array_length, (void*)fs, true);
  layout->reject_inf = true;  // as the training reader
  for (int c = 0; c < layout->ncols; c++) layout->cols[c].reject_infinity = true;
  // A text target through the init model's classes (a label that is not
  // one of them is an error naming it and the classes).
  TargetClasses* classes = nullptr;
  ValKind tk = spec.target_kind;
  if (spec.labels != nullptr && spec.labels->text) {
    classes = (TargetClasses*)palloc(sizeof(TargetClasses));
    target_classes_from_names(spec.target, "", spec.labels->k, spec.labels->names, false,
                              classes);
    tk = classes->kind;
  }
  RowExtras* ex = (RowExtras*)palloc0(sizeof(RowExtras));
  ex->weight_column = spec.weight_column;
  ex->weight_kind = spec.weight_kind;
  ex->group_column = spec.group_column;
  if (spec.group_column != nullptr) ex->groups = group_coder_create(cxt, spec.group_column);
  ex->upper_column = spec.upper_column;  // survival:aft's upper bounds
  ex->upper_kind = spec.upper_kind;
  if (spec.upper_column != nullptr) ex->upper = upper_bounds_create(cxt);
  const int nx = layout->nf;
  Rows s;
  read_rows(spec.rel, spec.target, tk, nx, nullptr, nullptr, &spec.memory, cxt, &s, classes,
            layout, ex);
  if (s.n + s.skipped == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("relation \"%s\" has no rows", spec.rel->name)));
  if (s.n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("all values of target column \"%s\" are NULL", spec.target)));
  Owned* o = owned_in(cxt);
  run_engine([&] {
    gbdt::TrainInput in;
    in.features = columns_of(s);
    in.labels = s.labels;
    in.weights = s.weights;
    in.rows_skipped = s.skipped;
    in.feature_names = init->feature_names;
    in.feature_types = init->feature_types;
    if ((int)in.feature_types.size() != nx)
      in.feature_types.assign((size_t)nx, gbdt::FeatureType::kFloat);
    o->data = new gbdt::BinnedInput(gbdt::bin_with_cuts(in, init->cuts, spec.nthread));
    o->data->categories = init->categories;  // the dictionaries stay the init model's
    gbdt::bin_unseen_categories_as_missing(init->categories, init->cuts, in.features,
                                           &o->data->matrix);
    o->margins = new std::vector<float>(gbdt::init_model_margins(*init, in.features, spec.nthread));
  });
  if (ex->groups != nullptr) {
    if (group_coder_rows(ex->groups) != o->data->matrix.n_rows)
      elog(ERROR, "gbdt: group column rows do not match the training rows");
    if (!o->data->weights.empty())  // one weight per query group
      group_coder_check_weights(ex->groups, o->data->weights.data(), ex->weight_column);
    group_coder_take(ex->groups, &o->data->query_group);
  }
  if (ex->upper != nullptr) {  // survival:aft's upper bounds
    if (upper_bounds_rows(ex->upper) != o->data->matrix.n_rows)
      elog(ERROR, "gbdt: upper bound rows do not match the training rows");
    upper_bounds_take(ex->upper, &o->data->labels_upper);
  }
  out->data = o->data;
  out->rows_read = s.n + s.skipped;
  out->passes = 1;
  out->sample_rows = 0;
  // Every feature of the init model is kept (no constant-column drop, no
  // target checks: the features are the init model's).
  out->checks = (ColumnCheck*)palloc0(sizeof(ColumnCheck) * (nx > 0 ? nx : 1));
  out->checked_all_rows = true;
  out->values = (gbdt::ValueCheck*)palloc0(sizeof(gbdt::ValueCheck) * (nx > 0 ? nx : 1));
  out->identifier = (const char**)palloc0(sizeof(char*) * (nx > 0 ? nx : 1));
  out->kept = (int*)palloc(sizeof(int) * (nx > 0 ? nx : 1));
  for (int f = 0; f < nx; f++) out->kept[f] = f;
  out->n_kept = nx;
  plus->init_margins = o->margins;
}


void load_validation_relation(const LoadSpec& spec, const gbdt::BinnedInput& data,
                              TrainPlus* plus, MemoryContext cxt) {
  if (plus->validation_relation == nullptr) return;
  List* names = gbdt_qualified_name_list(plus->validation_relation);
  Oid relid = RangeVarGetRelid(makeRangeVarFromNameList(names), AccessShareLock, true);
  if (!OidIsValid(relid))
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                    errmsg("relation \"%s\" of parameter \"validation_relation\" does not exist",
                           plus->validation_relation)));
  RelInfo* vrel = open_rel_info(relid);  // SELECT and schema USAGE checked
  plus->validation_qualname = vrel->qualname;
  Form_pg_attribute tatt = find_column(vrel, spec.target);
  if (tatt == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("target column \"%s\" of the training does not exist in "
                           "validation_relation \"%s\"",
                           spec.target, vrel->name)));
  // a text target's labels are looked up in the training's classes.
  const char* where = psprintf(" of validation_relation \"%s\"", vrel->name);
  TargetClasses* classes = nullptr;
  ValKind tk = ValKind::kNone;
  if (spec.labels != nullptr && spec.labels->text) {
    const bool is_bool = getBaseType(tatt->atttypid) == BOOLOID;
    if (!is_bool && !is_text_label_type(tatt->atttypid))
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("target column \"%s\"%s is %s, but the training's target is a "
                             "class label (text)",
                             spec.target, where, format_type_be(tatt->atttypid))));
    classes = (TargetClasses*)palloc(sizeof(TargetClasses));
    target_classes_from_names(spec.target, where, spec.labels->k, spec.labels->names, is_bool,
                              classes);
    tk = classes->kind;
  } else {
    if (kind_for_type(tatt->atttypid) == ValKind::kNone && is_text_label_type(tatt->atttypid))
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("target column \"%s\"%s is %s, but the training's target is "
                             "numeric",
                             spec.target, where, format_type_be(tatt->atttypid))));
    tk = require_numeric_column(vrel, spec.target, "target");
  }
  // the features trained on (array elements, constant columns left
  // out), read as a model's; categorical ones through the training's
  // dictionaries (a value not seen in training is "unseen", as in scoring).
  ModelCategories** mc = (ModelCategories**)MemoryContextAllocZero(cxt, sizeof(ModelCategories*));
  {
    MemoryContextCallback* cb =
        (MemoryContextCallback*)MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
    cb->func = delete_categories_cb;
    cb->arg = mc;
    MemoryContextRegisterResetCallback(cxt, cb);
  }
  run_engine([&] { *mc = build_categories(data.categories); });
  ScoringLayout* layout = scoring_layout(vrel, data.feature_names, *mc, vrel->name,
                                         training_array_length, (void*)spec.features);
  const int nf = layout->nf;
  // survival:aft's upper bounds, from the column of the training's name.
  RowExtras* ex = nullptr;
  if (spec.upper_column != nullptr) {
    require_validation_column(vrel, spec.upper_column, "label_upper_bound_column",
                              "survival:aft's validation rows need the upper bounds of their "
                              "survival times, in a column of the same name.");
    ex = (RowExtras*)palloc0(sizeof(RowExtras));
    ex->upper_column = spec.upper_column;
    ex->upper_kind = require_numeric_column(vrel, spec.upper_column, "label_upper_bound_column");
    ex->upper = upper_bounds_create(cxt);
  }
  // a ranking training's query groups, from the column of the training's
  // group_column (the validation metrics are computed per query group).
  if (spec.group_column != nullptr) {
    require_validation_column(vrel, spec.group_column, "group_column",
                              "a ranking objective's validation rows need their query groups, "
                              "in a column of the same name.");
    if (ex == nullptr) ex = (RowExtras*)palloc0(sizeof(RowExtras));
    ex->group_column = spec.group_column;
    ex->groups = group_coder_create(cxt, spec.group_column);
  }
  Rows s;
  read_rows(vrel, spec.target, tk, nf, nullptr, nullptr, nullptr, cxt, &s, classes, layout, ex);
  if (s.n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("validation_relation \"%s\" has no rows with a non-NULL target \"%s\"",
                           vrel->name, spec.target)));
  Owned* o = owned_in(cxt);
  const bool keep = plus->init != nullptr;
  run_engine([&] {
    o->validation = new gbdt::ValidationRows(
        gbdt::make_validation_rows(columns_of(s), s.labels, data.cuts, spec.nthread, keep));
    if (ex != nullptr && ex->upper != nullptr)
      upper_bounds_take(ex->upper, &o->validation->labels_upper);
    if (ex != nullptr && ex->groups != nullptr)  // ranking's query groups
      group_coder_take(ex->groups, &o->validation->query_group);
    // A category never seen in training (code n) is missing, as in scoring
    // (category_values.h): its rows get the feature's missing bin.
    gbdt::bin_unseen_categories_as_missing(data.categories, data.cuts, columns_of(s),
                                           &o->validation->matrix);
  });
  plus->validation = o->validation;
  run_engine([&] { delete_model_categories(*mc); });
  *mc = nullptr;
}

void map_validation_labels(TrainPlus* plus, const char* target, const LabelClasses& classes) {
  if (plus->validation == nullptr || classes.values == nullptr || classes.k <= 0) return;
  TargetClasses tc;
  target_classes_from_values(
      target, psprintf(" of validation_relation \"%s\"", plus->validation_relation), classes.k,
      classes.values, &tc);
  for (float& y : plus->validation->labels) y = target_class(&tc, (Datum)0, y);
}

}  // namespace gbdt_pg
