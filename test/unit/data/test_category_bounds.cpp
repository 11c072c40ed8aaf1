// Categorical sets bounded by their feature's categories, and the rule for
// unseen categories (category_values.h):
//  - an XGBoost JSON whose few listed codes span many categories imports
//    into sets of at most one word per listed code (tree.h's code lists),
//    within gbdt.max_memory's budget and with cancel polled;
//  - a code past the model encoder's categories is an error naming it;
//  - decoding refuses a set wider than its feature's categories;
//  - a value that is not a code of its feature scores as missing, in every
//    path, and XGBoost's reading of the export routes it the same way.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/common.h"
#include "common/json_parse.h"
#include "common/memory_budget.h"
#include "model/format.h"
#include "model/model.h"
#include "predictor/predict.h"
#include "predictor/treeshap.h"
#include "model/xgb_json.h"

using namespace gbdt;

namespace {

// An XGBoost JSON model of one categorical feature "c" (no encoder unless
// cats_n > 0: then cats_n categories "v0".."vN"): `trees` trees, each a
// chain of `splits` categorical splits whose set is `codes`; missing values
// go right (default_left 0).
std::string chain_model(int trees, int splits, const std::vector<int>& codes, int cats_n = 0,
                        int features = 1) {
  std::string fnames, ftypes;
  for (int f = 0; f < features; ++f) {
    fnames += (f ? ",\"c" : "\"c") + std::to_string(f) + "\"";
    ftypes += f ? ",\"c\"" : "\"c\"";
  }
  std::string o = R"({"learner":{"feature_names":[)" + fnames + R"(],"feature_types":[)" + ftypes +
                  R"(],"learner_model_param":{"base_score":"0.5","num_class":"0","num_feature":")" +
                  std::to_string(features) +
                  R"(","num_target":"1"},"objective":{"name":"reg:squarederror"},)"
                  R"("gradient_booster":{"name":"gbtree","model":{)";
  if (cats_n > 0) {
    std::string offs = "0", vals;
    size_t off = 0;
    for (int c = 0; c < cats_n; ++c) {
      const std::string v = "v" + std::to_string(c);
      for (unsigned char ch : v) vals += (vals.empty() ? "" : ",") + std::to_string((int)ch);
      off += v.size();
      offs += "," + std::to_string(off);
    }
    o += R"("cats":{"enc":[{"offsets":[)" + offs + R"(],"values":[)" + vals + "]}";
    for (int f = 1; f < features; ++f) o += R"(,{"offsets":[],"values":[]})";
    o += "]},";
  }
  o += R"("gbtree_model_param":{"num_trees":")" + std::to_string(trees) + R"("},"tree_info":[)";
  for (int t = 0; t < trees; ++t) o += t ? ",0" : "0";
  o += R"(],"trees":[)";
  const int nn = 2 * splits + 1;
  for (int t = 0; t < trees; ++t) {
    std::string L, R, P, S, C, D, ST, W, H, cats, cn, cs, cz;
    for (int n = 0; n < nn; ++n) {
      const bool split = n % 2 == 0 && n < nn - 1;
      auto add = [n](std::string& s, const std::string& v) { s += (n ? "," : "") + v; };
      add(L, split ? std::to_string(n + 1) : "-1");
      add(R, split ? std::to_string(n + 2) : "-1");
      add(P, n == 0 ? "2147483647" : std::to_string(n % 2 ? n - 1 : n - 2));
      add(S, std::to_string(split ? (n / 2) % features : 0));
      add(C, split ? "0" : std::to_string(0.01 * (n + 1)));
      add(D, "0");
      add(ST, split ? "1" : "0");
      add(W, std::to_string(0.01 * (n + 1)));
      add(H, std::to_string(split ? splits - n / 2 + 1 : 1));  // leaves below
      if (split) {
        cs += (cn.empty() ? "" : ",") + std::to_string((n / 2) * codes.size());
        cz += (cn.empty() ? "" : ",") + std::to_string(codes.size());
        cn += (cn.empty() ? "" : ",") + std::to_string(n);
        for (int c : codes) cats += (cats.empty() ? "" : ",") + std::to_string(c);
      }
    }
    o += (t ? "," : "") + std::string(R"({"left_children":[)") + L + R"(],"right_children":[)" + R +
         R"(],"parents":[)" + P + R"(],"split_indices":[)" + S + R"(],"split_conditions":[)" + C +
         R"(],"default_left":[)" + D + R"(],"split_type":[)" + ST + R"(],"base_weights":[)" + W + R"(],"sum_hessian":[)" + H +
         R"(],"categories":[)" + cats + R"(],"categories_nodes":[)" + cn +
         R"(],"categories_segments":[)" + cs + R"(],"categories_sizes":[)" + cz +
         R"(],"tree_param":{"num_nodes":")" + std::to_string(nn) + R"(","num_feature":"1","size_leaf_vector":"1"}})";
  }
  return o + "]}}}}";
}

size_t set_words(const Model& m) {
  size_t w = 0;
  for (const Tree& t : m.trees) w += t.cat_bits.size();
  return w;
}

double predict1(const Model& m, float v) {
  double out = 0;
  predict_margin_row(m, &v, &out, 0);
  return out;
}

}  // namespace

TEST(CategoryBounds, SparseCodesImportIntoASmallModel) {
  // 200 splits each listing {0, 65535}: as bit fields 2048 words a split.
  const std::string json = chain_model(4, 50, {0, 65535});
  const Model m = import_xgboost_json(json);
  EXPECT_LE(set_words(m), (size_t)4 * 50 * 2);  // a word per listed code
  EXPECT_LT(serialize_model(m).size(), json.size() + 1024 * 1024);
  EXPECT_EQ(m.categories[0].size(), 65536u);
  // The lists score like the bit fields would: 0 and 65535 right, 7 left.
  const Model back = deserialize_model(serialize_model(m).data(), serialize_model(m).size());
  for (float v : {0.0f, 65535.0f, 7.0f, 65534.5f}) {
    EXPECT_EQ(predict1(m, v), predict1(back, v)) << v;
    double batch = 0;
    predict_batch(m, &v, 1, &batch, 1);
    double margin = predict1(m, v);
    transform_margins(m, &margin);
    EXPECT_EQ(batch, margin) << v;
  }
  // The first split sends 0 right (node 2 onward), 7 left (leaf 1: 0.02).
  EXPECT_NE(predict1(m, 0.0f), predict1(m, 7.0f));
  EXPECT_NEAR(predict1(m, 7.0f), 0.5 + 4 * 0.02, 1e-6);
}

TEST(CategoryBounds, ListModelsWriteFormat3AndBitFieldModelsKeep2) {
  const Model sparse = import_xgboost_json(chain_model(1, 3, {1, 40000}));
  const std::vector<uint8_t> b = serialize_model(sparse);
  EXPECT_EQ(b[8], 3);  // version (little-endian u32 after the magic)
  const Model dense = import_xgboost_json(chain_model(1, 3, {1, 3, 5}));
  const std::vector<uint8_t> d = serialize_model(dense);
  EXPECT_EQ(d[8], 2);
  EXPECT_NO_THROW(deserialize_model(d.data(), d.size()));
  // A code list under version 2 is refused (earlier builds never wrote one).
  std::vector<uint8_t> fake = b;
  fake[8] = 2;
  reseal_model_bytes(fake.data(), fake.size());
  EXPECT_THROW(deserialize_model(fake.data(), fake.size()), CorruptModel);
}

TEST(CategoryBounds, CodePastTheEncoderIsAnError) {
  try {
    import_xgboost_json(chain_model(1, 2, {1, 9}, 4));
    FAIL() << "imported";
  } catch (const InvalidInput& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("tree 0 node 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"c0\""), std::string::npos) << msg;
    EXPECT_NE(msg.find("category 9"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(import_xgboost_json(chain_model(1, 2, {1, 3}, 4)));
}

TEST(CategoryBounds, ImportIsChargedToTheBudget) {
  // 300 features, each split once on code 65535: 19.7M decimal names.
  const std::string json = chain_model(1, 300, {65535}, 0, 300);
  MemoryBudget budget(64.0 * 1024 * 1024, "gbdt.max_memory", "gbdt_import");
  XgbImportLimits lim;
  lim.budget = &budget;
  try {
    import_xgboost_json(json, lim);
    FAIL() << "imported";
  } catch (const MemoryLimitExceeded& e) {
    EXPECT_NE(std::string(e.what()).find("gbdt_import needs more memory than gbdt.max_memory"),
              std::string::npos) << e.what();
  }
  EXPECT_LE(budget.peak(), 64.0 * 1024 * 1024);
}

TEST(CategoryBounds, ImportPollsCancel) {
  XgbImportLimits lim;
  int calls = 0;
  // Polled at the start, after parsing, then in the loops over nodes and codes.
  lim.cancel = [&calls] { return ++calls > 2; };
  EXPECT_THROW(import_xgboost_json(chain_model(20, 2000, {0, 65535}), lim), Cancelled);
  EXPECT_GT(calls, 2);
}

TEST(CategoryBounds, DecodeRefusesSetsPastTheCategories) {
  Model m = import_xgboost_json(chain_model(1, 2, {1, 2}));  // 3 categories, bit fields
  ASSERT_EQ(m.categories[0].size(), 3u);
  ASSERT_EQ(m.trees[0].split_type[0], 1);
  // 2048 words (all of kMaxCategories) for a feature of 3 categories.
  Model wide = m;
  Tree& t = wide.trees[0];
  std::vector<uint32_t> words(2048, 0);
  words[0] = 0x6u;
  t.set_categorical(0, words.data(), (uint32_t)words.size());
  std::vector<uint8_t> b = serialize_model(wide);
  EXPECT_THROW(deserialize_model(b.data(), b.size()), CorruptModel);
  // One word, but a code (5) past the categories.
  Model past = m;
  const uint32_t w = 0x26u;
  past.trees[0].set_categorical(0, &w, 1);
  b = serialize_model(past);
  EXPECT_THROW(deserialize_model(b.data(), b.size()), CorruptModel);
  // A code list that is not increasing.
  Model list = m;
  const uint32_t codes[2] = {2, 1};
  list.trees[0].set_categorical(0, codes, 2, kCatList);
  b = serialize_model(list);
  EXPECT_THROW(deserialize_model(b.data(), b.size()), CorruptModel);
  b = serialize_model(m);
  EXPECT_NO_THROW(deserialize_model(b.data(), b.size()));
}

TEST(CategoryBounds, UnseenCodesScoreAsMissing) {
  // 4 categories (encoder), missing values right at every split.
  const Model m = import_xgboost_json(chain_model(2, 3, {1, 3}, 4));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const double missing = predict1(m, nan);
  EXPECT_NE(missing, predict1(m, 0.0f));  // code 0 goes left, missing right
  for (float v : {4.0f, 17.0f, 70000.0f, -1.0f, -0.5f, INFINITY, -INFINITY}) {
    EXPECT_EQ(predict1(m, v), missing) << v;
    double batch = 0, expect = missing;
    transform_margins(m, &expect);
    predict_batch(m, &v, 1, &batch, 1);
    EXPECT_EQ(batch, expect) << v;
  }
  // TreeSHAP sees the same row: its contributions sum to the margin.
  TreeShap shap(m);
  TreeShap::Scratch s;
  std::vector<double> phi((size_t)shap.width());
  const float v = 9.0f;
  shap.contributions(&v, phi.data(), s, CancelFn());
  EXPECT_NEAR(phi[0] + phi[1], missing, 1e-6);
}

TEST(CategoryBounds, ExportMirrorsNodesWhoseMissingGoesRight) {
  const Model m = import_xgboost_json(chain_model(1, 2, {1, 3}, 4));
  const std::string j = export_xgboost_json(m);
  JsonDoc doc(j);
  JsonRef t = doc.root().get("learner").get("gradient_booster").get("model").get("trees").at(0);
  // Node 0: children swapped, missing left, the complement {0, 2} listed.
  EXPECT_EQ(t.get("left_children").at(0).number(), 2);
  EXPECT_EQ(t.get("right_children").at(0).number(), 1);
  EXPECT_EQ(t.get("default_left").at(0).number(), 1);
  EXPECT_EQ(t.get("categories").at(0).number(), 0);
  EXPECT_EQ(t.get("categories").at(1).number(), 2);
  EXPECT_EQ(t.get("categories_sizes").at(0).number(), 2);
  // Imported again, every code and missing scores as before.
  const Model back = import_xgboost_json(j);
  for (float v : {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, std::numeric_limits<float>::quiet_NaN()})
    EXPECT_EQ(predict1(back, v), predict1(m, v)) << v;
}
