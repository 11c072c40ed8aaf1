// Training at engine level: learning sanity per objective, objective
// inference, label validation, determinism across thread counts, cancellation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "metric/metrics.h"
#include "model/model.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

std::string invalid_input_of(const Data& D, const TrainParams& p) {
  try {
    gbdt_test::train(D, p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

std::vector<uint8_t> bytes_without_timings(Model m) {
  m.report.seconds_load = m.report.seconds_bin = m.report.seconds_train = 0;
  return serialize_model(m);
}

}  // namespace

TEST(Training, BinaryLearnsThreshold) {
  // y = (x0 > 0): AUC on fresh data must be ~1.
  Data D = gbdt_test::make_data(5000, 3, Task::kRegression, 0.0, 11);
  for (size_t r = 0; r < D.n; ++r) D.y[r] = D.cols[0][r] > 0 ? 1.0f : 0.0f;
  TrainParams p = gbdt_test::params_for(Task::kBinary, 20, 2);
  Model m = gbdt_test::train(D, p);
  EXPECT_EQ(m.objective, Objective::kLogistic);
  EXPECT_EQ(m.num_rounds(), 20);
  Data T = gbdt_test::make_data(2000, 3, Task::kRegression, 0.0, 12);
  for (size_t r = 0; r < T.n; ++r) T.y[r] = T.cols[0][r] > 0 ? 1.0f : 0.0f;
  std::vector<double> pred = gbdt_test::predict_all(m, T);
  for (double v : pred) {
    ASSERT_GE(v, 0.0);
    ASSERT_LE(v, 1.0);
  }
  double auc = compute_metric("auc", Objective::kLogistic, 1, pred.data(), T.y.data(), T.n);
  EXPECT_GT(auc, 0.995);
  double err = compute_metric("error", Objective::kLogistic, 1, pred.data(), T.y.data(), T.n);
  EXPECT_LT(err, 0.02);
}

TEST(Training, RegressionBeatsTheMean) {
  Data D = gbdt_test::make_data(8000, 6, Task::kRegression, 0.02, 21);
  Model m = gbdt_test::train(D, gbdt_test::params_for(Task::kRegression, 50, 2));
  Data T = gbdt_test::make_data(3000, 6, Task::kRegression, 0.02, 22);
  std::vector<double> pred = gbdt_test::predict_all(m, T);
  double mean = std::accumulate(T.y.begin(), T.y.end(), 0.0) / (double)T.n;
  std::vector<double> flat(T.n, mean);
  double rmse = compute_metric("rmse", Objective::kSquaredError, 1, pred.data(), T.y.data(), T.n);
  double base = compute_metric("rmse", Objective::kSquaredError, 1, flat.data(), T.y.data(), T.n);
  EXPECT_LT(rmse, 0.4 * base) << "rmse " << rmse << " vs predicting the mean " << base;
  // base_score estimated like XGBoost: the mean label of the training rows.
  double train_mean = std::accumulate(D.y.begin(), D.y.end(), 0.0) / (double)D.n;
  EXPECT_NEAR(m.base_score, train_mean, 1e-6);
}

TEST(Training, MulticlassOneTreePerClassPerRound) {
  Data D = gbdt_test::make_data(4000, 5, Task::kMulticlass, 0.05, 31);
  TrainParams p = gbdt_test::params_for(Task::kMulticlass, 15, 2);
  Model m = gbdt_test::train(D, p);
  ASSERT_EQ(m.num_output_group, 4);
  EXPECT_EQ(m.trees.size(), 15u * 4u);
  ASSERT_EQ(m.tree_group.size(), m.trees.size());
  for (size_t i = 0; i < m.tree_group.size(); ++i) EXPECT_EQ(m.tree_group[i], (int)(i % 4));
  EXPECT_EQ(m.class_labels, (std::vector<double>{0, 1, 2, 3}));
  Data T = gbdt_test::make_data(2000, 5, Task::kMulticlass, 0.05, 32);
  std::vector<double> pred = gbdt_test::predict_all(m, T);
  for (size_t r = 0; r < T.n; ++r) {
    double s = 0;
    for (int k = 0; k < 4; ++k) s += pred[r * 4 + k];
    ASSERT_NEAR(s, 1.0, 1e-12);
    // The scalar answer is the label of the most probable class.
    std::vector<float> x = T.row(r);
    int best = 0;
    for (int k = 1; k < 4; ++k)
      if (pred[r * 4 + k] > pred[r * 4 + best]) best = k;
    ASSERT_EQ(predict_value_row(m, x.data()), (double)best);
  }
  double merr = compute_metric("merror", Objective::kSoftprob, 4, pred.data(), T.y.data(), T.n);
  EXPECT_LT(merr, 0.35);
}

TEST(Training, PoissonPredictsPositive) {
  Data D = gbdt_test::make_data(4000, 4, Task::kCount, 0.0, 41);
  Model m = gbdt_test::train(D, gbdt_test::params_for(Task::kCount, 30, 2));
  EXPECT_EQ(m.objective, Objective::kPoisson);
  std::vector<double> pred = gbdt_test::predict_all(m, D);
  for (double v : pred) ASSERT_GT(v, 0.0);
  double mean = std::accumulate(D.y.begin(), D.y.end(), 0.0) / (double)D.n;
  EXPECT_NEAR(m.base_score, mean, 1e-6 * std::max(1.0, mean));
}

TEST(Training, MissingValuesLearnDefaultDirection) {
  // Label 1 exactly when x0 is missing or x0 > 0.5.
  Data D = gbdt_test::make_data(6000, 2, Task::kRegression, 0.0, 51);
  for (size_t r = 0; r < D.n; ++r) {
    if (r % 4 == 0) D.cols[0][r] = NAN;
    D.y[r] = (std::isnan(D.cols[0][r]) || D.cols[0][r] > 0.5f) ? 1.0f : 0.0f;
  }
  Model m = gbdt_test::train(D, gbdt_test::params_for(Task::kBinary, 20, 1));
  float xm[2] = {NAN, 0.0f}, xlo[2] = {-0.5f, 0.0f}, xhi[2] = {0.9f, 0.0f};
  EXPECT_GT(predict_value_row(m, xm), 0.9);
  EXPECT_LT(predict_value_row(m, xlo), 0.1);
  EXPECT_GT(predict_value_row(m, xhi), 0.9);
}

TEST(Training, ObjectiveInferredFromLabels) {
  Data D = gbdt_test::make_data(500, 3, Task::kBinary, 0.0, 61);
  TrainParams p;
  p.num_round = 3;
  p.nthread = 1;
  EXPECT_EQ(gbdt_test::train(D, p).objective, Objective::kLogistic);  // labels {0,1}
  Data R = gbdt_test::make_data(500, 3, Task::kRegression, 0.0, 62);
  EXPECT_EQ(gbdt_test::train(R, p).objective, Objective::kSquaredError);
  Data C = gbdt_test::make_data(500, 3, Task::kMulticlass, 0.0, 63);  // labels 0..3
  EXPECT_EQ(gbdt_test::train(C, p).objective, Objective::kSquaredError);
}

TEST(Training, LabelsAreValidated) {
  Data D = gbdt_test::make_data(300, 3, Task::kBinary, 0.0, 71);
  D.y[17] = 2.0f;
  std::string e = invalid_input_of(D, gbdt_test::params_for(Task::kBinary, 2));
  EXPECT_NE(e.find("\"label\""), std::string::npos) << e;
  EXPECT_NE(e.find("binary:logistic"), std::string::npos) << e;

  Data M = gbdt_test::make_data(300, 3, Task::kMulticlass, 0.0, 72);
  M.y[3] = 1.5f;
  e = invalid_input_of(M, gbdt_test::params_for(Task::kMulticlass, 2));
  EXPECT_NE(e.find("\"label\""), std::string::npos) << e;
  M.y[3] = -1.0f;
  e = invalid_input_of(M, gbdt_test::params_for(Task::kMulticlass, 2));
  EXPECT_NE(e.find("\"label\""), std::string::npos) << e;

  Data P = gbdt_test::make_data(300, 3, Task::kCount, 0.0, 73);
  P.y[0] = -1.0f;
  e = invalid_input_of(P, gbdt_test::params_for(Task::kCount, 2));
  EXPECT_NE(e.find("\"label\""), std::string::npos) << e;

  Data R = gbdt_test::make_data(300, 3, Task::kRegression, 0.0, 74);
  R.y[5] = INFINITY;
  e = invalid_input_of(R, gbdt_test::params_for(Task::kRegression, 2));
  EXPECT_NE(e.find("\"label\""), std::string::npos) << e;

  Data E = gbdt_test::make_data(0, 3, Task::kRegression, 0.0, 75);
  E.y.clear();
  e = invalid_input_of(E, gbdt_test::params_for(Task::kRegression, 2));
  EXPECT_FALSE(e.empty()) << "no rows must be an error";
}

TEST(Training, DeterministicAcrossThreadCounts) {
  struct Case {
    Task task;
    double subsample, colsample;
  };
  const Case cases[] = {{Task::kBinary, 1.0, 1.0},
                        {Task::kRegression, 1.0, 1.0},
                        {Task::kMulticlass, 1.0, 1.0},
                        {Task::kCount, 1.0, 1.0},
                        {Task::kBinary, 0.8, 0.8}};
  for (const Case& c : cases) {
    Data D = gbdt_test::make_data(12000, 9, c.task, 0.03, 81);
    std::vector<uint8_t> ref, ref_nt;
    for (int nt : {1, 2, 7}) {
      TrainParams p = gbdt_test::params_for(c.task, 12, nt);
      p.subsample = c.subsample;
      p.colsample_bytree = c.colsample;
      p.seed = 99;
      Model m = gbdt_test::train(D, p);
      std::vector<uint8_t> b = serialize_model(m);
      std::vector<uint8_t> bt = bytes_without_timings(m);
      if (nt == 1) {
        ref = b;
        ref_nt = bt;
        continue;
      }
      // The trees, cuts and report must be identical...
      EXPECT_TRUE(bt == ref_nt) << "task " << (int)c.task << " subsample " << c.subsample
                                << ": model (timings zeroed) differs between nthread 1 and " << nt;
      // ...and so must the serialized bytes, as stored by gbdt_train.
      EXPECT_TRUE(b == ref) << "task " << (int)c.task << " subsample " << c.subsample
                            << ": serialized model bytes differ between nthread 1 and " << nt;
    }
  }
}

TEST(Training, SeedMattersWithSampling) {
  Data D = gbdt_test::make_data(3000, 6, Task::kBinary, 0.0, 91);
  TrainParams p = gbdt_test::params_for(Task::kBinary, 5, 1);
  p.subsample = 0.7;
  p.colsample_bytree = 0.5;
  p.seed = 1;
  Model a = gbdt_test::train(D, p);
  p.seed = 2;
  Model b = gbdt_test::train(D, p);
  EXPECT_NE(bytes_without_timings(a), bytes_without_timings(b));
}

TEST(Training, PredictBatchEqualsRowPrediction) {
  Data D = gbdt_test::make_data(3000, 5, Task::kBinary, 0.05, 101);
  Model m = gbdt_test::train(D, gbdt_test::params_for(Task::kBinary, 10, 2));
  std::vector<double> batch = gbdt_test::predict_all(m, D, 3);
  for (size_t r = 0; r < D.n; ++r) {
    std::vector<float> x = D.row(r);
    ASSERT_EQ(batch[r], predict_value_row(m, x.data())) << "row " << r;
  }
}

TEST(Training, CancelStopsTraining) {
  Data D = gbdt_test::make_data(5000, 5, Task::kRegression, 0.0, 111);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 100000, 2);
  int polls = 0;
  TrainHooks hooks;
  hooks.default_device = "cpu";
  hooks.cancel = [&polls]() { return ++polls > 20; };
  EXPECT_THROW(train_model(D.input(), p, hooks, "label"), Cancelled);
  EXPECT_GT(polls, 20);
  EXPECT_LT(polls, 1000);  // stopped soon after the first "true"
}

TEST(Training, EarlyStoppingKeepsBestRound) {
  Data D = gbdt_test::make_data(4000, 5, Task::kRegression, 0.0, 121);
  // Pure-noise labels: validation error stops improving quickly.
  for (size_t r = 0; r < D.n; ++r) D.y[r] = (float)gbdt_test::unif(777, r);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 500, 2);
  p.eta = 0.5;
  p.validation_fraction = 0.25;
  p.early_stopping_rounds = 5;
  Model m = gbdt_test::train(D, p);
  EXPECT_GT(m.report.rows_validation, 0u);
  EXPECT_EQ(m.report.rows_used + m.report.rows_validation, D.n);
  EXPECT_GE(m.report.best_iteration, 0);
  EXPECT_LT(m.report.validation_metric.size(), 500u);
  EXPECT_EQ(m.num_rounds(), m.report.best_iteration + 1);
  EXPECT_EQ(m.report.validation_metric.size(), (size_t)m.report.best_iteration + 1 + 5);
}

// gbdt.max_memory's engine side: every large allocation is charged to the
// budget; histograms that grow with the depth stop the training with
// MemoryLimitExceeded naming max_depth; within the limit the model is the
// one trained without a budget, and the peak is close to the estimate.
TEST(Training, MemoryBudgetBoundsHistogramsAndKeepsModels) {
  Data D = gbdt_test::make_data(20000, 30, Task::kRegression, 0.5, 131);
  TrainParams p;
  p.num_round = 2;
  p.max_depth = 14;
  p.min_child_weight = 0;
  p.nthread = 2;
  TrainHooks hooks;
  hooks.default_device = "cpu";
  const Model free_model = train_model(D.input(), p, hooks, "label");

  MemoryBudget roomy(1e12, "limit");
  hooks.budget = &roomy;
  const Model budget_model = train_model(D.input(), p, hooks, "label");
  EXPECT_EQ(bytes_without_timings(free_model), bytes_without_timings(budget_model));
  EXPECT_EQ(roomy.used(), 0.0) << "everything charged is released at the end";
  TrainShape s;
  s.n_rows = D.n;
  s.n_features = 30;
  s.hist_bins = free_model.cuts.total_hist_bins();
  s.nthread = 2;
  s.max_depth = 14;
  const MemoryEstimate e = estimate_training_memory(s);
  EXPECT_GE(roomy.peak(), e.data + e.per_class + e.rows + e.histogram);
  // Deep trees need many histograms: more than a few of them at once.
  EXPECT_GT(roomy.peak(), e.minimum() + 8 * e.histogram);

  // A limit between the minimum and the peak: stopped while growing.
  MemoryBudget tight(e.minimum() + 4 * e.histogram, "gbdt.max_memory");
  hooks.budget = &tight;
  try {
    train_model(D.input(), p, hooks, "label");
    ADD_FAILURE() << "no MemoryLimitExceeded";
  } catch (const MemoryLimitExceeded& ex) {
    const std::string m = ex.what();
    EXPECT_NE(m.find("more memory than gbdt.max_memory"), std::string::npos) << m;
    EXPECT_NE(m.find("histogram"), std::string::npos) << m;
    EXPECT_NE(m.find("lower max_depth (now 14)"), std::string::npos) << m;
  }
  EXPECT_LE(tight.peak(), tight.limit());

  // Rows x classes beyond the limit: refused before the buffers exist.
  Data C = gbdt_test::make_data(5000, 4, Task::kMulticlass, 0.0, 132);
  TrainParams pc;
  pc.objective = Objective::kSoftprob;
  pc.objective_set = true;
  pc.num_class = 500;
  MemoryBudget small(32.0 * 5000 * 500 / 2, "gbdt.max_memory");
  hooks.budget = &small;
  EXPECT_THROW(train_model(C.input(), pc, hooks, "label"), MemoryLimitExceeded);
  EXPECT_EQ(small.peak(), 0.0);
}

// multi:softprob labels beyond the class limit are parameter errors, not
// allocations of labels x rows.
TEST(Training, HugeClassLabelsAreRejected) {
  Data M = gbdt_test::make_data(300, 3, Task::kMulticlass, 0.0, 133);
  M.y[7] = 1e6f;
  TrainParams p;
  p.objective = Objective::kSoftprob;
  p.objective_set = true;
  const std::string m = invalid_input_of(M, p);
  EXPECT_NE(m.find("has class 1000000: multi:softprob supports at most 10000 classes"),
            std::string::npos) << m;
}
