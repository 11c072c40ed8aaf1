// Continued training (init_model, XGBoost's xgb_model) and the user's own
// validation rows at engine level: 10 rounds then 10 more give the bytes of
// 20 rounds at once (same rows, hence the same cuts), for every objective,
// with row and column sampling and with a validation set; and the checks
// that refuse an incompatible init model.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gbm/continue_training.h"
#include "model/model.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

TrainHooks cpu_hooks() {
  TrainHooks h;
  h.default_device = "cpu";
  return h;
}

// The model's bytes without what legitimately differs (its params record
// num_round and init_model_rounds; the report its timings).
std::vector<uint8_t> tree_bytes(Model m) {
  m.params.clear();
  m.report = TrainingReport();
  return serialize_model(m);
}

std::string invalid_of(const Data& D, const Model& init, TrainParams p) {
  try {
    continue_training(D.input(), init, p, cpu_hooks());
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

void expect_same_as_once(Task task, TrainParams p, bool with_validation) {
  Data D = gbdt_test::make_data(3000, 5, task, 0.1, 5);
  Data V = gbdt_test::make_data(700, 5, task, 0.1, 6);
  TrainParams p20 = p, p10 = p;
  p20.num_round = 20;
  p10.num_round = 10;
  Model once, first, cont;
  if (with_validation) {
    // The validation relation's path: rows binned with the training cuts.
    BinnedInput b = bin_input(D.input(), p.max_bin, 0, 1);
    ValidationRows v = make_validation_rows(V.input().features, V.y.data(), b.cuts, 1, false);
    TrainExtras ex;
    ex.validation = &v;
    once = train_binned(std::move(b), p20, cpu_hooks(), "label", ex);
    BinnedInput b1 = bin_input(D.input(), p.max_bin, 0, 1);
    ValidationRows v1 = make_validation_rows(V.input().features, V.y.data(), b1.cuts, 1, false);
    ex.validation = &v1;
    first = train_binned(std::move(b1), p10, cpu_hooks(), "label", ex);
    TrainInput vin = V.input();
    cont = continue_training(D.input(), first, p10, cpu_hooks(), "label", &vin);
    // One validation value per round of the whole model, equal to the
    // single training's (the init model's rounds scored on the rows).
    // (round-major, one value per metric of an eval_metric list)
    const size_t M = p.eval_metric.empty() ? 1 : split_metrics(p.eval_metric).size();
    ASSERT_EQ(cont.report.validation_metric.size(), 20u * M);
    ASSERT_EQ(once.report.validation_metric.size(), 20u * M);
    for (size_t r = 0; r < 20u * M; ++r)
      EXPECT_EQ(cont.report.validation_metric[r], once.report.validation_metric[r]) << r;
    EXPECT_EQ(cont.report.rows_validation, 700u);
  } else {
    once = gbdt_test::train(D, p20);
    first = gbdt_test::train(D, p10);
    cont = continue_training(D.input(), first, p10, cpu_hooks());
  }
  EXPECT_EQ(cont.num_rounds(), 20);
  EXPECT_EQ(tree_bytes(cont), tree_bytes(once));
  std::vector<double> a = gbdt_test::predict_all(once, D), b = gbdt_test::predict_all(cont, D);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double)));
  EXPECT_EQ(cont.report.train_metric, once.report.train_metric);
  bool recorded = false;
  for (const auto& kv : cont.params)
    if (kv.first == "init_model_rounds") recorded = kv.second == "10";
  EXPECT_TRUE(recorded);
}

}  // namespace

TEST(Continue, TenPlusTenEqualsTwentyRegression) {
  expect_same_as_once(Task::kRegression, gbdt_test::params_for(Task::kRegression), false);
}

TEST(Continue, TenPlusTenEqualsTwentyBinarySampled) {
  TrainParams p = gbdt_test::params_for(Task::kBinary);
  p.subsample = 0.7;
  p.colsample_bytree = 0.6;  // per-round seeds: rounds numbered after the init model's
  p.seed = 42;
  expect_same_as_once(Task::kBinary, p, false);
}

TEST(Continue, TenPlusTenEqualsTwentyMulticlass) {
  expect_same_as_once(Task::kMulticlass, gbdt_test::params_for(Task::kMulticlass), false);
}

TEST(Continue, TenPlusTenEqualsTwentyPoissonThreads) {
  TrainParams p = gbdt_test::params_for(Task::kCount, 10, 2);
  expect_same_as_once(Task::kCount, p, false);
}

TEST(Continue, TenPlusTenEqualsTwentyWithValidationRows) {
  TrainParams p = gbdt_test::params_for(Task::kBinary);
  p.eval_metric = "auc";
  expect_same_as_once(Task::kBinary, p, true);
}

TEST(Continue, EarlyStoppingCountsWholeModelAndKeepsInitRounds) {
  Data D = gbdt_test::make_data(2000, 4, Task::kRegression, 0.0, 8);
  Data V = gbdt_test::make_data(500, 4, Task::kRegression, 0.0, 9);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 5);
  Model first = gbdt_test::train(D, p);
  p.num_round = 200;
  p.eta = 1.0;   // overfits fast: stops early
  p.max_depth = 8;
  p.early_stopping_rounds = 3;
  TrainInput vin = V.input();
  Model m = continue_training(D.input(), first, p, cpu_hooks(), "label", &vin);
  ASSERT_GE(m.report.best_iteration, 5);
  EXPECT_EQ(m.num_rounds(), m.report.best_iteration + 1);
  EXPECT_LT(m.num_rounds(), 205);
  // The init model's trees come first, unchanged.
  for (size_t t = 0; t < first.trees.size(); ++t)
    EXPECT_EQ(m.trees[t].value, first.trees[t].value);
  // The history covers every round run, the kept one the best after the init's.
  const auto& h = m.report.validation_metric;
  for (size_t r = 5; r < h.size(); ++r) EXPECT_LE(h[m.report.best_iteration], h[r]);
}

TEST(Continue, ValidationRowsReplaceFraction) {
  Data D = gbdt_test::make_data(1000, 3, Task::kRegression, 0.0, 3);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 5);
  BinnedInput b = bin_input(D.input(), 256, 0, 1);
  ValidationRows v = make_validation_rows(D.input().features, D.y.data(), b.cuts, 1, false);
  TrainExtras ex;
  ex.validation = &v;
  Model m = train_binned(std::move(b), p, cpu_hooks(), "label", ex);
  EXPECT_EQ(m.report.rows_used, 1000u);        // every row trains
  EXPECT_EQ(m.report.rows_validation, 1000u);  // the given rows validate
  EXPECT_EQ(m.report.validation_metric.size(), 5u);
  // Both ways of choosing validation rows: an error naming both.
  p.validation_fraction = 0.2;
  p.validation_relation = "val";
  try {
    check_validation_params(p);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("validation_relation"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("validation_fraction"), std::string::npos);
  }
  // Labels that do not fit the objective are named.
  TrainParams pl = gbdt_test::params_for(Task::kBinary, 3);
  Data B = gbdt_test::make_data(500, 3, Task::kBinary, 0.0, 4);
  BinnedInput bb = bin_input(B.input(), 256, 0, 1);
  ValidationRows vb = make_validation_rows(D.input().features, D.y.data(), bb.cuts, 1, false);
  ex.validation = &vb;
  try {
    train_binned(std::move(bb), pl, cpu_hooks(), "label", ex);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("validation_relation"), std::string::npos) << e.what();
  }
}

TEST(Continue, RefusesIncompatibleInitModel) {
  Data D = gbdt_test::make_data(800, 4, Task::kRegression, 0.0, 2);
  Model init = gbdt_test::train(D, gbdt_test::params_for(Task::kRegression, 3));
  // A feature of the init model missing from the rows: named.
  Data D3 = D;
  D3.names[2] = "other";
  EXPECT_NE(invalid_of(D3, init, gbdt_test::params_for(Task::kRegression, 2)).find("\"f2\""),
            std::string::npos);
  // Another objective: both named.
  std::string e = invalid_of(D, init, gbdt_test::params_for(Task::kCount, 2));
  EXPECT_NE(e.find("count:poisson"), std::string::npos) << e;
  EXPECT_NE(e.find("reg:squarederror"), std::string::npos) << e;
  // base_score cannot change.
  TrainParams pb = gbdt_test::params_for(Task::kRegression, 2);
  pb.base_score = 1;
  pb.base_score_set = true;
  EXPECT_NE(invalid_of(D, init, pb).find("base_score"), std::string::npos);
  // A model without cuts (an imported one).
  Model nocuts = init;
  nocuts.cuts = Cuts();
  EXPECT_NE(invalid_of(D, nocuts, gbdt_test::params_for(Task::kRegression, 2)).find("init_model"),
            std::string::npos);
  // Objective not given: the init model's.
  TrainParams pn = gbdt_test::params_for(Task::kRegression, 2);
  pn.objective_set = false;
  Model m = continue_training(D.input(), init, pn, cpu_hooks());
  EXPECT_EQ(m.objective, Objective::kSquaredError);
  EXPECT_EQ(m.num_rounds(), 5);
}

// The other objectives continue too (the registry's objective, its parameters;
// reg:quantileerror's adaptive leaves are refit each round as in one run).
TEST(Continue, TenPlusTenEqualsTwentyQuantile) {
  TrainParams p = gbdt_test::params_for(Task::kRegression);
  p.objective = Objective::kQuantile;
  p.quantile_alpha = 0.3;
  expect_same_as_once(Task::kRegression, p, false);
}

TEST(Continue, TenPlusTenEqualsTwentyQuantileValidationMetricList) {
  TrainParams p = gbdt_test::params_for(Task::kRegression);
  p.objective = Objective::kQuantile;
  p.quantile_alpha = 0.7;
  p.eval_metric = "quantile,mae";  // eval_metric lists: the init's rounds per metric
  expect_same_as_once(Task::kRegression, p, true);
}

TEST(Continue, TenPlusTenEqualsTwentySoftmax) {
  TrainParams p = gbdt_test::params_for(Task::kMulticlass);
  p.objective = Objective::kSoftmax;
  expect_same_as_once(Task::kMulticlass, p, false);
}

TEST(Continue, TenPlusTenEqualsTwentySoftmaxValidationMetricList) {
  TrainParams p = gbdt_test::params_for(Task::kMulticlass);
  p.objective = Objective::kSoftmax;
  p.eval_metric = "merror,mlogloss";
  expect_same_as_once(Task::kMulticlass, p, true);
}

// Row weights: a continued training uses the weights of its training
// rows (and weighted validation rows when given); 10 + 10 == 20.
TEST(Continue, TenPlusTenEqualsTwentyWeighted) {
  Data D = gbdt_test::make_data(3000, 5, Task::kRegression, 0.1, 11);
  Data V = gbdt_test::make_data(700, 5, Task::kRegression, 0.1, 12);
  std::vector<float> w(D.y.size()), vw(V.y.size());
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + (float)(i % 4);
  for (size_t i = 0; i < vw.size(); ++i) vw[i] = 1.0f + (float)(i % 3);
  TrainInput in = D.input(), vin = V.input();
  in.weights = w.data();
  vin.weights = vw.data();
  TrainParams p = gbdt_test::params_for(Task::kRegression);
  p.objective = Objective::kQuantile;
  p.eval_metric = "rmse,quantile";
  TrainParams p20 = p, p10 = p;
  p20.num_round = 20;
  p10.num_round = 10;
  BinnedInput b = bin_input(in, p.max_bin, 0, 1);
  ValidationRows v = make_validation_rows(vin.features, vin.labels, b.cuts, 1, false, vw.data());
  TrainExtras ex;
  ex.validation = &v;
  Model once = train_binned(std::move(b), p20, cpu_hooks(), "label", ex);
  BinnedInput b1 = bin_input(in, p.max_bin, 0, 1);
  ValidationRows v1 = make_validation_rows(vin.features, vin.labels, b1.cuts, 1, false, vw.data());
  ex.validation = &v1;
  Model first = train_binned(std::move(b1), p10, cpu_hooks(), "label", ex);
  Model cont = continue_training(in, first, p10, cpu_hooks(), "label", &vin);
  EXPECT_EQ(tree_bytes(cont), tree_bytes(once));
  EXPECT_EQ(cont.report.train_metric, once.report.train_metric);
  ASSERT_EQ(cont.report.validation_metric.size(), 40u);
  EXPECT_EQ(cont.report.validation_metric, once.report.validation_metric);
  // The weights matter: unweighted continuation differs.
  Model unweighted = continue_training(D.input(), first, p10, cpu_hooks());
  EXPECT_NE(tree_bytes(unweighted), tree_bytes(once));
}

// Continued training with validation_fraction: the init model's margins
// follow the rows that stay for training (they used to be one per row of the
// whole relation: "init margins do not match the training rows").
TEST(Continue, TenPlusTenEqualsTwentyWithValidationFraction) {
  for (Task task : {Task::kRegression, Task::kMulticlass}) {
    Data D = gbdt_test::make_data(3000, 5, task, 0.1, 7);
    TrainParams p = gbdt_test::params_for(task);
    p.validation_fraction = 0.25;
    p.seed = 11;
    TrainParams p20 = p, p10 = p;
    p20.num_round = 20;
    p10.num_round = 10;
    Model once = gbdt_test::train(D, p20);
    Model first = gbdt_test::train(D, p10);
    Model cont = continue_training(D.input(), first, p10, cpu_hooks());
    EXPECT_EQ(cont.num_rounds(), 20);
    EXPECT_EQ(tree_bytes(cont), tree_bytes(once));
    EXPECT_EQ(cont.report.rows_validation, once.report.rows_validation);
    EXPECT_GT(cont.report.rows_validation, 0u);
    EXPECT_EQ(cont.report.validation_metric, once.report.validation_metric);
  }
}
