// Cross-validation at engine level: the folds (hash of the validation
// split, query groups whole, stratified balance), the bad fold counts, and
// cross_validate's history against boosters trained on each fold's rows.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "gbm/cross_validation.h"
#include "metric/metrics.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

BinnedInput binned(const Data& D) {
  return bin_input(D.input(), 256, 0, 1);
}

std::string invalid_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CrossValidation, FoldIsTheBandOfTheValidationHash) {
  for (uint64_t seed : {0ULL, 7ULL, 123456789ULL})
    for (int nfold : {2, 3, 5, 10})
      for (uint64_t r = 0; r < 2000; ++r) {
        const int k = hashed_fold(seed, r, nfold);
        ASSERT_GE(k, 0);
        ASSERT_LT(k, nfold);
        // fold k: validation at fraction (k+1)/nfold, not at k/nfold.
        if (k + 1 < nfold) {
          ASSERT_TRUE(hashed_validation_row(seed, r, (k + 1.0) / nfold));
        }
        ASSERT_FALSE(hashed_validation_row(seed, r, (double)k / nfold));
      }
}

TEST(CrossValidation, FoldErrors) {
  BinnedInput in = binned(gbdt_test::make_data(10, 2, Task::kRegression));
  EXPECT_NE(invalid_of([&] { assign_folds(in, 1, 0, false); }).find("nfold = 1 is out of range"),
            std::string::npos);
  EXPECT_NE(invalid_of([&] { assign_folds(in, 11, 0, false); }).find("nfold = 11 is more than the 10 rows"),
            std::string::npos);
  in.query_group = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4};
  EXPECT_NE(invalid_of([&] { assign_folds(in, 6, 0, false); }).find("more than the 5 query groups"),
            std::string::npos);
  EXPECT_NE(invalid_of([&] { assign_folds(in, 2, 0, true); }).find("stratified"), std::string::npos);
}

TEST(CrossValidation, QueryGroupsStayWhole) {
  BinnedInput in = binned(gbdt_test::make_data(400, 2, Task::kRegression));
  in.query_group.resize(400);
  for (size_t r = 0; r < 400; ++r) in.query_group[r] = (uint32_t)(r / 8);
  const std::vector<int32_t> f = assign_folds(in, 4, 3, false);
  for (size_t r = 0; r < 400; ++r) EXPECT_EQ(f[r], hashed_fold(3, r / 8, 4));
}

TEST(CrossValidation, StratifiedBalancesEveryClass) {
  Data D = gbdt_test::make_data(1000, 2, Task::kRegression);
  for (size_t r = 0; r < D.n; ++r) D.y[r] = (float)((r * 7919) % 3 == 0 ? 2 : (r % 5 == 0));
  BinnedInput in = binned(D);
  const int nfold = 4;
  const std::vector<int32_t> f = assign_folds(in, nfold, 9, true);
  for (float c : {0.0f, 1.0f, 2.0f}) {
    std::vector<int> count(nfold, 0);
    for (size_t r = 0; r < D.n; ++r)
      if (in.labels[r] == c) count[(size_t)f[r]]++;
    const auto mm = std::minmax_element(count.begin(), count.end());
    EXPECT_LE(*mm.second - *mm.first, 1) << "class " << c;
  }
}

TEST(CrossValidation, HistoryIsTheMeanOfTheFoldBoosters) {
  // Integer features with 9 values: every fold's rows give the cuts of all
  // rows, so a booster trained on a fold's rows alone is the fold's booster.
  Data D = gbdt_test::make_data(900, 3, Task::kRegression);
  for (int f = 0; f < 3; ++f)
    for (size_t r = 0; r < D.n; ++r) D.cols[f][r] = (float)((r * (f + 3) + f) % 9);
  for (size_t r = 0; r < D.n; ++r) D.y[r] = D.cols[0][r] * 2 + D.cols[1][r] + (float)(r % 4);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 6, 2);
  const BinnedInput in = binned(D);
  const std::vector<int32_t> fold = assign_folds(in, 3, 5, false);
  TrainHooks hooks;
  hooks.default_device = "cpu";
  const CvHistory h = cross_validate(in, p, fold, 3, hooks, "label");
  ASSERT_EQ(h.rounds, 6);
  ASSERT_EQ(h.metrics, std::vector<std::string>{"rmse"});
  std::vector<double> test;
  for (int k = 0; k < 3; ++k) {
    Data tr, te;
    for (Data* x : {&tr, &te}) {
      x->d = 3;
      x->cols.resize(3);
      x->names = D.names;
    }
    for (size_t r = 0; r < D.n; ++r) {
      Data* x = fold[r] == k ? &te : &tr;
      for (int f = 0; f < 3; ++f) x->cols[f].push_back(D.cols[f][r]);
      x->y.push_back(D.y[r]);
      x->n++;
    }
    const Model m = gbdt_test::train(tr, p);
    const std::vector<double> pred = gbdt_test::predict_all(m, te);
    test.push_back(compute_metric("rmse", m.objective, 1, pred.data(), te.y.data(), te.n));
  }
  const double mean = (test[0] + test[1] + test[2]) / 3;
  EXPECT_NEAR(h.test_mean.back(), mean, 1e-9 * mean);
  double var = 0;
  for (double v : test) var += (v - mean) * (v - mean);
  EXPECT_NEAR(h.test_std.back(), std::sqrt(var / 3), 1e-9);
  // The same history on 1 thread (folds one at a time).
  p.nthread = 1;
  const CvHistory h1 = cross_validate(in, p, fold, 3, hooks, "label");
  EXPECT_EQ(h1.test_mean, h.test_mean);
  EXPECT_EQ(h1.train_mean, h.train_mean);
}

TEST(CrossValidation, EarlyStoppingEndsAtTheBestMeanRound) {
  Data D = gbdt_test::make_data(600, 4, Task::kRegression, 0.0, 4);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 300, 2);
  p.eta = 1.0;
  p.max_depth = 8;
  p.early_stopping_rounds = 4;
  const BinnedInput in = binned(D);
  TrainHooks hooks;
  hooks.default_device = "cpu";
  const CvHistory h = cross_validate(in, p, assign_folds(in, 3, 0, false), 3, hooks, "label");
  ASSERT_GE(h.best_round, 0);
  EXPECT_EQ(h.rounds, h.best_round + 1);
  EXPECT_LT(h.rounds, 300);
  EXPECT_EQ(*std::min_element(h.test_mean.begin(), h.test_mean.end()), h.test_mean.back());
}

TEST(CrossValidation, CancelStopsTheFolds) {
  Data D = gbdt_test::make_data(20000, 8, Task::kRegression);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 100000, 2);
  const BinnedInput in = binned(D);
  std::atomic<bool> flag{false};
  TrainHooks hooks;
  hooks.default_device = "cpu";
  hooks.cancel = [&] { return flag.load(); };
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    flag = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(cross_validate(in, p, assign_folds(in, 3, 0, false), 3, hooks, "label"), Cancelled);
  t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);
}

TEST(CrossValidation, RefusesValidationParams) {
  const BinnedInput in = binned(gbdt_test::make_data(100, 2, Task::kRegression));
  TrainParams p = gbdt_test::params_for(Task::kRegression, 2);
  p.validation_fraction = 0.2;
  TrainHooks hooks;
  EXPECT_NE(invalid_of([&] { cross_validate(in, p, assign_folds(in, 2, 0, false), 2, hooks, "y"); })
                .find("validation_fraction"),
            std::string::npos);
}
