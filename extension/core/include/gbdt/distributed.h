// gbdt engine, public API: training across servers (seed 003: rows
// partitioned by server, bins from one global cut sample, gradient
// histograms summed across servers).
//
// Two sides, both in the engine, joined by bytes the glue carries:
//  - a shard holds the rows of one server.  The glue reads them (with the
//    caller's rights on that server) through a RowBatchSource, opens a
//    ShardWorker on them, keeps it under a token for the training and hands
//    it every later request: ShardWorker::step(name, payload) -> reply.
//  - the coordinator trains: train_distributed() runs the ordinary trainer
//    (base score, validation, early stopping, model assembly) with a tree
//    backend whose rows are on the shards.  It sends every request through a
//    ShardLink, which the glue implements (libpq sessions, one per shard).
// Histogram sums are exact integers, so the model is the one a single
// server trains on the shards' rows concatenated in shard order, byte for
// byte.
//
// This header names no PostgreSQL type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "data_source.h"
#include "errors.h"
#include "train.h"

namespace gbdt {

// What a shard reads: names are resolved by the shard itself, in its own
// catalog (they travel as data, never as SQL text).
struct ShardOpenRequest {
  std::string relation;               // qualified name on the shard server
  std::string target;                 // column names on the shard
  std::vector<std::string> features;
  std::string weight;                 // empty: unweighted
  int nthread = 0;                    // 0: the shard's default
};
std::string encode_open_request(const ShardOpenRequest& r);
// Throws InvalidInput on malformed bytes.
ShardOpenRequest decode_open_request(const std::string& bytes);

// One shard's rows and, once the coordinator has sent the cuts, its bins,
// gradients, row partition and margins.
class ShardWorker {
 public:
  virtual ~ShardWorker() = default;
  // The reply of the open request (row count, per-feature value ranges).
  virtual std::string describe() const = 0;
  // One request of the coordinator's protocol; throws InvalidInput on a
  // malformed or out-of-order request, Cancelled when cancel() says so.
  virtual std::string step(const std::string& name, const std::string& payload,
                           const CancelFn& cancel) = 0;
};

// Reads every row of src (features in the request's order, the weight as the
// one kWeight role column when the request names one) and keeps them as
// floats until the coordinator's cuts arrive.
// rows_skipped: the rows the source left out for a NULL target (the
// model's report counts them as one server does).  memory_limit (bytes, 0:
// none): what the worker's histograms and row buffers may take, beyond the
// rows themselves (a request that needs more is an error).
std::unique_ptr<ShardWorker> open_shard_worker(RowBatchSource& src, const ShardOpenRequest& r,
                                               const CancelFn& cancel, uint64_t rows_skipped = 0,
                                               double memory_limit = 0);

// A shard's failure is a ShardError (gbdt/errors.h).

// The coordinator's sessions with its shards, in shard order.
class ShardLink {
 public:
  virtual ~ShardLink() = default;
  virtual size_t shard_count() const = 0;
  // For messages: the server's name (and the relation).
  virtual std::string shard_name(size_t i) const = 0;
  // Sends request `name` with payloads[i] to shard i, all shards at once,
  // and returns their replies in shard order once every shard answered.
  // Any failure: the other shards' requests are cancelled and ShardError
  // (or Cancelled, for the coordinator's own cancel) is thrown.
  virtual std::vector<std::string> call_all(const std::string& name,
                                            const std::vector<std::string>& payloads) = 0;
  // The request "open" goes to the shards as their open function with the
  // ShardOpenRequest bytes; "close" frees their state.  Both go through
  // call_all like every other request.
};

// Bytes the coordinator received from its shards, by request (for the
// benchmark: traffic per tree and per level).
struct ShardTraffic {
  uint64_t bytes_open = 0;     // describe, labels, cut sample, validation rows
  uint64_t bytes_trees = 0;    // gradient maxima, histograms, margins
  uint64_t histogram_bytes = 0;
  uint64_t requests = 0;
};

// What the coordinator trains on: one open request per shard (the names
// as each shard knows them), and the features as this server knows them.
struct DistributedTrainSpec {
  std::vector<ShardOpenRequest> requests;
  std::vector<std::string> feature_names;
  std::vector<FeatureType> feature_types;  // as the local loader gives them (empty: float)
  std::string target_name;
};

// Trains one model on the rows of every shard of `link` (opened with
// spec.requests, one per shard) as train_binned() trains on those rows in
// one relation in shard order: the same model bytes.  Parameters the
// distributed training cannot give exactly (distributed_refusal) are
// refused with InvalidInput.
Model train_distributed(ShardLink& link, const DistributedTrainSpec& spec, TrainParams params,
                        const TrainHooks& hooks, ShardTraffic* traffic = nullptr);

// Why `params` cannot train across servers exactly (empty: it can): the
// objective or a parameter that needs every row on one server.
std::string distributed_refusal(const TrainParams& params);

}  // namespace gbdt
