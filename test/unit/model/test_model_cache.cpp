// The backend's decoded-model cache (model_cache.h): identity by all the key
// bytes, pins, LRU eviction within the entry and byte budgets; and batch
// scoring with a shared prepared forest (predict.h) gives the same bits as
// a predictor that lays the trees out itself.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "model/model_cache.h"
#include "predictor/predict.h"
#include "test_util.h"

using namespace gbdt;

namespace {

std::unique_ptr<Model> tiny_model(double base) {
  std::unique_ptr<Model> m(new Model());
  m->base_score = base;
  return m;
}

int g_freed = 0;
void count_free(void*) { ++g_freed; }

std::vector<uint8_t> key_of(const char* s) { return std::vector<uint8_t>(s, s + std::strlen(s)); }

}  // namespace

TEST(ModelCache, FindsOnlyTheExactKey) {
  ModelCache c(8, 1 << 20);
  auto k1 = key_of("abcdef");
  ModelCache::Entry* e = c.insert(k1.data(), k1.size(), tiny_model(1), nullptr, nullptr, 10);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->model->base_score, 1);
  c.unpin(e);
  // Same length, one byte different; a prefix; a longer key: all misses.
  auto k2 = key_of("abcdeg");
  auto k3 = key_of("abcde");
  auto k4 = key_of("abcdefg");
  EXPECT_EQ(c.find(k2.data(), k2.size()), nullptr);
  EXPECT_EQ(c.find(k3.data(), k3.size()), nullptr);
  EXPECT_EQ(c.find(k4.data(), k4.size()), nullptr);
  ModelCache::Entry* h = c.find(k1.data(), k1.size());
  EXPECT_EQ(h, e);
  EXPECT_EQ(h->pins, 1);
  c.unpin(h);
  EXPECT_EQ(h->pins, 0);
}

TEST(ModelCache, EvictsLeastRecentlyUsedUnpinnedOverEntryBudget) {
  g_freed = 0;
  ModelCache c(2, 1 << 20);
  auto a = key_of("a"), b = key_of("b"), d = key_of("d");
  c.unpin(c.insert(a.data(), 1, tiny_model(1), &g_freed, count_free, 1));
  c.unpin(c.insert(b.data(), 1, tiny_model(2), &g_freed, count_free, 1));
  c.unpin(c.find(a.data(), 1));  // a is now more recent than b
  c.unpin(c.insert(d.data(), 1, tiny_model(3), &g_freed, count_free, 1));
  EXPECT_EQ(c.size(), 2u);
  EXPECT_EQ(g_freed, 1);  // b's extra freed with it
  EXPECT_EQ(c.find(b.data(), 1), nullptr);
  ModelCache::Entry* ea = c.find(a.data(), 1);
  ASSERT_NE(ea, nullptr);
  c.unpin(ea);
}

TEST(ModelCache, PinnedEntriesStayUntilReleasedThenGoOverBudget) {
  g_freed = 0;
  ModelCache c(1, 1 << 20);
  auto a = key_of("a"), b = key_of("b");
  ModelCache::Entry* ea = c.insert(a.data(), 1, tiny_model(1), &g_freed, count_free, 1);
  ModelCache::Entry* eb = c.insert(b.data(), 1, tiny_model(2), &g_freed, count_free, 1);
  EXPECT_EQ(c.size(), 2u);  // both pinned: over budget, nothing evicted
  EXPECT_EQ(ea->model->base_score, 1);
  EXPECT_EQ(eb->model->base_score, 2);
  c.unpin(ea);  // a goes at once
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(g_freed, 1);
  c.unpin(eb);  // within budget: stays
  EXPECT_EQ(c.size(), 1u);
  c.clear();
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(c.bytes(), 0u);
  EXPECT_EQ(g_freed, 2);
}

TEST(ModelCache, ByteBudgetCountsKeyDecodedAndAddedBytes) {
  ModelCache c(8, 100);
  auto a = key_of("aaaa"), b = key_of("bbbb");
  ModelCache::Entry* ea = c.insert(a.data(), 4, tiny_model(1), nullptr, nullptr, 40);
  EXPECT_EQ(c.bytes(), 44u);
  c.unpin(ea);
  ModelCache::Entry* eb = c.insert(b.data(), 4, tiny_model(2), nullptr, nullptr, 40);
  EXPECT_EQ(c.size(), 2u);
  c.add_cost(eb, 30);  // 118 > 100: the unpinned a goes
  EXPECT_EQ(c.size(), 1u);
  EXPECT_EQ(c.bytes(), 74u);
  EXPECT_EQ(c.find(a.data(), 4), nullptr);
  c.unpin(eb);
  // An entry larger than the whole budget is kept only while pinned.
  auto big = key_of("big");
  ModelCache::Entry* eg = c.insert(big.data(), 3, tiny_model(3), nullptr, nullptr, 500);
  EXPECT_EQ(c.find(big.data(), 3), eg);
  c.unpin(eg);
  c.unpin(eg);
  EXPECT_EQ(c.find(big.data(), 3), nullptr);
  EXPECT_LE(c.bytes(), 100u);
}

TEST(ModelCache, SharedForestScoresBitIdentically) {
  using gbdt_test::Task;
  for (Task task : {Task::kRegression, Task::kBinary, Task::kMulticlass}) {
    gbdt_test::Data D = gbdt_test::make_data(3000, 6, task, 0.1, 11);
    TrainParams p = gbdt_test::params_for(task, 12);
    Model m = gbdt_test::train(D, p);
    std::vector<float> x = D.row_major();
    const int K = m.num_output_group;
    std::vector<double> a(D.n * K), b(D.n * K), c(D.n * K);
    {
      BatchPredictor own(m, 2);
      own.start(x.data(), D.n, a.data());
      own.finish();
    }
    auto forest = prepare_forest(m);
    EXPECT_GT(prepared_forest_bytes(*forest), 0u);
    {
      BatchPredictor s1(m, 2, forest);
      BatchPredictor s2(m, 1, forest);  // two predictors share one forest
      s1.start(x.data(), D.n, b.data());
      s1.finish();
      s2.start(x.data(), D.n, c.data());
      s2.finish();
    }
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(a.data(), c.data(), a.size() * sizeof(double)));
  }
}

TEST(ModelCache, DecodedBytesGrowWithTheTrees) {
  using gbdt_test::Task;
  gbdt_test::Data D = gbdt_test::make_data(500, 4, Task::kRegression, 0.0, 3);
  Model small = gbdt_test::train(D, gbdt_test::params_for(Task::kRegression, 2));
  Model large = gbdt_test::train(D, gbdt_test::params_for(Task::kRegression, 20));
  EXPECT_GT(decoded_model_bytes(large), decoded_model_bytes(small));
}

TEST(ModelCache, RowOverPreparedForestIsBitIdentical) {
  using gbdt_test::Task;
  for (Task task : {Task::kRegression, Task::kBinary, Task::kMulticlass}) {
    for (int depth : {1, 3, 6, 12}) {  // 12: deeper than the perfect layout takes
      gbdt_test::Data D = gbdt_test::make_data(2000, 5, task, 0.15, 5 + depth);
      TrainParams p = gbdt_test::params_for(task, 37);  // not a multiple of 16 trees
      p.max_depth = depth;
      Model m = gbdt_test::train(D, p);
      auto forest = prepare_forest(m);
      const int K = m.num_output_group;
      std::vector<double> a(K), b(K);
      size_t differ = 0;
      for (size_t r = 0; r < D.n; ++r) {
        std::vector<float> x = D.row(r);
        predict_margin_row(m, x.data(), a.data(), 0, CancelFn());
        predict_margin_row(m, *forest, x.data(), b.data(), CancelFn());
        if (std::memcmp(a.data(), b.data(), K * sizeof(double)) != 0) ++differ;
        const double va = predict_value_row(m, x.data(), CancelFn());
        const double vb = predict_value_row(m, *forest, x.data(), CancelFn());
        if (std::memcmp(&va, &vb, sizeof va) != 0) ++differ;
      }
      EXPECT_EQ(differ, 0u) << "task " << (int)task << " depth " << depth;
    }
  }
}
