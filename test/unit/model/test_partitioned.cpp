// The partitioned model container (model/partitioned.h): round trip, the
// plain model's bytes untouched, and hostile containers (bad counts,
// lengths, flags, duplicate keys, nested containers, corrupt sub-models,
// every truncation and single-byte mutation) refused as CorruptModel,
// never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "model/format.h"
#include "model/model.h"
#include "model/partitioned.h"
#include "model/partitioned_json.h"
#include "model/xgb_json.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Task;

namespace {

const Model& small_model() {
  static Model m;
  static bool done = false;
  if (!done) {
    gbdt_test::Data D = gbdt_test::make_data(200, 3, Task::kRegression, 0.1, 11);
    TrainParams p = gbdt_test::params_for(Task::kRegression, 3);
    p.max_depth = 2;
    p.max_bin = 8;
    m = gbdt_test::train(D, p);
    done = true;
  }
  return m;
}

PartitionedModel two_groups(PartitionFallback fb = PartitionFallback::kError) {
  PartitionedModel pm;
  pm.column_names = {"store", "plan"};
  pm.column_types = {"integer", "text"};
  pm.fallback = fb;
  const std::vector<uint8_t> b = serialize_model(small_model());
  PartitionGroup a;
  a.key = {"1", "basic"};
  a.key_null = {0, 0};
  a.rows = 120;
  a.metric = std::nan("");
  a.bytes = b;
  PartitionGroup n;
  n.key = {"", "basic"};
  n.key_null = {1, 0};
  n.rows = 80;
  n.metric_name = "rmse";
  n.metric = 0.25;
  n.bytes = b;
  pm.groups = {a, n};
  if (fb == PartitionFallback::kGlobal) pm.global_bytes = b;
  return pm;
}

std::string decode_error(const std::vector<uint8_t>& b) {
  try {
    deserialize_model(b.data(), b.size());
  } catch (const CorruptModel& e) {
    return e.what();
  }
  return "";
}

// Offset of the first group's key null flag: magic, version, length, the
// column count and names/types, the fallback byte, the group count.
size_t first_group_offset(const PartitionedModel& pm) {
  size_t at = 20 + 4;
  for (size_t c = 0; c < pm.column_names.size(); ++c)
    at += 4 + pm.column_names[c].size() + 4 + pm.column_types[c].size();
  return at + 1 + 4;
}

}  // namespace

TEST(Partitioned, RoundTripThroughDeserializeModel) {
  const std::vector<uint8_t> b = serialize_partitioned(two_groups(PartitionFallback::kGlobal));
  ASSERT_TRUE(is_partitioned_bytes(b.data(), b.size()));
  const Model m = deserialize_model(b.data(), b.size());
  ASSERT_NE(m.partitions, nullptr);
  const PartitionedModel& pm = *m.partitions;
  EXPECT_EQ(pm.groups.size(), 2u);
  EXPECT_EQ(pm.models.size(), 2u);
  ASSERT_NE(pm.global, nullptr);
  EXPECT_EQ(pm.find({"1", "basic"}, {0, 0}), 0);
  EXPECT_EQ(pm.find({"", "basic"}, {1, 0}), 1);
  EXPECT_EQ(pm.find({"", "basic"}, {0, 0}), -1) << "an empty string is not NULL";
  EXPECT_EQ(pm.find({"2", "basic"}, {0, 0}), -1);
  EXPECT_EQ(serialize_model(m), b) << "a decoded container writes its bytes back";
  EXPECT_EQ(pm.groups[0].bytes, serialize_model(small_model()));
}

TEST(Partitioned, PlainModelBytesUnchanged) {
  const std::vector<uint8_t> b = serialize_model(small_model());
  EXPECT_FALSE(is_partitioned_bytes(b.data(), b.size()));
  const Model m = deserialize_model(b.data(), b.size());
  EXPECT_EQ(m.partitions, nullptr);
  EXPECT_EQ(serialize_model(m), b);
}

TEST(Partitioned, InfoAndExportJson) {
  const std::vector<uint8_t> b = serialize_partitioned(two_groups());
  const Model m = deserialize_model(b.data(), b.size());
  const std::string info = partitioned_info_json(*m.partitions);
  EXPECT_NE(info.find("\"key\": [null, \"basic\"], \"rows\": 80, \"metric\": {\"rmse\": 0.25}"), std::string::npos) << info;
  EXPECT_NE(info.find("\"key\": [\"1\", \"basic\"], \"rows\": 120, \"metric\": null"), std::string::npos) << info;
  const std::string ex = export_partitioned_json(*m.partitions);
  EXPECT_EQ(ex.rfind("{\"partition_by\": [\"store\", \"plan\"], \"partition_types\": [", 0), 0u) << ex.substr(0, 200);
  EXPECT_NE(ex.find("\"models\": [{\"key\": [\"1\", \"basic\"], \"rows\": 120, \"model\": {"), std::string::npos)
      << ex.substr(0, 300);
  EXPECT_NE(ex.find("\"global\": null}"), std::string::npos);
}

TEST(Partitioned, ExportImportsBack) {
  const std::vector<uint8_t> b = serialize_partitioned(two_groups());
  const Model m = deserialize_model(b.data(), b.size());
  const std::vector<uint8_t> back = import_model_json(export_partitioned_json(*m.partitions), {});
  const PartitionedModel pm = deserialize_partitioned(back.data(), back.size(), nullptr);
  ASSERT_EQ(pm.groups.size(), m.partitions->groups.size());
  EXPECT_EQ(pm.column_names, m.partitions->column_names);
  EXPECT_EQ(pm.column_types, m.partitions->column_types);
  for (size_t g = 0; g < pm.groups.size(); ++g) {
    EXPECT_EQ(pm.groups[g].key, m.partitions->groups[g].key);
    EXPECT_EQ(pm.groups[g].key_null, m.partitions->groups[g].key_null);
    EXPECT_EQ(pm.groups[g].rows, m.partitions->groups[g].rows);
  }
  EXPECT_THROW(import_model_json("{\"partition_by\": [\"store\"], \"models\": []}", {}), InvalidInput);
}

TEST(Partitioned, DuplicateKeyRefused) {
  PartitionedModel pm = two_groups();
  pm.groups[1].key = pm.groups[0].key;
  pm.groups[1].key_null = pm.groups[0].key_null;
  EXPECT_NE(decode_error(serialize_partitioned(pm)).find("repeats a key"), std::string::npos);
}

TEST(Partitioned, NestedContainerRefused) {
  PartitionedModel pm = two_groups();
  pm.groups[0].bytes = serialize_partitioned(two_groups());
  EXPECT_NE(decode_error(serialize_partitioned(pm)).find("itself a partitioned model"), std::string::npos);
}

TEST(Partitioned, CorruptSubModelRefused) {
  PartitionedModel pm = two_groups();
  pm.groups[1].bytes[30] ^= 0x5a;  // its checksum no longer matches
  EXPECT_NE(decode_error(serialize_partitioned(pm)).find("group 2"), std::string::npos);
}

TEST(Partitioned, GlobalModelMustMatchFallback) {
  PartitionedModel pm = two_groups(PartitionFallback::kGlobal);
  std::vector<uint8_t> b = serialize_partitioned(pm);
  const size_t fb_at = first_group_offset(pm) - 5;
  b[fb_at] = (uint8_t)PartitionFallback::kNull;  // a global model without fallback global
  reseal_partitioned_bytes(b.data(), b.size());
  EXPECT_NE(decode_error(b).find("a global model without fallback global"), std::string::npos);
  b[fb_at] = 7;
  reseal_partitioned_bytes(b.data(), b.size());
  EXPECT_NE(decode_error(b).find("unknown fallback 7"), std::string::npos);
}

TEST(Partitioned, HostileCountsAndFlags) {
  const PartitionedModel pm = two_groups();
  const std::vector<uint8_t> good = serialize_partitioned(pm);
  auto with_u32 = [&](size_t at, uint32_t v) {
    std::vector<uint8_t> b = good;
    for (int i = 0; i < 4; ++i) b[at + i] = (uint8_t)(v >> (8 * i));
    reseal_partitioned_bytes(b.data(), b.size());
    return decode_error(b);
  };
  EXPECT_NE(with_u32(20, 0).find("0 key columns"), std::string::npos);
  EXPECT_NE(with_u32(20, 33).find("33 key columns"), std::string::npos);
  EXPECT_NE(with_u32(20, 0xffffffffu).find("key columns"), std::string::npos);
  const size_t ng_at = first_group_offset(pm) - 4;
  EXPECT_NE(with_u32(ng_at, 0).find("0 groups"), std::string::npos);
  EXPECT_NE(with_u32(ng_at, 100001).find("100001 groups"), std::string::npos);
  EXPECT_NE(with_u32(ng_at, 90000).find("truncated"), std::string::npos);
  EXPECT_NE(with_u32(24, 0x7fffffffu).find("longer than"), std::string::npos);  // a name's length
  std::vector<uint8_t> b = good;
  b[first_group_offset(pm)] = 2;  // the null flag
  reseal_partitioned_bytes(b.data(), b.size());
  EXPECT_NE(decode_error(b).find("null flag 2"), std::string::npos);
}

TEST(Partitioned, ZeroRowsRefused) {
  PartitionedModel pm = two_groups();
  pm.groups[0].rows = 0;
  EXPECT_NE(decode_error(serialize_partitioned(pm)).find("has no rows"), std::string::npos);
}

TEST(Partitioned, EveryTruncationAndMutationIsCorruptOrValid) {
  const std::vector<uint8_t> good = serialize_partitioned(two_groups(PartitionFallback::kGlobal));
  for (size_t n = 0; n < good.size(); n += 7) {
    std::vector<uint8_t> b(good.begin(), good.begin() + n);
    if (n >= 28) reseal_partitioned_bytes(b.data(), b.size());
    EXPECT_NE(decode_error(b), "") << "truncated to " << n;
  }
  // Single-byte changes of the container's own fields (resealed, so the
  // decoder's checks see them): either an error or a valid container.
  const size_t head = first_group_offset(two_groups()) + 64;
  for (size_t at = 20; at < head && at < good.size() - 8; ++at)
    for (uint8_t x : {0x01, 0x80, 0xff}) {
      std::vector<uint8_t> b = good;
      b[at] ^= x;
      reseal_partitioned_bytes(b.data(), b.size());
      try {
        deserialize_model(b.data(), b.size());
      } catch (const CorruptModel&) {
      }
    }
}
