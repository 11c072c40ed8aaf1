// several quantiles in one reg:quantileerror model (quantile_alpha list):
// one output per alpha, each output exactly the model of that one alpha
// (its gradients, its refit leaves, its label quantile as intercept); the
// quantile metric over all outputs (XGBoost's); model format, XGBoost JSON
// (num_target, vector base_score, alpha list), continued training, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gbm/continue_training.h"
#include "metric/metrics.h"
#include "model/model.h"
#include "gbm/multi_quantile.h"
#include "test_util.h"
#include "model/xgb_json.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

const std::vector<double> kAlphas = {0.1, 0.5, 0.9};

TrainParams quantiles(int rounds = 8) {
  TrainParams p = gbdt_test::params_for(Task::kRegression, rounds);
  p.objective = Objective::kQuantile;
  p.quantile_alphas = kAlphas;
  p.quantile_alpha = kAlphas[0];
  return p;
}

std::string invalid_of(const Data& D, const TrainParams& p) {
  try {
    gbdt_test::train(D, p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Output k is the model of alpha k alone, bit for bit.
TEST(MultiQuantile, EachOutputIsItsAlphasModel) {
  Data D = gbdt_test::make_data(2000, 5, Task::kRegression, 0.05, 21);
  Model m = gbdt_test::train(D, quantiles());
  ASSERT_EQ(m.num_output_group, 3);
  ASSERT_EQ(m.trees.size(), 24u);
  EXPECT_EQ(m.num_rounds(), 8);
  for (size_t t = 0; t < m.trees.size(); ++t) EXPECT_EQ(m.tree_group[t], (int)(t % 3));
  std::vector<double> pm = gbdt_test::predict_all(m, D);
  double single_metric_sum = 0;
  for (size_t k = 0; k < 3; ++k) {
    TrainParams p1 = gbdt_test::params_for(Task::kRegression, 8);
    p1.objective = Objective::kQuantile;
    p1.quantile_alpha = kAlphas[k];
    Model one = gbdt_test::train(D, p1);
    EXPECT_EQ(m.base_margin[k], one.base_margin[0]) << k;
    std::vector<double> p = gbdt_test::predict_all(one, D);
    for (size_t i = 0; i < D.n; ++i) ASSERT_EQ(pm[i * 3 + k], p[i]) << k << " " << i;
    single_metric_sum += one.report.train_metric[0];
    // The share of labels at or below the output approaches its alpha.
    double below = 0;
    for (size_t i = 0; i < D.n; ++i) below += D.y[i] <= pm[i * 3 + k];
    EXPECT_NEAR(below / (double)D.n, kAlphas[k], 0.08) << k;
  }
  // The quantile metric: mean pinball loss over rows and alphas.
  EXPECT_EQ(m.report.eval_metric, "quantile");
  EXPECT_NEAR(m.report.train_metric[0], single_metric_sum / 3, 1e-9);
  EXPECT_NEAR(multi_quantile_metric(pm.data(), D.y.data(), D.n, nullptr, kAlphas),
              m.report.train_metric[0], 1e-6);
  // Params record the list; the model's alphas come back from it.
  EXPECT_EQ(model_quantile_alphas(m), kAlphas);
  // The scalar answer refuses, naming the array function.
  std::vector<float> x = D.row(0);
  try {
    predict_value_row(m, x.data());
    ADD_FAILURE() << "scalar prediction of 3 quantiles accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("gbdt_predict_quantiles"), std::string::npos) << e.what();
  }
}

TEST(MultiQuantile, WeightedMetricIsXgboosts) {
  // sum_i w_i sum_k pinball_k / (sum w * K), by hand on 3 rows.
  const double pred[] = {0, 1, 2, 1, 1, 1, 3, 2, 1};
  const float y[] = {1, 0, 2};
  const float w[] = {1, 2, 0.5f};
  double s = 0, sw = 0;
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 3; ++k) {
      const double d = y[i] - pred[i * 3 + k];
      s += w[i] * (d >= 0 ? kAlphas[k] * d : (kAlphas[k] - 1) * d);
    }
    sw += w[i];
  }
  EXPECT_NEAR(multi_quantile_metric(pred, y, 3, w, kAlphas), s / (sw * 3), 1e-15);
  MetricParams mp;
  mp.quantile_alphas = &kAlphas;
  EXPECT_NEAR(compute_metric("quantile", Objective::kQuantile, 3, pred, y, 3, w, mp), s / (sw * 3), 1e-15);
}

TEST(MultiQuantile, ModelFormatAndXgboostJson) {
  Data D = gbdt_test::make_data(1000, 4, Task::kRegression, 0.0, 22);
  Model m = gbdt_test::train(D, quantiles(4));
  std::vector<uint8_t> b = serialize_model(m);
  Model back = deserialize_model(b.data(), b.size());
  EXPECT_EQ(back.num_output_group, 3);
  EXPECT_EQ(serialize_model(back), b);
  const std::string js = export_xgboost_json(m);
  EXPECT_NE(js.find("\"num_target\":\"3\""), std::string::npos);
  EXPECT_NE(js.find("\"quantile_alpha\":\"[0.1,0.5,0.9]\""), std::string::npos) << js.substr(js.size() - 300);
  EXPECT_NE(js.find("\"base_score\":\"["), std::string::npos);
  Model imp = import_xgboost_json(js);
  EXPECT_EQ(imp.num_output_group, 3);
  ASSERT_EQ(model_quantile_alphas(imp).size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(model_quantile_alphas(imp)[k], kAlphas[k], 1e-7);
  std::vector<double> a = gbdt_test::predict_all(m, D), c = gbdt_test::predict_all(imp, D);
  ASSERT_EQ(a.size(), c.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], c[i], 1e-6) << i;
}

TEST(MultiQuantile, ContinueTenPlusTenEqualsTwenty) {
  Data D = gbdt_test::make_data(1500, 4, Task::kRegression, 0.1, 23);
  TrainParams p20 = quantiles(20), p10 = quantiles(10);
  p20.subsample = p10.subsample = 0.8;
  Model once = gbdt_test::train(D, p20);
  Model first = gbdt_test::train(D, p10);
  TrainHooks h;
  h.default_device = "cpu";
  TrainParams pc = gbdt_test::params_for(Task::kRegression, 10);  // the list comes from init_model
  pc.objective = Objective::kQuantile;
  pc.subsample = 0.8;
  Model cont = continue_training(D.input(), first, pc, h);
  EXPECT_EQ(cont.num_rounds(), 20);
  EXPECT_EQ(cont.num_output_group, 3);
  std::vector<double> a = gbdt_test::predict_all(once, D), c = gbdt_test::predict_all(cont, D);
  ASSERT_EQ(a.size(), c.size());
  EXPECT_EQ(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(double)));
}

TEST(MultiQuantile, WithParallelTrees) {
  Data D = gbdt_test::make_data(1000, 4, Task::kRegression, 0.0, 24);
  TrainParams p = quantiles(3);
  p.num_parallel_tree = 2;
  p.subsample = 0.7;
  Model m = gbdt_test::train(D, p);
  EXPECT_EQ(m.trees.size(), 18u);
  EXPECT_EQ(m.num_rounds(), 3);
  std::vector<double> pm = gbdt_test::predict_all(m, D);
  EXPECT_NEAR(m.report.train_metric[0], multi_quantile_metric(pm.data(), D.y.data(), D.n, nullptr, kAlphas), 1e-6);
}

TEST(MultiQuantile, ErrorsNameTheParameter) {
  Data D = gbdt_test::make_data(300, 3, Task::kRegression, 0.0, 25);
  TrainParams p = quantiles(2);
  p.objective = Objective::kSquaredError;
  EXPECT_NE(invalid_of(D, p).find("\"quantile_alpha\" lists 3 quantiles: several quantiles need objective "
                                  "reg:quantileerror"), std::string::npos) << invalid_of(D, p);
  p = quantiles(2);
  p.eval_metric = "rmse";
  EXPECT_NE(invalid_of(D, p).find("\"eval_metric\" = \"rmse\" is not supported with 3 quantiles"),
            std::string::npos) << invalid_of(D, p);
  TrainParams q;
  try {
    apply_params({{"quantile_alpha", "[0.1, 1.5]", false}}, &q);
    ADD_FAILURE() << "alpha 1.5 accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("\"quantile_alpha\" = 1.5 is out of range: must be in (0, 1)"),
              std::string::npos) << e.what();
  }
  EXPECT_THROW(apply_params({{"quantile_alpha", "[]", false}}, &q), InvalidInput);
  EXPECT_THROW(apply_params({{"quantile_alpha", "[0.1, \"x\"]", false}}, &q), InvalidInput);
}
