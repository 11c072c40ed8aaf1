// A partitioned model: one sub-model per distinct value of the key columns
// (gbdt_train's partition_by), stored as one gbdt_model value.
//   "GBDTPART" | u32 version (1) | u64 payload length | payload | u64 FNV-1a of all before
// Payload (little-endian, as the model format):
//   u32 key columns (1..kMaxPartitionColumns), per column: str name, str type
//   u8 fallback (PartitionFallback)
//   u32 groups (1..kMaxPartitionGroups), per group:
//     per key column: u8 null (0/1), str value (text form; empty when null)
//     u64 rows (> 0), str metric name, f64 metric (NaN: none)
//     u64 length, the sub-model's serialized bytes (serialize_model)
//   u64 length, the global model's bytes (present iff fallback is kGlobal)
// Strings are u32-length-prefixed UTF-8 without NUL (at most
// kMaxStringBytes).  Decoding checks every count and length against the
// bytes left before allocating, refuses duplicate keys, and decodes (and so
// validates) every sub-model; a sub-model cannot itself be partitioned.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "../common/memory_budget.h"

namespace gbdt {

struct Model;

constexpr uint32_t kMaxPartitionColumns = 32;
constexpr uint32_t kMaxPartitionGroups = 100000;

// What scoring does with a key no sub-model was trained for.
enum class PartitionFallback : uint8_t { kError = 0, kNull = 1, kGlobal = 2 };

struct PartitionGroup {
  std::vector<std::string> key;  // per key column: the value's text form
  std::vector<uint8_t> key_null; // per key column: 1 when the value is NULL
  uint64_t rows = 0;             // training rows of the group
  std::string metric_name;       // validation metric (empty: none)
  double metric = 0;             // its last value (NaN: none)
  std::vector<uint8_t> bytes;    // the sub-model, serialized
};

struct PartitionedModel {
  std::vector<std::string> column_names;  // key columns (UTF-8)
  std::vector<std::string> column_types;  // their SQL types (format_type)
  PartitionFallback fallback = PartitionFallback::kError;
  std::vector<PartitionGroup> groups;
  std::vector<uint8_t> global_bytes;      // fallback kGlobal: the model of every row
  // Decoded by deserialize_partitioned (not serialized): models[g] is
  // groups[g]'s sub-model, global the global model (null without one).
  std::vector<std::shared_ptr<const Model>> models;
  std::shared_ptr<const Model> global;
  // Group index of a key (partition_key_string), -1: none.
  int find(const std::vector<std::string>& key, const std::vector<uint8_t>& key_null) const;
  std::unordered_map<std::string, int> index;
};

// One string identifying a key: per column a null byte flag then the
// length-prefixed value, so that no two keys share one.
std::string partition_key_string(const std::vector<std::string>& key,
                                 const std::vector<uint8_t>& key_null);

// Whether the bytes start with the partitioned model's magic.
bool is_partitioned_bytes(const uint8_t* data, size_t len);

// The container's bytes (groups, names and types as given; throws
// std::invalid_argument for a shape the decoder would refuse).
std::vector<uint8_t> serialize_partitioned(const PartitionedModel& pm);

// Decodes and validates (throws CorruptModel); the sub-models are decoded
// charging budget (may be null).
PartitionedModel deserialize_partitioned(const uint8_t* data, size_t len, MemoryBudget* budget);

// Rewrites the length field and checksum of container bytes (len >= 28)
// so that a mutated container reaches the decoder's deeper checks (tests).
void reseal_partitioned_bytes(uint8_t* data, size_t len);

}  // namespace gbdt
