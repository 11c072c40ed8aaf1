// Module entry: PG_MODULE_MAGIC, GUCs, gbdt_build_info().
#include <climits>
#include <string>

#include "guard.h"
#include "gucs.h"

#include "backend.h"
#include "trainer.h"

extern "C" {
PG_MODULE_MAGIC;
PG_FUNCTION_INFO_V1(gbdt_build_info);
}

namespace gbdt_pg {

int guc_device = kDeviceAuto;
int guc_max_memory = 4 * 1024 * 1024;  // kB = 4 GB
bool guc_verbose = false;

static const struct config_enum_entry device_options[] = {
    {"auto", kDeviceAuto, false},
    {"cpu", kDeviceCpu, false},
    {"cuda", kDeviceCuda, false},
    {"gpu", kDeviceCuda, true},
    {nullptr, 0, false},
};

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
      "gbdt.max_memory", "Largest estimated memory a gbdt training may use.",
      "A training whose estimated need (rows x features x 5 bytes + rows x 32 bytes) exceeds "
      "this is refused before it starts.",
      &guc_max_memory, 4 * 1024 * 1024, 1024, INT_MAX, PGC_USERSET, GUC_UNIT_KB, nullptr,
      nullptr, nullptr);
  DefineCustomBoolVariable("gbdt.log_progress", "Report gbdt training progress as NOTICEs.", nullptr,
                           &guc_verbose, false, PGC_USERSET, 0, nullptr, nullptr, nullptr);
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
