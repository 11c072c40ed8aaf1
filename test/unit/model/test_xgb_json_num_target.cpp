// XGBoost JSON import: learner_model_param.num_target.  XGBoost (1.6 .. 3.x)
// writes "1" for single-output and multi-class models and the number of
// quantiles for reg:quantileerror (its parameter's lower bound is 1); a
// document without it (older XGBoost) is one target.  A value < 1 is an
// InvalidInput naming the field and the value; too many quantiles too.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/model.h"
#include "test_util.h"
#include "model/xgb_json.h"

using namespace gbdt;
using gbdt_test::Task;

namespace {

Model trained(Task task, bool quantiles = false) {
  gbdt_test::Data D = gbdt_test::make_data(300, 3, task, 0.1, 5);
  TrainParams p = gbdt_test::params_for(task, 3);
  p.max_depth = 2;
  if (quantiles) {
    p.objective = Objective::kQuantile;
    p.quantile_alphas = {0.2, 0.8};
    p.quantile_alpha = 0.2;
  }
  return gbdt_test::train(D, p);
}

// The document with its "num_target":"<old>" replaced by `repl` (the whole
// "key":"value" text; "" removes the member and the comma before it).
std::string with_num_target(const std::string& doc, const std::string& old, const std::string& repl) {
  const std::string key = ",\"num_target\":\"" + old + "\"";
  const size_t at = doc.find(key);
  EXPECT_NE(at, std::string::npos) << "no " << key << " in the export";
  if (at == std::string::npos) return doc;
  return doc.substr(0, at) + (repl.empty() ? "" : "," + repl) + doc.substr(at + key.size());
}

std::string import_error(const std::string& doc) {
  try {
    import_xgboost_json(doc);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(XgbJsonNumTarget, WhatXGBoostWritesLoads) {
  // Single output, multi-class (num_target 1 with num_class), two quantiles
  // (num_target 2), and no num_target at all.
  const std::string reg = export_xgboost_json(trained(Task::kRegression));
  const std::string multi = export_xgboost_json(trained(Task::kMulticlass));
  const std::string quant = export_xgboost_json(trained(Task::kRegression, true));
  EXPECT_EQ(import_error(reg), "");
  EXPECT_EQ(import_error(multi), "");
  EXPECT_EQ(import_xgboost_json(quant).num_output_group, 2);
  EXPECT_EQ(import_xgboost_json(with_num_target(reg, "1", "")).num_output_group, 1);
  EXPECT_EQ(import_xgboost_json(with_num_target(multi, "1", "")).num_output_group,
            import_xgboost_json(multi).num_output_group);
}

TEST(XgbJsonNumTarget, BelowOneIsRejectedNamingFieldAndValue) {
  const std::string reg = export_xgboost_json(trained(Task::kRegression));
  for (const char* v : {"0", "-1", "-9000000000"}) {
    const std::string err = import_error(with_num_target(reg, "1", std::string("\"num_target\":\"") + v + "\""));
    EXPECT_NE(err.find(std::string("learner_model_param.num_target = ") + v + " is out of range: must be >= 1"),
              std::string::npos)
        << v << ": " << err;
  }
  // Numbers as JSON numbers too.
  const std::string err = import_error(with_num_target(reg, "1", "\"num_target\":0"));
  EXPECT_NE(err.find("num_target = 0 is out of range"), std::string::npos) << err;
  // Multi-class and quantile models likewise.
  const std::string multi = export_xgboost_json(trained(Task::kMulticlass));
  EXPECT_NE(import_error(with_num_target(multi, "1", "\"num_target\":\"0\"")).find("num_target = 0"),
            std::string::npos);
  const std::string quant = export_xgboost_json(trained(Task::kRegression, true));
  EXPECT_NE(import_error(with_num_target(quant, "2", "\"num_target\":\"-2\"")).find("num_target = -2"),
            std::string::npos);
}

TEST(XgbJsonNumTarget, AbsurdValuesAreRejected) {
  const std::string reg = export_xgboost_json(trained(Task::kRegression));
  EXPECT_NE(import_error(with_num_target(reg, "1", "\"num_target\":\"1000000\"")).find("num_target"),
            std::string::npos);
  const std::string quant = export_xgboost_json(trained(Task::kRegression, true));
  EXPECT_NE(import_error(with_num_target(quant, "2", "\"num_target\":\"1000000\""))
                .find("num_target = 1000000 is out of range"),
            std::string::npos);
  // A quantile model whose num_target disagrees with its alphas.
  EXPECT_NE(import_error(with_num_target(quant, "2", "\"num_target\":\"3\"")), "");
  EXPECT_NE(import_error(with_num_target(reg, "1", "\"num_target\":\"1.5\"")).find("num_target is not an integer"),
            std::string::npos);
}
