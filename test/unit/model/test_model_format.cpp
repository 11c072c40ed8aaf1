// Serialized model: round trips, and corrupt or truncated bytes are an error
// (CorruptModel), never a crash.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "model/model.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Task;

namespace {

const Model& small_model() {
  static const Model m = [] {
    gbdt_test::Data D = gbdt_test::make_data(400, 4, Task::kMulticlass, 0.1, 5);
    TrainParams p = gbdt_test::params_for(Task::kMulticlass, 3);
    p.max_depth = 3;
    p.max_bin = 16;
    return gbdt_test::train(D, p);
  }();
  return m;
}

// Decodes and, if that works, exercises the model as a scorer would.
// Returns true when the bytes decoded.  Any exception but CorruptModel fails.
bool decode_and_use(const std::vector<uint8_t>& b) {
  Model m;
  try {
    m = deserialize_model(b.data(), b.size());
  } catch (const CorruptModel&) {
    return false;
  }
  validate_model(m);
  std::vector<float> x((size_t)m.n_features(), 0.5f);
  std::vector<double> out((size_t)std::max(1, m.num_output_group));
  predict_margin_row(m, x.data(), out.data());
  (void)predict_value_row(m, x.data());
  return true;
}

}  // namespace

TEST(ModelFormat, BinaryRoundTrip) {
  const Model& m = small_model();
  std::vector<uint8_t> b = serialize_model(m);
  ASSERT_GT(b.size(), 24u);
  EXPECT_EQ(0, std::memcmp(b.data(), "GBDTMDL\0", 8));
  Model m2 = deserialize_model(b.data(), b.size());
  EXPECT_EQ(serialize_model(m2), b);
  EXPECT_EQ(m2.objective, m.objective);
  EXPECT_EQ(m2.num_output_group, m.num_output_group);
  EXPECT_EQ(m2.feature_names, m.feature_names);
  EXPECT_EQ(m2.class_labels, m.class_labels);
  EXPECT_EQ(m2.trees.size(), m.trees.size());
  EXPECT_EQ(m2.params, m.params);
  EXPECT_EQ(m2.report.rows_used, m.report.rows_used);
  // Same predictions.
  gbdt_test::Data D = gbdt_test::make_data(50, 4, Task::kMulticlass, 0.1, 6);
  EXPECT_EQ(gbdt_test::predict_all(m, D), gbdt_test::predict_all(m2, D));
}

TEST(ModelFormat, TextRoundTrip) {
  const Model& m = small_model();
  std::string t = model_to_text(m);
  ASSERT_EQ(t.rfind("gbdt1:", 0), 0u);
  for (size_t i = 6; i < t.size(); ++i) {
    char c = t[i];
    ASSERT_TRUE(isalnum((unsigned char)c) || c == '+' || c == '/' || c == '=') << "char " << i;
  }
  EXPECT_EQ(text_to_bytes(t), serialize_model(m));
  Model m2 = deserialize_model(text_to_bytes(t).data(), text_to_bytes(t).size());
  EXPECT_EQ(model_to_text(m2), t);
}

TEST(ModelFormat, BadTextIsCorruptModel) {
  std::string t = model_to_text(small_model());
  for (const std::string& bad :
       {std::string(""), std::string("hello"), std::string("gbdt1:"), std::string("gbdt2:") + t.substr(6),
        std::string("gbdt1:@@@@"), t.substr(0, t.size() - 1), t.substr(0, t.size() / 2),
        std::string("GBDT1:") + t.substr(6)}) {
    EXPECT_THROW(
        {
          std::vector<uint8_t> b = text_to_bytes(bad);
          deserialize_model(b.data(), b.size());
        },
        CorruptModel)
        << "\"" << bad.substr(0, 40) << "\"";
  }
  // A flipped base64 character: decodes to different bytes, caught by the checksum.
  std::string flipped = t;
  size_t pos = t.size() / 2;
  flipped[pos] = flipped[pos] == 'A' ? 'B' : 'A';
  EXPECT_THROW(
      {
        std::vector<uint8_t> b = text_to_bytes(flipped);
        deserialize_model(b.data(), b.size());
      },
      CorruptModel);
}

TEST(ModelFormat, EveryTruncationThrows) {
  std::vector<uint8_t> b = serialize_model(small_model());
  for (size_t len = 0; len < b.size(); ++len) {
    std::vector<uint8_t> t(b.begin(), b.begin() + (long)len);
    EXPECT_THROW(deserialize_model(t.data(), t.size()), CorruptModel) << "length " << len;
  }
  std::vector<uint8_t> longer = b;
  longer.push_back(0);
  EXPECT_THROW(deserialize_model(longer.data(), longer.size()), CorruptModel) << "trailing byte";
  EXPECT_THROW(deserialize_model(nullptr, 0), CorruptModel);
}

TEST(ModelFormat, ByteFlipsThrowOrDecodeValid) {
  std::vector<uint8_t> b = serialize_model(small_model());
  // Every byte, each with three different flips.
  int decoded = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xFF}) {
      std::vector<uint8_t> c = b;
      c[i] ^= mask;
      if (decode_and_use(c)) ++decoded;
    }
  }
  // The checksum covers every byte: nothing flipped should decode.
  EXPECT_EQ(decoded, 0);
}

TEST(ModelFormat, ChecksumFixedCorruptionStillValidated) {
  // A corrupt payload with a recomputed (valid) checksum must be caught by
  // the structural checks, or decode to a model that is safe to use.
  std::vector<uint8_t> b = serialize_model(small_model());
  ASSERT_GT(b.size(), 28u);
  auto fnv = [](const uint8_t* p, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ULL;
    }
    return h;
  };
  // Check that the trailer is FNV-1a as documented in model.h; skip otherwise.
  uint64_t stored;
  std::memcpy(&stored, b.data() + b.size() - 8, 8);
  if (stored != fnv(b.data(), b.size() - 8)) GTEST_SKIP() << "checksum is not plain FNV-1a";
  uint64_t state = 12345;
  int decoded = 0, rejected = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> c = b;
    int nflips = 1 + (int)(gbdt::mix64(state++) % 3);
    for (int k = 0; k < nflips; ++k) {
      uint64_t r = gbdt::mix64(state++);
      size_t pos = 20 + (size_t)(r % (c.size() - 28));  // inside the payload
      c[pos] ^= (uint8_t)(1u << ((r >> 32) % 8));
    }
    uint64_t h = fnv(c.data(), c.size() - 8);
    std::memcpy(c.data() + c.size() - 8, &h, 8);
    if (decode_and_use(c)) ++decoded; else ++rejected;
  }
  RecordProperty("decoded", decoded);
  RecordProperty("rejected", rejected);
  EXPECT_GT(rejected, 0);
}

// Version 2: categories, class names and categorical split sets are kept;
// a model without them is still written as version 1.
TEST(ModelFormat, Version2SectionsRoundTrip) {
  // Without the training distribution (format version 4, test_drift.cpp).
  Model base = small_model();
  base.training_dist = TrainingDistribution();
  uint32_t v1 = 0;
  std::vector<uint8_t> b1 = serialize_model(base);
  std::memcpy(&v1, b1.data() + 8, 4);
  EXPECT_EQ(v1, 1u);

  Model m = base;
  m.feature_types[0] = FeatureType::kCategorical;
  m.categories.assign((size_t)m.n_features(), {});
  m.categories[0] = {"red", "green", "blue"};
  for (size_t i = 0; i < m.class_labels.size(); ++i) m.class_names.push_back("class " + std::to_string(i));
  ASSERT_FALSE(m.class_names.empty());
  Tree& t = m.trees[0];
  ASSERT_FALSE(t.is_leaf(0));
  t.feature[0] = 0;
  t.split_bin[0] = 0;
  const size_t nn = (size_t)t.num_nodes();
  t.split_type.assign(nn, 0);
  t.split_type[0] = 1;
  t.cat_offset.assign(nn + 1, 1);
  t.cat_offset[0] = 0;
  t.cat_bits = {0x5u};  // codes 0 and 2 go right
  validate_model(m);
  std::vector<uint8_t> b = serialize_model(m);
  uint32_t v = 0;
  std::memcpy(&v, b.data() + 8, 4);
  EXPECT_EQ(v, 2u);
  Model m2 = deserialize_model(b.data(), b.size());
  EXPECT_EQ(m2.categories, m.categories);
  EXPECT_EQ(m2.class_names, m.class_names);
  EXPECT_EQ(m2.trees[0].split_type, t.split_type);
  EXPECT_EQ(m2.trees[0].cat_offset, t.cat_offset);
  EXPECT_EQ(m2.trees[0].cat_bits, t.cat_bits);
  EXPECT_FALSE(m2.trees[1].has_categorical());
  EXPECT_EQ(serialize_model(m2), b);

  // Inconsistent sections are refused.
  Model bad = m;
  bad.categories[1] = {"x"};  // feature 1 is not categorical
  EXPECT_THROW(validate_model(bad), CorruptModel);
  bad = m;
  bad.class_names.pop_back();
  EXPECT_THROW(validate_model(bad), CorruptModel);
  bad = m;
  bad.trees[0].cat_offset[nn] = 7;
  EXPECT_THROW(validate_model(bad), CorruptModel);
  // Every truncation of a version 2 model is an error, not a crash.
  for (size_t n = 0; n < b.size(); n += 7) EXPECT_FALSE(decode_and_use(std::vector<uint8_t>(b.begin(), b.begin() + n)));
}
