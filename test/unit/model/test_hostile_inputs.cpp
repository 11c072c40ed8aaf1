// Hostile inputs outside the model bytes: NaN in metrics (no endless loop),
// duplicate parameter aliases, and XGBoost JSON beyond the limits or with
// invalid strings.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "metric/metrics.h"
#include "model/model.h"
#include "gbm/params.h"
#include "model/xgb_json.h"

using namespace gbdt;

namespace {

#define EXPECT_HAS(msg, part) EXPECT_NE((msg).find(part), std::string::npos) << (msg)

// Runs f on its own thread; fails (and abandons the thread) when it does not
// return within 10 s, so a regression to an endless loop fails, not hangs.
// Returns the InvalidInput message ("" when none was thrown).
std::string within_time(std::function<void()> f) {
  auto prom = std::make_shared<std::promise<std::string>>();
  std::future<std::string> fut = prom->get_future();
  std::thread([prom, f] {
    try {
      f();
      prom->set_value("");
    } catch (const InvalidInput& e) {
      prom->set_value(e.what());
    } catch (...) {
      prom->set_value("other exception");
    }
  }).detach();
  if (fut.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "did not return within 10 s (endless loop)";
    std::quick_exit(1);  // the looping thread cannot be stopped
  }
  return fut.get();
}

std::string param_error(const std::vector<ParamKV>& kvs) {
  TrainParams p;
  try {
    apply_params(kvs, &p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

std::string import_error(const std::string& json) {
  try {
    import_xgboost_json(json);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

// A one-tree XGBoost model with the given learner_model_param fields,
// objective and feature names.
std::string xgb_json(const std::string& objective, const std::string& num_class,
                     const std::string& num_feature, const std::string& feature_names,
                     const std::string& base_score = "5E-1") {
  const bool multi = objective == "multi:softprob";
  std::string tree =
      "{\"base_weights\":[0.0,0.1,-0.1],\"default_left\":[1,0,0],\"id\":0,"
      "\"left_children\":[1,-1,-1],\"right_children\":[2,-1,-1],\"parents\":[2147483647,0,0],"
      "\"split_conditions\":[0.5,0.1,-0.1],\"split_indices\":[0,0,0],\"split_type\":[0,0,0],"
      "\"loss_changes\":[1.0,0.0,0.0],\"sum_hessian\":[10.0,5.0,5.0],"
      "\"categories\":[],\"categories_nodes\":[],\"categories_segments\":[],\"categories_sizes\":[],"
      "\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":\"" + num_feature +
      "\",\"num_nodes\":\"3\",\"size_leaf_vector\":\"1\"}}";
  return "{\"learner\":{\"attributes\":{},\"feature_names\":[" + feature_names +
         "],\"feature_types\":[],\"gradient_booster\":{\"model\":{\"gbtree_model_param\":"
         "{\"num_parallel_tree\":\"1\",\"num_trees\":\"" + std::string(multi ? "0" : "1") +
         "\"},\"iteration_indptr\":[0],\"tree_info\":[" + (multi ? "" : "0") + "],\"trees\":[" +
         (multi ? "" : tree) + "]},\"name\":\"gbtree\"},\"learner_model_param\":{\"base_score\":\"" +
         base_score + "\",\"boost_from_average\":\"1\",\"num_class\":\"" + num_class +
         "\",\"num_feature\":\"" + num_feature + "\",\"num_target\":\"1\"},\"objective\":{\"name\":\"" +
         objective + "\"}},\"version\":[3,0,0]}";
}

}  // namespace

TEST(HostileMetrics, AucWithNaNPredictionsDoesNotLoop) {
  std::vector<double> p = {0.2, NAN, 0.7, NAN};
  std::vector<float> y = {0, 1, 1, 0};
  std::string err = within_time(
      [&] { compute_metric("auc", Objective::kLogistic, 1, p.data(), y.data(), y.size()); });
  EXPECT_HAS(err, "metric \"auc\": prediction of row 2 is NaN");
  std::vector<double> all_nan(4, NAN);
  err = within_time([&] {
    evaluate_all(Objective::kLogistic, 1, all_nan.data(), y.data(), y.size());
  });
  EXPECT_HAS(err, "metric \"auc\"");
}

TEST(HostileMetrics, AucWithNaNLabel) {
  std::vector<double> p = {0.2, 0.4, 0.7};
  std::vector<float> y = {0, NAN, 1};
  EXPECT_HAS(within_time([&] {
               compute_metric("auc", Objective::kLogistic, 1, p.data(), y.data(), y.size());
             }),
             "metric \"auc\": label of row 2 is NaN");
}

TEST(HostileMetrics, AucTiesStillAveraged) {
  std::vector<double> p = {0.5, 0.5, 0.9, 0.1};
  std::vector<float> y = {1, 0, 1, 0};
  // pairs (pos, neg): (0,1) tie 0.5, (0,3) 1, (2,1) 1, (2,3) 1 -> 3.5 / 4
  EXPECT_DOUBLE_EQ(compute_metric("auc", Objective::kLogistic, 1, p.data(), y.data(), 4), 0.875);
}

TEST(HostileMetrics, MultiClassLabelOutOfRange) {
  std::vector<double> p = {0.5, 0.5, 0.5, 0.5};
  std::vector<float> y = {0, 7};
  EXPECT_HAS(within_time([&] {
               compute_metric("mlogloss", Objective::kSoftprob, 2, p.data(), y.data(), 2);
             }),
             "metric \"mlogloss\": label 7");
  y = {NAN, 1};
  EXPECT_HAS(within_time([&] {
               compute_metric("merror", Objective::kSoftprob, 2, p.data(), y.data(), 2);
             }),
             "metric \"merror\": label nan of row 1 is not a class in 0 .. 1");
}

TEST(HostileParams, DuplicateAliasesNamed) {
  EXPECT_EQ(param_error({{"eta", "0.1"}, {"learning_rate", "0.2"}}),
            "parameters \"eta\" and \"learning_rate\" both set eta: give only one of them");
  EXPECT_EQ(param_error({{"n_estimators", "5"}, {"num_round", "6"}}),
            "parameters \"n_estimators\" and \"num_round\" both set num_round: give only one of them");
  EXPECT_EQ(param_error({{"reg_lambda", "1"}, {"alpha", "1"}, {"lambda", "2"}}),
            "parameters \"reg_lambda\" and \"lambda\" both set lambda: give only one of them");
  EXPECT_EQ(param_error({{"verbose", "1"}, {"verbosity", "0"}}),
            "parameters \"verbose\" and \"verbosity\" both set verbose: give only one of them");
  // The same key twice (the glue's objective argument after the params): the last wins.
  TrainParams p;
  apply_params({{"max_depth", "3"}, {"max_depth", "4"}}, &p);
  EXPECT_EQ(p.max_depth, 4);
  EXPECT_EQ(param_error({{"eta", "0.1"}, {"max_depth", "3"}, {"lambda", "2"}, {"alpha", "0"}}), "");
}

TEST(HostileParams, NumClassLimit) {
  EXPECT_HAS(param_error({{"num_class", "10001"}}), "must be an integer in [2, 10000]");
  EXPECT_EQ(param_error({{"num_class", "10000"}}), "");
}

TEST(HostileImport, BaselineImports) {
  EXPECT_EQ(import_error(xgb_json("binary:logistic", "0", "2", "\"a\",\"b\"")), "");
  EXPECT_EQ(import_error(xgb_json("multi:softprob", "3", "2", "")), "");
}

TEST(HostileImport, ClassAndFeatureLimits) {
  EXPECT_HAS(import_error(xgb_json("multi:softprob", "100000", "2", "")),
             "num_class = 100000 is out of range for multi:softprob: must be in [2, 10000]");
  EXPECT_HAS(import_error(xgb_json("binary:logistic", "0", "10000000", "")),
             "num_feature = 10000000 is out of range: must be in [1, 100000]");
}

TEST(HostileImport, InvalidStrings) {
  EXPECT_HAS(import_error(xgb_json("binary:logistic", "0", "2", "\"a\",\"b\xff\"")),
             "not valid UTF-8");
  EXPECT_HAS(import_error(xgb_json("binary:logistic", "0", "2", "\"a\",\"b\\u0000\"")),
             "\\u0000 is not supported");
  EXPECT_HAS(import_error(xgb_json("binary:logistic", "0", "2",
                                   "\"a\",\"" + std::string(5000, 'x') + "\"")),
             "more than the limit of 4096");
}

TEST(HostileImport, NonFiniteValues) {
  EXPECT_HAS(import_error(xgb_json("reg:squarederror", "0", "2", "", "NaN")),
             "base_score is not finite");
  std::string j = xgb_json("reg:squarederror", "0", "2", "");
  std::string inf_leaf = j;
  inf_leaf.replace(inf_leaf.find("[0.5,0.1,-0.1]"), 14, "[0.5,\"inf\",-0.1]");
  EXPECT_HAS(import_error(inf_leaf), "leaf/node value is not finite");
  std::string neg_inf_split = j;
  neg_inf_split.replace(neg_inf_split.find("[0.5,0.1,-0.1]"), 14, "[\"-inf\",0.1,-0.1]");
  EXPECT_HAS(import_error(neg_inf_split), "split condition of node 0 is NaN or -Infinity");
  std::string nan_gain = j;
  nan_gain.replace(nan_gain.find("[1.0,0.0,0.0]"), 13, "[\"nan\",0.0,0.0]");
  EXPECT_HAS(import_error(nan_gain), "gain is not finite");
}
