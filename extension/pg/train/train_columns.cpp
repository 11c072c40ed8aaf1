// gbdt_train's columns: the target (a text target's classes and
// objective, decided by gbdt::decide_labels before the load), the role
// columns (weight, query group, survival upper bound) and the features.
#include <string>
#include <vector>

#include "guard.h"
#include "read/array_features.h"
#include "read/category_dict.h"
#include "train/feature_selection.h"
#include "train/train_bounds.h"
#include "train/train_groups.h"
#include "train/train_steps.h"

namespace gbdt_pg {
namespace {

// ---- feature resolution ----

// Adds array column `name` (element kind ek) to fs with the length of its
// first non-empty value; false when it has none (every value NULL or empty).
bool add_array_column(const RelInfo* rel, FeatureSet* fs, const char* name, ValKind ek) {
  const int len = first_array_length(rel, name);
  if (len <= 0) return false;
  fs->names[fs->n] = pstrdup(name);
  fs->kinds[fs->n] = ValKind::kArray;
  fs->elem_kinds[fs->n] = ek;
  fs->widths[fs->n] = len;
  fs->has_arrays = true;
  fs->n++;
  return true;
}

// The features of fs's columns: array columns expanded to name[1] .. name[L].
void expand_features(FeatureSet* fs) {
  int nx = 0;
  for (int i = 0; i < fs->n; i++) nx += fs->kinds[i] == ValKind::kArray ? fs->widths[i] : 1;
  fs->nx = nx;
  fs->x_names = (const char**)palloc(sizeof(char*) * (nx > 0 ? nx : 1));
  fs->x_model_names = (const char**)palloc(sizeof(char*) * (nx > 0 ? nx : 1));
  fs->x_types = (gbdt::FeatureType*)palloc(sizeof(gbdt::FeatureType) * (nx > 0 ? nx : 1));
  int j = 0;
  for (int i = 0; i < fs->n; i++) {
    if (fs->kinds[i] == ValKind::kArray) {
      for (int e = 1; e <= fs->widths[i]; e++) {
        fs->x_names[j] = element_name(fs->names[i], e);
        fs->x_types[j] = feature_type_for(fs->elem_kinds[i]);
        j++;
      }
    } else {
      fs->x_names[j] = fs->names[i];
      fs->x_types[j] = feature_type_for(fs->kinds[i]);
      j++;
    }
  }
  for (int f = 0; f < nx; f++) fs->x_model_names[f] = server_to_model_string(fs->x_names[f]);
}

// Columns gbdt_train does not take as features: the target and the weight
// column.  `left_out` collects the default list's omissions with reasons.
void resolve_features(const RelInfo* rel, const char* target, const char* weight, ArrayType* arr,
                      FeatureSet* fs, ColumnList* left_out, const CategoricalDecl* cat_decl) {
  int natts = rel->desc->natts;
  fs->names = (const char**)palloc(sizeof(char*) * (natts + 1));
  fs->kinds = (ValKind*)palloc(sizeof(ValKind) * (natts + 1));
  fs->widths = (int*)palloc0(sizeof(int) * (natts + 1));
  fs->elem_kinds = (ValKind*)palloc0(sizeof(ValKind) * (natts + 1));
  fs->has_arrays = false;
  fs->n = 0;

  if (arr == nullptr) {
    for (int i = 0; i < natts; i++) {
      Form_pg_attribute a = TupleDescAttr(rel->desc, i);
      if (a->attisdropped) continue;
      const char* name = NameStr(a->attname);
      if (strcmp(name, target) == 0) continue;
      if (weight != nullptr && strcmp(name, weight) == 0) {
        column_list_add(left_out, name, "weight column");
        continue;
      }
      const ValKind ek = array_element_kind(a->atttypid);
      if (ek != ValKind::kNone) {
        if (!add_array_column(rel, fs, name, ek))
          column_list_add(left_out, name, "array, every value NULL or empty");
        continue;
      }
      ValKind k = training_feature_kind(a, cat_decl);  // text, enum, bool: categorical
      if (k == ValKind::kNone) {
        column_list_add(left_out, name, psprintf("type %s", format_type_be(a->atttypid)));
        continue;
      }
      if (const char* key = generated_key_kind(rel, a)) {
        column_list_add(left_out, name, key);
        continue;
      }
      fs->names[fs->n] = pstrdup(name);
      fs->kinds[fs->n] = k;
      fs->n++;
    }
    if (fs->n == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("relation \"%s\" has no feature columns besides the target \"%s\"",
                             rel->name, target),
                      left_out->n ? errdetail("Left out: %s.", column_list_text(left_out)) : 0,
                      errhint("Supported feature types are " GBDT_SUPPORTED_TYPES
                              "; name the columns in features to take a key column.")));
    return;
  }

  if (ARR_NDIM(arr) > 1)
    ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
                    errmsg("features must be a one-dimensional text array")));
  Datum* elems;
  bool* enulls;
  int nelems;
  deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &enulls, &nelems);
  if (nelems == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("features must name at least one column")));
  fs->names = (const char**)palloc(sizeof(char*) * nelems);
  fs->kinds = (ValKind*)palloc(sizeof(ValKind) * nelems);
  fs->widths = (int*)palloc0(sizeof(int) * nelems);
  fs->elem_kinds = (ValKind*)palloc0(sizeof(ValKind) * nelems);
  fs->has_arrays = false;
  for (int i = 0; i < nelems; i++) {
    if (enulls[i])
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("features must not contain NULL (element %d)", i + 1)));
    char* name = TextDatumGetCString(elems[i]);
    if (strcmp(name, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("column \"%s\" is the target and cannot also be a feature", name)));
    if (weight != nullptr && strcmp(name, weight) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("column \"%s\" is the weight column and cannot also be a feature",
                             name)));
    for (int j = 0; j < fs->n; j++)
      if (strcmp(fs->names[j], name) == 0)
        ereport(ERROR, (errcode(ERRCODE_DUPLICATE_COLUMN),
                        errmsg("feature column \"%s\" is listed more than once", name)));
    Form_pg_attribute a = find_column(rel, name);
    const ValKind ek = a != nullptr ? array_element_kind(a->atttypid) : ValKind::kNone;
    if (ek != ValKind::kNone) {
      if (!add_array_column(rel, fs, name, ek))
        ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                        errmsg("array column \"%s\" has no non-empty value: its length (the "
                               "number of features) is unknown",
                               name)));
      continue;
    }
    fs->kinds[fs->n] = a != nullptr ? training_feature_kind(a, cat_decl) : ValKind::kNone;
    if (fs->kinds[fs->n] == ValKind::kNone)
      fs->kinds[fs->n] = require_numeric_column(rel, name, "feature");
    fs->names[fs->n] = name;
    fs->n++;
  }
}

// The target column and, for a text target, its classes and objective
// (the classes of the init model in a continued training).
void resolve_target(const RelInfo* rel, TrainRequest* req, EnginePlan* plan, ColumnRoles* c) {
  const char* target = req->target;
  c->target_att = find_column(rel, target);
  if (c->target_att == nullptr) report_missing_column(rel, target);
  const Oid typid = c->target_att->atttypid;
  c->text_target = kind_for_type(typid) == ValKind::kNone && is_text_label_type(typid);
  c->target_kind = c->text_target ? ValKind::kNone : require_numeric_column(rel, target, "target");
  if (c->text_target) {
    const char* type_name = format_type_be(typid);
    const gbdt::Model* init = req->plus.init;
    // The objective must fit a text target before its classes are read.
    auto request = [&](const LabelClasses* classes) {
      gbdt::LabelRequest r;
      r.target = target;
      r.type = gbdt::TargetType::kText;
      r.type_name = type_name;
      r.objective_given = req->objective_given;
      r.objective = plan->objective;
      r.num_class = plan->num_class;
      r.continued = init != nullptr;
      if (init != nullptr) r.init_objective = init->objective;
      for (int i = 0; classes != nullptr && i < classes->k; i++) r.class_names.push_back(classes->names[i]);
      return r;
    };
    LabelFaultText type_fault;
    run_engine([&] { type_fault.set(gbdt::check_label_type(request(nullptr))); });
    type_fault.raise();
    if (init != nullptr)
      init_label_classes(init, target, &c->classes);  // the init model's classes
    else
      text_label_classes(rel, target, &c->classes);
    LabelFaultText fault;
    bool decided = false;
    int num_class = 0;
    run_engine([&] {
      const gbdt::LabelPlan lp = gbdt::decide_labels(request(&c->classes), nullptr, 0);
      fault.set(lp);
      if (!lp.ok()) return;
      plan->objective = lp.objective;
      decided = lp.objective_decided;
      num_class = lp.num_class;
      c->text_reason = pstrdup_nothrow(lp.reason);
    });
    fault.raise();
    if (decided) {
      plan->params->objective = plan->objective;  // as if given
      plan->params->objective_set = true;
    }
    if (num_class > 0) plan->memory.num_class = num_class;
  }
  if (req->plus.init != nullptr)
    check_init_target(req->plus.init, target, c->text_target, c->target_kind);
}

// The features of a continued training: the init model's; categorical_features
// may only name categorical features of the init model.
void init_features(const RelInfo* rel, const TrainRequest* req, const EnginePlan* plan,
                   FeatureSet* fs) {
  const CategoricalDecl* cat_decl = plan->cat_decl;
  // weights, a group column, a text target and categorical features
  // continue through load_continue_data.
  init_model_features(rel, req->target, req->plus.init, req->features, fs);
  for (int i = 0; cat_decl != nullptr && i < cat_decl->n; i++) {
    bool cat = false;
    for (int f = 0; f < fs->n && !cat; f++)
      cat = fs->kinds[f] == ValKind::kCategory && strcmp(fs->names[f], cat_decl->names[i]) == 0;
    if (!cat)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("parameter \"categorical_features\" names \"%s\", which is not a "
                             "categorical feature of init_model",
                             cat_decl->names[i]),
                      errhint("The continued training takes the init model's features and "
                              "their types.")));
  }
}

}  // namespace

void LabelFaultText::set(const gbdt::LabelPlan& p) {
  fault = p.fault;
  if (p.ok()) return;
  message = pstrdup_nothrow(p.message);
  hint = p.hint.empty() ? nullptr : pstrdup_nothrow(p.hint);
}

void LabelFaultText::raise() const {
  if (fault == gbdt::LabelFault::kNone) return;
  const int code = fault == gbdt::LabelFault::kTypeMismatch     ? ERRCODE_DATATYPE_MISMATCH
                   : fault == gbdt::LabelFault::kTooManyClasses ? ERRCODE_PROGRAM_LIMIT_EXCEEDED
                                                                : ERRCODE_INVALID_PARAMETER_VALUE;
  ereport(ERROR, (errcode(code), errmsg("%s", message), hint ? errhint("%s", hint) : 0));
}

void resolve_columns(const RelInfo* rel, TrainRequest* req, EnginePlan* plan, ColumnRoles* c) {
  const char* target = req->target;
  resolve_target(rel, req, plan, c);

  // The weight column: numeric, not the target.
  const char* weight_column = plan->weight_column;
  if (weight_column != nullptr) {
    if (strcmp(weight_column, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight column \"%s\" is the target", weight_column)));
    c->weight_kind = require_numeric_column(rel, weight_column, "weight");
  }

  FeatureSet* fs = &c->fs;
  memset(fs, 0, sizeof(*fs));
  column_list_init(&c->left_out);
  const bool continued = req->plus.init != nullptr;
  if (continued) {
    apply_exclude(rel, req->exclude, false, true, fs, &c->left_out);  // refused with an init_model
    init_features(rel, req, plan, fs);
  } else {
    resolve_features(rel, target, weight_column, req->features, fs, &c->left_out, plan->cat_decl);
    apply_exclude(rel, req->exclude, req->features != nullptr, false, fs, &c->left_out);
    check_categorical_decl(rel, target, fs->n, fs->names, plan->cat_decl);
    fs->model_names = (const char**)palloc(sizeof(char*) * (fs->n > 0 ? fs->n : 1));
    for (int f = 0; f < fs->n; f++) fs->model_names[f] = server_to_model_string(fs->names[f]);
  }
  const char* group_column = plan->group_column;
  // A group_column carried from a ranking init_model must still be a column.
  if (req->carried_group != nullptr && find_column(rel, group_column) == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("group_column \"%s\" of init_model is not a column of relation \"%s\"",
                           group_column, rel->name),
                    errhint("Pass group_column => the column that identifies the query of each "
                            "row (params '{\"group_column\": \"qid\"}').")));
  // init_model: its features stay features (the group column is none of them).
  const bool named = req->features != nullptr || continued;
  if (group_column != nullptr) check_group_column(rel, group_column, target, named, fs);
  if (plan->upper_column != nullptr)  // survival:aft's upper bounds
    c->upper_kind =
        check_upper_bound_column(rel, plan->upper_column, target, weight_column, named, fs);
  expand_features(fs);
}

}  // namespace gbdt_pg
