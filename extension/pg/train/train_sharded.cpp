// train_on_shards (train_sharded.h): the shard plan (shard_plan.h), the
// reasons a training cannot run shard-side, the shard sessions
// (shard_link.h) and gbdt::train_distributed.
#include "train/train_sharded.h"

#include <malloc.h>

#include <memory>
#include <string>
#include <vector>

#include "distributed/shard_link.h"
#include "distributed/shard_plan.h"
#include "guard.h"
#include "module.h"
#include "notice_relay.h"
#include "settings.h"
#include "train/cv.h"
#include "train/train_setup.h"

#include "gbdt/distributed.h"

namespace gbdt_pg {
namespace {

enum class Mode { kOff, kAuto, kOn };

Mode distributed_mode(const EnginePlan* plan) {
  const std::string& d = plan->params->distributed;  // checked by apply_params
  if (d == "off") return Mode::kOff;
  return d == "on" ? Mode::kOn : Mode::kAuto;
}

// Why the columns or parameters need every row on this server (null: they
// do not).  The plan's reason (a partition) comes first, then these.
const char* request_refusal(const TrainRequest* req, const EnginePlan* plan,
                            const ColumnRoles* cols) {
  if (cv_request() != nullptr) return "gbdt_cv trains its folds on this server";
  if (req->plus.init != nullptr) return "an init_model (continued training)";
  if (req->plus.validation_relation != nullptr) return "parameter \"validation_relation\"";
  if (plan->group_column != nullptr) return "parameter \"group_column\"";
  if (plan->upper_column != nullptr) return "parameter \"label_upper_bound_column\"";
  if (cols->text_target)
    return psprintf("target \"%s\" is a text column (its classes are read here)", req->target);
  if (cols->target_kind == ValKind::kBool)
    return psprintf("target \"%s\" is boolean (a class label)", req->target);
  // The classes of a classification are the labels as they come (0 ..
  // num_class - 1): the local path's remapping of other label values
  // (0, 10, 20 as classes 0, 1, 2) needs every label here first.
  if (gbdt::objective_info(plan->objective).multiclass && plan->num_class <= 0)
    return psprintf("objective %s without num_class (the classes are decided from every label "
                    "on this server)",
                    gbdt::objective_name(plan->objective));
  if (req->features == nullptr)
    return "no feature list given (the default list leaves out constant and identifier "
           "columns, found on every row here)";
  const FeatureSet& fs = cols->fs;
  for (int i = 0; i < fs.n; i++)
    if (fs.kinds[i] == ValKind::kArray)
      return psprintf("feature \"%s\" is an array column", fs.names[i]);
  for (int f = 0; f < fs.nx; f++)
    if (fs.x_types[f] == gbdt::FeatureType::kCategorical)
      return psprintf("feature \"%s\" is categorical", fs.x_names[f]);
  return nullptr;
}

// gbdt::distributed_refusal: the objective or a parameter the shards
// cannot train exactly (null: none).
const char* engine_refusal(const EnginePlan* plan) {
  const char* why = nullptr;
  const char* device = device_setting_name();
  run_engine([&] {
    gbdt::TrainParams p = *plan->params;
    if (p.device.empty()) p.device = device;  // gbdt.device, as the training applies it
    const std::string r = gbdt::distributed_refusal(p);
    if (!r.empty()) why = pstrdup_nothrow(r);
  });
  return why;
}

// The C++ objects of a training on the shards, deleted with the memory
// context that owns them (also on error or cancel: the sessions close).
struct ShardRun {
  std::vector<ShardTarget> targets;
  gbdt::DistributedTrainSpec spec;  // open requests; the features as named here
  std::unique_ptr<gbdt::ShardLink> link;
};

void delete_run(void* arg) { delete *(ShardRun**)arg; *(ShardRun**)arg = nullptr; }

ShardRun** make_run(MemoryContext cxt, const ShardPlan* sp, const TrainRequest* req,
                    const FeatureSet& fs, int nthread) {
  ShardRun** run = (ShardRun**)MemoryContextAllocZero(cxt, sizeof(ShardRun*));
  MemoryContextCallback* cb =
      (MemoryContextCallback*)MemoryContextAlloc(cxt, sizeof(MemoryContextCallback));
  cb->func = delete_run;
  cb->arg = run;
  MemoryContextRegisterResetCallback(cxt, cb);
  run_engine([&] {
    *run = new ShardRun();
    for (int i = 0; i < sp->n; i++) {
      const ShardPart& p = sp->parts[i];
      (*run)->targets.push_back(ShardTarget{p.server, p.label});
      gbdt::ShardOpenRequest r;
      r.relation = p.relation;
      r.target = p.target;
      if (p.weight != nullptr) r.weight = p.weight;
      r.features.assign(p.features, p.features + sp->nf);
      r.nthread = nthread;
      (*run)->spec.requests.push_back(std::move(r));
    }
    // The names and types the local loader gives the trainer (the
    // requests name the shards' columns, which may differ).
    (*run)->spec.feature_names.assign(fs.x_model_names, fs.x_model_names + fs.nx);
    (*run)->spec.feature_types.assign(fs.x_types, fs.x_types + fs.nx);
    (*run)->spec.target_name = req->target;
  });
  return run;
}

// The training's NOTICE (as the local path's first line, plus the shards).
void shard_notice(const TrainRequest* req, const EnginePlan* plan, const ColumnRoles* cols,
                  const ShardPlan* sp) {
  StringInfoData msg;
  initStringInfo(&msg);
  if (req->objective_given)
    appendStringInfo(&msg, "gbdt_train: objective %s (given), training on %d shard server%s",
                     gbdt::objective_name(plan->objective), sp->n, sp->n == 1 ? "" : "s");
  else
    appendStringInfo(&msg, "gbdt_train: objective inferred from the labels, training on %d shard "
                     "server%s", sp->n, sp->n == 1 ? "" : "s");
  if (plan->weight_column != nullptr)
    appendStringInfo(&msg, "; weights from \"%s\"", plan->weight_column);
  appendStringInfo(&msg, "\n%d feature%s:", cols->fs.nx, cols->fs.nx == 1 ? "" : "s");
  for (int f = 0; f < cols->fs.nx; f++)
    appendStringInfo(&msg, "%s %s", f ? "," : "", cols->fs.x_names[f]);
  ereport(NOTICE, (errmsg("%s", msg.data)));
}

// gbdt::train_distributed over the link; the serialized model.
struct varlena* train_run(EnginePlan* plan, ShardRun* run) {
  struct varlena* result = nullptr;
  NoticeRelay relay;
  const double memory_limit = max_memory_bytes();
  const char* device = device_setting_name();
  EngineError err;
  catch_engine(&err, [&] {
    TrainSetup setup(*plan, &relay, memory_limit, device);
    // A shard's failure (gbdt::ShardError) is raised as a connection
    // error naming the shard (raise_engine_error).
    const gbdt::Model model = gbdt::train_distributed(*run->link, run->spec, setup.params, setup.hooks);
    std::vector<uint8_t> bytes = gbdt::serialize_model(model);
    result = bytes_to_varlena_nothrow(bytes);
  });
  malloc_trim(0);
  relay.rethrow();
  if (err.kind != EngineErrKind::kNone) raise_engine_error(&err, default_style());
  return result;
}

}  // namespace

struct varlena* train_on_shards(const RelInfo* rel, TrainRequest* req, EnginePlan* plan,
                                ColumnRoles* cols) {
  const Mode mode = distributed_mode(plan);
  if (mode == Mode::kOff) return nullptr;
  if (mode == Mode::kAuto && rel->relkind != RELKIND_PARTITIONED_TABLE) return nullptr;
  const FeatureSet& fs = cols->fs;
  ShardPlan* sp = build_shard_plan(rel->relid, req->target, plan->weight_column,
                                   fs.names, fs.n);
  const char* why = sp->reason;
  if (why == nullptr) why = request_refusal(req, plan, cols);
  if (why == nullptr) why = engine_refusal(plan);
  if (why != nullptr) {
    if (mode == Mode::kOn)
      ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                      errmsg("gbdt: cannot train on the shard servers of relation \"%s\": %s",
                             rel->name, why),
                      errhint("Leave parameter \"distributed\" out (or \"off\") to read every "
                              "row through this server.")));
    if (sp->any_foreign)
      ereport(NOTICE, (errmsg("gbdt: reading every row through this server: %s", why)));
    return nullptr;
  }
  MemoryContext cxt =
      AllocSetContextCreate(CurrentMemoryContext, "gbdt shard training", ALLOCSET_SMALL_SIZES);
  ShardRun** run = make_run(cxt, sp, req, fs, plan->nthread);
  (*run)->link = open_shard_link((*run)->targets);
  shard_notice(req, plan, cols, sp);
  struct varlena* model = train_run(plan, *run);
  MemoryContextDelete(cxt);       // closes the shard sessions
  MemoryContextDelete(plan->cxt);  // the TrainParams
  return model;
}

}  // namespace gbdt_pg
