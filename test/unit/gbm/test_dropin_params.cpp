// Parameter dicts pasted from XGBoost and LightGBM: inert keys accepted at
// their default-like values, LightGBM names mapped, conflicts and the
// unsupported rejected with the key named, typos answered with the nearest
// known name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/common.h"
#include "gbm/params.h"

using namespace gbdt;

namespace {

std::string error_of(const std::vector<ParamKV>& kvs) {
  TrainParams p;
  try {
    apply_params(kvs, &p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

TEST(DropInParams, UnknownKeySuggestsTheNearestName) {
  EXPECT_EQ(first_line(error_of({{"max_dpeth", "3"}})),
            "unknown parameter \"max_dpeth\" (did you mean \"max_depth\"?)");
  EXPECT_EQ(first_line(error_of({{"Learning_Rate", "0.1"}})),
            "unknown parameter \"Learning_Rate\" (did you mean \"learning_rate\"?)");
  EXPECT_EQ(first_line(error_of({{"n_estimator", "10"}})),
            "unknown parameter \"n_estimator\" (did you mean \"n_estimators\"?)");
  EXPECT_EQ(first_line(error_of({{"num_leafs", "10"}})),
            "unknown parameter \"num_leafs\" (did you mean \"num_leaves\"?)");
  // nothing near: the key alone, the list on the next line.
  const std::string e = error_of({{"zzzzzzzz", "1"}});
  EXPECT_EQ(first_line(e), "unknown parameter \"zzzzzzzz\"");
  EXPECT_NE(e.find("\nAllowed are "), std::string::npos);
  EXPECT_NE(e.find("max_depth"), std::string::npos);
  // a long hostile key is answered at once, without a suggestion.
  const std::string long_key(100000, 'x');
  EXPECT_EQ(first_line(error_of({{long_key, "1"}})), "unknown parameter \"" + long_key + "\"");
}

TEST(DropInParams, XGBoostDictIsAccepted) {
  TrainParams p;
  apply_params({{"booster", "gbtree", true},
                {"enable_categorical", "true"},
                {"validate_parameters", "true"},
                {"disable_default_eval_metric", "false"},
                {"missing", "NaN", true},
                {"predictor", "auto", true},
                {"silent", "false"},
                {"tree_method", "approx", true},
                {"n_jobs", "2"},
                {"random_state", "42"},
                {"verbosity", "1"},
                {"learning_rate", "0.1"},
                {"max_depth", "4"},
                {"n_estimators", "20"}},
               &p);
  EXPECT_EQ(p.nthread, 2);
  EXPECT_EQ(p.seed, 42u);
  EXPECT_FALSE(p.verbose);  // XGBoost's verbosity 1 is warnings only
  EXPECT_DOUBLE_EQ(p.eta, 0.1);
  EXPECT_EQ(p.num_round, 20);
  TrainParams q;
  apply_params({{"verbosity", "2"}}, &q);
  EXPECT_TRUE(q.verbose);
  apply_params({{"verbose", "-1"}}, &q);  // LightGBM's quiet
  EXPECT_FALSE(q.verbose);
}

TEST(DropInParams, UnsupportedValuesAreClearErrors) {
  EXPECT_EQ(error_of({{"booster", "dart", true}}),
            "parameter \"booster\" = \"dart\" is not supported: only gbtree (dart and gblinear "
            "are not implemented)");
  EXPECT_EQ(error_of({{"missing", "0"}}),
            "parameter \"missing\" = 0 is not supported: only NaN (NULL and NaN are the missing "
            "values; map another sentinel to NULL in a view)");
  EXPECT_NE(error_of({{"tree_method", "exact", true}}).find("is not supported"), std::string::npos);
  EXPECT_EQ(error_of({{"min_child_samples", "-1"}}),
            "parameter \"min_child_samples\" = -1 is out of range: must be an integer in "
            "[0, 2147483647] (0 = no limit)");
  EXPECT_NE(error_of({{"enable_categorical", "maybe", true}}).find("must be a boolean"),
            std::string::npos);
}

TEST(DropInParams, LightGBMNamesMap) {
  TrainParams p;
  apply_params({{"num_leaves", "15"},
                {"feature_fraction", "0.8"},
                {"bagging_fraction", "0.7"},
                {"bagging_freq", "1"},
                {"lambda_l2", "2"},
                {"lambda_l1", "0.5"},
                {"num_iterations", "30"},
                {"min_sum_hessian_in_leaf", "0.01"},
                {"max_depth", "-1"},
                {"verbose", "-1"}},
               &p);
  EXPECT_EQ(p.max_leaves, 15);
  EXPECT_TRUE(p.lossguide);  // LightGBM grows leaf-wise
  EXPECT_EQ(p.max_depth, 0);  // -1: no depth limit
  EXPECT_DOUBLE_EQ(p.colsample_bytree, 0.8);
  EXPECT_DOUBLE_EQ(p.subsample, 0.7);
  EXPECT_DOUBLE_EQ(p.reg_lambda, 2);
  EXPECT_DOUBLE_EQ(p.reg_alpha, 0.5);
  EXPECT_EQ(p.num_round, 30);
  EXPECT_DOUBLE_EQ(p.min_child_weight, 0.01);
  EXPECT_FALSE(p.verbose);
}

// LightGBM's objective names are aliases of the objectives (objective/*.cpp).
TEST(DropInParams, LightGBMObjectiveNames) {
  TrainParams p;
  apply_params({{"objective", "binary", true}}, &p);
  EXPECT_EQ(p.objective, Objective::kLogistic);
  apply_params({{"objective", "multiclass", true}, {"num_class", "3"}}, &p);
  EXPECT_EQ(p.objective, Objective::kSoftprob);
  apply_params({{"objective", "regression_l1", true}}, &p);
  EXPECT_EQ(p.objective, Objective::kAbsoluteError);
}

TEST(DropInParams, ConflictsNameBothKeys) {
  EXPECT_EQ(error_of({{"subsample", "0.5"}, {"bagging_fraction", "0.7"}}),
            "parameters \"subsample\" and \"bagging_fraction\" both set subsample: give only one "
            "of them");
  EXPECT_EQ(error_of({{"lambda", "1"}, {"lambda_l2", "3"}}),
            "parameters \"lambda\" and \"lambda_l2\" both set lambda: give only one of them");
  // the same value under two names is no conflict.
  EXPECT_EQ(error_of({{"eta", "0.1"}, {"learning_rate", "0.1"}}), "");
  EXPECT_NE(error_of({{"num_leaves", "8"}, {"grow_policy", "depthwise", true}})
                .find("parameters \"num_leaves\" and \"grow_policy\" = \"depthwise\" conflict"),
            std::string::npos);
  EXPECT_NE(error_of({{"bagging_fraction", "0.5"}, {"bagging_freq", "0"}}).find("bagging_freq"),
            std::string::npos);
  EXPECT_NE(error_of({{"bagging_freq", "5"}}).find("only 0 or 1"), std::string::npos);
  EXPECT_NE(error_of({{"max_depth", "-1"}}).find("needs grow_policy lossguide"), std::string::npos);
  EXPECT_EQ(error_of({{"is_unbalance", "true"}, {"scale_pos_weight", "3"}}),
            "parameters \"is_unbalance\" and \"scale_pos_weight\" both set the weight of the "
            "positive rows: give only one of them");
  EXPECT_EQ(error_of({{"is_unbalance", "true"}, {"objective", "reg:squarederror", true}}),
            "parameter \"is_unbalance\" needs a binary objective, got reg:squarederror");
}

TEST(DropInParams, IsUnbalanceWeighsByTheClassCounts) {
  TrainParams p;
  apply_params({{"is_unbalance", "true"}}, &p);
  p.objective = Objective::kLogistic;
  const std::vector<float> y = {1, 0, 0, 0, 1, 0, 0, 0};  // 2 positives, 6 negatives
  resolve_is_unbalance(y.data(), y.size(), nullptr, &p);
  EXPECT_DOUBLE_EQ(p.scale_pos_weight, 3.0);
  // off: untouched; one class: nothing to balance.
  TrainParams q;
  q.objective = Objective::kLogistic;
  resolve_is_unbalance(y.data(), y.size(), nullptr, &q);
  EXPECT_DOUBLE_EQ(q.scale_pos_weight, 1.0);
  const std::vector<float> ones = {1, 1};
  resolve_is_unbalance(ones.data(), ones.size(), nullptr, &p);
  EXPECT_DOUBLE_EQ(p.scale_pos_weight, 3.0);
  TrainParams r;
  apply_params({{"is_unbalance", "true"}}, &r);  // objective inferred later, as regression
  EXPECT_THROW(resolve_is_unbalance(y.data(), y.size(), nullptr, &r), InvalidInput);
}
