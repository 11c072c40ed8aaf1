// Module entry: PG_MODULE_MAGIC, GUCs, gbdt_build_info().
#include <climits>
#include <string>

#include "guard.h"
#include "settings.h"
#include "module.h"

#include "gbdt/train.h"

extern "C" {
#include "utils/lsyscache.h"
PG_MODULE_MAGIC;
PG_FUNCTION_INFO_V1(gbdt_build_info);
}

namespace gbdt_pg {

int guc_device = kDeviceAuto;
int guc_max_memory = 4 * 1024 * 1024;  // kB = 4 GB
bool guc_verbose = false;
bool guc_one_pass_load = true;
bool guc_debug_loader_help = false;
bool guc_tuple_walk = true;
int guc_missing_features = kMissingFeaturesError;
int guc_shard_timeout = 600000;  // ms = 10 min
int guc_distributed_scoring = kDistributedScoringAuto;
int guc_max_threads = 1;  // set to the CPU count in _PG_init

int max_threads() { return guc_max_threads > 0 ? guc_max_threads : 1; }

int capped_threads(int requested, const char* param) {
  const int cap = max_threads();
  if (requested <= 0) {
    const int all = gbdt::default_nthread();
    return all < cap ? all : cap;
  }
  if (requested <= cap) return requested;
  ereport(NOTICE, (errmsg("%s = %d is more than gbdt.max_threads = %d: using %d thread%s",
                          param, requested, cap, cap, cap == 1 ? "" : "s")));
  return cap;
}

double max_memory_bytes() { return (double)guc_max_memory * 1024.0; }

static const struct config_enum_entry device_options[] = {
    {"auto", kDeviceAuto, false},
    {"cpu", kDeviceCpu, false},
    {"cuda", kDeviceCuda, false},
    {"gpu", kDeviceCuda, true},
    {nullptr, 0, false},
};

static const struct config_enum_entry missing_features_options[] = {
    {"error", kMissingFeaturesError, false},
    {"missing", kMissingFeaturesAsMissing, false},
    {nullptr, 0, false},
};

static const struct config_enum_entry distributed_scoring_options[] = {
    {"auto", kDistributedScoringAuto, false},
    {"on", kDistributedScoringOn, false},
    {"off", kDistributedScoringOff, false},
    {nullptr, 0, false},
};

const char* extension_schema(FunctionCallInfo fcinfo) {
  char* nspname = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
  if (nspname == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_SCHEMA), errmsg("gbdt: the extension's schema was not found")));
  return quote_identifier(nspname);
}

const char* device_setting_name() {
  switch (guc_device) {
    case kDeviceCpu: return "cpu";
    case kDeviceCuda: return "cuda";
    default: return "auto";
  }
}

}  // namespace gbdt_pg

using namespace gbdt_pg;

extern "C" void _PG_init(void) {
  DefineCustomEnumVariable(
      "gbdt.device", "Device used to train gbdt models: auto, cpu or cuda.",
      "auto uses a CUDA GPU when the library was built with CUDA and a device is present, "
      "else the CPU.  The \"device\" training parameter overrides it.",
      &guc_device, kDeviceAuto, device_options, PGC_USERSET, 0, nullptr, nullptr, nullptr);
  DefineCustomIntVariable(
      "gbdt.max_memory", "Most memory one gbdt training may use.",
      "Counts the binned data, gradients, margins (rows x classes), row indices, histograms "
      "(per tree node of a level, per thread, per class) and the model.  A training whose "
      "estimate exceeds it is refused before it starts, and one whose histograms or trees "
      "outgrow it during training stops with an error naming the parameter to lower.  Only "
      "superusers may change it: set it in postgresql.conf, or per role with ALTER ROLE name "
      "SET gbdt.max_memory = '...' (the per-user cap).",
      &guc_max_memory, 4 * 1024 * 1024, 1024, INT_MAX, PGC_SUSET, GUC_UNIT_KB, nullptr,
      nullptr, nullptr);
  const int cores = gbdt::default_nthread();
  DefineCustomIntVariable(
      "gbdt.max_threads", "Most threads one gbdt call may use (training and scoring).",
      "A larger nthread training parameter is lowered to it with a NOTICE; models do not "
      "depend on the thread count.  The default is the number of CPU cores.  Only superusers "
      "may change it: set it in postgresql.conf, or per role with ALTER ROLE name SET "
      "gbdt.max_threads = n.",
      &guc_max_threads, cores < 1 ? 1 : (cores > 1024 ? 1024 : cores), 1, 1024, PGC_SUSET, 0,
      nullptr, nullptr, nullptr);
  DefineCustomEnumVariable(
      "gbdt.missing_features",
      "What gbdt scoring does with a model feature the row or relation lacks: error or missing.",
      "error (the default) raises one error naming every absent column; missing scores each "
      "absent feature as a missing value (NULL) on every row, as the trees send missing values.",
      &guc_missing_features, kMissingFeaturesError, missing_features_options, PGC_USERSET, 0,
      nullptr, nullptr, nullptr);
  DefineCustomBoolVariable("gbdt.log_progress", "Report gbdt training progress as NOTICEs.", nullptr,
                           &guc_verbose, false, PGC_USERSET, 0, nullptr, nullptr, nullptr);
  DefineCustomBoolVariable(
      "gbdt.enable_one_pass_load",
      "Lets gbdt training read a plain table in one pass when the planner's estimate allows.",
      "On (the default), a table whose estimated float copy fits the cut sample's bound and "
      "gbdt.max_memory is read once into floats; off reads every table in passes (count, "
      "sample, bin), which never holds the table as floats.  Models do not depend on it.",
      &guc_one_pass_load, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
  DefineCustomBoolVariable(
      "gbdt.enable_tuple_walk",
      "Lets gbdt training hand whole tuples of tables with text or numeric columns to a worker.",
      "On (the default), the tuples of a plain table whose columns read are numbers, numerics, "
      "dates and times or categories (not enums), behind attributes of any width, are copied "
      "whole and converted by the loader's worker thread; off deforms and converts them on the "
      "backend's thread.  Models do not depend on it.",
      &guc_tuple_walk, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
  DefineCustomBoolVariable(
      "gbdt.debug_loader_help",
      "Makes the gbdt loader's backend thread convert every row it may of each batch it fills.",
      "A developer option for tests (as PostgreSQL's debug_ settings): at nthread > 1 the "
      "backend converts rows of the batch it filled, from its end, only while the worker is "
      "busy with the batch before, so which rows it converts depends on timing; on, it converts "
      "every row it may before handing the batch over, which makes that path certain.  Models "
      "do not depend on it.",
      &guc_debug_loader_help, false, PGC_USERSET, GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
  DefineCustomIntVariable(
      "gbdt.shard_timeout",
      "Longest wait for a shard server's answer in a distributed gbdt training or scoring.",
      "Bounds the connection to each shard, its version check, every request of a training "
      "and each wait for a shard's next scored row: a shard that has not answered in time "
      "fails the statement with an error naming it, and every other shard's request is "
      "cancelled.  0 waits without a limit.",
      &guc_shard_timeout, 600000, 0, INT_MAX, PGC_USERSET, GUC_UNIT_MS, nullptr, nullptr,
      nullptr);
  DefineCustomEnumVariable(
      "gbdt.distributed_scoring",
      "Whether gbdt scores a partitioned table of postgres_fdw partitions on their servers.",
      "auto (the default) scores each foreign partition on its own server when the table "
      "qualifies, else reads every row through this server with a NOTICE saying why; on "
      "scores on the servers or raises an error naming the reason; off always reads every "
      "row through this server.",
      &guc_distributed_scoring, kDistributedScoringAuto, distributed_scoring_options,
      PGC_USERSET, 0, nullptr, nullptr, nullptr);
  MarkGUCPrefixReserved("gbdt");
}

// gbdt_build_info() -> jsonb
Datum gbdt_build_info(PG_FUNCTION_ARGS) {
  char* json = nullptr;
  const char* device = device_setting_name();
  run_engine([&] {
    std::string s = "{\"version\": \"" GBDT_EXTVERSION "\", \"cuda\": ";
    s += gbdt::cuda_build_info_json();
    s += ", \"cuda_compiled\": ";
    s += gbdt::cuda_compiled() ? "true" : "false";
    s += ", \"nthread_default\": ";
    s += std::to_string(gbdt::default_nthread());
    s += ", \"device_setting\": \"";
    s += device;
    s += "\"}";
    json = pstrdup_nothrow(s);
  });
  PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
