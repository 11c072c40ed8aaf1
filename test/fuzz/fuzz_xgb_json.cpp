// libFuzzer target: the XGBoost JSON importer.  Input: JSON text.  Every
// imported model must pass validation again after a serialize/deserialize
// round trip and is exercised (fuzz_exercise.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gbdt::Model m;
  try {
    m = gbdt::import_xgboost_json(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const gbdt::InvalidInput&) {
    return 0;
  }
  gbdt_fuzz::exercise_model(m);
  return 0;
}
