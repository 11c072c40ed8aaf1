// num_parallel_tree (XGBoost's boosted random forests): per round and
// output group num_parallel_tree trees grown on the same gradients, each
// with its own row/column sample, leaves scaled by eta / num_parallel_tree;
// rounds (not trees) counted by early stopping, continued training and
// prediction limits; the model format and XGBoost JSON keep it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gbm/continue_training.h"
#include "model/model.h"
#include "model/format.h"
#include "test_util.h"
#include "model/xgb_json.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

TrainHooks cpu_hooks() {
  TrainHooks h;
  h.default_device = "cpu";
  return h;
}

bool same_tree(const Tree& a, const Tree& b) {
  return a.feature == b.feature && a.split_bin == b.split_bin && a.value == b.value &&
         a.left == b.left;
}

double rmse_of(const std::vector<double>& pred, const std::vector<float>& y) {
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) s += (pred[i] - y[i]) * (pred[i] - y[i]);
  return std::sqrt(s / (double)y.size());
}

TrainParams forest(int npt, int rounds = 5) {
  TrainParams p = gbdt_test::params_for(Task::kRegression, rounds);
  p.num_parallel_tree = npt;
  p.eta = 1.0;
  p.subsample = 0.7;
  p.colsample_bynode = 0.5;
  return p;
}

}  // namespace

// One round of P trees on the same gradients: P trees per round, each its
// own sample (the trees differ), rounds counted as rounds.
TEST(ParallelTrees, RoundsHoldNumParallelTreeTreesWithOwnSamples) {
  Data D = gbdt_test::make_data(2000, 6, Task::kRegression, 0.05, 3);
  Model m = gbdt_test::train(D, forest(4));
  EXPECT_EQ(m.num_parallel_tree, 4);
  EXPECT_EQ(m.trees.size(), 20u);
  EXPECT_EQ(m.num_rounds(), 5);
  for (int32_t g : m.tree_group) EXPECT_EQ(g, 0);
  for (int j = 1; j < 4; ++j) EXPECT_FALSE(same_tree(m.trees[0], m.trees[(size_t)j])) << j;
  bool recorded = false;
  for (const auto& kv : m.params)
    if (kv.first == "num_parallel_tree") recorded = kv.second == "4";
  EXPECT_TRUE(recorded);
  // The training margins (the report's metric) are the predictor's sums.
  EXPECT_NEAR(m.report.train_metric[0], rmse_of(gbdt_test::predict_all(m, D), D.y), 1e-6);
}

// Without sampling the P trees of a round are the same tree with its
// leaves scaled by eta / P (XGBoost's rule), so the round adds what one
// tree of eta would.
TEST(ParallelTrees, LeavesScaledByEtaOverNumParallelTree) {
  Data D = gbdt_test::make_data(1500, 4, Task::kRegression, 0.0, 4);
  TrainParams p1 = gbdt_test::params_for(Task::kRegression, 1);
  p1.eta = 0.8;
  TrainParams p2 = p1;
  p2.num_parallel_tree = 2;
  Model one = gbdt_test::train(D, p1), two = gbdt_test::train(D, p2);
  ASSERT_EQ(two.trees.size(), 2u);
  ASSERT_TRUE(same_tree(two.trees[0], two.trees[1]));
  const Tree& a = one.trees[0];
  const Tree& b = two.trees[0];
  ASSERT_EQ(a.feature, b.feature);
  for (int32_t n = 0; n < a.num_nodes(); ++n)
    if (a.is_leaf(n)) {
      EXPECT_FLOAT_EQ(b.value[n] * 2.0f, a.value[n]) << n;
    }
}

// Multiclass: num_class * P trees per round, group-major as XGBoost stores
// them (tree_info 0,0,1,1,...), and predictions from them.
TEST(ParallelTrees, MulticlassGroupMajor) {
  Data D = gbdt_test::make_data(2000, 5, Task::kMulticlass, 0.0, 5);
  TrainParams p = gbdt_test::params_for(Task::kMulticlass, 3);
  p.num_parallel_tree = 2;
  p.subsample = 0.8;
  Model m = gbdt_test::train(D, p);
  const int K = m.num_output_group;
  ASSERT_EQ(K, 4);
  ASSERT_EQ(m.trees.size(), (size_t)3 * K * 2);
  EXPECT_EQ(m.num_rounds(), 3);
  for (size_t t = 0; t < m.trees.size(); ++t)
    EXPECT_EQ(m.tree_group[t], (int)((t % (size_t)(2 * K)) / 2)) << t;
}

// Prediction limited to rounds counts rounds of P trees.
TEST(ParallelTrees, RoundLimitCountsRounds) {
  Data D = gbdt_test::make_data(800, 4, Task::kRegression, 0.0, 6);
  Model m = gbdt_test::train(D, forest(3, 4));
  std::vector<float> x = D.row(7);
  double got = 0;
  predict_margin_row(m, x.data(), &got, 2);
  float want = (float)m.base_margin[0];
  for (size_t t = 0; t < 6; ++t) want += m.trees[t].value[m.trees[t].leaf_of(x.data())];
  EXPECT_EQ(got, (double)want);
}

// The model format keeps num_parallel_tree (a version 2 section); a model
// of one tree per round is written as before.
TEST(ParallelTrees, ModelFormatRoundTrip) {
  Data D = gbdt_test::make_data(800, 4, Task::kRegression, 0.0, 7);
  Model m = gbdt_test::train(D, forest(3, 2));
  std::vector<uint8_t> b = serialize_model(m);
  Model back = deserialize_model(b.data(), b.size());
  EXPECT_EQ(back.num_parallel_tree, 3);
  EXPECT_EQ(back.num_rounds(), 2);
  EXPECT_EQ(serialize_model(back), b);
  Model plain = gbdt_test::train(D, gbdt_test::params_for(Task::kRegression, 2));
  plain.training_dist = TrainingDistribution();  // its own section (format version 4)
  std::vector<uint8_t> pb = serialize_model(plain);
  uint32_t version = 0;
  std::memcpy(&version, pb.data() + 8, 4);
  EXPECT_EQ(version, 1u);
  // A forest's tree count must be whole rounds.
  Model broken = m;
  broken.trees.pop_back();
  broken.tree_group.pop_back();
  EXPECT_THROW(validate_model(broken), CorruptModel);
}

// XGBoost JSON: num_parallel_tree, iteration_indptr by rounds; import keeps it.
TEST(ParallelTrees, XgboostJsonRoundTrip) {
  Data D = gbdt_test::make_data(800, 4, Task::kRegression, 0.0, 8);
  Model m = gbdt_test::train(D, forest(3, 2));
  const std::string js = export_xgboost_json(m);
  EXPECT_NE(js.find("\"num_parallel_tree\":\"3\""), std::string::npos);
  EXPECT_NE(js.find("\"iteration_indptr\":[0,3,6]"), std::string::npos);
  Model back = import_xgboost_json(js);
  EXPECT_EQ(back.num_parallel_tree, 3);
  EXPECT_EQ(back.num_rounds(), 2);
  std::vector<double> a = gbdt_test::predict_all(m, D), b = gbdt_test::predict_all(back, D);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6) << i;
}

// Continued training: 10 + 10 rounds of a forest == 20 at once.
TEST(ParallelTrees, ContinueTenPlusTenEqualsTwenty) {
  Data D = gbdt_test::make_data(2000, 5, Task::kRegression, 0.1, 9);
  TrainParams p20 = forest(2, 20), p10 = forest(2, 10);
  p20.eta = p10.eta = 0.5;
  Model once = gbdt_test::train(D, p20);
  Model first = gbdt_test::train(D, p10);
  Model cont = continue_training(D.input(), first, p10, cpu_hooks());
  EXPECT_EQ(cont.num_rounds(), 20);
  EXPECT_EQ(cont.num_parallel_tree, 2);
  ASSERT_EQ(cont.trees.size(), once.trees.size());
  for (size_t t = 0; t < once.trees.size(); ++t) EXPECT_TRUE(same_tree(cont.trees[t], once.trees[t])) << t;
  // A different num_parallel_tree than the init model's is refused by name.
  TrainParams p3 = p10;
  p3.num_parallel_tree = 3;
  try {
    continue_training(D.input(), first, p3, cpu_hooks());
    ADD_FAILURE() << "num_parallel_tree 3 on a model of 2 accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("\"num_parallel_tree\" = 3 differs"), std::string::npos)
        << e.what();
  }
}

// Early stopping counts rounds: the kept trees are whole rounds.
TEST(ParallelTrees, EarlyStoppingKeepsWholeRounds) {
  Data D = gbdt_test::make_data(2000, 5, Task::kRegression, 0.0, 10);
  TrainParams p = forest(3, 200);
  p.eta = 0.3;
  p.validation_fraction = 0.25;
  p.early_stopping_rounds = 3;
  Model m = gbdt_test::train(D, p);
  ASSERT_GE(m.report.best_iteration, 0);
  EXPECT_LT(m.report.best_iteration, 199);
  EXPECT_EQ(m.trees.size(), (size_t)(m.report.best_iteration + 1) * 3);
}

// Adaptive-leaf objectives refit each parallel tree on the round's residuals.
TEST(ParallelTrees, QuantileObjectiveRefitsEveryTree) {
  Data D = gbdt_test::make_data(1500, 4, Task::kRegression, 0.0, 11);
  TrainParams p = forest(2, 6);
  p.objective = Objective::kQuantile;
  p.quantile_alpha = 0.8;
  Model m = gbdt_test::train(D, p);
  ASSERT_EQ(m.trees.size(), 12u);
  // The share of labels under the prediction approaches alpha.
  std::vector<double> pr = gbdt_test::predict_all(m, D);
  double below = 0;
  for (size_t i = 0; i < D.n; ++i) below += D.y[i] <= pr[i];
  EXPECT_NEAR(below / (double)D.n, 0.8, 0.1);
}
