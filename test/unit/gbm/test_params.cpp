// Parameter parsing: XGBoost names, aliases, defaults, errors naming the key.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/common.h"
#include "gbm/params.h"

using namespace gbdt;

namespace {

TrainParams parse(const std::vector<ParamKV>& kvs) {
  TrainParams p;
  apply_params(kvs, &p);
  return p;
}

// The InvalidInput message of applying one key/value ("" when it did not throw).
std::string error_of(const std::string& key, const std::string& value, bool is_string = false) {
  TrainParams p;
  try {
    apply_params({{key, value, is_string}}, &p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Params, XGBoostDefaults) {
  TrainParams p;
  EXPECT_EQ(p.objective, Objective::kSquaredError);
  EXPECT_FALSE(p.objective_set);
  EXPECT_DOUBLE_EQ(p.eta, 0.3);
  EXPECT_EQ(p.max_depth, 6);
  EXPECT_DOUBLE_EQ(p.min_child_weight, 1.0);
  EXPECT_DOUBLE_EQ(p.reg_lambda, 1.0);
  EXPECT_DOUBLE_EQ(p.reg_alpha, 0.0);
  EXPECT_DOUBLE_EQ(p.gamma, 0.0);
  EXPECT_EQ(p.max_bin, 256);
  EXPECT_DOUBLE_EQ(p.subsample, 1.0);
  EXPECT_DOUBLE_EQ(p.colsample_bytree, 1.0);
  EXPECT_FALSE(p.base_score_set);
  EXPECT_EQ(p.num_round, 100);
  EXPECT_EQ(p.nthread, 0);
  EXPECT_DOUBLE_EQ(p.effective_max_delta_step(), 0.0);
  p.objective = Objective::kPoisson;
  EXPECT_DOUBLE_EQ(p.effective_max_delta_step(), 0.7);  // XGBoost's poisson default
}

TEST(Params, NamesAndAliases) {
  TrainParams p = parse({{"eta", "0.1"}, {"max_depth", "8"}, {"min_child_weight", "2.5"},
                         {"lambda", "3"}, {"alpha", "0.5"}, {"gamma", "0.25"},
                         {"max_bin", "64"}, {"subsample", "0.8"}, {"colsample_bytree", "0.7"},
                         {"num_round", "42"}, {"seed", "7"}, {"nthread", "3"}});
  EXPECT_DOUBLE_EQ(p.eta, 0.1);
  EXPECT_EQ(p.max_depth, 8);
  EXPECT_DOUBLE_EQ(p.min_child_weight, 2.5);
  EXPECT_DOUBLE_EQ(p.reg_lambda, 3.0);
  EXPECT_DOUBLE_EQ(p.reg_alpha, 0.5);
  EXPECT_DOUBLE_EQ(p.gamma, 0.25);
  EXPECT_EQ(p.max_bin, 64);
  EXPECT_DOUBLE_EQ(p.subsample, 0.8);
  EXPECT_DOUBLE_EQ(p.colsample_bytree, 0.7);
  EXPECT_EQ(p.num_round, 42);
  EXPECT_EQ(p.seed, 7u);
  EXPECT_EQ(p.nthread, 3);

  TrainParams a = parse({{"learning_rate", "0.05"}, {"reg_lambda", "2"}, {"reg_alpha", "1.5"},
                         {"n_estimators", "17"}, {"min_split_loss", "0.125"}});
  EXPECT_DOUBLE_EQ(a.eta, 0.05);
  EXPECT_DOUBLE_EQ(a.reg_lambda, 2.0);
  EXPECT_DOUBLE_EQ(a.reg_alpha, 1.5);
  EXPECT_EQ(a.num_round, 17);
  EXPECT_DOUBLE_EQ(a.gamma, 0.125);
}

TEST(Params, ObjectiveAndBaseScore) {
  TrainParams p = parse({{"objective", "multi:softprob", true}, {"num_class", "5"}});
  EXPECT_EQ(p.objective, Objective::kSoftprob);
  EXPECT_TRUE(p.objective_set);
  EXPECT_EQ(p.num_class, 5);
  TrainParams q = parse({{"objective", "count:poisson", true}, {"base_score", "0.5"},
                         {"max_delta_step", "0"}});
  EXPECT_EQ(q.objective, Objective::kPoisson);
  EXPECT_TRUE(q.base_score_set);
  EXPECT_DOUBLE_EQ(q.base_score, 0.5);
  EXPECT_DOUBLE_EQ(q.effective_max_delta_step(), 0.0);  // explicit 0 wins over 0.7

  Objective o;
  EXPECT_TRUE(parse_objective("reg:squarederror", &o));
  EXPECT_EQ(o, Objective::kSquaredError);
  EXPECT_TRUE(parse_objective("binary:logistic", &o));
  EXPECT_EQ(o, Objective::kLogistic);
  EXPECT_FALSE(parse_objective("rank:nosuch", &o));
  EXPECT_STREQ(objective_name(Objective::kSoftprob), "multi:softprob");
  EXPECT_STREQ(objective_name(Objective::kPoisson), "count:poisson");
}

TEST(Params, UnknownKeyNamesKeyAndAllowed) {
  std::string e = error_of("foo", "1");
  // the first line names the key (no known name is near "foo"); the list
  // of allowed names follows on the next line (the glue's errdetail).
  EXPECT_EQ(e.rfind("unknown parameter \"foo\"\nAllowed are ", 0), 0u) << e;
  EXPECT_NE(e.find("eta"), std::string::npos) << e;
  EXPECT_NE(e.find("max_depth"), std::string::npos) << e;
  EXPECT_NE(e.find("num_round"), std::string::npos) << e;
}

TEST(Params, OutOfRangeNamesKeyAndRange) {
  EXPECT_EQ(error_of("max_depth", "0"),
            "parameter \"max_depth\" = 0 is out of range: must be an integer in [1, 16]");
  EXPECT_EQ(error_of("max_depth", "17"),
            "parameter \"max_depth\" = 17 is out of range: must be an integer in [1, 16]");
  struct Case {
    const char* key;
    const char* value;
  };
  const Case bad[] = {
      {"eta", "0"},           {"eta", "1.5"},          {"learning_rate", "-0.1"},
      {"max_bin", "1"},       {"max_bin", "257"},      {"subsample", "0"},
      {"subsample", "1.01"},  {"colsample_bytree", "0"}, {"num_round", "0"},
      {"num_round", "100001"}, {"n_estimators", "-3"}, {"nthread", "-1"},
      {"nthread", "1025"},    {"validation_fraction", "1"}, {"validation_fraction", "-0.1"},
      {"lambda", "-1"},       {"alpha", "-1"},         {"gamma", "-1"},
      {"min_child_weight", "-1"}, {"num_class", "1"},  {"max_delta_step", "-1"},
  };
  for (const Case& c : bad) {
    std::string e = error_of(c.key, c.value);
    EXPECT_NE(e.find(std::string("parameter \"") + c.key + "\" = " + c.value + " is out of range: must be"),
              std::string::npos)
        << c.key << "=" << c.value << " -> \"" << e << "\"";
  }
  // Edges that are inside the ranges.
  EXPECT_EQ(error_of("eta", "1"), "");
  EXPECT_EQ(error_of("max_depth", "16"), "");
  EXPECT_EQ(error_of("max_depth", "1"), "");
  EXPECT_EQ(error_of("max_bin", "2"), "");
  EXPECT_EQ(error_of("max_bin", "256"), "");
  EXPECT_EQ(error_of("subsample", "1"), "");
  EXPECT_EQ(error_of("nthread", "0"), "");
  EXPECT_EQ(error_of("nthread", "1024"), "");
  EXPECT_EQ(error_of("num_round", "100000"), "");
  EXPECT_EQ(error_of("validation_fraction", "0"), "");
}

TEST(Params, BadValuesNameTheKey) {
  std::string e = error_of("max_depth", "2.5");
  EXPECT_NE(e.find("\"max_depth\""), std::string::npos) << e;
  EXPECT_NE(e.find("integer"), std::string::npos) << e;
  e = error_of("eta", "abc", true);
  EXPECT_NE(e.find("\"eta\""), std::string::npos) << e;
  e = error_of("eta", "");
  EXPECT_NE(e.find("\"eta\""), std::string::npos) << e;
  e = error_of("eta", "nan");
  EXPECT_NE(e.find("\"eta\""), std::string::npos) << e;
  e = error_of("objective", "rank:nosuch", true);
  EXPECT_NE(e.find("\"objective\""), std::string::npos) << e;
  e = error_of("eval_metric", "f1", true);
  EXPECT_NE(e.find("\"eval_metric\""), std::string::npos) << e;
  e = error_of("device", "tpu", true);
  EXPECT_NE(e.find("\"device\""), std::string::npos) << e;
}

TEST(Params, CanonicalRecord) {
  TrainParams p = parse({{"learning_rate", "0.1"}, {"n_estimators", "50"}});
  auto kv = params_to_kv(p);
  auto get = [&](const std::string& k) {
    for (auto& e : kv)
      if (e.first == k) return e.second;
    return std::string("<absent>");
  };
  EXPECT_EQ(std::stod(get("eta")), 0.1);  // round-trips exactly
  EXPECT_EQ(get("num_round"), "50");
  EXPECT_EQ(get("max_depth"), "6");
  EXPECT_EQ(get("objective"), "reg:squarederror");
  EXPECT_EQ(get("nthread"), "<absent>");  // thread count does not define a model
}
