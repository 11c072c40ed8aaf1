// gbdt_train(relation regclass, target text, features text[] DEFAULT NULL,
//            objective text DEFAULT NULL, params jsonb DEFAULT '{}') -> gbdt_model
#include <malloc.h>

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "read/array_features.h"
#include "read/category_dict.h"
#include "train/feature_selection.h"
#include "guard.h"
#include "settings.h"
#include "train/label_classes.h"
#include "module.h"
#include "model/model_type.h"
#include "notice_relay.h"
#include "read/relation_reader.h"
#include "train/train_continue.h"
#include "train/train_data.h"
#include "train/train_load.h"
#include "train/train_bounds.h"  // survival:aft's upper bounds
#include "train/train_groups.h"
#include "train/cv.h"
#include "score/target_classes.h"

#include "gbdt/train.h"
#include "gbdt/model.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_train);
}

namespace gbdt_pg {
namespace {

// ---- parameters ----

struct ParamList {
  int n = 0;
  int cap = 0;
  char** keys = nullptr;
  char** values = nullptr;
  bool* is_string = nullptr;
};

void param_add(ParamList* p, const char* key, const char* value, bool is_string) {
  if (p->n == p->cap) {
    p->cap = p->cap ? p->cap * 2 : 16;
    if (p->keys == nullptr) {
      p->keys = (char**)palloc(sizeof(char*) * p->cap);
      p->values = (char**)palloc(sizeof(char*) * p->cap);
      p->is_string = (bool*)palloc(sizeof(bool) * p->cap);
    } else {
      p->keys = (char**)repalloc(p->keys, sizeof(char*) * p->cap);
      p->values = (char**)repalloc(p->values, sizeof(char*) * p->cap);
      p->is_string = (bool*)repalloc(p->is_string, sizeof(bool) * p->cap);
    }
  }
  p->keys[p->n] = pstrdup(key);
  p->values[p->n] = pstrdup(value);
  p->is_string[p->n] = is_string;
  p->n++;
}

bool param_has(const ParamList* p, const char* key) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->keys[i], key) == 0) return true;
  return false;
}

// Top-level keys of a jsonb object as key/value texts.
void params_from_jsonb(Jsonb* jb, ParamList* out) {
  if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_OBJECT(jb))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("params must be a JSON object, got a JSON %s",
                           JB_ROOT_IS_SCALAR(jb) ? "scalar" : "array"),
                    errhint("Example: '{\"num_round\": 50, \"max_depth\": 4}'")));
  JsonbIterator* it = JsonbIteratorInit(&jb->root);
  JsonbValue v;
  JsonbIteratorToken tok;
  char* key = nullptr;
  while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE) {
    if (tok == WJB_KEY) {
      key = pnstrdup(v.val.string.val, v.val.string.len);
      continue;
    }
    if (tok != WJB_VALUE) continue;
    switch (v.type) {
      case jbvString: {
        char* s = pnstrdup(v.val.string.val, v.val.string.len);
        param_add(out, key, s, true);
        break;
      }
      case jbvNumeric: {
        char* s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric)));
        param_add(out, key, s, false);
        break;
      }
      case jbvBool:
        param_add(out, key, v.val.boolean ? "true" : "false", false);
        break;
      case jbvNull:
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("parameter \"%s\" must not be null", key)));
        break;
      case jbvBinary:
        // a JSON array (eval_metric lists) goes to the engine as its JSON
        // text; so does categorical_features (the engine checks its shape);
        // so do the constraint parameters' JSON lists/objects, as XGBoost takes them.
        if (JsonContainerIsArray(v.val.binary.data) || strcmp(key, "categorical_features") == 0 ||
            strcmp(key, "monotone_constraints") == 0 ||
            strcmp(key, "interaction_constraints") == 0) {
          param_add(out, key, JsonbToCString(nullptr, v.val.binary.data, v.val.binary.len), false);
          break;
        }
        /* fall through */
      default:
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("parameter \"%s\" must be a number, string or boolean, not a JSON "
                               "object or array",
                               key)));
    }
  }
}

// ---- labels ----

// A classification objective (given, or binary:logistic inferred from
// labels 0/1) on a target with one value on every row: XGBoost trains it
// without a word (a model that predicts that class everywhere), which is
// nearly always a mistake upstream, so it is an error naming the target and
// the value.  Text targets are checked on their classes before the load;
// a continued training (init_model) may add rows of one class.
void check_two_classes(const char* target, ValKind kind, const std::vector<float>& y,
                       bool objective_given, gbdt::Objective objective) {
  if (y.empty()) return;
  const float first = y[0];
  for (float v : y)
    if (v != first) return;
  const gbdt::ObjectiveInfo& oi = gbdt::objective_info(objective);
  const bool classify = oi.binary || oi.multiclass;
  if (!classify && (objective_given || !(first == 0.0f || first == 1.0f))) return;
  const char* value = kind == ValKind::kBool ? (first != 0.0f ? "true" : "false")
                                             : psprintf("%g", (double)first);
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("target column \"%s\" has the single value %s on every row: %s needs "
                         "at least 2 classes",
                         target, value,
                         classify ? gbdt::objective_name(objective) : "binary:logistic"),
                  errhint("A model of one class predicts it for every row; check the rows the "
                          "relation returns (a filter or join that kept one class?).")));
}

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

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_train(PG_FUNCTION_ARGS) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("relation must not be NULL")));
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("target must not be NULL")));
  Oid relid = PG_GETARG_OID(0);
  char* target = text_to_cstring(PG_GETARG_TEXT_PP(1));
  ArrayType* feat_arr = PG_ARGISNULL(2) ? nullptr : PG_GETARG_ARRAYTYPE_P(2);
  char* objective = PG_ARGISNULL(3) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(3));
  Jsonb* params_jb = PG_ARGISNULL(4) ? nullptr : PG_GETARG_JSONB_P(4);
  TrainPlus plus;  // init_model (argument 6), validation_relation
  plus.init = init_model_arg(fcinfo, 5);

  // Parameters first: bad parameters fail fast, before reading any data.
  ParamList params;
  if (params_jb != nullptr) params_from_jsonb(params_jb, &params);
  // "exclude" (feature_selection.h) is the glue's: out of the list before the engine sees it.
  ExcludeList exclude = take_exclude_param(params.keys, params.values, params.is_string, &params.n);
  // a survival:aft init_model's bound column and distribution carry over
  // when not given (XGBoost's xgb_model keeps its objective parameters).
  if (plus.init != nullptr && plus.init->objective == gbdt::Objective::kSurvivalAft)
    for (const char* key : {"label_upper_bound_column", "aft_loss_distribution",
                            "aft_loss_distribution_scale"}) {
      const char* v = init_model_param(plus.init, key);
      if (v != nullptr && !param_has(&params, key))
        param_add(&params, key, v, strcmp(key, "aft_loss_distribution_scale") != 0);
    }
  // so does a ranking init_model's group_column (its rounds were trained
  // on query groups, and so are the rounds added), and a single-quantile
  // init_model's quantile_alpha (the engine refuses another).
  const char* carried_group = nullptr;
  if (plus.init != nullptr && gbdt::objective_info(plus.init->objective).ranking &&
      !param_has(&params, "group_column") && !param_has(&params, "qid_column")) {
    carried_group = init_model_param(plus.init, "group_column");
    if (carried_group != nullptr) param_add(&params, "group_column", carried_group, true);
  }
  if (plus.init != nullptr && plus.init->objective == gbdt::Objective::kQuantile &&
      plus.init->num_output_group == 1 && !param_has(&params, "quantile_alpha")) {
    const char* v = init_model_param(plus.init, "quantile_alpha");
    if (v != nullptr) param_add(&params, "quantile_alpha", v, false);
  }
  bool objective_given = param_has(&params, "objective") || objective != nullptr;
  if (objective != nullptr) param_add(&params, "objective", objective, true);
  if (guc_verbose && !param_has(&params, "verbose") && !param_has(&params, "verbosity"))
    param_add(&params, "verbose", "true", false);

  // Check the parameters with the engine before the (possibly long) load.
  bool verbose = false;
  gbdt::Objective objective_kind = gbdt::Objective::kSquaredError;
  int num_class_param = 0;
  char* weight_column = nullptr;
  int max_bin = 256, nthread_requested = 0;
  size_t sample_rows = 0;
  char* group_column = nullptr;  // ranking
  char* upper_column = nullptr;  // survival:aft
  MemoryShape memory{1, 1, 6, 256, 0.0, false};
  CategoricalDecl* cat_decl = nullptr;
  {
    const ParamList* pl = &params;
    run_engine([&] {
      std::vector<gbdt::ParamKV> kvs;
      for (int i = 0; i < pl->n; i++) kvs.push_back({pl->keys[i], pl->values[i], pl->is_string[i]});
      gbdt::TrainParams p;
      gbdt::apply_params(kvs, &p);
      gbdt::check_validation_params(p);
      verbose = p.verbose;
      if (!p.group_column.empty()) group_column = pstrdup_nothrow(p.group_column);
      if (!p.label_upper_bound_column.empty())
        upper_column = pstrdup_nothrow(p.label_upper_bound_column);
      objective_kind = p.objective;
      num_class_param = p.num_class;
      if (!p.weight_column.empty()) weight_column = pstrdup_nothrow(p.weight_column);
      max_bin = p.max_bin;
      sample_rows = (size_t)p.bin_sample_rows;
      nthread_requested = p.nthread;
      memory.num_class = gbdt::objective_info(p.objective).multiclass && p.num_class > 0 ? p.num_class : 1;
      if (gbdt::is_multi_quantile(p)) {  // one output (and backend) per quantile
        memory.num_class = (int)p.quantile_alphas.size();
        memory.quantiles = true;
      }
      memory.max_depth = p.max_depth > 0 ? p.max_depth : 16;  // 0 = no limit (lossguide), as the trainer
      memory.max_bin = p.max_bin;
      memory.validation_fraction = p.validation_fraction;
      memory.subsample = p.subsample < 1.0;
      cat_decl = categorical_decl_from_params(p);
    });
  }
  // At most gbdt.max_threads (a NOTICE when an explicit nthread is lowered).
  const int nthread = capped_threads(nthread_requested, "nthread");
  for (int i = 0; i < params.n; i++)  // checked by apply_params above
    if (strcmp(params.keys[i], "validation_relation") == 0) plus.validation_relation = params.values[i];
  memory.nthread = nthread;


  RelInfo* rel = open_rel_info(relid);
  Form_pg_attribute tatt = find_column(rel, target);
  if (tatt == nullptr) report_missing_column(rel, target);
  // Text/enum targets are class labels (label_classes.h).
  LabelClasses classes;
  const bool text_target = kind_for_type(tatt->atttypid) == ValKind::kNone &&
                           is_text_label_type(tatt->atttypid);
  ValKind target_kind = text_target ? ValKind::kNone : require_numeric_column(rel, target, "target");
  // Class labels go with the objectives that have classes (objective.h).
  auto is_binary = [](gbdt::Objective o) { return gbdt::objective_info(o).binary; };
  auto is_multiclass = [](gbdt::Objective o) { return gbdt::objective_info(o).multiclass; };
  const bool classify_objective = is_binary(objective_kind) || is_multiclass(objective_kind);
  if (text_target) {
    if (objective_given && !classify_objective)
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("target column \"%s\" is %s: objective %s needs a numeric target",
                             target, format_type_be(tatt->atttypid),
                             gbdt::objective_name(objective_kind)),
                      errhint("A text target is a class label: pass objective => "
                              "'binary:logistic' (two classes) or 'multi:softprob', or leave "
                              "the objective out; for a regression, cast the target to a "
                              "number in a view.")));
    if (plus.init != nullptr)
      init_label_classes(plus.init, target, &classes);  // the init model's classes
    else
      text_label_classes(rel, target, &classes);
    if (classes.k < 2)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("target column \"%s\" has %s: classification needs at least 2 "
                             "distinct values",
                             target, classes.k == 0 ? "no values" :
                             psprintf("the single value '%s'", classes.names[0]))));
    if (objective_given && is_binary(objective_kind) && classes.k != 2)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("target column \"%s\" has %d distinct values (%s): %s "
                             "needs exactly 2",
                             target, classes.k, quote_class_list(&classes, 10),
                             gbdt::objective_name(objective_kind)),
                      errhint("Pass objective => 'multi:softprob' for %d classes.", classes.k)));
    if (is_multiclass(objective_kind) && num_class_param > 0 &&
        num_class_param != classes.k)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("parameter \"num_class\" = %d but target column \"%s\" has %d "
                             "distinct values",
                             num_class_param, target, classes.k),
                      errhint("Leave num_class out: the classes are the target's values.")));
    if (!objective_given) {
      objective_kind = classes.k == 2 ? gbdt::Objective::kLogistic : gbdt::Objective::kSoftprob;
      if (plus.init != nullptr) objective_kind = plus.init->objective;  // the init model's labels
      param_add(&params, "objective", gbdt::objective_name(objective_kind), true);
    }
    if (is_multiclass(objective_kind)) memory.num_class = classes.k;
  }
  if (plus.init != nullptr) check_init_target(plus.init, target, text_target, target_kind);  // the init model's labels
  if (target_kind == ValKind::kBool && !objective_given) {
    param_add(&params, "objective", "binary:logistic", true);
    objective_kind = gbdt::Objective::kLogistic;
  }

  // The weight column: numeric, not the target.
  ValKind weight_kind = ValKind::kNone;
  if (weight_column != nullptr) {
    if (strcmp(weight_column, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight column \"%s\" is the target", weight_column)));
    weight_kind = require_numeric_column(rel, weight_column, "weight");
  }

  FeatureSet fs;
  memset(&fs, 0, sizeof(fs));
  ColumnList left_out;
  column_list_init(&left_out);
  if (plus.init != nullptr) apply_exclude(rel, exclude, false, true, &fs, &left_out);
  if (plus.init != nullptr) {
    // weights, a group column, a text target and categorical features
    // continue through load_continue_data; categorical_features may only
    // name categorical features of the init model.
    init_model_features(rel, target, plus.init, feat_arr, &fs);
    for (int i = 0; cat_decl != nullptr && i < cat_decl->n; i++) {
      bool cat = false;
      for (int f = 0; f < fs.n && !cat; f++)
        cat = fs.kinds[f] == ValKind::kCategory && strcmp(fs.names[f], cat_decl->names[i]) == 0;
      if (!cat)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("parameter \"categorical_features\" names \"%s\", which is not a "
                               "categorical feature of init_model",
                               cat_decl->names[i]),
                        errhint("The continued training takes the init model's features and "
                                "their types.")));
    }
  } else {
    resolve_features(rel, target, weight_column, feat_arr, &fs, &left_out, cat_decl);
    apply_exclude(rel, exclude, feat_arr != nullptr, false, &fs, &left_out);
    check_categorical_decl(rel, target, fs.n, fs.names, cat_decl);
    fs.model_names = (const char**)palloc(sizeof(char*) * (fs.n > 0 ? fs.n : 1));
    for (int f = 0; f < fs.n; f++) fs.model_names[f] = server_to_model_string(fs.names[f]);
  }
  if (carried_group != nullptr && find_column(rel, group_column) == nullptr)  // ranking query groups
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("group_column \"%s\" of init_model is not a column of relation \"%s\"",
                           group_column, rel->name),
                    errhint("Pass group_column => the column that identifies the query of each "
                            "row (params '{\"group_column\": \"qid\"}').")));
  // init_model: its features stay features (the group column is none of them).
  if (group_column != nullptr)
    check_group_column(rel, group_column, target, feat_arr != nullptr || plus.init != nullptr, &fs);
  ValKind upper_kind = ValKind::kNone;  // survival:aft's upper bounds
  if (upper_column != nullptr)  // init_model: its features stay features
    upper_kind = check_upper_bound_column(rel, upper_column, target, weight_column,
                                          feat_arr != nullptr || plus.init != nullptr, &fs);
  expand_features(&fs);
  int nf = fs.nx;

  // ---- load ----
  MemoryContext data_cxt =
      AllocSetContextCreate(CurrentMemoryContext, "gbdt training data", ALLOCSET_DEFAULT_SIZES);
  LoadSpec spec{rel, target, target_kind, &fs, max_bin, sample_rows, nthread, memory,
                text_target ? &classes : nullptr, weight_column, weight_kind,
                feat_arr == nullptr};
  spec.group_column = group_column;  // ranking query groups
  spec.upper_column = upper_column;  // survival:aft's upper bounds
  spec.upper_kind = upper_kind;
  spec.max_categories = cat_decl->limit;  // categorical columns
  LoadResult loaded;
  if (plus.init != nullptr)
    load_continue_data(spec, &plus, data_cxt, &loaded);
  else
    load_training_data(spec, data_cxt, &loaded);
  gbdt::BinnedInput* data = loaded.data;
  load_validation_relation(spec, *data, &plus, data_cxt);

  // Weights: not all zero.
  if (weight_column != nullptr) {
    bool any = false;
    for (float w : data->weights)
      if (w > 0) { any = true; break; }
    if (!any)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight column \"%s\" is 0 on every row with a target",
                             weight_column),
                      errhint("At least one row needs a weight > 0.")));
  }

  // A numeric target continuing a model trained on numeric class values
  // (labels 0/10/20 trained as classes 0, 1, 2) maps its labels through the
  // init model's classes, as gbdt_evaluate does; a value that is none of
  // them is an error naming it and the classes.
  bool init_values = false;
  if (plus.init != nullptr && !text_target && target_kind != ValKind::kBool) {
    TargetClasses tc;
    target_classes_for_model(rel, target, plus.init, &tc);
    if (tc.mode == TargetClasses::Mode::kValues) {
      for (float& y : data->labels) y = target_class(&tc, (Datum)0, y);
      classes.k = tc.k;
      classes.values = tc.values;  // class order
      map_validation_labels(&plus, target, classes);
      init_values = true;
    }
  }

  if (!text_target && plus.init == nullptr)
    check_two_classes(target, target_kind, data->labels, objective_given, objective_kind);

  // Numeric labels: the objective's reason, and classes from the distinct
  // values for a classification objective.
  StringInfoData why;
  initStringInfo(&why);
  bool remapped = false;
  const char* objective_text = nullptr;
  if (init_values) {
    objective_kind = plus.init->objective;
    remapped = true;  // the model keeps the init model's label values
    appendStringInfo(&why, "target \"%s\" holds the %d class label values of init_model", target,
                     classes.k);
  } else if (plus.init != nullptr && !objective_given && !text_target &&
             target_kind != ValKind::kBool) {
    objective_kind = plus.init->objective;  // the init model's, not one inferred
    appendStringInfo(&why, "init_model's objective; target \"%s\" is numeric", target);
  } else if (text_target) {
    appendStringInfo(&why, "target \"%s\" (%s) has %d distinct values (%s)", target,
                     format_type_be(tatt->atttypid), classes.k, quote_class_list(&classes, 10));
    if (is_binary(objective_kind))
      appendStringInfo(&why, "; the positive class is '%s'", classes.names[1]);
  } else if (target_kind == ValKind::kBool) {
    appendStringInfo(&why, "target \"%s\" is boolean (classes false, true)", target);
  } else if (objective_given && !classify_objective) {
    appendStringInfo(&why, "target \"%s\" is numeric", target);
  } else {
    // The distinct values (a sort of a copy of the labels): the reason of an
    // inferred objective, the classes of a classification objective.
    LabelSummary ls;
    summarize_labels(data->labels.data(), data->labels.size(), &ls);
    const char* values = format_label_values(ls, 10);
    const bool zero_one = ls.distinct <= 2 && ls.min >= 0 && ls.max <= 1 && ls.all_integer;
    if (!objective_given) {
      if (zero_one) {
        objective_kind = gbdt::Objective::kLogistic;  // as the engine infers it
        appendStringInfo(&why, "target \"%s\" has only the values %s", target, values);
      } else if (ls.all_integer && !ls.capped && ls.distinct <= 20) {
        appendStringInfo(&why,
                         "target \"%s\" is numeric with %zu distinct integer values %g..%g; "
                         "pass objective => 'multi:softprob' to classify",
                         target, ls.distinct, ls.min, ls.max);
      } else {
        appendStringInfo(&why, "target \"%s\" is numeric with %s%zu distinct values", target,
                         ls.capped ? "more than " : "", ls.capped ? ls.distinct - 1 : ls.distinct);
      }
    } else if (classify_objective) {
      if (ls.capped)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("target column \"%s\" has more than %d distinct values: too many "
                               "classes for %s (at most %d)",
                               target, gbdt::kMaxClasses, gbdt::objective_name(objective_kind),
                               gbdt::kMaxClasses)));
      const bool binary = is_binary(objective_kind);
      // binary:* with more than 2 values: the engine's error names one.
      if (!binary || ls.distinct == 2) {
        if (!binary && num_class_param > 0 && ls.distinct > 0 &&
            !(ls.min == 0 && ls.max == (double)ls.distinct - 1 && ls.all_integer) &&
            num_class_param != (int)ls.distinct)
          ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                          errmsg("parameter \"num_class\" = %d but target column \"%s\" has %zu "
                                 "distinct values (%s)",
                                 num_class_param, target, ls.distinct, values),
                          errhint("Leave num_class out: the classes are the target's values.")));
        float* y = data->labels.data();
        const size_t n = data->labels.size();
        remapped = map_numeric_labels(y, n, ls, &classes);
        if (remapped) map_validation_labels(&plus, target, classes);  // class labels
      }
      appendStringInfo(&why, "target \"%s\" has %zu distinct values (%s)%s", target,
                       ls.distinct, values, remapped ? ", classes in this order" : "");
    } else {
      appendStringInfo(&why, "target \"%s\" is numeric", target);
    }
  }
  objective_text = gbdt::objective_name(objective_kind);

  // The one NOTICE of the training: objective and why, features taken and left out.
  {
    ColumnList taken;
    column_list_init(&taken);
    for (int i = 0; i < loaded.n_kept; i++) {
      const int f = loaded.kept[i];
      column_list_add(&taken, fs.x_names[f],
                      fs.x_types[f] == gbdt::FeatureType::kCategorical ? "categorical" : nullptr);
    }
    for (int f = 0, i = 0; f < nf; f++) {
      if (i < loaded.n_kept && loaded.kept[i] == f) {
        i++;
        continue;
      }
      column_list_add(&left_out, fs.x_names[f],
                      loaded.identifier[f] != nullptr ? loaded.identifier[f] : "constant");
    }
    warn_feature_checks(&fs, &loaded, target);
    nf = loaded.n_kept;
    StringInfoData msg;
    initStringInfo(&msg);
    appendStringInfo(&msg, "gbdt_train: objective %s%s: %s", objective_text,
                     objective_given ? " (given)" : "", why.data);
    if (weight_column != nullptr) appendStringInfo(&msg, "; weights from \"%s\"", weight_column);
    appendStringInfo(&msg, "\n%d feature%s: %s", nf, nf == 1 ? "" : "s",
                     column_list_text(&taken));
    if (left_out.n > 0)
      appendStringInfo(&msg, "\nleft out: %s", column_list_text(&left_out));
    if (data->rows_skipped > 0)
      appendStringInfo(&msg, "\nskipped %llu row%s with a NULL target",
                       (unsigned long long)data->rows_skipped, data->rows_skipped == 1 ? "" : "s");
    ereport(NOTICE, (errmsg("%s", msg.data)));
  }
  // Class names (UTF-8) stored in the model.
  int n_class_names = 0;
  const char** class_names = nullptr;
  if (text_target) {
    n_class_names = classes.k;
    class_names = classes.model_names;
  } else if (target_kind == ValKind::kBool &&
             (is_binary(objective_kind) || is_multiclass(objective_kind))) {
    static const char* bool_names[] = {"false", "true"};
    n_class_names = 2;
    class_names = bool_names;
  }
  const double* class_values = remapped ? classes.values : nullptr;
  const int n_class_values = remapped ? classes.k : 0;
  if (verbose)
    ereport(NOTICE, (errmsg("gbdt_train: loaded %zu rows x %d features in %.3f s (%d pass%s, "
                            "cuts from %zu rows)",
                            data->matrix.n_rows, nf, data->seconds_load + data->seconds_bin,
                            loaded.passes, loaded.passes == 1 ? "" : "es", loaded.sample_rows)));

  // ---- train (engine) ----
  struct varlena* result = nullptr;
  NoticeRelay relay;  // progress NOTICEs, sent as the rounds finish
  const double memory_limit = max_memory_bytes();
  bool over_limit = false;  // the engine's gbdt.max_memory budget was exceeded
  const char* device = device_setting_name();
  {
    const ParamList* pl = &params;
    EngineError err;
    catch_engine(&err, [&] {
      std::vector<gbdt::ParamKV> kvs;
      for (int i = 0; i < pl->n; i++) kvs.push_back({pl->keys[i], pl->values[i], pl->is_string[i]});
      gbdt::TrainParams p;
      gbdt::apply_params(kvs, &p);
      if (p.device.empty()) p.device = device;
      p.nthread = nthread;
      if (plus.validation_qualname != nullptr) p.validation_relation = plus.validation_qualname;

      // NOTICEs go out from this (the backend's) thread as the engine calls
      // back; an error raised by one (a cancel noticed by ereport) stops the
      // training and is re-raised below.
      auto relay_line = [&relay](const std::string& m) {
        if (!relay.emit(m.c_str())) throw gbdt::Cancelled();
      };
      gbdt::TrainHooks hooks;
      hooks.cancel = [] { return interrupt_pending(); };
      if (p.verbose) hooks.log = relay_line;
      hooks.notice = relay_line;
      hooks.default_device = device;
      gbdt::MemoryBudget budget(memory_limit, "gbdt.max_memory");
      hooks.budget = &budget;

      // gbdt_cv (cv.h) trains its folds on these rows instead of one model.
      if (cv_request() != nullptr) return run_cv_request(std::move(*data), p, hooks, target);
      gbdt::Model model;
      try {
        model = gbdt::train_binned(std::move(*data), p, hooks, std::string(target), plus.extras());
        // the classes' names or label values (the engine trained on 0..K-1).
        if (n_class_names > 0 && (int)model.class_labels.size() == n_class_names)
          model.class_names.assign(class_names, class_names + n_class_names);
        if (n_class_values > 0 && (int)model.class_labels.size() == n_class_values)
          model.class_labels.assign(class_values, class_values + n_class_values);
      } catch (const gbdt::MemoryLimitExceeded&) {
        over_limit = true;
        throw;
      }
      if (p.verbose) {
        char line[256];
        snprintf(line, sizeof line,
                 "gbdt_train: backend %s, load %.3f s, bin %.3f s, train %.3f s, memory "
                 "peak %s (gbdt.max_memory %s)",
                 model.report.backend.c_str(), model.report.seconds_load,
                 model.report.seconds_bin, model.report.seconds_train,
                 gbdt::format_bytes(budget.peak()).c_str(),
                 gbdt::format_bytes(memory_limit).c_str());
        relay_line(line);
      }
      std::vector<uint8_t> bytes = gbdt::serialize_model(model);
      result = bytes_to_varlena_nothrow(bytes);
    });
    // All C++ objects of the training are gone here.
    MemoryContextDelete(data_cxt);
    // The engine's buffers were freed by its destructors (also on error and
    // cancel), but glibc keeps freed pages of the worker threads' arenas
    // mapped; give them back so repeated trainings do not grow the backend.
    malloc_trim(0);
    relay.rethrow();  // an error raised while sending a NOTICE, as it was
    if (over_limit && err.kind == EngineErrKind::kResource)
      ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("%s", err.message)));
    if (err.kind != EngineErrKind::kNone) {
      ErrorStyle style = default_style();
      raise_engine_error(&err, style);
    }
  }
  if (cv_request() != nullptr) PG_RETURN_NULL();  // the folds' history is in the request
  PG_RETURN_POINTER(compressed_model_value(result));
}
