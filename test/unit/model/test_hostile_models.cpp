// Hostile serialized models: non-finite stored floats, invalid strings and
// counts beyond the limits of model_limits.h are CorruptModel naming the
// field; the bytes are little-endian whatever the host.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/format.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Task;

namespace {

const Model& base_model(Task task) {
  static Model ms[4];
  static bool done[4] = {false, false, false, false};
  const int i = (int)task;
  if (!done[i]) {
    gbdt_test::Data D = gbdt_test::make_data(300, 3, task, 0.1, 7);
    TrainParams p = gbdt_test::params_for(task, 3);
    p.max_depth = 3;
    p.max_bin = 16;
    ms[i] = gbdt_test::train(D, p);
    done[i] = true;
  }
  return ms[i];
}

// The message of the CorruptModel that decoding m's bytes throws ("" when
// it decodes).
std::string decode_error(const Model& m) {
  std::vector<uint8_t> b = serialize_model(m);
  try {
    deserialize_model(b.data(), b.size());
  } catch (const CorruptModel& e) {
    return e.what();
  }
  return "";
}

std::string mutated_error(Task task, const std::function<void(Model&)>& f) {
  Model m = base_model(task);
  f(m);
  return decode_error(m);
}

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

}  // namespace

TEST(HostileModels, RealModelsDecode) {
  for (Task t : {Task::kRegression, Task::kBinary, Task::kMulticlass, Task::kCount})
    EXPECT_EQ(decode_error(base_model(t)), "");
}

TEST(HostileModels, NonFiniteBaseValues) {
  EXPECT_HAS(mutated_error(Task::kBinary, [](Model& m) { m.base_margin[0] = NAN; }),
             "base margin of output group 0 is not finite");
  EXPECT_HAS(mutated_error(Task::kMulticlass, [](Model& m) { m.base_margin[2] = INFINITY; }),
             "base margin of output group 2 is not finite");
  EXPECT_HAS(mutated_error(Task::kRegression, [](Model& m) { m.base_score = NAN; }),
             "base score is not finite");
  EXPECT_HAS(mutated_error(Task::kMulticlass, [](Model& m) { m.class_labels[1] = NAN; }),
             "class label is not finite");
}

TEST(HostileModels, NonFiniteNodeValues) {
  auto first_split = [](const Tree& t) {
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (!t.is_leaf(n)) return n;
    return -1;
  };
  auto first_leaf = [](const Tree& t) {
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (t.is_leaf(n)) return n;
    return -1;
  };
  EXPECT_HAS(mutated_error(Task::kRegression,
                           [&](Model& m) { m.trees[1].value[first_leaf(m.trees[1])] = -INFINITY; }),
             "leaf/node value is not finite");
  EXPECT_HAS(mutated_error(Task::kRegression,
                           [&](Model& m) { m.trees[0].threshold[first_split(m.trees[0])] = NAN; }),
             "split threshold is NaN or -Infinity");
  EXPECT_HAS(mutated_error(Task::kRegression,
                           [&](Model& m) { m.trees[0].threshold[first_split(m.trees[0])] = -INFINITY; }),
             "split threshold is NaN or -Infinity");
  EXPECT_HAS(mutated_error(Task::kRegression,
                           [&](Model& m) { m.trees[0].gain[first_split(m.trees[0])] = NAN; }),
             "gain is not finite");
  EXPECT_HAS(mutated_error(Task::kRegression, [&](Model& m) { m.trees[0].cover[0] = INFINITY; }),
             "cover is not finite");
}

TEST(HostileModels, CutsAndHistory) {
  EXPECT_HAS(mutated_error(Task::kRegression, [](Model& m) { m.cuts.values[0] = NAN; }),
             "bin boundary 0 is NaN or -Infinity");
  EXPECT_HAS(mutated_error(Task::kBinary, [](Model& m) { m.report.train_metric = {0.5, INFINITY}; }),
             "metric history holds an infinite value");
  // Documented non-finite values that real models hold: a last cut of
  // +Infinity (maximum FLT_MAX or +Infinity), NaN minima, NaN metrics.
  EXPECT_EQ(mutated_error(Task::kRegression,
                          [](Model& m) { m.cuts.values[m.cuts.ptr[1] - 1] = INFINITY; }),
            "");
  EXPECT_EQ(mutated_error(Task::kRegression, [](Model& m) { m.cuts.min_values[0] = NAN; }), "");
  EXPECT_EQ(mutated_error(Task::kBinary, [](Model& m) { m.report.validation_metric = {NAN}; }), "");
}

TEST(HostileModels, Strings) {
  EXPECT_HAS(mutated_error(Task::kRegression, [](Model& m) { m.feature_names[1] = "ab\xff"; }),
             "feature name \"ab\\xff\" is not valid UTF-8");
  EXPECT_HAS(mutated_error(Task::kRegression,
                           [](Model& m) { m.feature_names[0] = std::string("a\0b", 3); }),
             "is not valid UTF-8 (or holds a NUL byte)");
  // Overlong encoding of '/' and a UTF-16 surrogate encoded in UTF-8.
  EXPECT_HAS(mutated_error(Task::kRegression, [](Model& m) { m.feature_names[0] = "\xc0\xaf"; }),
             "not valid UTF-8");
  EXPECT_HAS(mutated_error(Task::kRegression, [](Model& m) { m.feature_names[0] = "\xed\xa0\x80"; }),
             "not valid UTF-8");
  EXPECT_HAS(mutated_error(Task::kRegression, [](Model& m) { m.params[0].second = "\x80"; }),
             "param value \"\\x80\" is not valid UTF-8");
  EXPECT_HAS(mutated_error(Task::kRegression, [](Model& m) { m.report.eval_metric = "rms\xe2\x82"; }),
             "eval_metric");
  EXPECT_HAS(mutated_error(Task::kRegression,
                           [](Model& m) { m.feature_names[0] = std::string(kMaxStringBytes + 1, 'a'); }),
             "exceeds the limit of 4096");
  // Valid multi-byte names are fine.
  EXPECT_EQ(mutated_error(Task::kRegression, [](Model& m) { m.feature_names[0] = "größe \xf0\x9f\x8c\xb2"; }),
            "");
}

TEST(HostileModels, ClassLimit) {
  Model m = base_model(Task::kMulticlass);
  const int K = kMaxClasses + 1;
  m.num_output_group = K;
  m.base_margin.assign((size_t)K, 0.0);
  m.class_labels.clear();
  for (int k = 0; k < K; ++k) m.class_labels.push_back(k);
  m.trees.clear();
  m.tree_group.clear();
  EXPECT_HAS(decode_error(m), "num_class 10001 exceeds the limit of 10000");
  m.num_output_group = kMaxClasses;  // the arrays' counts are bounded too
  EXPECT_HAS(decode_error(m), "exceed the limit of 10000");
}

TEST(HostileModels, FeatureLimit) {
  Model m = base_model(Task::kRegression);
  const int d = kMaxFeatures + 1;
  m.feature_names.resize((size_t)d, "x");
  m.feature_types.resize((size_t)d, FeatureType::kFloat);
  EXPECT_HAS(decode_error(m), "num_feature 100001 exceeds the limit of 100000");
}

TEST(HostileModels, ResealedMutationsStillValidated) {
  // reseal_model_bytes makes a mutated payload pass the checksum; the
  // validator must then catch the NaN base margin written over the bytes.
  Model m = base_model(Task::kRegression);
  std::vector<uint8_t> b = serialize_model(m);
  // Payload: i32 objective, i32 groups, f64 base score, u32 count, f64 margin.
  const size_t at = 20 + 4 + 4 + 8 + 4;
  const uint64_t nan_bits = 0x7ff8000000000000ULL;
  for (int i = 0; i < 8; ++i) b[at + i] = (uint8_t)(nan_bits >> (8 * i));
  reseal_model_bytes(b.data(), b.size());
  try {
    deserialize_model(b.data(), b.size());
    FAIL() << "a NaN base margin decoded";
  } catch (const CorruptModel& e) {
    EXPECT_HAS(std::string(e.what()), "base margin of output group 0 is not finite");
  }
}

TEST(HostileModels, LittleEndianBytes) {
  Model m = base_model(Task::kRegression);
  m.base_score = 0.5;     // 0x3FE0000000000000
  m.base_margin[0] = -2;  // 0xC000000000000000
  m.training_dist = TrainingDistribution();  // a version 1 model (no sections)
  std::vector<uint8_t> b = serialize_model(m);
  const uint8_t version[4] = {1, 0, 0, 0};
  EXPECT_EQ(0, std::memcmp(b.data() + 8, version, 4));
  const uint64_t plen = b.size() - 28;
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b[12 + i], (uint8_t)(plen >> (8 * i))) << i;
  const uint8_t objective_groups[8] = {0, 0, 0, 0, 1, 0, 0, 0};
  EXPECT_EQ(0, std::memcmp(b.data() + 20, objective_groups, 8));
  const uint8_t half[8] = {0, 0, 0, 0, 0, 0, 0xE0, 0x3F};
  EXPECT_EQ(0, std::memcmp(b.data() + 28, half, 8));
  const uint8_t count_one[4] = {1, 0, 0, 0};
  EXPECT_EQ(0, std::memcmp(b.data() + 36, count_one, 4));
  const uint8_t minus_two[8] = {0, 0, 0, 0, 0, 0, 0, 0xC0};
  EXPECT_EQ(0, std::memcmp(b.data() + 40, minus_two, 8));
  Model back = deserialize_model(b.data(), b.size());
  EXPECT_EQ(back.base_score, 0.5);
  EXPECT_EQ(back.base_margin[0], -2.0);
}
