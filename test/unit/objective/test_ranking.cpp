// Learning to rank (ranking.h): query groups, ranking metrics against
// XGBoost 3.2's values, LambdaMART gradients against the formulas, and
// training with query groups (determinism, grouping by value, validation
// by group, serialization, XGBoost JSON).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/model.h"
#include "metric/metrics.h"
#include "objective/objective.h"
#include "gbm/params.h"
#include "objective/lambdarank.h"
#include "test_util.h"
#include "gbm/trainer.h"
#include "model/xgb_json.h"

namespace {

using gbdt::Objective;

TEST(Ranking, QueryGroupsFromInterleavedCodes) {
  const std::vector<uint32_t> codes = {0, 1, 0, 2, 1, 0};
  gbdt::QueryGroups q = gbdt::make_query_groups(codes.data(), codes.size());
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q.ptr, (std::vector<uint32_t>{0, 3, 5, 6}));
  EXPECT_EQ(q.rows, (std::vector<uint32_t>{0, 2, 5, 1, 4, 3}));
  // Codes with gaps (a validation split removed group 1): empty groups dropped.
  const std::vector<uint32_t> gaps = {2, 0, 2};
  gbdt::QueryGroups g = gbdt::make_query_groups(gaps.data(), gaps.size());
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.rows, (std::vector<uint32_t>{1, 0, 2}));
}

// Three groups (5, 3, 3 rows, the middle one without relevant documents);
// expected values printed by XGBoost 3.2 (xgboost.train with base_margin =
// these scores, eta 1e-9, evals_result) for the same data.
struct Toy {
  std::vector<float> y = {1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1};
  std::vector<double> p = {0.9, 0.8, 0.1, 0.5, 0.3, .1, .2, .3, .5, .6, .7};
  std::vector<uint32_t> codes = {0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
};

TEST(Ranking, MetricsMatchXGBoost) {
  Toy t;
  gbdt::QueryGroups q = gbdt::make_query_groups(t.codes.data(), t.codes.size());
  auto m = [&](const char* name) { return gbdt::rank_metric(name, q, t.p.data(), t.y.data(), true); };
  EXPECT_NEAR(m("map"), 0.8444444444444444, 1e-12);
  EXPECT_NEAR(m("map@2"), 0.6666666666666666, 1e-12);
  EXPECT_NEAR(m("map-"), 0.5111111111111111, 1e-12);
  EXPECT_NEAR(m("map@2-"), 0.3333333333333333, 1e-12);
  EXPECT_NEAR(m("pre@2"), 0.3333333333333333, 1e-12);
  EXPECT_NEAR(m("pre@4"), 0.3055555555555555, 1e-12);
  EXPECT_NEAR(m("pre"), 0.35555555555555557, 1e-12);
  EXPECT_NEAR(m("ndcg"), 0.9233552315609806, 1e-12);
  EXPECT_NEAR(m("ndcg@2"), 0.7420981285103055, 1e-12);
  EXPECT_NEAR(m("ndcg-"), 0.5900218982276474, 1e-12);
}

TEST(Ranking, MetricNames) {
  for (const char* ok : {"ndcg", "ndcg@10", "ndcg@3-", "map", "map@5", "pre@1", "ndcg-"})
    EXPECT_TRUE(gbdt::is_rank_metric(ok)) << ok;
  for (const char* bad : {"ndcg@", "ndcg@0", "ndcg@x", "rmse", "auc", "map@-1", "pre10"})
    EXPECT_FALSE(gbdt::is_rank_metric(bad)) << bad;
  EXPECT_TRUE(gbdt::is_known_metric("ndcg@10"));
}

// One group of two documents (relevance 1 and 0), equal margins: one pair,
// sigmoid 0.5, |delta NDCG| = 1 - 1/log2(3), no score normalization (all
// scores equal), topk lambda normalization log2(1 + sum)/sum.
TEST(Ranking, LambdaNDCGGradientOfOnePair) {
  const std::vector<float> y = {0, 1};
  const std::vector<uint32_t> codes = {0, 0};
  gbdt::RankParams rp;
  gbdt::LambdaRank lr(Objective::kRankNDCG, rp, gbdt::make_query_groups(codes.data(), 2), y.data(),
                      0, 1);
  const std::vector<float> margins = {0.0f, 0.0f};
  double g[2], h[2];
  lr.gradients(0, margins.data(), g, h);
  const double dn = 1.0 - 1.0 / std::log2(3.0);
  const double lam = -0.5 * dn, hes = 0.25 * dn * 2.0;
  const double norm = std::log2(1.0 + dn) / dn;
  EXPECT_NEAR(g[1], lam * norm, 1e-15);  // the relevant document is pushed up
  EXPECT_NEAR(g[0], -lam * norm, 1e-15);
  EXPECT_NEAR(h[0], hes * norm, 1e-15);
  EXPECT_NEAR(h[1], hes * norm, 1e-15);
  // rank:pairwise: the same pair with |delta| = 1.
  gbdt::LambdaRank pw(Objective::kRankPairwise, rp, gbdt::make_query_groups(codes.data(), 2),
                      y.data(), 0, 1);
  pw.gradients(0, margins.data(), g, h);
  EXPECT_NEAR(g[1], -0.5 * std::log2(2.0) / 1.0, 1e-15);
}

TEST(Ranking, GradientsSumToZeroAndIgnoreNthread) {
  gbdt_test::Data D = gbdt_test::make_data(3000, 4, gbdt_test::Task::kMulticlass, 0.0, 9);
  std::vector<uint32_t> codes(D.n);
  for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)((r * 7919) % 97);
  std::vector<float> margins(D.n);
  for (size_t r = 0; r < D.n; ++r) margins[r] = (float)gbdt_test::unif(5, r);
  for (bool topk : {true, false}) {
    gbdt::RankParams rp;
    rp.topk = topk;
    rp.num_pair = topk ? 8 : 3;
    std::vector<double> g1(D.n), h1(D.n), g4(D.n), h4(D.n);
    gbdt::LambdaRank a(Objective::kRankNDCG, rp, gbdt::make_query_groups(codes.data(), D.n),
                       D.y.data(), 11, 1);
    gbdt::LambdaRank b(Objective::kRankNDCG, rp, gbdt::make_query_groups(codes.data(), D.n),
                       D.y.data(), 11, 4);
    a.gradients(3, margins.data(), g1.data(), h1.data());
    b.gradients(3, margins.data(), g4.data(), h4.data());
    EXPECT_EQ(g1, g4) << "topk " << topk;
    EXPECT_EQ(h1, h4);
    std::vector<double> sum(97, 0.0);
    double nonzero = 0;
    for (size_t r = 0; r < D.n; ++r) {
      sum[codes[r]] += g1[r];
      nonzero += g1[r] != 0;
      EXPECT_GE(h1[r], 0.0);
    }
    for (double s : sum) EXPECT_NEAR(s, 0.0, 1e-9);
    EXPECT_GT(nonzero, D.n / 2);
    // Another round draws other pairs with the mean method.
    std::vector<double> g5(D.n), h5(D.n);
    a.gradients(4, margins.data(), g5.data(), h5.data());
    if (!topk) EXPECT_NE(g1, g5);
    else EXPECT_EQ(g1, g5);
  }
}

gbdt::Model train_rank(const gbdt_test::Data& D, const std::vector<uint32_t>& codes,
                       gbdt::TrainParams p) {
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  gbdt::TrainInput in = D.input();
  in.query_group = codes.data();
  return gbdt::train_model(in, p, hooks, "rel");
}

gbdt::TrainParams rank_params(Objective o, int nthread) {
  gbdt::TrainParams p;
  p.objective = o;
  p.objective_set = true;
  p.num_round = 15;
  p.max_depth = 4;
  p.nthread = nthread;
  p.group_column = "qid";
  return p;
}

TEST(Ranking, TrainingImprovesNDCGAndIsDeterministic) {
  gbdt_test::Data D = gbdt_test::make_data(4000, 6, gbdt_test::Task::kMulticlass, 0.02, 3);
  std::vector<uint32_t> codes(D.n);
  for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)(r % 80);  // interleaved
  for (Objective o : {Objective::kRankNDCG, Objective::kRankPairwise}) {
    for (bool mean : {false, true}) {
      gbdt::TrainParams p = rank_params(o, 1);
      p.rank_pair_topk = !mean;
      gbdt::Model m1 = train_rank(D, codes, p);
      p.nthread = 2;
      gbdt::Model m2 = train_rank(D, codes, p);
      EXPECT_EQ(gbdt::serialize_model(m1), gbdt::serialize_model(m2))
          << gbdt::objective_name(o) << " mean " << mean;
      std::vector<double> pred = gbdt_test::predict_all(m1, D);
      std::vector<double> zero(D.n, 0.0);
      const double before = gbdt::rank_metric_codes("ndcg@10", codes.data(), D.n, zero.data(),
                                                    D.y.data(), true);
      const double after = gbdt::rank_metric_codes("ndcg@10", codes.data(), D.n, pred.data(),
                                                   D.y.data(), true);
      EXPECT_GT(after, before + 0.1) << gbdt::objective_name(o);
      EXPECT_EQ(m1.report.eval_metric, mean ? "ndcg" : "ndcg@32");
      EXPECT_NEAR(m1.report.train_metric.back(),
                  gbdt::rank_metric_codes(m1.report.eval_metric, codes.data(), D.n, pred.data(),
                                          D.y.data(), true),
                  1e-6);
    }
  }
}

TEST(Ranking, ValidationKeepsGroupsWhole) {
  gbdt_test::Data D = gbdt_test::make_data(2000, 4, gbdt_test::Task::kMulticlass, 0.0, 4);
  std::vector<uint32_t> codes(D.n);
  for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)(r % 40);  // 40 groups of 50
  gbdt::TrainParams p = rank_params(Objective::kRankNDCG, 1);
  p.validation_fraction = 0.25;
  p.eval_metric = "map@10";
  p.seed = 2;
  gbdt::Model m = train_rank(D, codes, p);
  EXPECT_GT(m.report.rows_validation, 0u);
  EXPECT_EQ(m.report.rows_validation % 50, 0u);
  EXPECT_EQ(m.report.validation_metric.size(), 15u);
}

TEST(Ranking, ModelRoundTripsAndExports) {
  gbdt_test::Data D = gbdt_test::make_data(1000, 3, gbdt_test::Task::kBinary, 0.0, 6);
  std::vector<uint32_t> codes(D.n);
  for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)(r / 20);
  gbdt::TrainParams p = rank_params(Objective::kRankMap, 1);
  gbdt::Model m = train_rank(D, codes, p);
  std::vector<uint8_t> bytes = gbdt::serialize_model(m);
  gbdt::Model back = gbdt::deserialize_model(bytes.data(), bytes.size());
  EXPECT_EQ(back.objective, Objective::kRankMap);
  std::string js = gbdt::export_xgboost_json(m);
  EXPECT_NE(js.find("\"name\":\"rank:map\""), std::string::npos);
  EXPECT_NE(js.find("\"lambdarank_pair_method\":\"topk\""), std::string::npos);
  gbdt::Model imp = gbdt::import_xgboost_json(js);
  EXPECT_EQ(imp.objective, Objective::kRankMap);
  EXPECT_EQ(gbdt_test::predict_all(imp, D), gbdt_test::predict_all(m, D));
}

TEST(Ranking, ParamsAndErrors) {
  gbdt::TrainParams p;
  gbdt::apply_params({{"objective", "rank:ndcg", true},
                      {"group_column", "qid", true},
                      {"lambdarank_pair_method", "mean", true},
                      {"lambdarank_num_pair_per_sample", "4", false},
                      {"ndcg_exp_gain", "false", false}},
                     &p);
  EXPECT_EQ(p.objective, Objective::kRankNDCG);
  EXPECT_FALSE(p.rank_pair_topk);
  EXPECT_EQ(gbdt::rank_params_of(p).num_pair, 4);
  EXPECT_FALSE(p.ndcg_exp_gain);
  auto kv = gbdt::params_to_kv(p);
  bool found = false;
  for (auto& e : kv) found = found || (e.first == "lambdarank_pair_method" && e.second == "mean");
  EXPECT_TRUE(found);
  // Non-ranking trainings record nothing new.
  gbdt::TrainParams r;
  for (auto& e : gbdt::params_to_kv(r)) {
    EXPECT_EQ(e.first.find("lambdarank"), std::string::npos);
    EXPECT_NE(e.first, "group_column");
  }
  EXPECT_THROW(gbdt::apply_params({{"lambdarank_pair_method", "all", true}}, &p), gbdt::InvalidInput);
  EXPECT_THROW(gbdt::apply_params({{"lambdarank_num_pair_per_sample", "0", false}}, &p),
               gbdt::InvalidInput);
  EXPECT_THROW(gbdt::apply_params({{"lambdarank_unbiased", "true", false}}, &p), gbdt::InvalidInput);
  EXPECT_THROW(gbdt::apply_params({{"eval_metric", "ndcg@", true}}, &p), gbdt::InvalidInput);

  gbdt_test::Data D = gbdt_test::make_data(200, 3, gbdt_test::Task::kRegression, 0.0, 1);
  std::vector<uint32_t> codes(D.n, 0);
  gbdt::TrainParams q = rank_params(Objective::kRankNDCG, 1);
  try {
    train_rank(D, codes, q);  // continuous labels
    FAIL() << "expected InvalidInput";
  } catch (const gbdt::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("target column \"rel\""), std::string::npos) << e.what();
  }
  gbdt_test::Data B = gbdt_test::make_data(200, 3, gbdt_test::Task::kBinary, 0.0, 1);
  try {
    gbdt_test::train(B, q);  // no groups
    FAIL() << "expected InvalidInput";
  } catch (const gbdt::InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("pass group_column"), std::string::npos) << e.what();
  }
  gbdt::TrainParams s = gbdt_test::params_for(gbdt_test::Task::kBinary, 2);
  s.group_column = "qid";
  EXPECT_THROW(train_rank(B, codes, s), gbdt::InvalidInput);
}

// The ranking objectives are registry entries (objective.h) after C's
// codes, their parameters rows of the table of parameters, their metrics
// members of eval_metric lists.
TEST(Ranking, RegistryEntriesParamsAndMetricLists) {
  EXPECT_EQ((int)Objective::kRankPairwise, 13);
  EXPECT_EQ((int)Objective::kRankNDCG, 14);
  EXPECT_EQ((int)Objective::kRankMap, 15);
  EXPECT_GE(gbdt::kNumObjectives, 16);  // survival codes follow
  for (Objective o : {Objective::kRankPairwise, Objective::kRankNDCG, Objective::kRankMap}) {
    const gbdt::ObjectiveInfo& oi = gbdt::objective_info(o);
    EXPECT_TRUE(oi.ranking) << oi.name;
    EXPECT_TRUE(gbdt::is_rank_objective(o)) << oi.name;
    EXPECT_FALSE(oi.multiclass || oi.binary) << oi.name;
  }
  EXPECT_FALSE(gbdt::is_rank_objective(Objective::kSoftmax));
  Objective x;
  ASSERT_TRUE(gbdt::parse_objective("lambdarank", &x));
  EXPECT_EQ(x, Objective::kRankNDCG);
  EXPECT_NE(gbdt::objective_name_list().find("rank:map"), std::string::npos);
  // qid_column is group_column's alias; both at once is an error.
  gbdt::TrainParams p;
  gbdt::apply_params({{"objective", "rank:pairwise", true}, {"qid_column", "q", true}}, &p);
  EXPECT_EQ(p.group_column, "q");
  EXPECT_THROW(gbdt::apply_params({{"group_column", "a", true}, {"qid_column", "b", true}}, &p),
               gbdt::InvalidInput);
  // What a ranking training records: the ranking keys, in their order, after eval_metric.
  p.eval_metric = "ndcg@5";
  auto kv = gbdt::params_to_kv(p);
  std::vector<std::string> keys;
  for (auto& e : kv) keys.push_back(e.first);
  const std::vector<std::string> tail = {"eval_metric", "group_column", "lambdarank_pair_method",
                                         "lambdarank_num_pair_per_sample", "ndcg_exp_gain"};
  ASSERT_GE(keys.size(), tail.size());
  EXPECT_EQ(std::vector<std::string>(keys.end() - tail.size(), keys.end()), tail);
  // Ranking metrics in lists (comma-separated and JSON arrays).
  gbdt::TrainParams q;
  gbdt::apply_params({{"eval_metric", "[\"ndcg@5\", \"map\"]", true}}, &q);
  EXPECT_EQ(q.eval_metric, "ndcg@5,map");
  EXPECT_TRUE(gbdt::metric_higher_is_better("pre@3"));

  gbdt_test::Data D = gbdt_test::make_data(2000, 4, gbdt_test::Task::kMulticlass, 0.0, 4);
  std::vector<uint32_t> codes(D.n);
  for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)(r % 40);
  gbdt::TrainParams t = rank_params(Objective::kRankNDCG, 1);
  t.validation_fraction = 0.25;
  t.eval_metric = "ndcg@10,map@10";
  gbdt::Model m = train_rank(D, codes, t);
  EXPECT_EQ(m.report.eval_metric, "ndcg@10,map@10");
  EXPECT_EQ(m.report.train_metric.size(), 2u);
  EXPECT_EQ(m.report.validation_metric.size(), 30u);
  std::vector<double> pred = gbdt_test::predict_all(m, D);
  (void)pred;
  // A non-ranking metric in the list of a ranking objective, a ranking one
  // in a regression's list, and row weights with ranking are errors.
  t.eval_metric = "ndcg@10,rmse";
  EXPECT_THROW(train_rank(D, codes, t), gbdt::InvalidInput);
  gbdt::TrainParams reg = gbdt_test::params_for(gbdt_test::Task::kRegression, 2);
  reg.eval_metric = "rmse,ndcg";
  EXPECT_THROW(gbdt_test::train(D, reg), gbdt::InvalidInput);
  t.eval_metric = "";
  std::vector<float> w(D.n, 1.0f);
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  gbdt::TrainInput in = D.input();
  in.query_group = codes.data();
  in.weights = w.data();
  // Weights are per query group (test_ranking_weights.cpp): one group with
  // two weights is refused.
  EXPECT_NO_THROW(gbdt::train_model(in, t, hooks, "rel"));
  w[0] = 2.0f;
  EXPECT_THROW(gbdt::train_model(in, t, hooks, "rel"), gbdt::InvalidInput);
}

}  // namespace
