// Ranking trainings on hostile input: a ranking objective without query
// groups (one taken from an init model, or a crafted model's objective) is
// refused by the engine whatever the caller passes; the pairs a round may
// form are bounded; the LambdaRank gradients stop inside a query group on a
// cancel, polled on the calling thread only, also while a worker thread
// holds the group.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "gbm/continue_training.h"
#include "model/model.h"
#include "objective/lambdarank.h"
#include "test_util.h"
#include "gbm/trainer.h"

namespace {

using gbdt::Objective;

gbdt::TrainHooks cpu_hooks() {
  gbdt::TrainHooks h;
  h.default_device = "cpu";
  return h;
}

// Relevance degrees 0 .. 3 and 20 query groups of the rows.
struct RankData {
  gbdt_test::Data D = gbdt_test::make_data(400, 3, gbdt_test::Task::kMulticlass, 0.0, 7);
  std::vector<uint32_t> codes = std::vector<uint32_t>(D.n);
  RankData() {
    for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)(r % 20);
  }
};

gbdt::Model ranking_model(const RankData& R, Objective o) {
  gbdt::TrainParams p;
  p.objective = o;
  p.objective_set = true;
  p.num_round = 2;
  p.group_column = "qid";
  gbdt::TrainInput in = R.D.input();
  in.query_group = R.codes.data();
  return gbdt::train_model(in, p, cpu_hooks(), "rel");
}

// Continues `init` on rows without query groups the way the PostgreSQL glue
// does (rows binned with its cuts, its margins, train_binned), params
// without an objective or a group column.
void continue_without_groups(const gbdt_test::Data& D, const gbdt::Model& init) {
  gbdt::TrainParams p;
  p.num_round = 1;
  gbdt::TrainInput in = D.input();
  gbdt::BinnedInput b = gbdt::bin_with_cuts(in, init.cuts, 1);
  const std::vector<float> margins = gbdt::init_model_margins(init, in.features, 1);
  gbdt::TrainExtras ex;
  ex.init_model = &init;
  ex.init_margins = &margins;
  gbdt::train_binned(std::move(b), p, cpu_hooks(), "rel", ex);
}

std::string invalid_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gbdt::InvalidInput& e) {
    return e.what();
  }
  return "";
}

TEST(RankingSafety, ContinuingARankingModelWithoutGroupsIsRefused) {
  RankData R;
  const gbdt::Model init = ranking_model(R, Objective::kRankNDCG);
  // No objective and no group column given: the init model's rank:ndcg is
  // taken, and the rows have no query groups.
  const std::string e = invalid_of([&] { continue_without_groups(R.D, init); });
  EXPECT_NE(e.find("rank:ndcg needs query groups"), std::string::npos) << e;
  gbdt::TrainParams p;
  p.num_round = 1;
  EXPECT_THROW(gbdt::continue_training(R.D.input(), init, p, cpu_hooks(), "rel"), gbdt::InvalidInput);
  // With the groups it continues.
  gbdt::TrainInput in = R.D.input();
  in.query_group = R.codes.data();
  EXPECT_EQ(gbdt::continue_training(in, init, p, cpu_hooks(), "rel").num_rounds(), 3);
}

TEST(RankingSafety, CraftedRankingObjectiveWithoutGroupsIsRefused) {
  // A regression model whose objective code says rank:pairwise (a crafted
  // model's bytes decode to this), continued on rows without groups.
  RankData R;
  gbdt::TrainParams p0;
  p0.num_round = 2;
  p0.objective = Objective::kSquaredError;
  p0.objective_set = true;
  gbdt::Model init = gbdt::train_model(R.D.input(), p0, cpu_hooks(), "rel");
  init.objective = Objective::kRankPairwise;
  const std::string e = invalid_of([&] { continue_without_groups(R.D, init); });
  EXPECT_NE(e.find("rank:pairwise needs query groups"), std::string::npos) << e;
  // Query groups without codes never reach the gradients either.
  EXPECT_THROW(gbdt::make_query_groups(nullptr, 5), gbdt::InvalidInput);
  EXPECT_EQ(gbdt::make_query_groups(nullptr, 0).size(), 0u);
}

TEST(RankingSafety, PairsPerRoundAreCountedAndBounded) {
  // One group of 5 with labels 0 1 0 1 0, one of 3 with equal labels.
  const std::vector<uint32_t> codes = {0, 0, 0, 0, 0, 1, 1, 1};
  const std::vector<float> y = {0, 1, 0, 1, 0, 2, 2, 2};
  const gbdt::QueryGroups q = gbdt::make_query_groups(codes.data(), codes.size());
  gbdt::RankParams rp;
  rp.num_pair = 2;  // topk: 4 + 3 pairs in group 0, 2 + 1 in group 1
  EXPECT_EQ(gbdt::rank_pairs_per_round(q, y.data(), rp), 10u);
  rp.num_pair = 100;  // every pair: 10 + 3
  EXPECT_EQ(gbdt::rank_pairs_per_round(q, y.data(), rp), 13u);
  rp.topk = false;
  rp.num_pair = 3;  // mean: 3 per document of group 0; group 1 has one level
  EXPECT_EQ(gbdt::rank_pairs_per_round(q, y.data(), rp), 15u);

  // One query of 100,000 documents, all paired: 5e9 pairs a round.
  const size_t n = 100000;
  std::vector<uint32_t> one(n, 0);
  std::vector<float> rel(n);
  for (size_t i = 0; i < n; ++i) rel[i] = (float)(i % 4);
  gbdt::RankParams all;
  all.num_pair = 1000000;
  const std::string e = invalid_of([&] {
    gbdt::LambdaRank lr(Objective::kRankNDCG, all, gbdt::make_query_groups(one.data(), n), rel.data(), 0, 1);
  });
  EXPECT_NE(e.find("one round would form 4999950000 document pairs"), std::string::npos) << e;
  EXPECT_NE(e.find("lambdarank_num_pair_per_sample"), std::string::npos) << e;
  // The default truncation (32) on the same query trains.
  gbdt::RankParams top;
  EXPECT_NO_THROW(gbdt::LambdaRank(Objective::kRankNDCG, top, gbdt::make_query_groups(one.data(), n),
                                   rel.data(), 0, 1));
}

// One query of 20,000 documents all paired (2e8 pairs, seconds of work)
// after `small` small queries; the cancel callback reports a cancel from
// its second call on.  The gradients throw Cancelled before the large
// query is done (its rows keep the NaN they were given), every call of the
// callback is on the calling thread.
void expect_cancelled_inside_group(int nthread, int small) {
  const size_t big = 20000;
  const size_t n = big + 4 * (size_t)small;
  std::vector<uint32_t> codes(n);
  std::vector<float> rel(n), margins(n);
  for (size_t i = 0; i < n; ++i) {
    codes[i] = i < 4 * (size_t)small ? (uint32_t)(i / 4) + 1 : 0;
    rel[i] = (float)(i % 5);
    margins[i] = (float)gbdt_test::unif(3, i);
  }
  gbdt::RankParams rp;
  rp.num_pair = 1000000;
  gbdt::LambdaRank lr(Objective::kRankNDCG, rp, gbdt::make_query_groups(codes.data(), n), rel.data(),
                      0, nthread);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> calls{0}, foreign{0};
  const gbdt::CancelFn cancel = [&] {
    if (std::this_thread::get_id() != caller) foreign++;
    return ++calls >= 2;
  };
  std::vector<double> g(n, std::nan("")), h(n, std::nan(""));
  EXPECT_THROW(lr.gradients(0, margins.data(), g.data(), h.data(), cancel), gbdt::Cancelled);
  EXPECT_EQ(foreign.load(), 0);
  size_t untouched = 0;
  for (size_t i = 4 * (size_t)small; i < n; ++i) untouched += std::isnan(g[i]);
  EXPECT_EQ(untouched, big) << "nthread " << nthread;
}

TEST(RankingSafety, GradientsStopInsideALargeGroup) { expect_cancelled_inside_group(1, 0); }

TEST(RankingSafety, GradientsStopWhileAWorkerHoldsTheLargeGroup) {
  // The large query is group 0; with four threads a worker may hold it
  // while the calling thread computes the small ones and then waits.
  expect_cancelled_inside_group(4, 50);
}

TEST(RankingSafety, GradientsWithoutCancelAreTheSameWhateverNthread) {
  RankData R;
  for (size_t r = 0; r < R.D.n; ++r) R.codes[r] = (uint32_t)((r * 7919) % 23);
  std::vector<float> margins(R.D.n);
  for (size_t r = 0; r < R.D.n; ++r) margins[r] = (float)gbdt_test::unif(5, r);
  for (bool topk : {true, false}) {
    gbdt::RankParams rp;
    rp.topk = topk;
    std::vector<double> g1(R.D.n), h1(R.D.n), g3(R.D.n), h3(R.D.n);
    gbdt::LambdaRank a(Objective::kRankNDCG, rp, gbdt::make_query_groups(R.codes.data(), R.D.n),
                       R.D.y.data(), 1, 1);
    gbdt::LambdaRank b(Objective::kRankNDCG, rp, gbdt::make_query_groups(R.codes.data(), R.D.n),
                       R.D.y.data(), 1, 3);
    a.gradients(2, margins.data(), g1.data(), h1.data());
    b.gradients(2, margins.data(), g3.data(), h3.data(), [] { return false; });
    EXPECT_EQ(g1, g3);
    EXPECT_EQ(h1, h3);
  }
}

}  // namespace
