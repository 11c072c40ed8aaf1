// The objectives: registry, gradients against the losses' derivatives,
// XGBoost's intercept rules, training sanity per objective, row weights and
// scale_pos_weight, several eval metrics, the XGBoost JSON round trip and
// the parameter table.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "metric/metrics.h"
#include "model/model.h"
#include "objective/objective.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "model/xgb_json.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

TrainParams params_of(Objective o, int rounds = 20) {
  TrainParams p;
  p.objective = o;
  p.objective_set = true;
  p.num_round = rounds;
  p.nthread = 1;
  return p;
}

std::string error_of(const Data& D, const TrainParams& p) {
  try {
    gbdt_test::train(D, p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

std::string param_error(const std::string& k, const std::string& v) {
  TrainParams p;
  try {
    apply_params({{k, v, false}}, &p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

// Positive labels with a log-linear mean.
Data positive_data(size_t n, uint64_t seed) {
  Data D = gbdt_test::make_data(n, 4, Task::kRegression, 0.0, seed);
  for (size_t r = 0; r < D.n; ++r)
    D.y[r] = (float)(std::exp(0.5 * D.cols[0][r]) * (0.5 + gbdt_test::unif(seed + 99, r)));
  return D;
}

}  // namespace

TEST(Objectives, RegistryIsCompleteAndNamesAreUnique) {
  std::set<std::string> names;
  ASSERT_EQ((int)all_objectives().size(), kNumObjectives);
  for (int c = 0; c < kNumObjectives; ++c) {
    const ObjectiveInfo& o = objective_info((Objective)c);
    EXPECT_EQ((int)o.code, c);
    EXPECT_TRUE(names.insert(o.name).second) << o.name;
    ASSERT_NE(o.transform, nullptr) << o.name;
    if (!o.multiclass) {
      EXPECT_NE(o.base_margin, nullptr) << o.name;
    }
    EXPECT_TRUE(is_known_metric(o.default_metric) ||
                std::string(o.default_metric) == "tweedie-nloglik")
        << o.name;
    Objective parsed;
    ASSERT_TRUE(parse_objective(o.name, &parsed));
    EXPECT_EQ(parsed, o.code);
  }
  Objective x;
  ASSERT_TRUE(parse_objective("multi:softmax", &x));
  EXPECT_EQ(x, Objective::kSoftmax);  // no longer an alias of softprob
  ASSERT_TRUE(parse_objective("reg:linear", &x));
  EXPECT_EQ(x, Objective::kSquaredError);
  EXPECT_FALSE(parse_objective("reg:nonsense", &x));
  EXPECT_THROW(objective_info((Objective)kNumObjectives), std::logic_error);
}

TEST(Objectives, DetLogMatchesStdLog) {
  for (double x : {1e-300, 1e-10, 0.1, 0.5, 0.7071, 0.99999, 1.0, 1.00001, 2.0, 3.14159, 1e10, 1e300})
    EXPECT_NEAR(det_log(x), std::log(x), 2e-16 * std::fabs(std::log(x)) + 1e-300) << x;
  for (double x : {-0.999, -0.5, -1e-12, 0.0, 1e-12, 1e-5, 0.5, 10.0})
    EXPECT_NEAR(det_log1p(x), std::log1p(x), 4e-16 * std::fabs(std::log1p(x)) + 1e-300) << x;
  EXPECT_TRUE(std::isnan(det_log(-1.0)));
  EXPECT_EQ(det_log(0.0), -INFINITY);
}

// Gradient and hessian against central differences of each smooth loss.
TEST(Objectives, GradientsAreTheLossDerivatives) {
  GradParams gp;
  gp.huber_slope = 1.7;
  gp.tweedie_variance_power = 1.3;
  struct Case {
    Objective o;
    double (*loss)(double m, double y, const GradParams& gp);
    double y;
  };
  const Case cases[] = {
      {Objective::kSquaredError, [](double m, double y, const GradParams&) { return 0.5 * (m - y) * (m - y); }, 1.3},
      {Objective::kPseudoHuber,
       [](double m, double y, const GradParams& g) {
         double s = g.huber_slope, z = (m - y) / s;
         return s * s * (std::sqrt(1 + z * z) - 1);
       },
       2.5},
      {Objective::kSquaredLog,
       [](double m, double y, const GradParams&) {
         double d = std::log1p(m) - std::log1p(y);
         return 0.5 * d * d;
       },
       1.5},
      {Objective::kGamma, [](double m, double y, const GradParams&) { return y * std::exp(-m) + m; }, 2.0},
      {Objective::kTweedie,
       [](double m, double y, const GradParams& g) {
         double r = g.tweedie_variance_power;
         return -y * std::exp((1 - r) * m) / (1 - r) + std::exp((2 - r) * m) / (2 - r);
       },
       3.0},
      {Objective::kLogitRaw,
       [](double m, double y, const GradParams&) {
         double p = 1 / (1 + std::exp(-m));
         return -(y * std::log(p) + (1 - y) * std::log(1 - p));
       },
       1.0},
  };
  for (const Case& c : cases)
    for (double m : {-0.7, 0.1, 0.9}) {
      const double e = 1e-4;
      double g = (c.loss(m + e, c.y, gp) - c.loss(m - e, c.y, gp)) / (2 * e);
      double h = (c.loss(m + e, c.y, gp) - 2 * c.loss(m, c.y, gp) + c.loss(m - e, c.y, gp)) / (e * e);
      GradHess gh = scalar_gradient(c.o, m, c.y, gp);
      EXPECT_NEAR(gh.g, g, 1e-6 * (1 + std::fabs(g))) << objective_name(c.o) << " m " << m;
      EXPECT_NEAR(gh.h, h, 1e-4 * (1 + std::fabs(h))) << objective_name(c.o) << " m " << m;
    }
  // Non-smooth losses: the subgradients XGBoost uses.
  gp.quantile_alpha = 0.8;
  EXPECT_EQ(scalar_gradient(Objective::kQuantile, 2.0, 1.0, gp).g, 1 - 0.8);
  EXPECT_EQ(scalar_gradient(Objective::kQuantile, 0.0, 1.0, gp).g, -0.8);
  EXPECT_EQ(scalar_gradient(Objective::kAbsoluteError, 0.0, 1.0, gp).g, -1.0);
  EXPECT_EQ(scalar_gradient(Objective::kAbsoluteError, 3.0, 1.0, gp).g, 1.0);
  EXPECT_EQ(scalar_gradient(Objective::kAbsoluteError, 1.0, 1.0, gp).g, 0.0);
  EXPECT_EQ(scalar_gradient(Objective::kHinge, 0.5, 1.0, gp).g, -1.0);  // inside the margin
  EXPECT_EQ(scalar_gradient(Objective::kHinge, 0.5, 0.0, gp).g, 1.0);
  EXPECT_EQ(scalar_gradient(Objective::kHinge, 1.5, 1.0, gp).g, 0.0);   // outside
  EXPECT_GT(scalar_gradient(Objective::kHinge, 1.5, 1.0, gp).h, 0.0);
  // Weights scale both.
  const float w[2] = {1.0f, 2.5f};
  GradHess a = weighted(scalar_gradient(Objective::kGamma, 0.3, 2.0, gp), w, 1);
  GradHess b = scalar_gradient(Objective::kGamma, 0.3, 2.0, gp);
  EXPECT_EQ(a.g, b.g * 2.5);
  EXPECT_EQ(a.h, b.h * 2.5);
  GradHess c = weighted(b, nullptr, 0);
  EXPECT_EQ(c.g, b.g);
}

TEST(Objectives, InterceptsFollowXGBoost) {
  using namespace objective_detail;
  // XGBoost's unweighted quantile: linear at alpha (n + 1) (1-based).
  const float y[5] = {5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(label_quantile(y, nullptr, 5, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(label_quantile(y, nullptr, 5, 0.25), 1.5);
  EXPECT_DOUBLE_EQ(label_quantile(y, nullptr, 5, 0.9), 5.0);
  const float y4[4] = {1, 2, 3, 10};
  EXPECT_DOUBLE_EQ(label_quantile(y4, nullptr, 4, 0.5), 2.5);
  // Weighted: the first value whose cumulative weight reaches alpha.
  const float w[5] = {1, 1, 1, 1, 10};  // weight on 3
  EXPECT_DOUBLE_EQ(label_quantile(y, w, 5, 0.5), 3.0);
  const float w2[5] = {10, 1, 1, 1, 1};  // weight on 5
  EXPECT_DOUBLE_EQ(label_quantile(y, w2, 5, 0.5), 5.0);
  TrainParams p;
  // Pseudo-Huber: one Newton step from margin 0.
  p.huber_slope = 1.0;
  double sg = 0, sh = 0;
  for (float v : y) {
    double z = -v, s = 1 + z * z;
    sg += z / std::sqrt(s);
    sh += 1 / (s * std::sqrt(s));
  }
  EXPECT_NEAR(objective_info(Objective::kPseudoHuber).base_margin(y, nullptr, 5, p), -sg / sh, 1e-12);
  // Hinge: the stump's class.
  const float yb[4] = {1, 1, 1, 0};
  EXPECT_EQ(objective_info(Objective::kHinge).base_margin(yb, nullptr, 4, p), 1.0);
  const float yb0[4] = {0, 0, 1, 0};
  EXPECT_EQ(objective_info(Objective::kHinge).base_margin(yb0, nullptr, 4, p), 0.0);
  // Gamma, Tweedie: log of the (weighted) mean; logitraw: the mean itself.
  EXPECT_NEAR(objective_info(Objective::kGamma).base_margin(y, nullptr, 5, p), std::log(3.0), 1e-15);
  EXPECT_NEAR(objective_info(Objective::kTweedie).base_margin(y, w, 5, p), std::log(42.0 / 14.0), 1e-15);
  EXPECT_NEAR(objective_info(Objective::kLogitRaw).base_margin(yb, nullptr, 4, p), 0.75, 1e-15);
  EXPECT_DOUBLE_EQ(objective_info(Objective::kAbsoluteError).base_margin(y4, nullptr, 4, p), 2.5);
}

TEST(Objectives, EachTrainsSensibly) {
  Data D = gbdt_test::make_data(3000, 4, Task::kRegression, 0.0, 5);
  // Quantiles: 0.9 above 0.1 on most rows, coverage near alpha.
  TrainParams p = params_of(Objective::kQuantile, 40);
  p.quantile_alpha = 0.9;
  Model hi = gbdt_test::train(D, p);
  p.quantile_alpha = 0.1;
  Model lo = gbdt_test::train(D, p);
  auto ph = gbdt_test::predict_all(hi, D), pl = gbdt_test::predict_all(lo, D);
  size_t above = 0, cov = 0;
  for (size_t r = 0; r < D.n; ++r) {
    above += ph[r] > pl[r];
    cov += D.y[r] <= ph[r];
  }
  EXPECT_GT(above, D.n * 95 / 100);
  EXPECT_NEAR((double)cov / D.n, 0.9, 0.06);
  EXPECT_EQ(hi.report.eval_metric, "quantile");

  // Absolute error and pseudo-Huber beat the constant median on MAE.
  for (Objective o : {Objective::kAbsoluteError, Objective::kPseudoHuber}) {
    Model m = gbdt_test::train(D, params_of(o, 60));
    auto pr = gbdt_test::predict_all(m, D);
    double mae = compute_metric("mae", o, 1, pr.data(), D.y.data(), D.n);
    std::vector<double> c(D.n, m.base_margin[0]);
    double mae0 = compute_metric("mae", o, 1, c.data(), D.y.data(), D.n);
    EXPECT_LT(mae, 0.5 * mae0) << objective_name(o);
  }

  // Positive targets: predictions positive and better than the mean.
  Data P = positive_data(3000, 7);
  for (Objective o : {Objective::kGamma, Objective::kTweedie, Objective::kSquaredLog}) {
    Model m = gbdt_test::train(P, params_of(o, 60));
    auto pr = gbdt_test::predict_all(m, P);
    double rmse = compute_metric("rmse", o, 1, pr.data(), P.y.data(), P.n);
    double mean = 0;
    for (float v : P.y) mean += v / P.n;
    std::vector<double> c(P.n, mean);
    double rmse0 = compute_metric("rmse", o, 1, c.data(), P.y.data(), P.n);
    EXPECT_LT(rmse, 0.9 * rmse0) << objective_name(o);
    for (double v : pr) ASSERT_GT(v, 0.0) << objective_name(o);
  }
  TrainParams tp = params_of(Objective::kTweedie, 5);
  tp.tweedie_variance_power = 1.2;
  EXPECT_EQ(gbdt_test::train(P, tp).report.eval_metric, "tweedie-nloglik@1.2");

  // Hinge predicts 0/1 and learns the classes; logitraw predicts margins
  // whose sign is the class.
  Data B = gbdt_test::make_data(3000, 4, Task::kBinary, 0.0, 9);
  Model h = gbdt_test::train(B, params_of(Objective::kHinge, 30));
  Model lr = gbdt_test::train(B, params_of(Objective::kLogitRaw, 30));
  auto hp = gbdt_test::predict_all(h, B), rp = gbdt_test::predict_all(lr, B);
  size_t ok_h = 0, ok_r = 0, neg = 0;
  for (size_t r = 0; r < B.n; ++r) {
    ASSERT_TRUE(hp[r] == 0.0 || hp[r] == 1.0);
    ok_h += hp[r] == B.y[r];
    ok_r += (rp[r] > 0) == (B.y[r] == 1.0f);
    neg += rp[r] < 0;
  }
  EXPECT_GT(ok_h, B.n * 85 / 100);
  EXPECT_GT(ok_r, B.n * 85 / 100);
  EXPECT_GT(neg, 0u);  // margins, not probabilities
  EXPECT_EQ(h.class_labels, (std::vector<double>{0.0, 1.0}));

  // multi:softmax: gbdt_predict's value is the class, trained like softprob.
  Data M = gbdt_test::make_data(2000, 4, Task::kMulticlass, 0.0, 3);
  Model sm = gbdt_test::train(M, params_of(Objective::kSoftmax, 10));
  Model sp = gbdt_test::train(M, params_of(Objective::kSoftprob, 10));
  ASSERT_EQ(sm.trees.size(), sp.trees.size());
  for (size_t t = 0; t < sm.trees.size(); ++t) EXPECT_EQ(sm.trees[t].value, sp.trees[t].value);
  size_t ok = 0;
  for (size_t r = 0; r < M.n; ++r) {
    std::vector<float> x = M.row(r);
    double c = predict_value_row(sm, x.data());
    ASSERT_EQ(c, std::floor(c));
    ok += c == M.y[r];
  }
  EXPECT_GT(ok, M.n * 7 / 10);
  // Stored and loaded with its code.
  Model back = deserialize_model(serialize_model(sm).data(), serialize_model(sm).size());
  EXPECT_EQ(back.objective, Objective::kSoftmax);
}

TEST(Objectives, LabelErrorsSayWhatToPass) {
  Data P = positive_data(200, 3);
  P.y[17] = -1.0f;
  std::string e = error_of(P, params_of(Objective::kGamma));
  EXPECT_NE(e.find("target column \"label\" has value -1: reg:gamma needs labels > 0"), std::string::npos) << e;
  EXPECT_NE(e.find("reg:tweedie"), std::string::npos) << e;
  P.y[17] = 0.0f;
  EXPECT_NE(error_of(P, params_of(Objective::kGamma)).find("needs labels > 0"), std::string::npos);
  EXPECT_EQ(error_of(P, params_of(Objective::kTweedie)), "");
  P.y[17] = -2.0f;
  EXPECT_NE(error_of(P, params_of(Objective::kTweedie)).find("reg:tweedie needs labels >= 0"), std::string::npos);
  EXPECT_NE(error_of(P, params_of(Objective::kSquaredLog)).find("needs labels > -1"), std::string::npos);
  Data B = gbdt_test::make_data(200, 3, Task::kBinary);
  B.y[3] = 2.0f;
  EXPECT_NE(error_of(B, params_of(Objective::kHinge)).find("binary:hinge needs labels 0 or 1"), std::string::npos);
  Data M = gbdt_test::make_data(200, 3, Task::kMulticlass);
  M.y[0] = 1.5f;
  EXPECT_NE(error_of(M, params_of(Objective::kSoftmax)).find("multi:softmax needs class labels"), std::string::npos);
}

TEST(Objectives, ParameterErrorsNameTheRange) {
  EXPECT_EQ(param_error("huber_slope", "0"), "parameter \"huber_slope\" = 0 is out of range: must be > 0");
  EXPECT_EQ(param_error("quantile_alpha", "1"), "parameter \"quantile_alpha\" = 1 is out of range: must be in (0, 1)");
  EXPECT_EQ(param_error("tweedie_variance_power", "2"),
            "parameter \"tweedie_variance_power\" = 2 is out of range: must be in [1, 2)");
  EXPECT_EQ(param_error("scale_pos_weight", "-1"), "parameter \"scale_pos_weight\" = -1 is out of range: must be > 0");
  EXPECT_NE(param_error("objective", "reg:foo").find("reg:absoluteerror"), std::string::npos);
  EXPECT_EQ(param_error("tweedie_variance_power", "1.99"), "");
  EXPECT_NE(param_error("eval_metric", "rmse,bogus").find("\"bogus\" is not supported"), std::string::npos);
  EXPECT_EQ(param_error("eval_metric", "error@0.7, tweedie-nloglik@1.2"), "");
  EXPECT_NE(param_error("eval_metric", "error@x").find("is not supported"), std::string::npos);
  TrainParams p;
  apply_params({{"eval_metric", "[\"rmse\", \"mae\"]", false}}, &p);
  EXPECT_EQ(p.eval_metric, "rmse,mae");
  // Unused objective parameters at their defaults are not recorded (old
  // trainings keep their params, and so their model bytes).
  TrainParams q;
  for (const auto& kv : params_to_kv(q))
    EXPECT_TRUE(kv.first != "huber_slope" && kv.first != "quantile_alpha" &&
                kv.first != "tweedie_variance_power" && kv.first != "scale_pos_weight")
        << kv.first;
}

TEST(Objectives, WeightsOfOneChangeNothingAndZeroWeightsAreIgnoredInMetrics) {
  Data D = gbdt_test::make_data(2000, 4, Task::kBinary, 0.0, 21);
  TrainParams p = params_of(Objective::kLogistic, 8);
  p.validation_fraction = 0.2;
  Model a = gbdt_test::train(D, p);
  std::vector<float> ones(D.n, 1.0f);
  TrainInput in = D.input();
  in.weights = ones.data();
  TrainHooks hooks;
  hooks.default_device = "cpu";
  Model b = train_model(in, p, hooks, "label");
  a.report.seconds_load = a.report.seconds_bin = a.report.seconds_train = 0;
  b.report.seconds_load = b.report.seconds_bin = b.report.seconds_train = 0;
  EXPECT_EQ(serialize_model(a), serialize_model(b));

  // Weighted metric = the weighted mean of the row losses.
  const double pr[3] = {0.5, 2.0, 4.0};
  const float y[3] = {1.0f, 2.0f, 1.0f};
  const float w[3] = {1.0f, 3.0f, 0.0f};
  EXPECT_DOUBLE_EQ(compute_metric("mae", Objective::kSquaredError, 1, pr, y, 3, w, MetricParams()),
                   0.5 / 4.0);
  EXPECT_DOUBLE_EQ(compute_metric("rmse", Objective::kSquaredError, 1, pr, y, 3, w, MetricParams()),
                   std::sqrt(0.25 / 4.0));
  const double pb[4] = {0.1, 0.4, 0.35, 0.8};
  const float yb[4] = {0, 0, 1, 1};
  const float wb[4] = {1, 1, 1, 1};
  EXPECT_DOUBLE_EQ(compute_metric("auc", Objective::kLogistic, 1, pb, yb, 4, wb, MetricParams()),
                   compute_metric("auc", Objective::kLogistic, 1, pb, yb, 4));
  const float wz[4] = {1, 0, 1, 1};  // drops the misranked negative
  EXPECT_DOUBLE_EQ(compute_metric("auc", Objective::kLogistic, 1, pb, yb, 4, wz, MetricParams()), 1.0);

  // Bad weights name the row.
  std::vector<float> bad(D.n, 1.0f);
  bad[5] = -1.0f;
  in.weights = bad.data();
  try {
    train_model(in, p, hooks, "label");
    ADD_FAILURE() << "negative weight accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("row 6"), std::string::npos) << e.what();
  }
}

TEST(Objectives, WeightsChangeTheModelAndScalePosWeightIsAPositiveWeight) {
  Data D = gbdt_test::make_data(2000, 4, Task::kBinary, 0.0, 23);
  TrainParams p = params_of(Objective::kLogistic, 5);
  p.base_score = 0.5;
  p.base_score_set = true;
  p.scale_pos_weight = 3.0;
  Model a = gbdt_test::train(D, p);
  std::vector<float> w(D.n);
  for (size_t r = 0; r < D.n; ++r) w[r] = D.y[r] == 1.0f ? 3.0f : 1.0f;
  TrainInput in = D.input();
  in.weights = w.data();
  TrainHooks hooks;
  hooks.default_device = "cpu";
  TrainParams q = p;
  q.scale_pos_weight = 1.0;
  Model b = train_model(in, q, hooks, "label");
  ASSERT_EQ(a.trees.size(), b.trees.size());
  for (size_t t = 0; t < a.trees.size(); ++t) EXPECT_EQ(a.trees[t].value, b.trees[t].value);
  Model c = gbdt_test::train(D, q);
  EXPECT_NE(a.trees[0].value, c.trees[0].value);
  // More weight on the positives: more rows predicted positive.
  auto pa = gbdt_test::predict_all(a, D), pc = gbdt_test::predict_all(c, D);
  size_t na = 0, nc = 0;
  for (size_t r = 0; r < D.n; ++r) {
    na += pa[r] > 0.5;
    nc += pc[r] > 0.5;
  }
  EXPECT_GT(na, nc);
}

TEST(Objectives, SeveralEvalMetricsEarlyStopOnTheLast) {
  Data D = gbdt_test::make_data(3000, 4, Task::kRegression, 0.0, 31);
  TrainParams p = params_of(Objective::kSquaredError, 30);
  p.validation_fraction = 0.25;
  p.eval_metric = "mae,rmse";
  Model m = gbdt_test::train(D, p);
  EXPECT_EQ(m.report.eval_metric, "mae,rmse");
  ASSERT_EQ(m.report.train_metric.size(), 2u);
  ASSERT_EQ(m.report.validation_metric.size(), 60u);
  TrainParams one = p;
  one.eval_metric = "rmse";
  Model r = gbdt_test::train(D, one);
  TrainParams one_mae = p;
  one_mae.eval_metric = "mae";
  Model a = gbdt_test::train(D, one_mae);
  for (size_t i = 0; i < 30; ++i) {
    EXPECT_EQ(m.report.validation_metric[2 * i], a.report.validation_metric[i]);
    EXPECT_EQ(m.report.validation_metric[2 * i + 1], r.report.validation_metric[i]);
  }
  EXPECT_EQ(m.report.train_metric[1], r.report.train_metric[0]);
  // Early stopping follows the last metric.
  p.early_stopping_rounds = 2;
  p.eta = 1.0;
  p.num_round = 200;
  one.early_stopping_rounds = 2;
  one.eta = 1.0;
  one.num_round = 200;
  EXPECT_EQ(gbdt_test::train(D, p).report.best_iteration, gbdt_test::train(D, one).report.best_iteration);
  TrainParams bad = p;
  bad.eval_metric = "rmse,mlogloss";
  EXPECT_NE(error_of(D, bad).find("mlogloss"), std::string::npos);
}

TEST(Objectives, XGBoostJsonRoundTrip) {
  Data P = positive_data(800, 13);
  for (Objective o : {Objective::kTweedie, Objective::kQuantile, Objective::kPseudoHuber,
                      Objective::kGamma, Objective::kHinge, Objective::kLogitRaw,
                      Objective::kAbsoluteError, Objective::kSquaredLog, Objective::kSoftmax}) {
    Data D = P;
    if (objective_info(o).binary)
      for (float& v : D.y) v = v > 1.2f ? 1.0f : 0.0f;
    if (objective_info(o).multiclass)
      for (float& v : D.y) v = std::floor(std::min(v, 2.9f));
    TrainParams p = params_of(o, 5);
    p.quantile_alpha = 0.7;
    p.tweedie_variance_power = 1.25;
    p.huber_slope = 2.0;
    Model m = gbdt_test::train(D, p);
    std::string js = export_xgboost_json(m);
    EXPECT_NE(js.find(std::string("\"name\":\"") + objective_name(o) + "\""), std::string::npos) << js.substr(js.size() - 200);
    Model back = import_xgboost_json(js);
    EXPECT_EQ(back.objective, o);
    auto a = gbdt_test::predict_all(m, D), b = gbdt_test::predict_all(back, D);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-6 * (1 + std::fabs(a[i]))) << objective_name(o);
    if (objective_info(o).import_param) {
      bool found = false;
      for (const auto& kv : back.params) found |= kv.first == objective_info(o).param_key;
      EXPECT_TRUE(found) << objective_name(o);
    }
  }
}

// The README's parameter table is the one generated from the table of
// parameters (params.cpp): edit the table, then paste
// build/unit_tests --gtest_filter=Objectives.ReadmeParameterTable's output.
TEST(Objectives, ReadmeParameterTable) {
  std::ifstream f("README.md");
  ASSERT_TRUE(f.good()) << "run from the repository root";
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string readme = ss.str();
  const std::string begin = "<!-- params-table:begin -->\n", end = "<!-- params-table:end -->";
  size_t a = readme.find(begin), b = readme.find(end);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  const std::string table = readme.substr(a + begin.size(), b - a - begin.size());
  EXPECT_EQ(table, params_markdown_table()) << "generated table:\n" << params_markdown_table();
}
