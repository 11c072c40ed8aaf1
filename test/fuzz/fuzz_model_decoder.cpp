// libFuzzer target: the model decoder (deserialize_model and the text form).
// Input: one flag byte, then the data.
//   flag & 1: the data is serialized model bytes whose length field and
//             checksum are recomputed first (reseal_model_bytes), so that
//             mutations reach the validator instead of the checksum check;
//   flag & 2: the data is the text form ("gbdt1:" + base64).
// Every model that decodes is exercised (fuzz_exercise.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_exercise.h"
#include "model/format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flag = data[0];
  std::vector<uint8_t> bytes(data + 1, data + size);
  gbdt::Model m;
  try {
    if (flag & 2) bytes = gbdt::text_to_bytes(std::string(bytes.begin(), bytes.end()));
    if (flag & 1) gbdt::reseal_model_bytes(bytes.data(), bytes.size());
    m = gbdt::deserialize_model(bytes.data(), bytes.size());
  } catch (const gbdt::CorruptModel&) {
    return 0;
  }
  gbdt_fuzz::exercise_model(m);
  return 0;
}
