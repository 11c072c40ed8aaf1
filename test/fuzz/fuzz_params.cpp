// libFuzzer target: the params parser.  Input: a JSON object as gbdt_train's
// params argument (parsed by the engine's JSON reader, members turned into
// key/value pairs as the PostgreSQL glue does); apply_params must accept it
// or throw InvalidInput, and accepted params must give a canonical record
// that applies again to the same record (once the objective is resolved as training does).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_exercise.h"
#include "common/json_parse.h"
#include "objective/objective.h"
#include "gbm/params.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gbdt;
  std::vector<ParamKV> kvs;
  try {
    JsonDoc doc(std::string(reinterpret_cast<const char*>(data), size));
    JsonRef root = doc.root();
    if (!root.is_object()) return 0;
    for (size_t i = 0; i < root.size(); ++i) {
      JsonRef v = root.at(i);
      ParamKV kv;
      kv.key = root.key(i);
      if (v.is_string()) {
        kv.value = v.str();
        kv.is_string = true;
      } else if (v.is_number()) {
        kv.value = v.number_text();
      } else if (v.is_bool()) {
        kv.value = v.boolean() ? "true" : "false";
      } else {
        return 0;  // the glue rejects nested values
      }
      kvs.push_back(kv);
    }
  } catch (const InvalidInput&) {
    return 0;
  }
  TrainParams p;
  try {
    apply_params(kvs, &p);
  } catch (const InvalidInput&) {
    return 0;
  }
  // The canonical record (written after training resolved the objective:
  // num_class 0 means "from the labels") re-applies cleanly and is a fixed
  // point.
  if (objective_info(p.objective).multiclass && p.num_class == 0) p.num_class = 3;
  std::vector<std::pair<std::string, std::string>> rec = params_to_kv(p);
  std::vector<ParamKV> again;
  // As a user would pass the record back as JSON: string parameters
  // (objective, column and relation names) as JSON strings, others bare.
  for (const auto& kv : rec) {
    const char* type = param_type(kv.first);
    again.push_back(ParamKV{kv.first, kv.second, type != nullptr && std::string(type) == "string"});
  }
  TrainParams q;
  try {
    apply_params(again, &q);
  } catch (const InvalidInput& e) {
    std::fprintf(stderr, "%s\n", e.what());
    gbdt_fuzz::finding("the canonical params record does not apply again");
  }
  if (params_to_kv(q) != rec) gbdt_fuzz::finding("params record is not a fixed point");
  return 0;
}
