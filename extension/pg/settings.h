// GUC variables of the extension (defined in module.cpp).
#pragma once

namespace gbdt_pg {

enum DeviceSetting { kDeviceAuto = 0, kDeviceCpu = 1, kDeviceCuda = 2 };

extern int guc_device;       // gbdt.device
extern int guc_max_memory;   // gbdt.max_memory, in kB
extern bool guc_verbose;     // gbdt.log_progress
extern bool guc_one_pass_load;  // gbdt.enable_one_pass_load
extern bool guc_tuple_walk;     // gbdt.enable_tuple_walk
extern bool guc_debug_loader_help;  // gbdt.debug_loader_help
extern int guc_shard_timeout;   // gbdt.shard_timeout, ms (0: no limit)

// gbdt.missing_features: what scoring does with a model feature the row or
// relation lacks: an error naming every absent column (the default), or
// score it as a missing value (NULL) on every row.
enum MissingFeaturesSetting { kMissingFeaturesError = 0, kMissingFeaturesAsMissing = 1 };
extern int guc_missing_features;

// gbdt.distributed_scoring: whether scoring a partitioned table of
// postgres_fdw partitions runs on their servers (score/shard_scoring.h).
enum DistributedScoringSetting {
  kDistributedScoringAuto = 0,
  kDistributedScoringOn = 1,
  kDistributedScoringOff = 2
};
extern int guc_distributed_scoring;

// "auto", "cpu" or "cuda" for the current gbdt.device.
const char* device_setting_name();

}  // namespace gbdt_pg
