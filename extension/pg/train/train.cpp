// gbdt_train(relation regclass, target text, features text[] DEFAULT NULL,
//            objective text DEFAULT NULL, params jsonb DEFAULT '{}') -> gbdt_model
//
// A short pipeline of named steps (train_steps.h): the request from the SQL
// arguments; the engine plan (the parameters applied once, before any data
// is read, so bad parameters fail fast); the relation and its columns; the
// load; the label decision (gbdt::decide_labels); the training's NOTICE;
// the training and the stored model.
#include <malloc.h>

#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "guard.h"
#include "module.h"
#include "model/model_type.h"
#include "notice_relay.h"
#include "score/target_classes.h"
#include "settings.h"
#include "train/cv.h"
#include "train/feature_selection.h"
#include "train/train_partition.h"
#include "train/train_setup.h"
#include "train/train_sharded.h"
#include "train/train_steps.h"

#include "gbdt/model.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_train);
}

namespace gbdt_pg {
namespace {

// ---- the engine plan ----

void delete_params(void* arg) {
  EnginePlan* plan = (EnginePlan*)arg;
  delete plan->params;
  plan->params = nullptr;
}

// The parameters applied once by the engine (checked before the possibly
// long load).  The TrainParams belong to a memory context of their own, so
// that an ERROR anywhere later frees them with it.
EnginePlan* engine_plan(TrainRequest* req) {
  EnginePlan* plan = new (palloc0(sizeof(EnginePlan))) EnginePlan();
  plan->cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt training plan",
                                    ALLOCSET_SMALL_SIZES);
  MemoryContextCallback* cb =
      (MemoryContextCallback*)MemoryContextAlloc(plan->cxt, sizeof(MemoryContextCallback));
  cb->func = delete_params;
  cb->arg = plan;
  MemoryContextRegisterResetCallback(plan->cxt, cb);
  const ParamList* pl = &req->params;
  int nthread_requested = 0;
  run_engine([&] {
    std::vector<gbdt::ParamKV> kvs;
    for (int i = 0; i < pl->n; i++) kvs.push_back({pl->keys[i], pl->values[i], pl->is_string[i]});
    plan->params = new gbdt::TrainParams();
    gbdt::TrainParams& p = *plan->params;
    gbdt::apply_params(kvs, &p);
    gbdt::check_validation_params(p);
    plan->verbose = p.verbose;
    if (!p.group_column.empty()) plan->group_column = pstrdup_nothrow(p.group_column);
    if (!p.label_upper_bound_column.empty())
      plan->upper_column = pstrdup_nothrow(p.label_upper_bound_column);
    plan->objective = p.objective;
    plan->num_class = p.num_class;
    if (!p.weight_column.empty()) plan->weight_column = pstrdup_nothrow(p.weight_column);
    plan->max_bin = p.max_bin;
    plan->sample_rows = (size_t)p.bin_sample_rows;
    nthread_requested = p.nthread;
    MemoryShape& memory = plan->memory;
    memory.num_class = gbdt::objective_info(p.objective).multiclass && p.num_class > 0 ? p.num_class : 1;
    if (gbdt::is_multi_quantile(p)) {  // one output (and backend) per quantile
      memory.num_class = (int)p.quantile_alphas.size();
      memory.quantiles = true;
    }
    memory.max_depth = p.max_depth > 0 ? p.max_depth : 16;  // 0 = no limit (lossguide), as the trainer
    memory.max_bin = p.max_bin;
    memory.validation_fraction = p.validation_fraction;
    memory.subsample = p.subsample < 1.0;
    plan->cat_decl = categorical_decl_from_params(p);
  });
  // At most gbdt.max_threads (a NOTICE when an explicit nthread is lowered).
  plan->nthread = capped_threads(nthread_requested, "nthread");
  plan->memory.nthread = plan->nthread;
  for (int i = 0; i < pl->n; i++)  // checked by apply_params above
    if (strcmp(pl->keys[i], "validation_relation") == 0) req->plus.validation_relation = pl->values[i];
  return plan;
}

// ---- the load ----

// The training rows (a continued training's through the init model's cuts)
// and the validation relation's, into a memory context of their own.
LoadedData* load_training_relation(const RelInfo* rel, TrainRequest* req, const EnginePlan* plan,
                                   const ColumnRoles* cols) {
  LoadedData* d = new (palloc0(sizeof(LoadedData))) LoadedData();
  d->cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt training data", ALLOCSET_DEFAULT_SIZES);
  d->spec = LoadSpec{rel, req->target, cols->target_kind, &cols->fs, plan->max_bin,
                     plan->sample_rows, plan->nthread, plan->memory,
                     cols->text_target ? &cols->classes : nullptr, plan->weight_column,
                     cols->weight_kind, req->features == nullptr};
  d->spec.group_column = plan->group_column;
  d->spec.upper_column = plan->upper_column;
  d->spec.upper_kind = cols->upper_kind;
  d->spec.max_categories = plan->cat_decl->limit;
  if (req->plus.init != nullptr)
    load_continue_data(d->spec, &req->plus, d->cxt, &d->loaded);
  else
    load_training_data(d->spec, d->cxt, &d->loaded);
  d->data = d->loaded.data;
  load_validation_relation(d->spec, *d->data, &req->plus, d->cxt);

  // Weights: not all zero.
  if (plan->weight_column != nullptr) {
    bool any = false;
    for (float w : d->data->weights)
      if (w > 0) { any = true; break; }
    if (!any)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("weight column \"%s\" is 0 on every row with a target",
                             plan->weight_column),
                      errhint("At least one row needs a weight > 0.")));
  }
  return d;
}

// ---- the labels ----

// The objective and classes of the training (gbdt::decide_labels; a text
// target's were decided with its columns).  A numeric target continuing a
// model trained on numeric class values (labels 0/10/20 trained as classes
// 0, 1, 2) maps its labels through the init model's classes first, as
// gbdt_evaluate does; a value that is none of them is an error naming it
// and the classes.  The validation rows' labels are mapped as the
// training's.
TrainLabels* decide_training_labels(const RelInfo* rel, TrainRequest* req, EnginePlan* plan,
                                    ColumnRoles* cols, LoadedData* d) {
  TrainLabels* out = new (palloc0(sizeof(TrainLabels))) TrainLabels();
  out->objective = plan->objective;
  if (cols->text_target) {
    out->reason = cols->text_reason;
    out->n_class_names = cols->classes.k;
    out->class_names = cols->classes.model_names;
    return out;
  }
  const char* target = req->target;
  const gbdt::Model* init = req->plus.init;
  std::vector<float>& y = d->data->labels;  // engine vector, owned by d->cxt
  LabelClasses& classes = cols->classes;
  bool init_values = false;
  if (init != nullptr && cols->target_kind != ValKind::kBool) {
    TargetClasses tc;
    target_classes_for_model(rel, target, init, &tc);
    if (tc.mode == TargetClasses::Mode::kValues) {
      for (float& v : y) v = target_class(&tc, (Datum)0, v);
      classes.k = tc.k;
      classes.values = tc.values;  // class order
      map_validation_labels(&req->plus, target, classes);
      init_values = true;
    }
  }
  LabelFaultText fault;
  bool decided = false, bool_names = false;
  run_engine([&] {
    gbdt::LabelRequest r;
    r.target = target;
    r.type = cols->target_kind == ValKind::kBool ? gbdt::TargetType::kBool
                                                 : gbdt::TargetType::kNumeric;
    r.objective_given = req->objective_given;
    r.objective = plan->objective;
    r.num_class = plan->num_class;
    r.continued = init != nullptr;
    if (init != nullptr) r.init_objective = init->objective;
    if (init_values) r.init_class_values.assign(classes.values, classes.values + classes.k);
    r.cancel = cancel_callback();
    const gbdt::LabelPlan lp = gbdt::decide_labels(r, y.data(), y.size());
    fault.set(lp);
    if (!lp.ok()) return;
    out->objective = lp.objective;
    out->reason = pstrdup_nothrow(lp.reason);
    decided = lp.objective_decided;
    bool_names = !lp.class_names.empty();
    if (lp.remapped) {
      double* values = (double*)context_alloc_nothrow(CurrentMemoryContext, sizeof(double) * lp.class_values.size());
      std::copy(lp.class_values.begin(), lp.class_values.end(), values);
      out->n_class_values = (int)lp.class_values.size();
      out->class_values = values;
    }
  });
  fault.raise();
  if (decided) {  // a boolean target's binary:logistic, as if given
    plan->params->objective = out->objective;
    plan->params->objective_set = true;
  }
  if (bool_names) {
    static const char* bool_names_utf8[] = {"false", "true"};
    out->n_class_names = 2;
    out->class_names = bool_names_utf8;
  }
  if (out->n_class_values > 0 && !init_values) {
    classes.k = out->n_class_values;
    classes.text = false;
    classes.values = (double*)out->class_values;
    map_validation_labels(&req->plus, target, classes);
  }
  return out;
}

// ---- the NOTICE ----

// The one NOTICE of the training: objective and why, features taken and
// left out (and, verbose, the load's figures).
void emit_training_notice(const TrainRequest* req, const EnginePlan* plan, ColumnRoles* cols,
                          LoadedData* d, const TrainLabels* labels) {
  const FeatureSet& fs = cols->fs;
  const LoadResult& loaded = d->loaded;
  ColumnList taken;
  column_list_init(&taken);
  for (int i = 0; i < loaded.n_kept; i++) {
    const int f = loaded.kept[i];
    column_list_add(&taken, fs.x_names[f],
                    fs.x_types[f] == gbdt::FeatureType::kCategorical ? "categorical" : nullptr);
  }
  for (int f = 0, i = 0; f < fs.nx; f++) {
    if (i < loaded.n_kept && loaded.kept[i] == f) {
      i++;
      continue;
    }
    column_list_add(&cols->left_out, fs.x_names[f],
                    loaded.identifier[f] != nullptr ? loaded.identifier[f] : "constant");
  }
  warn_feature_checks(&fs, &d->loaded, req->target);
  const int nf = loaded.n_kept;
  const gbdt::BinnedInput* data = d->data;
  StringInfoData msg;
  initStringInfo(&msg);
  appendStringInfo(&msg, "gbdt_train: objective %s%s: %s", gbdt::objective_name(labels->objective),
                   req->objective_given ? " (given)" : "", labels->reason);
  if (plan->weight_column != nullptr)
    appendStringInfo(&msg, "; weights from \"%s\"", plan->weight_column);
  appendStringInfo(&msg, "\n%d feature%s: %s", nf, nf == 1 ? "" : "s", column_list_text(&taken));
  if (cols->left_out.n > 0)
    appendStringInfo(&msg, "\nleft out: %s", column_list_text(&cols->left_out));
  if (data->rows_skipped > 0)
    appendStringInfo(&msg, "\nskipped %llu row%s with a NULL target",
                     (unsigned long long)data->rows_skipped, data->rows_skipped == 1 ? "" : "s");
  ereport(NOTICE, (errmsg("%s", msg.data)));
  if (plan->verbose)
    ereport(NOTICE, (errmsg("gbdt_train: loaded %zu rows x %d features in %.3f s (%d pass%s, "
                            "cuts from %zu rows)",
                            data->matrix.n_rows, nf, data->seconds_load + data->seconds_bin,
                            loaded.passes, loaded.passes == 1 ? "" : "es", loaded.sample_rows)));
}

// ---- the training ----

// Trains with the engine (progress NOTICEs relayed as the rounds finish)
// and returns the serialized model; the training data and the plan are
// freed before any error is raised.
struct varlena* train_and_store(const TrainRequest* req, EnginePlan* plan, LoadedData* d,
                                const TrainLabels* labels) {
  struct varlena* result = nullptr;
  NoticeRelay relay;  // progress NOTICEs, sent as the rounds finish
  const double memory_limit = max_memory_bytes();
  bool over_limit = false;  // the engine's gbdt.max_memory budget was exceeded
  const char* device = device_setting_name();
  EngineError err;
  catch_engine(&err, [&] {
    TrainSetup setup(*plan, &relay, memory_limit, device);
    gbdt::TrainParams& p = setup.params;
    if (req->plus.validation_qualname != nullptr) p.validation_relation = req->plus.validation_qualname;
    const gbdt::TrainHooks& hooks = setup.hooks;
    auto& relay_line = setup.relay_line;
    gbdt::MemoryBudget& budget = setup.budget;

    // gbdt_cv (cv.h) trains its folds on these rows instead of one model.
    if (cv_request() != nullptr) return run_cv_request(std::move(*d->data), p, hooks, req->target);
    gbdt::Model model;
    try {
      model = gbdt::train_binned(std::move(*d->data), p, hooks, std::string(req->target),
                                 req->plus.extras());
      // the classes' names or label values (the engine trained on 0..K-1).
      const int nn = labels->n_class_names, nv = labels->n_class_values;
      if (nn > 0 && (int)model.class_labels.size() == nn)
        model.class_names.assign(labels->class_names, labels->class_names + nn);
      if (nv > 0 && (int)model.class_labels.size() == nv)
        model.class_labels.assign(labels->class_values, labels->class_values + nv);
    } catch (const gbdt::MemoryLimitExceeded&) {
      over_limit = true;
      throw;
    }
    if (p.verbose) {
      char line[256];
      snprintf(line, sizeof line,
               "gbdt_train: backend %s, load %.3f s, bin %.3f s, train %.3f s, memory "
               "peak %s (gbdt.max_memory %s)",
               model.report.backend.c_str(), model.report.seconds_load, model.report.seconds_bin,
               model.report.seconds_train, gbdt::format_bytes(budget.peak()).c_str(),
               gbdt::format_bytes(memory_limit).c_str());
      relay_line(line);
    }
    std::vector<uint8_t> bytes = gbdt::serialize_model(model);
    result = bytes_to_varlena_nothrow(bytes);
  });
  // All C++ objects of the training are gone here.
  MemoryContextDelete(d->cxt);
  MemoryContextDelete(plan->cxt);  // the TrainParams
  // The engine's buffers were freed by its destructors (also on error and
  // cancel), but glibc keeps freed pages of the worker threads' arenas
  // mapped; give them back so repeated trainings do not grow the backend.
  malloc_trim(0);
  relay.rethrow();  // an error raised while sending a NOTICE, as it was
  if (over_limit && err.kind == EngineErrKind::kResource)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("%s", err.message)));
  if (err.kind != EngineErrKind::kNone) raise_engine_error(&err, default_style());
  return result;
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_train(PG_FUNCTION_ARGS) {
  if (partition_requested(fcinfo)) return train_partitioned(fcinfo);  // train_partition.h
  TrainRequest* req = train_request_from_args(fcinfo);
  EnginePlan* plan = engine_plan(req);  // bad parameters fail before any data is read
  RelInfo* rel = open_rel_info(req->relid);
  ColumnRoles* cols = new (palloc0(sizeof(ColumnRoles))) ColumnRoles();
  resolve_columns(rel, req, plan, cols);
  // A partitioned table of postgres_fdw foreign tables trains on its shard
  // servers when it can (train_sharded.h); null: train here.
  if (struct varlena* sharded = train_on_shards(rel, req, plan, cols))
    PG_RETURN_POINTER(compressed_model_value(sharded));
  LoadedData* data = load_training_relation(rel, req, plan, cols);
  TrainLabels* labels = decide_training_labels(rel, req, plan, cols, data);
  emit_training_notice(req, plan, cols, data, labels);
  struct varlena* model = train_and_store(req, plan, data, labels);
  if (cv_request() != nullptr) PG_RETURN_NULL();  // the folds' history is in the request
  PG_RETURN_POINTER(compressed_model_value(model));
}
