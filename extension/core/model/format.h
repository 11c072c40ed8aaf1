// Helpers on serialized model bytes for tests, the fuzzer and generators of
// crafted models (the format itself: model.h / model_format.cpp), and the
// decoder charged to a memory budget.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../common/memory_budget.h"
#include "model.h"

namespace gbdt {

// Rewrites the length field and the trailing checksum of serialized model
// bytes (len >= 28) so that they match the rest: a mutated model then
// reaches the decoder's deeper checks instead of failing the checksum.
void reseal_model_bytes(uint8_t* data, size_t len);

// deserialize_model charging budget (may be null) before it allocates: the
// payload's length (the decoded arrays take about as much), and per
// categorical feature its names' strings (about 32 bytes each however short,
// and as much again for a scoring dictionary of them) before they are made.
// Over the limit: MemoryLimitExceeded.  The charges stay counted.
Model deserialize_model(const uint8_t* data, size_t len, MemoryBudget* budget);

}  // namespace gbdt
