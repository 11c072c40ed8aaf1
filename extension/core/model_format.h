// Helpers on serialized model bytes for tests, the fuzzer and generators of
// crafted models (the format itself: model.h / model_format.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace gbdt {

// Rewrites the length field and the trailing checksum of serialized model
// bytes (len >= 28) so that they match the rest: a mutated model then
// reaches the decoder's deeper checks instead of failing the checksum.
void reseal_model_bytes(uint8_t* data, size_t len);

}  // namespace gbdt
