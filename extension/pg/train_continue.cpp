#include "train_continue.h"
#include "column_checks.h"

#include <cmath>
#include <string>
#include <vector>

extern "C" {
#include "catalog/namespace.h"
#include "utils/regproc.h"
}

#include "continue_training.h"
#include "guard.h"
#include "model_type.h"
#include "module.h"
#include "train_data.h"
#include "category_dict.h"
#include "label_classes.h"
#include "scoring_layout.h"
#include "target_classes.h"

namespace gbdt_pg {
namespace {

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
  // L: the validation relation's rows are read as a model's features
  // (array columns expanded, categories through the training's
  // dictionaries) and its target through the training's classes.
  const TargetClasses* classes;  // null: the target value as it is
  ScoringLayout* layout;         // null: one column per feature
  float* rowbuf;                 // layout: one row's features
};

void rows_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  Rows* s = (Rows*)arg;
  const bool text_target = s->classes != nullptr && s->classes->kind == ValKind::kNone;
  if (nulls[0] || (!text_target && std::isnan(vals[0]))) {
    s->skipped++;
    return;
  }
  if (s->n == s->cap) {
    if (s->memory) check_memory_estimate((double)s->n + 1, s->nf, (double)s->n + 1, true, *s->memory);
    size_t cap = s->cap * 2;
    s->labels = (float*)repalloc_huge(s->labels, sizeof(float) * cap);
    for (int f = 0; f < s->nf; f++)
      s->cols[f] = (float*)repalloc_huge(s->cols[f], sizeof(float) * cap);
    s->cap = cap;
  }
  size_t i = s->n++;
  s->labels[i] = s->classes != nullptr ? target_class(s->classes, slot->tts_values[0], vals[0])
                                       : vals[0];
  if (s->layout != nullptr) {
    scoring_row(s->layout, slot, vals, nulls, 1, s->rowbuf);
    for (int f = 0; f < s->nf; f++) s->cols[f][i] = s->rowbuf[f];
    return;
  }
  for (int f = 0; f < s->nf; f++) s->cols[f][i] = vals[f + 1];
}

void read_rows(const RelInfo* rel, const char* target, ValKind tk, int nf, const char** names,
               const ValKind* kinds, const MemoryShape* memory, MemoryContext cxt, Rows* s,
               const TargetClasses* classes = nullptr, ScoringLayout* layout = nullptr) {
  MemoryContext old = MemoryContextSwitchTo(cxt);
  memset(s, 0, sizeof(*s));
  s->classes = classes;
  s->layout = layout;
  s->rel = rel;
  s->cxt = cxt;
  s->memory = memory;
  s->nf = nf;
  if (memory && rel->reltuples > 0)
    check_memory_estimate(rel->reltuples, nf, rel->reltuples, false, *memory);
  s->cap = rel->reltuples > 1024 && rel->reltuples < 1e8 ? (size_t)rel->reltuples + 1 : 1024;
  s->labels = (float*)MemoryContextAllocHuge(cxt, sizeof(float) * s->cap);
  s->cols = (float**)palloc(sizeof(float*) * (nf > 0 ? nf : 1));
  for (int f = 0; f < nf; f++) s->cols[f] = (float*)MemoryContextAllocHuge(cxt, sizeof(float) * s->cap);
  const int ncols = layout != nullptr ? layout->ncols + 1 : nf + 1;
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * ncols);
  cols[0] = ReaderColumn{target, tk, true, true};
  if (layout != nullptr) {
    memcpy(cols + 1, layout->cols, sizeof(ReaderColumn) * layout->ncols);
    s->rowbuf = (float*)palloc(sizeof(float) * (nf > 0 ? nf : 1));
  } else {
    for (int f = 0; f < nf; f++) cols[f + 1] = ReaderColumn{names[f], kinds[f], true, false};
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

}  // namespace

const gbdt::Model* init_model_arg(FunctionCallInfo fcinfo, int argno) {
  if (PG_NARGS() <= argno || PG_ARGISNULL(argno)) return nullptr;
  return get_model_arg(fcinfo, argno);
}

void init_model_features(const RelInfo* rel, const char* target, const gbdt::Model* init,
                         ArrayType* features, FeatureSet* fs) {
  const int nf = init->n_features();
  fs->n = nf;
  fs->names = (const char**)palloc(sizeof(char*) * (nf > 0 ? nf : 1));
  fs->model_names = (const char**)palloc(sizeof(char*) * (nf > 0 ? nf : 1));
  fs->kinds = (ValKind*)palloc(sizeof(ValKind) * (nf > 0 ? nf : 1));
  for (int f = 0; f < nf; f++) {
    fs->model_names[f] = pstrdup(init->feature_names[f].c_str());
    fs->names[f] = model_to_server_string(fs->model_names[f]);
    if (strcmp(fs->names[f], target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("column \"%s\" is the target but a feature of init_model", target)));
    if (find_column(rel, fs->names[f]) == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("column \"%s\" of relation \"%s\" does not exist, but init_model "
                             "was trained on it",
                             fs->names[f], rel->name),
                      errhint("Continued training reads the init model's %d feature columns "
                              "by name.", nf)));
    fs->kinds[f] = require_numeric_column(rel, fs->names[f], "feature");
  }
  if (features == nullptr) return;
  Datum* elems;
  bool* enulls;
  int nelems;
  deconstruct_array(features, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &nelems);
  bool same = nelems == nf;
  for (int i = 0; same && i < nelems; i++)
    same = !enulls[i] && strcmp(TextDatumGetCString(elems[i]), fs->names[i]) == 0;
  if (!same)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("features must be those of init_model (%d columns, in its order) or "
                           "NULL",
                           nf)));
}

void load_continue_data(const LoadSpec& spec, TrainPlus* plus, MemoryContext cxt,
                        LoadResult* out) {
  const FeatureSet* fs = spec.features;
  Rows s;
  read_rows(spec.rel, spec.target, spec.target_kind, fs->n, fs->names, fs->kinds, &spec.memory,
            cxt, &s);
  if (s.n + s.skipped == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("relation \"%s\" has no rows", spec.rel->name)));
  if (s.n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("all values of target column \"%s\" are NULL", spec.target)));
  Owned* o = owned_in(cxt);
  const gbdt::Model* init = plus->init;
  run_engine([&] {
    gbdt::TrainInput in;
    in.features = columns_of(s);
    in.labels = s.labels;
    in.rows_skipped = s.skipped;
    for (int f = 0; f < fs->n; f++) {
      in.feature_names.emplace_back(fs->model_names[f]);
      in.feature_types.push_back(feature_type_for(fs->kinds[f]));
    }
    o->data = new gbdt::BinnedInput(gbdt::bin_with_cuts(in, init->cuts, spec.nthread));
    o->margins = new std::vector<float>(gbdt::init_model_margins(*init, in.features, spec.nthread));
  });
  out->data = o->data;
  out->rows_read = s.n + s.skipped;
  out->passes = 1;
  out->sample_rows = 0;
  // Every feature of the init model is kept (no constant-column drop, no
  // target checks: the features are the init model's).
  out->checks = (ColumnCheck*)palloc0(sizeof(ColumnCheck) * (fs->n > 0 ? fs->n : 1));
  out->checked_all_rows = true;
  out->kept = (int*)palloc(sizeof(int) * (fs->n > 0 ? fs->n : 1));
  for (int f = 0; f < fs->n; f++) out->kept[f] = f;
  out->n_kept = fs->n;
  plus->init_margins = o->margins;
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

}  // namespace

void load_validation_relation(const LoadSpec& spec, const gbdt::BinnedInput& data,
                              TrainPlus* plus, MemoryContext cxt) {
  if (plus->validation_relation == nullptr) return;
  List* names = stringToQualifiedNameList(plus->validation_relation);
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
  // L: a text target's labels are looked up in the training's classes.
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
  // L: the features trained on (array elements, constant columns left
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
  Rows s;
  read_rows(vrel, spec.target, tk, nf, nullptr, nullptr, nullptr, cxt, &s, classes, layout);
  if (s.n == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("validation_relation \"%s\" has no rows with a non-NULL target \"%s\"",
                           vrel->name, spec.target)));
  Owned* o = owned_in(cxt);
  const bool keep = plus->init != nullptr;
  run_engine([&] {
    o->validation = new gbdt::ValidationRows(
        gbdt::make_validation_rows(columns_of(s), s.labels, data.cuts, spec.nthread, keep));
    // A category never seen in training (code n) goes left at every
    // categorical split, as in scoring: its bin is n + 1 (past the missing
    // bin n), in no split's set.  With 255 categories or more the codes
    // past the 254th share the "other" bin, as the training's rows do.
    gbdt::BinnedMatrix& mx = o->validation->matrix;
    for (int f = 0; f < nf && f < (int)data.categories.size(); f++) {
      const size_t n = data.categories[f].size();
      if (n == 0 || n >= 255 || data.cuts.nbins(f) != (int)n) continue;
      const float* col = s.cols[f];
      for (size_t r = 0; r < s.n; r++)
        if (col[r] >= (float)n) mx.bins[r * (size_t)nf + f] = (uint8_t)(n + 1);
    }
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
