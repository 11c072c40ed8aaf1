// The coordinator's tree backend of a distributed training (the rows on
// the shards of `calls`): see remote_backend.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "../tree/tree_backend.h"
#include "shard_calls.h"

namespace gbdt {

// train_offsets[i]: the global training-row id of shard i's first training
// row; n_train: the training rows of every shard.
std::unique_ptr<TreeBackend> make_remote_backend(ShardCalls& calls, std::vector<uint64_t> train_offsets,
                                                 uint64_t n_train, double scale_pos_weight);

// Every shard's training-row margins in shard order, from the first
// `trees` trees each shard received (all of them: its current margins).
std::vector<float> remote_margins(ShardCalls& calls, size_t trees, int K);

}  // namespace gbdt
