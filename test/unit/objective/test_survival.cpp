// survival:cox and survival:aft (survival.h, objective_survival.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "metric/metrics.h"
#include "objective/objective.h"
#include "objective/survival.h"
#include "test_util.h"
#include "model/xgb_json.h"

using gbdt::Objective;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

// Survival data: the time falls with f0; every 3rd row right-censored.
gbdt_test::Data survival_data(size_t n, std::vector<float>* lower, std::vector<float>* upper) {
  gbdt_test::Data D = gbdt_test::make_data(n, 3, gbdt_test::Task::kRegression);
  lower->resize(n);
  upper->resize(n);
  for (size_t r = 0; r < n; ++r) {
    const double t = 10.0 * std::exp(-D.cols[0][r] + 0.3 * (gbdt_test::unif(99, r) - 0.5));
    const bool cens = r % 3 == 0;
    D.y[r] = (float)(cens ? -t : t);  // cox
    (*lower)[r] = (float)t;
    (*upper)[r] = cens ? (float)kInf : (float)t;
  }
  return D;
}

}  // namespace

// The AFT gradient and hessian are the derivatives of the loss in the
// margin, for every distribution and kind of censoring.
TEST(Survival, AftDerivativesMatchTheLoss) {
  struct Case {
    double lo, hi;
  } cases[] = {{3.0, 3.0}, {3.0, kInf}, {0.0, 4.0}, {2.0, 5.0}};
  for (int dist = 0; dist < 3; ++dist)
    for (const Case& c : cases)
      for (double m : {-0.5, 0.4, 1.1, 2.0}) {
        const double sigma = 0.8, e = 1e-5;
        double g, h, g1, h1, g2, h2;
        gbdt::aft_grad_hess(c.lo, c.hi, m, dist, sigma, &g, &h);
        const double num_g = (gbdt::aft_loss(c.lo, c.hi, m + e, dist, sigma) -
                              gbdt::aft_loss(c.lo, c.hi, m - e, dist, sigma)) / (2 * e);
        gbdt::aft_grad_hess(c.lo, c.hi, m + e, dist, sigma, &g1, &h1);
        gbdt::aft_grad_hess(c.lo, c.hi, m - e, dist, sigma, &g2, &h2);
        const std::string what = std::string(gbdt::aft_distribution_name(dist)) + " [" +
                                 std::to_string(c.lo) + ", " + std::to_string(c.hi) + "] m " +
                                 std::to_string(m);
        EXPECT_NEAR(g, num_g, 1e-5) << what;
        EXPECT_NEAR(h, std::max((g1 - g2) / (2 * e), 1e-16), 1e-4) << what;
      }
}

// Far from the label the fractions degenerate: XGBoost's limits and clips.
TEST(Survival, AftLimitsFarFromTheLabel) {
  double g, h;
  gbdt::aft_grad_hess(3.0, 3.0, -200.0, 0, 1.0, &g, &h);  // normal, uncensored, z >> 0
  EXPECT_EQ(g, -15.0);
  EXPECT_EQ(h, 1.0);
  gbdt::aft_grad_hess(3.0, kInf, 200.0, 0, 1.0, &g, &h);  // right-censored, predicted far later
  EXPECT_EQ(g, 0.0);
  EXPECT_EQ(h, 1e-16);
  gbdt::aft_grad_hess(3.0, 3.0, 200.0, 1, 2.0, &g, &h);  // logistic, z << 0
  EXPECT_DOUBLE_EQ(g, 0.5);
  EXPECT_EQ(h, 1e-16);
  EXPECT_TRUE(std::isfinite(gbdt::aft_loss(3.0, 3.0, 500.0, 2, 1.0)));
  // The loss floor: -log(1e-12).
  EXPECT_NEAR(gbdt::aft_loss(3.0, 4.0, 300.0, 0, 1.0), -std::log(1e-12), 1e-9);
}

// Breslow gradients: without ties, the derivatives of the negative log
// partial likelihood (cox_nloglik times the number of events).
TEST(Survival, CoxGradientsMatchThePartialLikelihood) {
  const size_t n = 40;
  std::vector<float> y(n), m(n);
  size_t events = 0;
  for (size_t i = 0; i < n; ++i) {
    const double t = 1.0 + 10.0 * gbdt_test::unif(5, i);
    y[i] = (float)(i % 4 == 0 ? -t : t);
    events += y[i] > 0;
    m[i] = (float)(gbdt_test::unif(6, i) - 0.5);
  }
  auto nll = [&](const std::vector<float>& mm) {
    std::vector<double> hr(n);
    for (size_t i = 0; i < n; ++i) hr[i] = std::exp((double)mm[i]);
    return gbdt::cox_nloglik(hr.data(), y.data(), n) * (double)events;
  };
  std::vector<double> g(n), h(n);
  gbdt::cox_gradients(y.data(), nullptr, gbdt::cox_order(y.data(), n), m.data(), g.data(), h.data());
  for (size_t k = 0; k < n; ++k) {
    std::vector<float> a = m, b = m;
    const float e = 1e-2f;
    a[k] += e;
    b[k] -= e;
    EXPECT_NEAR(g[k], (nll(a) - nll(b)) / (2 * (double)e), 2e-4) << "row " << k;
    EXPECT_GT(h[k], 0.0) << "row " << k;
  }
  // Weights scale a row's gradient and hessian.
  std::vector<float> w(n, 2.0f);
  std::vector<double> gw(n), hw(n);
  gbdt::cox_gradients(y.data(), w.data(), gbdt::cox_order(y.data(), n), m.data(), gw.data(), hw.data());
  for (size_t k = 0; k < n; ++k) EXPECT_DOUBLE_EQ(gw[k], 2 * g[k]);
}

// Ties (Breslow): rows with equal times share one risk set; a hand example.
TEST(Survival, CoxNloglikWithTies) {
  // Times 1 (event), 2 (event), 2 (censored), 3 (event); hazard ratios 1.
  const float y[] = {2, 1, -2, 3};
  const double hr[] = {1, 1, 1, 1};
  // Events: t=1: -log(1/4); t=2: -log(1/3); t=3: -log(1/1).
  EXPECT_NEAR(gbdt::cox_nloglik(hr, y, 4), (std::log(4.0) + std::log(3.0)) / 3, 1e-12);
  const float none[] = {-1, -2};
  EXPECT_TRUE(std::isnan(gbdt::cox_nloglik(hr, none, 2)));
}

TEST(Survival, LabelChecksNameColumnAndValue) {
  gbdt::TrainParams p;
  const float cox[] = {1, -2, 0};
  try {
    gbdt::check_cox_labels(cox, 3, p, "time");
    FAIL() << "no error";
  } catch (const gbdt::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("target column \"time\" has value 0 in row 3"), std::string::npos)
        << e.what();
  }
  const float lo[] = {1, 2, 5}, hi[] = {1, (float)kInf, 4};
  try {
    gbdt::check_aft_bounds(lo, hi, 3, "lo", "hi");
    FAIL() << "no error";
  } catch (const gbdt::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("\"hi\" has value 4 in row 3 below the lower bound 5"),
              std::string::npos) << e.what();
  }
  const float neg[] = {-1}, one[] = {1};
  EXPECT_THROW(gbdt::check_aft_bounds(neg, one, 1, "lo", "hi"), gbdt::InvalidInput);
  const float zero[] = {0}, nan[] = {NAN};
  EXPECT_THROW(gbdt::check_aft_bounds(zero, zero, 1, "lo", "hi"), gbdt::InvalidInput);
  EXPECT_THROW(gbdt::check_aft_bounds(one, nan, 1, "lo", "hi"), gbdt::InvalidInput);
  EXPECT_NO_THROW(gbdt::check_aft_bounds(zero, one, 1, "lo", "hi"));  // left-censored
}

// Registry entries: codes after ranking's, log link, host gradients.
TEST(Survival, RegistryEntries) {
  EXPECT_EQ((int)Objective::kSurvivalCox, 16);
  EXPECT_EQ((int)Objective::kSurvivalAft, 17);
  const gbdt::ObjectiveInfo& cox = gbdt::objective_info(Objective::kSurvivalCox);
  const gbdt::ObjectiveInfo& aft = gbdt::objective_info(Objective::kSurvivalAft);
  EXPECT_STREQ(cox.name, "survival:cox");
  EXPECT_STREQ(aft.name, "survival:aft");
  EXPECT_STREQ(cox.default_metric, "cox-nloglik");
  EXPECT_STREQ(aft.default_metric, "aft-nloglik");
  EXPECT_TRUE(cox.host_gradients && aft.host_gradients);
  EXPECT_TRUE(aft.interval_labels && !cox.interval_labels);
  EXPECT_TRUE(gbdt::is_known_metric("interval-regression-accuracy"));
  EXPECT_TRUE(gbdt::metric_higher_is_better("interval-regression-accuracy"));
  EXPECT_FALSE(gbdt::metric_higher_is_better("aft-nloglik"));
}

// Training: the AFT model needs the upper bounds, fits, and exports the
// aft_loss_param that import reads back.
TEST(Survival, AftTrainsAndRoundTripsThroughXgboostJson) {
  std::vector<float> lo, hi;
  gbdt_test::Data D = survival_data(600, &lo, &hi);
  gbdt::TrainParams p = gbdt_test::params_for(gbdt_test::Task::kRegression, 30);
  p.objective = Objective::kSurvivalAft;
  p.aft_distribution = 1;
  p.aft_scale = 0.5;
  gbdt::TrainInput in = D.input();
  in.labels = lo.data();
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  EXPECT_THROW(gbdt::train_model(in, p, hooks, "lo"), gbdt::InvalidInput);  // no upper bounds
  in.labels_upper = hi.data();
  gbdt::Model m = gbdt::train_model(in, p, hooks, "lo");
  EXPECT_NEAR(m.base_score, 0.5, 1e-12);
  std::vector<double> pred = gbdt_test::predict_all(m, D);
  // Predicted times fall with f0, as the data's.
  double lo_f0 = 0, hi_f0 = 0;
  int nl = 0, nh = 0;
  for (size_t r = 0; r < D.n; ++r) {
    ASSERT_GT(pred[r], 0.0);
    if (D.cols[0][r] < -0.5) lo_f0 += pred[r], ++nl;
    if (D.cols[0][r] > 0.5) hi_f0 += pred[r], ++nh;
  }
  EXPECT_GT(lo_f0 / nl, 2.0 * hi_f0 / nh);
  const std::string js = gbdt::export_xgboost_json(m);
  EXPECT_NE(js.find("\"aft_loss_param\":{\"aft_loss_distribution\":\"logistic\","
                    "\"aft_loss_distribution_scale\":\"0.5\"}"), std::string::npos);
  gbdt::Model back = gbdt::import_xgboost_json(js);
  EXPECT_EQ(back.objective, Objective::kSurvivalAft);
  std::vector<double> pb = gbdt_test::predict_all(back, D);
  for (size_t r = 0; r < D.n; ++r) EXPECT_NEAR(pb[r], pred[r], 1e-6 * std::max(1.0, pred[r]));
  // A regression objective refuses the upper bounds.
  p.objective = Objective::kSquaredError;
  EXPECT_THROW(gbdt::train_model(in, p, hooks, "lo"), gbdt::InvalidInput);
}

// Cox training: the hazard rises with f0 and the training's cox-nloglik
// falls below the constant model's.
TEST(Survival, CoxTrainsAndFits) {
  std::vector<float> lo, hi;
  gbdt_test::Data D = survival_data(600, &lo, &hi);
  gbdt::TrainParams p = gbdt_test::params_for(gbdt_test::Task::kRegression, 30);
  p.objective = Objective::kSurvivalCox;
  gbdt::Model m = gbdt_test::train(D, p);
  EXPECT_EQ(m.report.eval_metric, "cox-nloglik");
  std::vector<double> pred = gbdt_test::predict_all(m, D);
  std::vector<double> one(D.n, 1.0);
  EXPECT_LT(gbdt::cox_nloglik(pred.data(), D.y.data(), D.n),
            gbdt::cox_nloglik(one.data(), D.y.data(), D.n) - 0.2);
  EXPECT_NEAR(m.report.train_metric.back(), gbdt::cox_nloglik(pred.data(), D.y.data(), D.n), 1e-6);
  D.y[7] = 0;
  EXPECT_THROW(gbdt_test::train(D, p), gbdt::InvalidInput);
}

// quantile_alpha in XGBoost's list form: a list of one is the number;
// several are one output each (test_multi_quantile.cpp).
TEST(QuantileAlpha, ListOfOneIsTheNumberSeveralAreKept) {
  gbdt::TrainParams p;
  gbdt::apply_params({{"quantile_alpha", "[0.9]", false}}, &p);
  EXPECT_DOUBLE_EQ(p.quantile_alpha, 0.9);
  EXPECT_TRUE(p.quantile_alphas.empty());
  gbdt::apply_params({{"quantile_alpha", "[0.1, 0.5, 0.9]", false}}, &p);
  EXPECT_EQ(p.quantile_alphas, (std::vector<double>{0.1, 0.5, 0.9}));
  EXPECT_THROW(gbdt::apply_params({{"quantile_alpha", "[1.5]", false}}, &p), gbdt::InvalidInput);
  EXPECT_THROW(gbdt::apply_params({{"quantile_alpha", "[\"a\"]", false}}, &p), gbdt::InvalidInput);
}
