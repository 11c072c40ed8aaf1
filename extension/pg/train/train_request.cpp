// gbdt_train's request: the SQL arguments, the params jsonb as key/value
// texts, and the keys gbdt_train adds to them (an init model's carried
// parameters, the objective argument, gbdt.log_progress's verbose).
#include <cstring>
#include <new>

#include "settings.h"
#include "train/train_bounds.h"
#include "train/train_steps.h"

namespace gbdt_pg {
namespace {

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

}  // namespace

// The SQL arguments.  The parameters get the keys a continued training
// carries over from its init model when not given, the objective argument
// and gbdt.log_progress's verbose.
TrainRequest* train_request_from_args(FunctionCallInfo fcinfo) {
  if (PG_ARGISNULL(0))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("relation must not be NULL")));
  if (PG_ARGISNULL(1))
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("target must not be NULL")));
  TrainRequest* req = new (palloc0(sizeof(TrainRequest))) TrainRequest();
  req->relid = PG_GETARG_OID(0);
  req->target = text_to_cstring(PG_GETARG_TEXT_PP(1));
  req->features = PG_ARGISNULL(2) ? nullptr : PG_GETARG_ARRAYTYPE_P(2);
  char* objective = PG_ARGISNULL(3) ? nullptr : text_to_cstring(PG_GETARG_TEXT_PP(3));
  Jsonb* params_jb = PG_ARGISNULL(4) ? nullptr : PG_GETARG_JSONB_P(4);
  req->plus.init = init_model_arg(fcinfo, 5);
  const gbdt::Model* init = req->plus.init;
  ParamList* params = &req->params;
  if (params_jb != nullptr) params_from_jsonb(params_jb, params);
  // "exclude" (feature_selection.h) is the glue's: out of the list before the engine sees it.
  req->exclude = take_exclude_param(params->keys, params->values, params->is_string, &params->n);
  // a survival:aft init_model's bound column and distribution carry over
  // when not given (XGBoost's xgb_model keeps its objective parameters).
  if (init != nullptr && init->objective == gbdt::Objective::kSurvivalAft)
    for (const char* key : {"label_upper_bound_column", "aft_loss_distribution",
                            "aft_loss_distribution_scale"}) {
      const char* v = init_model_param(init, key);
      if (v != nullptr && !param_has(params, key))
        param_add(params, key, v, strcmp(key, "aft_loss_distribution_scale") != 0);
    }
  // so does a ranking init_model's group_column (its rounds were trained
  // on query groups, and so are the rounds added), and a single-quantile
  // init_model's quantile_alpha (the engine refuses another).
  if (init != nullptr && gbdt::objective_info(init->objective).ranking &&
      !param_has(params, "group_column") && !param_has(params, "qid_column")) {
    req->carried_group = init_model_param(init, "group_column");
    if (req->carried_group != nullptr) param_add(params, "group_column", req->carried_group, true);
  }
  if (init != nullptr && init->objective == gbdt::Objective::kQuantile &&
      init->num_output_group == 1 && !param_has(params, "quantile_alpha")) {
    const char* v = init_model_param(init, "quantile_alpha");
    if (v != nullptr) param_add(params, "quantile_alpha", v, false);
  }
  req->objective_given = param_has(params, "objective") || objective != nullptr;
  if (objective != nullptr) param_add(params, "objective", objective, true);
  if (guc_verbose && !param_has(params, "verbose") && !param_has(params, "verbosity"))
    param_add(params, "verbose", "true", false);
  return req;
}

}  // namespace gbdt_pg
