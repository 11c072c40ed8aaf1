// Identity of a serialized model for caches of decoded models.
//
// Model values are hostile input: two values are the same model only when
// their bytes are equal, all of them.  A sample (length, first and last
// bytes, the format's FNV-1a checksum) can be forged in seconds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gbdt {

inline bool same_model_bytes(const uint8_t* a, size_t a_len, const uint8_t* b, size_t b_len) {
  if (a_len != b_len) return false;
  if (a_len == 0) return true;
  if (a == nullptr || b == nullptr) return false;
  return std::memcmp(a, b, a_len) == 0;
}

}  // namespace gbdt
