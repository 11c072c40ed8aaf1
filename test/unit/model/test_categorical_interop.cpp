// Categorical features in the engine's glue-free parts: the
// categorical_features / max_categories parameters and XGBoost JSON's
// categorical fields (export, import, round trip).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/common.h"
#include "common/json_parse.h"
#include "model/model_limits.h"
#include "gbm/params.h"
#include "model/xgb_json.h"

using namespace gbdt;

namespace {

std::string param_error(const std::string& key, const std::string& value) {
  TrainParams p;
  try {
    apply_params({{key, value, false}}, &p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

// An XGBoost 3.x JSON model: feature 0 "color" categorical (red, green,
// blue, black), feature 1 "x"; one tree whose root sends {green, black} right.
std::string xgb_model(bool with_cats) {
  std::string cats = with_cats
      ? R"("cats":{"enc":[{"offsets":[0,3,8,12,17],"values":[114,101,100,103,114,101,101,110,98,108,117,101,98,108,97,99,107]},{"offsets":[],"values":[]}],"feature_segments":[0,4,4],"sorted_idx":[3,2,1,0]},)"
      : "";
  return R"({"learner":{"feature_names":["color","x"],"feature_types":["c","float"],)"
         R"("learner_model_param":{"base_score":"0.5","num_class":"0","num_feature":"2","num_target":"1"},)"
         R"("objective":{"name":"reg:squarederror"},"gradient_booster":{"name":"gbtree","model":{)" +
         cats +
         R"("gbtree_model_param":{"num_trees":"1"},"tree_info":[0],"trees":[{)"
         R"("left_children":[1,3,-1,-1,-1],"right_children":[2,4,-1,-1,-1],"parents":[2147483647,0,0,1,1],)"
         R"("split_indices":[0,1,0,0,0],"split_conditions":[0.0,0.5,-1.0,1.0,2.0],"default_left":[1,0,0,0,0],)"
         R"("split_type":[1,0,0,0,0],"categories":[1,3],"categories_nodes":[0],"categories_segments":[0],)"
         R"("categories_sizes":[2],"base_weights":[0,0,-1,1,2],"loss_changes":[3,1,0,0,0],)"
         R"("sum_hessian":[10,6,4,3,3],"tree_param":{"num_nodes":"5","num_feature":"2","size_leaf_vector":"1"}}]}}}})";
}

}  // namespace

TEST(CategoryParams, JsonArrayAndCommaSeparated) {
  TrainParams a, b;
  apply_params({{"categorical_features", R"(["zip", "store id"])", false}}, &a);
  apply_params({{"categorical_features", " zip , store id ", true}}, &b);
  EXPECT_EQ(a.categorical_features, (std::vector<std::string>{"zip", "store id"}));
  EXPECT_EQ(b.categorical_features, a.categorical_features);
  apply_params({{"max_categories", "12", false}}, &a);
  EXPECT_EQ(a.max_categories, 12);
}

TEST(CategoryParams, Errors) {
  EXPECT_NE(param_error("categorical_features", "[1]").find("element 1 is not a string"), std::string::npos);
  EXPECT_NE(param_error("categorical_features", "a,,b").find("empty column name"), std::string::npos);
  EXPECT_NE(param_error("categorical_features", "a,a").find("\"a\" more than once"), std::string::npos);
  EXPECT_NE(param_error("max_categories", "0").find("[1, 65536]"), std::string::npos);
  EXPECT_NE(param_error("max_categories", "65537").find("[1, 65536]"), std::string::npos);
  EXPECT_NE(param_error("max_categories", "2.5").find("max_categories"), std::string::npos);
}

TEST(CategoryParams, DefaultsLeaveTheParamListAsItWas) {
  TrainParams p;
  EXPECT_EQ(p.max_categories, kMaxCategories);
  for (const auto& kv : params_to_kv(p)) {
    EXPECT_NE(kv.first, "categorical_features");
    EXPECT_NE(kv.first, "max_categories");
  }
  p.categorical_features = {"a", "b"};
  p.max_categories = 7;
  auto kv = params_to_kv(p);
  ASSERT_GE(kv.size(), 2u);
  EXPECT_EQ(kv[kv.size() - 2], (std::pair<std::string, std::string>{"categorical_features", "a,b"}));
  EXPECT_EQ(kv.back(), (std::pair<std::string, std::string>{"max_categories", "7"}));
}

TEST(XgbCategorical, ImportReadsSetsAndNames) {
  Model m = import_xgboost_json(xgb_model(true));
  ASSERT_EQ(m.feature_types[0], FeatureType::kCategorical);
  EXPECT_EQ(m.feature_types[1], FeatureType::kFloat);
  EXPECT_EQ(m.categories[0], (std::vector<std::string>{"red", "green", "blue", "black"}));
  EXPECT_TRUE(m.categories[1].empty());
  const Tree& t = m.trees[0];
  ASSERT_TRUE(t.has_categorical());
  EXPECT_EQ(t.split_type[0], 1);
  EXPECT_EQ(t.split_type[1], 0);
  EXPECT_EQ(t.cat_bits[t.cat_offset[0]], (1u << 1) | (1u << 3));
  EXPECT_EQ(t.cat_offset[1], t.cat_offset[2]);  // the numeric split has no set
}

TEST(XgbCategorical, ImportWithoutEncoderUsesDecimalCodes) {
  Model m = import_xgboost_json(xgb_model(false));
  EXPECT_EQ(m.categories[0], (std::vector<std::string>{"0", "1", "2", "3"}));
}

TEST(XgbCategorical, ExportRoundTrip) {
  Model m = import_xgboost_json(xgb_model(true));
  const std::string out = export_xgboost_json(m);
  JsonDoc doc(out);
  JsonRef learner = doc.root().get("learner");
  EXPECT_EQ(learner.get("feature_types").at(0).str(), "c");
  JsonRef tree = learner.get("gradient_booster").get("model").get("trees").at(0);
  EXPECT_EQ(tree.get("split_type").at(0).number(), 1);
  EXPECT_EQ(tree.get("categories").size(), 2u);
  EXPECT_EQ(tree.get("categories").at(1).number(), 3);
  EXPECT_EQ(tree.get("categories_nodes").at(0).number(), 0);
  JsonRef cats = learner.get("gradient_booster").get("model").get("cats");
  ASSERT_TRUE(cats.valid());
  // sorted_idx: black (3), blue (2), green (1), red (0).
  JsonRef si = cats.get("sorted_idx");
  ASSERT_EQ(si.size(), 4u);
  EXPECT_EQ(si.at(0).number(), 3);
  EXPECT_EQ(si.at(3).number(), 0);
  Model back = import_xgboost_json(out);
  EXPECT_EQ(back.categories, m.categories);
  EXPECT_EQ(back.trees[0].cat_bits, m.trees[0].cat_bits);
  EXPECT_EQ(back.trees[0].split_type, m.trees[0].split_type);
}

TEST(XgbCategorical, NonAsciiCategoriesAreExportedWithoutEncoder) {
  Model m = import_xgboost_json(xgb_model(true));
  m.categories[0][0] = "Zürich";
  JsonDoc doc(export_xgboost_json(m));
  EXPECT_FALSE(doc.root().get("learner").get("gradient_booster").get("model").get("cats").valid());
}

TEST(XgbCategorical, MalformedSetsAreErrors) {
  std::string j = xgb_model(true);
  std::string bad = j;
  bad.replace(bad.find("\"categories_sizes\":[2]"), 22, "\"categories_sizes\":[9]");
  EXPECT_THROW(import_xgboost_json(bad), InvalidInput);
  bad = j;
  bad.replace(bad.find("\"categories\":[1,3]"), 18, "\"categories\":[1,-3]");
  EXPECT_THROW(import_xgboost_json(bad), InvalidInput);
  bad = j;
  bad.replace(bad.find("\"feature_types\":[\"c\""), 20, "\"feature_types\":[\"q\"");
  EXPECT_THROW(import_xgboost_json(bad), InvalidInput);  // a categorical split on a numeric feature
}
