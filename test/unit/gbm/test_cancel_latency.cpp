// Cancel latency of the engine's long entry points: each is driven with a
// cancel callback that starts reporting a cancel 50 ms after the call
// begins, and must throw Cancelled within 200 ms of that.  The inputs are
// the hostile shapes that used to run on for seconds: a training of a
// million rounds, batch scoring over one very deep chain tree (workers that
// only stopped between trees), TreeSHAP over one deep, wide tree (polled
// once per tree), the intercepts of many quantiles on many rows (one
// uncancellable sort per quantile) and SHAP interaction values.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "objective/label_quantiles.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "predictor/treeshap.h"
#include "model/xgb_json.h"

using gbdt::Model;
using gbdt::Tree;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kFireAfter = 0.050;  // the cancel starts 50 ms after the call
constexpr double kBound = 0.200;      // and must be obeyed within 200 ms

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// Runs fn(cancel) with a cancel callback that reports a cancel from
// kFireAfter on (a timer thread raises it then and notes the process's CPU
// time); returns the time from then to the Cancelled exception (a large
// value when fn returned or threw something else): the wall-clock seconds,
// or the CPU seconds the process (all its threads) spent in that time when
// fewer, so that a test machine busy with other work does not count
// against the engine while work done after the cancel, on any thread,
// still does.
double cancel_latency(const std::function<void(const gbdt::CancelFn&)>& fn) {
  std::atomic<bool> fired{false};
  std::atomic<double> cpu_fired{0.0};
  const Clock::time_point t0 = Clock::now();
  std::thread timer([&] {
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds((int)(kFireAfter * 1000)));
    cpu_fired.store(process_cpu_seconds());
    fired.store(true);
  });
  const gbdt::CancelFn cancel = [&fired] { return fired.load(); };
  double late = 1e9;
  try {
    fn(cancel);
    ADD_FAILURE() << "not cancelled (returned after " << seconds_since(t0) << " s)";
  } catch (const gbdt::Cancelled&) {
    const double wall = seconds_since(t0) - kFireAfter;
    late = std::min(wall, process_cpu_seconds() - cpu_fired.load());
  }
  timer.join();
  return late;
}

// Appends a node to t (a leaf of value v until split) and returns its index.
int32_t add_node(Tree* t, int32_t parent, float v) {
  t->left.push_back(-1);
  t->right.push_back(-1);
  t->parent.push_back(parent);
  t->feature.push_back(-1);
  t->split_bin.push_back(0);
  t->threshold.push_back(0.0f);
  t->default_left.push_back(1);
  t->value.push_back(v);
  t->gain.push_back(0.0f);
  t->cover.push_back(1.0);
  return t->num_nodes() - 1;
}

// Splits leaf n on feature f at 0.5; returns its left child (the right
// one is a leaf of value 0.001).
int32_t split(Tree* t, int32_t n, int32_t f) {
  t->feature[n] = f;
  t->threshold[n] = 0.5f;
  t->value[n] = 0.0f;
  t->gain[n] = 1.0f;
  const int32_t l = add_node(t, n, 0.001f);
  const int32_t r = add_node(t, n, 0.001f);
  t->left[n] = l;
  t->right[n] = r;
  return l;
}

Model one_tree_model(Tree t, int n_features) {
  Model m;
  m.objective = gbdt::Objective::kSquaredError;
  m.num_output_group = 1;
  m.base_score = 0.5;
  m.base_margin = {0.5};
  for (int f = 0; f < n_features; ++f) m.feature_names.push_back("f" + std::to_string(f));
  m.feature_types.assign((size_t)n_features, gbdt::FeatureType::kFloat);
  m.trees.push_back(std::move(t));
  m.tree_group = {0};
  return m;
}

// One tree: a chain of `depth` splits on feature 0 (values < 0.5 walk all
// of it).
Model chain_model(int depth) {
  Tree t;
  int32_t n = add_node(&t, -1, 0.001f);
  for (int i = 0; i < depth; ++i) n = split(&t, n, 0);
  return one_tree_model(std::move(t), 1);
}

// One tree for TreeSHAP: `fan` levels of a full binary tree, then below
// each of its 2^fan nodes a chain of `depth` splits, every level on its own
// feature: every path is fan + depth distinct features long.
Model deep_wide_model(int fan, int depth) {
  Tree t;
  std::vector<int32_t> level = {add_node(&t, -1, 0.001f)};
  for (int f = 0; f < fan; ++f) {
    std::vector<int32_t> next;
    for (int32_t n : level) {
      const int32_t l = split(&t, n, f);
      next.push_back(l);
      next.push_back(t.right[n]);
    }
    level = next;
  }
  for (int32_t n : level)
    for (int f = fan; f < fan + depth; ++f) n = split(&t, n, f);
  return one_tree_model(std::move(t), fan + depth);
}

}  // namespace

TEST(CancelLatency, TrainingOfAMillionRounds) {
  gbdt_test::Data D = gbdt_test::make_data(4000, 5, gbdt_test::Task::kRegression);
  gbdt::TrainParams p = gbdt_test::params_for(gbdt_test::Task::kRegression, 1000000, 2);
  const double late = cancel_latency([&](const gbdt::CancelFn& cancel) {
    gbdt::TrainHooks hooks;
    hooks.default_device = "cpu";
    hooks.cancel = cancel;
    gbdt::train_model(D.input(), p, hooks, "label");
  });
  EXPECT_LT(late, kBound);
}

// One tree 100,000 splits deep over 8192 rows (32 blocks of 256): a block
// walks 25.6 million nodes, so workers must stop inside the tree.
TEST(CancelLatency, BatchScoringOfADeepChain) {
  const Model m = chain_model(100000);
  const size_t n = 8192;
  std::vector<float> x(n, 0.25f);
  std::vector<double> out(n);
  for (int nthread : {1, 2}) {
    const double late = cancel_latency([&](const gbdt::CancelFn& cancel) {
      gbdt::predict_batch(m, x.data(), n, out.data(), nthread, cancel);
    });
    EXPECT_LT(late, kBound) << "nthread " << nthread;
  }
}

// 32 chains of 480 splits under 5 full levels: one row visits every node
// with paths up to 485 features long (about 2 * 10^9 path steps).
TEST(CancelLatency, TreeShapOfADeepWideTree) {
  const Model m = deep_wide_model(5, 480);
  const gbdt::TreeShap ts(m);
  std::vector<float> x((size_t)m.n_features(), 0.25f);
  std::vector<double> phi((size_t)ts.K() * ts.width());
  gbdt::TreeShap::Scratch s;
  const double late = cancel_latency([&](const gbdt::CancelFn& cancel) {
    ts.contributions(x.data(), phi.data(), s, cancel);
  });
  EXPECT_LT(late, kBound);
}

TEST(CancelLatency, ShapInteractionsOfADeepTree) {
  const Model m = deep_wide_model(4, 480);
  const gbdt::TreeShap ts(m);
  std::vector<float> x((size_t)m.n_features(), 0.25f);
  std::vector<double> out((size_t)ts.K() * ts.width() * ts.width());
  gbdt::TreeShap::Scratch s;
  const double late = cancel_latency([&](const gbdt::CancelFn& cancel) {
    ts.interactions(x.data(), out.data(), s, cancel);
  });
  EXPECT_LT(late, kBound);
}

// The intercepts of 64 quantiles of 3 million labels: one sort, polled.
TEST(CancelLatency, QuantileInterceptsOfManyRows) {
  const size_t n = 3000000;
  std::vector<float> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = (float)gbdt_test::unif(7, i);
  std::vector<double> alphas;
  for (int k = 1; k <= 64; ++k) alphas.push_back(k / 65.0);
  const double late = cancel_latency([&](const gbdt::CancelFn& cancel) {
    gbdt::label_quantiles(y.data(), nullptr, n, alphas, cancel);
  });
  EXPECT_LT(late, kBound);
}

// A training of 64 quantiles on 300,000 rows: intercepts, one backend per
// quantile, refit leaves, all polled.
TEST(CancelLatency, TrainingOfManyQuantiles) {
  gbdt_test::Data D = gbdt_test::make_data(300000, 2, gbdt_test::Task::kRegression);
  gbdt::TrainParams p = gbdt_test::params_for(gbdt_test::Task::kRegression, 1000, 2);
  p.objective = gbdt::Objective::kQuantile;
  for (int k = 1; k <= 64; ++k) p.quantile_alphas.push_back(k / 65.0);
  p.quantile_alpha = p.quantile_alphas[0];
  const double late = cancel_latency([&](const gbdt::CancelFn& cancel) {
    gbdt::TrainHooks hooks;
    hooks.default_device = "cpu";
    hooks.cancel = cancel;
    gbdt::train_model(D.input(), p, hooks, "label");
  });
  EXPECT_LT(late, kBound);
}

// XGBoost JSON of one chain tree of `depth` splits (scripts/
// cancel_latency_models.py writes the same shape for the SQL harness).
static std::string chain_json(int depth) {
  const int n = 2 * depth + 1;
  std::string l, r, p, c, w, f, z, one;
  for (int i = 0; i < n; ++i) {
    const bool inner = i % 2 == 0 && i < 2 * depth;
    const char* sep = i ? "," : "";
    l += sep + std::to_string(inner ? i + 2 : -1);
    r += sep + std::to_string(inner ? i + 1 : -1);
    p += sep + std::to_string(i == 0 ? 2147483647 : (i - 1) / 2 * 2);
    c += std::string(sep) + (inner ? "0.5" : "0.001");
    w += std::string(sep) + (inner ? "0" : "0.001");
    f += std::string(sep) + "0";
    z += std::string(sep) + (inner ? "1" : "0");
    one += std::string(sep) + "1";
  }
  return "{\"learner\":{\"attributes\":{},\"feature_names\":[\"a\"],\"feature_types\":[\"float\"],"
         "\"gradient_booster\":{\"name\":\"gbtree\",\"model\":{\"gbtree_model_param\":"
         "{\"num_parallel_tree\":\"1\",\"num_trees\":\"1\"},\"iteration_indptr\":[0,1],"
         "\"tree_info\":[0],\"trees\":[{\"id\":0,\"base_weights\":[" + w +
         "],\"categories\":[],\"categories_nodes\":[],\"categories_segments\":[],"
         "\"categories_sizes\":[],\"default_left\":[" + one + "],\"left_children\":[" + l +
         "],\"right_children\":[" + r + "],\"parents\":[" + p + "],\"loss_changes\":[" + z +
         "],\"split_conditions\":[" + c + "],\"split_indices\":[" + f + "],\"split_type\":[" + f +
         "],\"sum_hessian\":[" + one + "],\"tree_param\":{\"num_deleted\":\"0\",\"num_feature\":"
         "\"1\",\"num_nodes\":\"" + std::to_string(n) + "\",\"size_leaf_vector\":\"1\"}}]}},"
         "\"learner_model_param\":{\"base_score\":\"[5E-1]\",\"boost_from_average\":\"1\","
         "\"num_class\":\"0\",\"num_feature\":\"1\",\"num_target\":\"1\"},\"objective\":"
         "{\"name\":\"reg:squarederror\",\"reg_loss_param\":{\"scale_pos_weight\":\"1\"}}},"
         "\"version\":[3,2,0]}";
}

// The intercepts as they were computed before label_quantiles: one
// std::stable_sort per alpha (XGBoost's rule, objective.h).
static double reference_quantile(const float* y, const float* w, size_t n, double alpha) {
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [y](size_t a, size_t b) { return y[a] < y[b]; });
  if (!w) {
    const double nn = (double)n;
    if (alpha <= 1.0 / (nn + 1)) return y[idx[0]];
    if (alpha >= nn / (nn + 1)) return y[idx[n - 1]];
    const double x = alpha * (nn + 1);
    const double k = std::floor(x) - 1;
    const double d = (x - 1) - k;
    const double v0 = y[idx[(size_t)k]], v1 = y[idx[(size_t)k + 1]];
    return v0 + d * (v1 - v0);
  }
  std::vector<double> cdf(n);
  double s = 0;
  for (size_t i = 0; i < n; ++i) cdf[i] = (s += w[idx[i]]);
  size_t j = (size_t)(std::lower_bound(cdf.begin(), cdf.end(), alpha * s) - cdf.begin());
  return y[idx[std::min(j, n - 1)]];
}

// Importing a 2-million-node chain (80 MB of JSON): the parser and the
// tree conversion poll.
TEST(CancelLatency, ImportOfAHugeChain) {
  const std::string json = chain_json(1000000);
  ASSERT_EQ(gbdt::import_xgboost_json(chain_json(3)).trees[0].num_nodes(), 7);
  const double late = cancel_latency([&](const gbdt::CancelFn& cancel) {
    gbdt::XgbImportLimits lim;
    lim.cancel = cancel;
    gbdt::import_xgboost_json(json, lim);
  });
  EXPECT_LT(late, kBound);
}

// The merge sort behind label_quantiles gives std::stable_sort's order
// (ties in index order), so every intercept is the value it was.
TEST(CancelLatency, QuantilesFromOneSortEqualEachAlone) {
  const size_t n = 50000;
  std::vector<float> y(n), w(n);
  for (size_t i = 0; i < n; ++i) {
    y[i] = (float)std::floor(gbdt_test::unif(3, i) * 500) * 0.5f - 40.0f;  // many ties
    w[i] = (float)gbdt_test::unif(4, i);
  }
  y[10] = -0.0f;
  y[20] = 0.0f;
  const std::vector<double> alphas = {0.0, 1e-6, 0.1, 0.25, 0.5, 0.77, 0.9, 1.0};
  for (const float* wp : {(const float*)nullptr, (const float*)w.data()}) {
    const std::vector<double> q = gbdt::label_quantiles(y.data(), wp, n, alphas, gbdt::CancelFn());
    for (size_t k = 0; k < alphas.size(); ++k)
      EXPECT_EQ(q[k], reference_quantile(y.data(), wp, n, alphas[k])) << "alpha " << alphas[k];
  }
  std::vector<size_t> idx, ref(n);
  gbdt::stable_value_order(y.data(), n, &idx, nullptr);
  for (size_t i = 0; i < n; ++i) ref[i] = i;
  std::stable_sort(ref.begin(), ref.end(), [&](size_t a, size_t b) { return y[a] < y[b]; });
  EXPECT_EQ(idx, ref);
}
