// Training across servers in one process: shards are ShardWorkers behind
// a loopback ShardLink (the bytes of every request and reply go through
// the same encoding the PostgreSQL transport carries).  The model must be
// the one train_model builds on the shards' rows concatenated in shard
// order, byte for byte (timings zeroed).
#include <gtest/gtest.h>

#include <memory>

#include "distributed/loopback_link.h"
#include "distributed/shard_protocol.h"
#include "gbdt/distributed.h"
#include "model/model.h"
#include "test_util.h"

using gbdt::TrainParams;
using gbdt_test::Data;
using gbdt_test::Task;
using gbdt_test::LoopbackLink;
using gbdt_test::SliceSource;

namespace {

std::vector<uint8_t> bytes_of(gbdt::Model m) {
  m.report.seconds_load = m.report.seconds_bin = m.report.seconds_train = 0;
  return gbdt::serialize_model(m);
}

gbdt::Model train_local(const Data& D, const TrainParams& p, const std::vector<float>* w) {
  gbdt::TrainInput in = D.input();
  if (w) in.weights = w->data();
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  return gbdt::train_model(in, p, hooks, "label");
}

using gbdt_test::train_shards;

void expect_same(const Data& D, const TrainParams& p, std::vector<size_t> bounds,
                 const std::vector<float>* w = nullptr) {
  const gbdt::Model local = train_local(D, p, w);
  const gbdt::Model dist = train_shards(D, p, std::move(bounds), w);
  ASSERT_EQ(local.trees.size(), dist.trees.size());
  for (size_t t = 0; t < local.trees.size(); ++t) {
    ASSERT_EQ(local.trees[t].feature, dist.trees[t].feature) << "tree " << t;
    ASSERT_EQ(local.trees[t].split_bin, dist.trees[t].split_bin) << "tree " << t;
    ASSERT_EQ(local.trees[t].value, dist.trees[t].value) << "tree " << t;
  }
  EXPECT_EQ(local.report.train_metric, dist.report.train_metric);
  EXPECT_EQ(local.report.validation_metric, dist.report.validation_metric);
  EXPECT_EQ(bytes_of(local), bytes_of(dist));
}

}  // namespace

TEST(TrainDistributed, BinaryMatchesOneServer) {
  const Data D = gbdt_test::make_data(3000, 6, Task::kBinary, 0.1, 3);
  TrainParams p = gbdt_test::params_for(Task::kBinary, 12, 1);
  expect_same(D, p, {0, 1000, 1700, 3000});
}

TEST(TrainDistributed, RegressionWithSamplingAndValidation) {
  const Data D = gbdt_test::make_data(4000, 5, Task::kRegression, 0.05, 4);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 30, 2);
  p.subsample = 0.7;
  p.colsample_bytree = 0.8;
  p.seed = 9;
  p.validation_fraction = 0.2;
  p.early_stopping_rounds = 3;
  p.max_depth = 4;
  expect_same(D, p, {0, 1500, 1501, 4000});
}

TEST(TrainDistributed, MulticlassWeightedMatchesOneServer) {
  const Data D = gbdt_test::make_data(2500, 4, Task::kMulticlass, 0.0, 5);
  std::vector<float> w(D.n);
  for (size_t r = 0; r < D.n; ++r) w[r] = 0.5f + (float)gbdt_test::unif(77, r);
  TrainParams p = gbdt_test::params_for(Task::kMulticlass, 6, 1);
  p.num_class = 4;
  expect_same(D, p, {0, 800, 2500}, &w);
}

// More rows than the cut sample: the sample picks rows by global id.
TEST(TrainDistributed, CutSampleAcrossShards) {
  const Data D = gbdt_test::make_data(6000, 3, Task::kBinary, 0.2, 6);
  TrainParams p = gbdt_test::params_for(Task::kBinary, 5, 1);
  p.bin_sample_rows = 1000;
  p.min_data_in_leaf = 20;
  expect_same(D, p, {0, 2000, 2100, 4000, 6000});
}

// An empty shard is allowed; the bytes do not depend on how rows are split.
TEST(TrainDistributed, AnyNumberOfShards) {
  const Data D = gbdt_test::make_data(1800, 4, Task::kRegression, 0.0, 8);
  TrainParams p = gbdt_test::params_for(Task::kRegression, 8, 1);
  const auto one = bytes_of(train_shards(D, p, {0, 1800}, nullptr));
  EXPECT_EQ(one, bytes_of(train_shards(D, p, {0, 0, 900, 1800}, nullptr)));
  EXPECT_EQ(one, bytes_of(train_shards(D, p, {0, 1, 2, 3, 1800}, nullptr)));
}

// What crosses is histograms: far less than the rows' bytes.
TEST(TrainDistributed, TrafficIsHistograms) {
  const Data D = gbdt_test::make_data(20000, 8, Task::kBinary, 0.0, 9);
  TrainParams p = gbdt_test::params_for(Task::kBinary, 4, 1);
  gbdt::ShardTraffic t;
  train_shards(D, p, {0, 10000, 20000}, nullptr, &t);
  const double bound = 4.0 * 2 /*shards*/ * (1 + 1 + 2 + 4 + 8 + 16) * 8 * 257 * 16;
  EXPECT_GT(t.histogram_bytes, 0u);
  EXPECT_LE((double)t.histogram_bytes, bound);
}

TEST(TrainDistributed, RefusesWhatNeedsEveryRow) {
  TrainParams p;
  p.objective_set = true;
  p.objective = gbdt::Objective::kRankNDCG;
  EXPECT_NE(gbdt::distributed_refusal(p), "");
  p.objective = gbdt::Objective::kQuantile;
  EXPECT_NE(gbdt::distributed_refusal(p), "");
  p.objective = gbdt::Objective::kLogistic;
  EXPECT_EQ(gbdt::distributed_refusal(p), "");
  p.lossguide = true;
  EXPECT_NE(gbdt::distributed_refusal(p), "");
}

// A shard's requests come from whoever calls the shard function: out of
// order or malformed ones are errors, never a crash.
TEST(TrainDistributed, ShardRefusesHostileRequests) {
  const Data D = gbdt_test::make_data(100, 3, Task::kBinary, 0.0, 10);
  SliceSource src(D, 0, 100, nullptr);
  gbdt::ShardOpenRequest r;
  r.relation = "t";
  r.target = "label";
  r.features = D.names;
  auto w = gbdt::open_shard_worker(src, r, gbdt::CancelFn());
  const gbdt::CancelFn none;
  EXPECT_THROW(w->step("grad", gbdt::encode_u64(0), none), gbdt::InvalidInput);   // before bin and setup
  EXPECT_THROW(w->step("split", "xx", none), gbdt::InvalidInput);                 // malformed
  EXPECT_THROW(w->step("bin", std::string(7, '\0'), none), gbdt::InvalidInput);  // short
  EXPECT_THROW(w->step("nope", "", none), gbdt::InvalidInput);
  gbdt::Tree t;
  t.add_node(-1, 0.f, 0.0);
  t.left[0] = 0;  // a cycle
  t.right[0] = 0;
  t.feature.assign(1, 0);
  t.split_bin.assign(1, 0);
  t.default_left.assign(1, 0);
  gbdt::Cuts c;
  c.ptr = {0, 1, 2, 3};
  c.values = {0.f, 0.f, 0.f};
  c.min_values = {0.f, 0.f, 0.f};
  EXPECT_THROW(gbdt::decode_finish_request(gbdt::encode(gbdt::FinishRequest{0, t}), c), gbdt::InvalidInput);
}

namespace {

// A worker of D's rows driven to an open tree (setup with max_depth).
std::unique_ptr<gbdt::ShardWorker> worker_at_root(const Data& D, int max_depth, double memory_limit) {
  SliceSource src(D, 0, D.n, nullptr);
  gbdt::ShardOpenRequest r;
  r.relation = "t";
  r.target = "label";
  r.features = D.names;
  r.nthread = 1;
  auto w = gbdt::open_shard_worker(src, r, gbdt::CancelFn(), 0, memory_limit);
  const gbdt::CancelFn none;
  gbdt::BinRequest b;
  b.cuts = gbdt::compute_cuts(D.input().features, 256, 1);
  w->step("bin", gbdt::encode(b), none);
  gbdt::SetupRequest s;
  s.objective = (int32_t)gbdt::Objective::kSquaredError;
  s.base_margins = {0.0f};
  s.max_depth = max_depth;
  w->step("setup", gbdt::encode(s), none);
  const gbdt::GradMaxima m = gbdt::decode_grad_maxima(w->step("grad", gbdt::encode_u64(0), none));
  gbdt::QuantizeRequest q;
  q.maxima = m;
  q.n_total = D.n;
  w->step("quantize", gbdt::encode(q), none);
  w->step("root", gbdt::encode_u64(0), none);
  return w;
}

std::string split_of(int32_t node, int32_t left) {
  gbdt::SplitRequest q;
  q.splits.push_back(gbdt::SplitOrder{node, 0, 0, 0, left, left + 1, 1});
  return gbdt::encode(q);
}

}  // namespace

// Splits past max_depth would let a caller grow the open nodes (and their
// histograms) without bound: refused.
TEST(TrainDistributed, ShardRefusesSplitsPastMaxDepth) {
  const Data D = gbdt_test::make_data(200, 3, Task::kRegression, 0.0, 11);
  auto w = worker_at_root(D, 2, 0);
  const gbdt::CancelFn none;
  EXPECT_NO_THROW(w->step("split", split_of(0, 1), none));
  EXPECT_NO_THROW(w->step("split", split_of(1, 3), none));
  EXPECT_THROW(w->step("split", split_of(3, 5), none), gbdt::InvalidInput);
  EXPECT_THROW(w->step("split", split_of(0, 7), none), gbdt::InvalidInput);  // no longer open
}

// The histograms a request makes are charged to the worker's memory limit.
TEST(TrainDistributed, ShardChargesItsMemoryLimit) {
  const Data D = gbdt_test::make_data(200, 3, Task::kRegression, 0.0, 12);
  EXPECT_THROW(worker_at_root(D, 6, 1000.0), std::exception);  // the root's histogram alone is over it
  EXPECT_NO_THROW(worker_at_root(D, 6, 64e6));
}
