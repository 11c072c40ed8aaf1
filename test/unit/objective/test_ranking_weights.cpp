// Ranking with weights (XGBoost 3.x: one weight per query group): the
// weighted LambdaMART gradients against a hand computation, the group
// weights' checks, the weighted ranking metrics and map@k against values
// printed by XGBoost 3.2, and weighted training.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/model.h"
#include "objective/objective.h"
#include "gbm/params.h"
#include "objective/lambdarank.h"
#include "test_util.h"
#include "gbm/trainer.h"

namespace {

using gbdt::Objective;

// Two groups, each one pair (relevance 1 at row 2k+1, 0 at row 2k), equal
// margins.  rank:pairwise: |delta| = 1, sigmoid(0) = 0.5, so per group
// lambda = -0.5, hessian 0.5 * 0.5 * 2 = 0.5, sum of lambdas 1 and the topk
// normalization log2(1 + 1) / 1 = 1.  Weights 1 and 3: G / sum(w) = 2 / 4,
// so group 0 is scaled by 0.5 and group 1 by 1.5.
TEST(RankingWeights, WeightedPairGradientsByHand) {
  const std::vector<float> y = {0, 1, 0, 1};
  const std::vector<uint32_t> codes = {0, 0, 1, 1};
  const std::vector<float> w = {1, 1, 3, 3};
  const std::vector<float> margins(4, 0.0f);
  gbdt::RankParams rp;
  gbdt::LambdaRank lr(Objective::kRankPairwise, rp, gbdt::make_query_groups(codes.data(), 4),
                      y.data(), 0, 1, w.data());
  double g[4], h[4];
  lr.gradients(0, margins.data(), g, h);
  EXPECT_DOUBLE_EQ(g[1], -0.5 * 0.5);
  EXPECT_DOUBLE_EQ(g[0], 0.5 * 0.5);
  EXPECT_DOUBLE_EQ(h[0], 0.5 * 0.5);
  EXPECT_DOUBLE_EQ(h[1], 0.5 * 0.5);
  EXPECT_DOUBLE_EQ(g[3], -0.5 * 1.5);
  EXPECT_DOUBLE_EQ(g[2], 0.5 * 1.5);
  EXPECT_DOUBLE_EQ(h[2], 0.5 * 1.5);
  EXPECT_DOUBLE_EQ(h[3], 0.5 * 1.5);
  // Unweighted: both groups +-0.5.
  gbdt::LambdaRank un(Objective::kRankPairwise, rp, gbdt::make_query_groups(codes.data(), 4),
                      y.data(), 0, 1);
  un.gradients(0, margins.data(), g, h);
  EXPECT_DOUBLE_EQ(g[1], -0.5);
  EXPECT_DOUBLE_EQ(g[3], -0.5);
}

// The weight scaling comes after the NDCG lambda normalization: one pair,
// |delta NDCG| = 1 - 1/log2(3), normalized by log2(1 + sum) / sum, then
// times w_g * G / sum(w).
TEST(RankingWeights, WeightAfterLambdaNormalization) {
  const std::vector<float> y = {0, 1, 1, 0};
  const std::vector<uint32_t> codes = {0, 0, 1, 1};
  const std::vector<float> w = {2, 2, 6, 6};
  const std::vector<float> margins(4, 0.0f);
  gbdt::RankParams rp;
  gbdt::LambdaRank lr(Objective::kRankNDCG, rp, gbdt::make_query_groups(codes.data(), 4),
                      y.data(), 0, 1, w.data());
  double g[4], h[4];
  lr.gradients(0, margins.data(), g, h);
  const double dn = 1.0 - 1.0 / std::log2(3.0);
  const double norm = std::log2(1.0 + dn) / dn;
  EXPECT_NEAR(g[1], -0.5 * dn * norm * 0.5, 1e-15);
  EXPECT_NEAR(h[1], 0.5 * dn * norm * 0.5, 1e-15);
  EXPECT_NEAR(g[2], -0.5 * dn * norm * 1.5, 1e-15);
  EXPECT_NEAR(g[3], 0.5 * dn * norm * 1.5, 1e-15);
}

TEST(RankingWeights, GroupWeightsMustAgreeWithinAGroup) {
  const std::vector<uint32_t> codes = {0, 1, 0, 1};
  gbdt::QueryGroups q = gbdt::make_query_groups(codes.data(), 4);
  const std::vector<float> ok = {1, 2, 1, 2};
  EXPECT_EQ(gbdt::rank_group_weights(q, ok.data()), (std::vector<double>{1, 2}));
  EXPECT_TRUE(gbdt::rank_group_weights(q, nullptr).empty());
  const std::vector<float> bad = {1, 2, 1, 5};
  try {
    gbdt::rank_group_weights(q, bad.data(), "wt");
    FAIL() << "no error";
  } catch (const gbdt::InvalidInput& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("weight column \"wt\""), std::string::npos) << m;
    EXPECT_NE(m.find("query group 2"), std::string::npos) << m;
    EXPECT_NE(m.find("two weights, 2 and 5"), std::string::npos) << m;
  }
}

// Scores 6, 5, ... within each group; expected values printed by XGBoost
// 3.2 (xgboost.train with base_margin = these scores, eta 0, eval).
struct Toy {
  std::vector<float> y = {1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0};
  std::vector<double> p = {6, 5, 4, 3, 2, 1, 3, 2, 1, 1, 2, 3, 4};
  std::vector<uint32_t> codes = {0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2};
  std::vector<float> w = {2, 2, 2, 2, 2, 2, 3, 3, 3, 5, 5, 5, 5};
};

TEST(RankingWeights, MetricsMatchXGBoost) {
  Toy t;
  gbdt::QueryGroups q = gbdt::make_query_groups(t.codes.data(), t.codes.size());
  auto un = [&](const char* n) { return gbdt::rank_metric(n, q, t.p.data(), t.y.data(), true); };
  auto wt = [&](const char* n) {
    return gbdt::rank_metric(n, q, t.p.data(), t.y.data(), true, t.w.data());
  };
  EXPECT_NEAR(un("map@3"), 0.55555555555555547, 1e-12);
  EXPECT_NEAR(un("map@3-"), 0.22222222222222221, 1e-12);
  EXPECT_NEAR(un("pre@3"), 0.22222222222222221, 1e-12);
  EXPECT_NEAR(un("ndcg@3"), 0.65642624200758548, 1e-12);
  EXPECT_NEAR(un("map"), 0.66666666666666663, 1e-12);
  EXPECT_NEAR(wt("map@3"), 0.53333333333333333, 1e-12);
  EXPECT_NEAR(wt("map@3-"), 0.23333333333333331, 1e-12);
  EXPECT_NEAR(wt("pre@3"), 0.23333333333333334, 1e-12);
  // XGBoost's ndcg adds a group without relevant documents unweighted.
  EXPECT_NEAR(wt("ndcg@3"), 0.44385574520455134, 1e-12);
  EXPECT_NEAR(wt("ndcg@3-"), 0.34385574520455131, 1e-12);
  EXPECT_NEAR(wt("map"), 0.59999999999999998, 1e-12);
}

// map@k divides by min(k, relevant documents) (XGBoost 3.2: relevant at
// ranks 1, 4 and 6 give map@1 1, map@2 0.5, map@3 1/3).
TEST(RankingWeights, MapAtKOverMinOfKAndRelevant) {
  const std::vector<float> y = {1, 0, 0, 1, 0, 1};
  const std::vector<double> p = {6, 5, 4, 3, 2, 1};
  const std::vector<uint32_t> codes(6, 0);
  auto m = [&](const char* n) {
    return gbdt::rank_metric_codes(n, codes.data(), 6, p.data(), y.data(), true);
  };
  EXPECT_NEAR(m("map@1"), 1.0, 1e-15);
  EXPECT_NEAR(m("map@2"), 0.5, 1e-15);
  EXPECT_NEAR(m("map@3"), 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(m("map"), 2.0 / 3.0, 1e-15);
}

gbdt::Model train_weighted(const gbdt_test::Data& D, const std::vector<uint32_t>& codes,
                           const std::vector<float>* w) {
  gbdt::TrainParams p;
  p.objective = Objective::kRankNDCG;
  p.objective_set = true;
  p.num_round = 8;
  p.max_depth = 3;
  p.nthread = 1;
  p.group_column = "qid";
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  gbdt::TrainInput in = D.input();
  in.query_group = codes.data();
  in.weights = w != nullptr ? w->data() : nullptr;
  return gbdt::train_model(in, p, hooks, "rel");
}

TEST(RankingWeights, TrainingWithGroupWeights) {
  gbdt_test::Data D = gbdt_test::make_data(1500, 4, gbdt_test::Task::kMulticlass, 0.0, 5);
  std::vector<uint32_t> codes(D.n);
  for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)((r * 31) % 50);
  std::vector<float> w(D.n), same(D.n, 2.0f), scaled(D.n);
  for (size_t r = 0; r < D.n; ++r) {
    w[r] = 1.0f + (float)(codes[r] % 4);
    scaled[r] = 4.0f * w[r];
  }
  const std::vector<uint8_t> plain = gbdt::serialize_model(train_weighted(D, codes, nullptr));
  gbdt::Model mw = train_weighted(D, codes, &w);
  const std::vector<uint8_t> weighted = gbdt::serialize_model(mw);
  EXPECT_NE(weighted, plain);
  // Equal weights change nothing (w_g * G / sum(w) = 1); scaling every
  // weight by 4 changes nothing either (XGBoost's normalization).
  EXPECT_EQ(gbdt::serialize_model(train_weighted(D, codes, &same)), plain);
  EXPECT_EQ(gbdt::serialize_model(train_weighted(D, codes, &scaled)), weighted);
  // The training metric is the weighted one.
  std::vector<double> pred = gbdt_test::predict_all(mw, D);
  EXPECT_NEAR(mw.report.train_metric.back(),
              gbdt::rank_metric_codes(mw.report.eval_metric, codes.data(), D.n, pred.data(),
                                      D.y.data(), true, w.data()),
              1e-6);
  // Two weights in one group: an error naming them.
  std::vector<float> bad = w;
  bad[7] += 1.0f;
  EXPECT_THROW(train_weighted(D, codes, &bad), gbdt::InvalidInput);
}

}  // namespace
