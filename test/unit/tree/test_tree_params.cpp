// Tree parameters of XGBoost's hist updater (constraints.h, tree_grower.h):
// the general grower against the level-wise fast path, lossguide and
// max_leaves, monotone and interaction constraints, per-level/per-node
// column sampling, parameter errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "tree/tree_backend.h"
#include "tree/constraints.h"
#include "gbm/continue_training.h"
#include "objective/gradients.h"
#include "model/model.h"
#include "predictor/predict.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

// Trees and final margins of `rounds` rounds on the CPU backend.
struct BackendRun {
  std::vector<Tree> trees;
  std::vector<float> margins;
};

BackendRun run_backend(const Data& D, const TrainParams& p, const TreeExtParams& ext, int K = 1,
                       const TrainInput* in = nullptr,
                       const std::vector<uint32_t>* n_categories = nullptr) {
  BinnedInput b = bin_input(in ? *in : D.input(), p.max_bin, 0, 2);
  BoostData bd;
  bd.matrix = &b.matrix;
  bd.cuts = &b.cuts;
  bd.labels = b.labels.data();
  bd.n_rows = b.matrix.n_rows;
  bd.num_group = K;
  bd.objective = p.objective;
  bd.split = SplitParams{p.reg_lambda, p.reg_alpha, p.gamma, p.min_child_weight,
                         p.effective_max_delta_step(), p.eta};
  bd.max_depth = p.max_depth;
  bd.subsample = p.subsample;
  bd.seed = p.seed;
  bd.nthread = 2;
  bd.tree_ext = ext;
  bd.n_categories = n_categories;  // categorical features
  bd.cat_split = CatSplitParams{p.max_cat_to_onehot, p.max_cat_threshold};
  std::unique_ptr<TreeBackend> be = make_cpu_backend();
  std::vector<float> m0(bd.n_rows * (size_t)K, 0.25f);
  be->init(bd, m0);
  BackendRun r;
  const int d = D.d;
  for (int round = 0; round < p.num_round; ++round) {
    std::vector<uint8_t> mask((size_t)d, 1);
    if (p.colsample_bytree < 1.0)  // every other feature, shifting per round
      for (int f = 0; f < d; ++f) mask[f] = (uint8_t)((f + round) % 2 == 0);
    be->boost_round(round, mask, &r.trees);
  }
  be->margins(&r.margins);
  return r;
}

void expect_same_trees(const BackendRun& a, const BackendRun& b) {
  ASSERT_EQ(a.trees.size(), b.trees.size());
  for (size_t t = 0; t < a.trees.size(); ++t) {
    const Tree& x = a.trees[t];
    const Tree& y = b.trees[t];
    ASSERT_EQ(x.num_nodes(), y.num_nodes()) << "tree " << t;
    EXPECT_EQ(x.left, y.left) << "tree " << t;
    EXPECT_EQ(x.right, y.right) << "tree " << t;
    EXPECT_EQ(x.feature, y.feature) << "tree " << t;
    EXPECT_EQ(x.split_bin, y.split_bin) << "tree " << t;
    EXPECT_EQ(x.default_left, y.default_left) << "tree " << t;
    EXPECT_EQ(0, std::memcmp(x.value.data(), y.value.data(), x.value.size() * sizeof(float)));
    EXPECT_EQ(0, std::memcmp(x.gain.data(), y.gain.data(), x.gain.size() * sizeof(float)));
    EXPECT_EQ(x.cover, y.cover) << "tree " << t;
  }
  ASSERT_EQ(a.margins.size(), b.margins.size());
  EXPECT_EQ(0, std::memcmp(a.margins.data(), b.margins.data(), a.margins.size() * sizeof(float)));
}

int num_leaves(const Tree& t) {
  int n = 0;
  for (int32_t i = 0; i < t.num_nodes(); ++i) n += t.is_leaf(i);
  return n;
}

int depth_of(const Tree& t, int32_t n) {
  int d = 0;
  while (t.parent[n] >= 0) {
    n = t.parent[n];
    ++d;
  }
  return d;
}

TrainParams with(TrainParams p, const std::vector<ParamKV>& kvs) {
  apply_params(kvs, &p);
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

std::string param_error(const std::vector<ParamKV>& kvs) {
  TrainParams p;
  try {
    apply_params(kvs, &p);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

// Largest decrease of the prediction along a grid of feature f (others from
// real rows): <= 0 means non-decreasing everywhere.
double worst_decrease(const Model& m, const Data& D, int f, int dir) {
  double worst = -1e300;
  for (size_t r = 0; r < D.n; r += D.n / 40) {
    std::vector<float> x = D.row(r);
    double prev = 0;
    for (int g = 0; g <= 100; ++g) {
      x[f] = (float)(-1.0 + 0.02 * g);
      double out = 0;
      predict_margin_row(m, x.data(), &out, 0, CancelFn());
      if (g > 0) worst = std::max(worst, dir > 0 ? prev - out : out - prev);
      prev = out;
    }
  }
  return worst;
}

}  // namespace

// Without any new parameter, the general grower builds the fast path's trees
// bit for bit (gains, values, covers, node numbering, margins).
TEST(TreeParams, GeneralGrowerMatchesLevelwise) {
  struct Case {
    Task task;
    double missing;
    std::vector<ParamKV> kv;
  };
  std::vector<Case> cases = {
      {Task::kRegression, 0.0, {{"max_depth", "5"}}},
      {Task::kRegression, 0.2, {{"max_depth", "3"}, {"alpha", "0.5"}, {"gamma", "0.1"}}},
      {Task::kBinary, 0.1, {{"subsample", "0.7"}, {"colsample_bytree", "0.5"}}},
      {Task::kCount, 0.0, {{"max_depth", "4"}}},  // max_delta_step 0.7: scalar scan
      {Task::kRegression, 0.0, {{"max_depth", "1"}, {"min_child_weight", "20"}}},
  };
  for (const Case& c : cases) {
    Data D = gbdt_test::make_data(3000, 6, c.task, c.missing, 5);
    TrainParams p = with(gbdt_test::params_for(c.task, 4), c.kv);
    TreeExtParams plain, forced;
    forced.force_general = true;
    ASSERT_FALSE(plain.general());
    ASSERT_TRUE(forced.general());
    BackendRun a = run_backend(D, p, plain);
    BackendRun b = run_backend(D, p, forced);
    expect_same_trees(a, b);
    EXPECT_GT(a.trees[0].num_nodes(), 1);
  }
}

// Lossguide without a leaf limit takes every split depth-wise growth takes:
// other node numbers, the same function.
TEST(TreeParams, LossguideWithoutLimitIsDepthwiseRenumbered) {
  Data D = gbdt_test::make_data(3000, 5, Task::kRegression, 0.1, 8);
  TrainParams p = with(gbdt_test::params_for(Task::kRegression, 5), {{"max_depth", "4"}});
  TreeExtParams dw, lg;
  dw.force_general = true;
  lg.lossguide = true;
  BackendRun a = run_backend(D, p, dw);
  BackendRun b = run_backend(D, p, lg);
  ASSERT_EQ(a.trees.size(), b.trees.size());
  bool renumbered = false;
  for (size_t t = 0; t < a.trees.size(); ++t) {
    EXPECT_EQ(a.trees[t].num_nodes(), b.trees[t].num_nodes());
    renumbered |= a.trees[t].feature != b.trees[t].feature;
  }
  EXPECT_TRUE(renumbered) << "best-first order never differed from level order";
  EXPECT_EQ(0, std::memcmp(a.margins.data(), b.margins.data(), a.margins.size() * sizeof(float)));
}

TEST(TreeParams, MaxLeavesBoundsLeaves) {
  Data D = gbdt_test::make_data(4000, 6, Task::kRegression, 0.0, 9);
  for (const char* policy : {"lossguide", "depthwise"}) {
    for (int ml : {2, 5, 8}) {
      std::vector<ParamKV> kv = {{"grow_policy", policy, true},
                                 {"max_leaves", std::to_string(ml)}};
      if (std::string(policy) == "lossguide") kv.push_back({"max_depth", "0"});
      TrainParams p = with(gbdt_test::params_for(Task::kRegression, 6), kv);
      Model m = gbdt_test::train(D, p);
      int most = 0;
      for (const Tree& t : m.trees) {
        EXPECT_LE(num_leaves(t), ml) << policy;
        most = std::max(most, num_leaves(t));
      }
      EXPECT_EQ(most, ml) << policy << ": trees never reached max_leaves";
    }
  }
  // Lossguide without a depth limit grows deeper than depthwise's levels.
  TrainParams p = with(gbdt_test::params_for(Task::kRegression, 3),
                       {{"grow_policy", "lossguide", true}, {"max_leaves", "64"}, {"max_depth", "0"}});
  Model m = gbdt_test::train(D, p);
  int deepest = 0;
  for (const Tree& t : m.trees)
    for (int32_t n = 0; n < t.num_nodes(); ++n) deepest = std::max(deepest, depth_of(t, n));
  EXPECT_GT(deepest, 6);
  bool recorded = false;
  for (auto& kv : m.params) recorded |= kv.first == "grow_policy" && kv.second == "lossguide";
  EXPECT_TRUE(recorded);
}

TEST(TreeParams, MonotoneHoldsOnGrid) {
  // y falls then rises in x0 and rises then falls in x1.
  Data D = gbdt_test::make_data(4000, 4, Task::kRegression, 0.05, 12);
  for (size_t r = 0; r < D.n; ++r) {
    const double a = std::isnan(D.cols[0][r]) ? 0 : D.cols[0][r];
    const double b = std::isnan(D.cols[1][r]) ? 0 : D.cols[1][r];
    D.y[r] = (float)(a + 0.8 * std::sin(6 * a) - b - 0.8 * std::sin(5 * b) + (std::isnan(D.cols[3][r]) ? 0.0 : 0.3 * D.cols[3][r]));
  }
  TrainParams base = gbdt_test::params_for(Task::kRegression, 30);
  Model free_m = gbdt_test::train(D, base);
  EXPECT_GT(worst_decrease(free_m, D, 0, 1), 1e-3) << "the data should break monotonicity";
  EXPECT_GT(worst_decrease(free_m, D, 1, -1), 1e-3);
  for (const char* spec : {"(1,-1)", "{\"f0\": 1, \"f1\": -1}", "[1,-1,0,0]"}) {
    for (const char* policy : {"depthwise", "lossguide"}) {
      TrainParams p = with(base, {{"monotone_constraints", spec, true},
                                  {"grow_policy", policy, true},
                                  {"max_leaves", "16"}, {"alpha", "0.1"}, {"max_delta_step", "2"}});
      Model m = gbdt_test::train(D, p);
      EXPECT_LE(worst_decrease(m, D, 0, 1), 0.0) << spec << " " << policy;
      EXPECT_LE(worst_decrease(m, D, 1, -1), 0.0) << spec << " " << policy;
      std::string rec;
      for (auto& kv : m.params)
        if (kv.first == "monotone_constraints") rec = kv.second;
      EXPECT_EQ(rec, "(1,-1,0,0)");
    }
  }
}

TEST(TreeParams, InteractionConstraintsLimitPaths) {
  Data D = gbdt_test::make_data(4000, 6, Task::kRegression, 0.0, 13);
  for (size_t r = 0; r < D.n; ++r)
    D.y[r] = D.cols[0][r] * D.cols[2][r] + D.cols[1][r] * D.cols[3][r] + D.cols[4][r];
  const std::vector<std::set<int>> sets = {{0, 1}, {2, 3, 4}};
  auto violations = [&](const Model& m) {
    int bad = 0;
    for (const Tree& t : m.trees)
      for (int32_t n = 0; n < t.num_nodes(); ++n) {
        if (!t.is_leaf(n)) continue;
        std::set<int> used;
        for (int32_t a = t.parent[n]; a >= 0; a = t.parent[a]) used.insert(t.feature[a]);
        bool ok = false;
        for (const auto& s : sets)
          ok |= std::includes(s.begin(), s.end(), used.begin(), used.end());
        bad += !ok;
      }
    return bad;
  };
  TrainParams base = gbdt_test::params_for(Task::kRegression, 10);
  EXPECT_GT(violations(gbdt_test::train(D, base)), 0);
  for (const char* spec : {"[[\"f0\",\"f1\"],[\"f2\",\"f3\",\"f4\"]]", "[[0,1],[4,3,2]]"}) {
    Model m = gbdt_test::train(D, with(base, {{"interaction_constraints", spec, true}}));
    EXPECT_EQ(violations(m), 0) << spec;
    EXPECT_GT(m.trees[0].num_nodes(), 7);
    std::string rec;
    for (auto& kv : m.params)
      if (kv.first == "interaction_constraints") rec = kv.second;
    EXPECT_EQ(rec, "[[0,1],[2,3,4]]");
  }
  // f5 is in no set: once used, a branch stops.
  Model m = gbdt_test::train(D, with(base, {{"interaction_constraints", "[[0,1]]", true}}));
  for (const Tree& t : m.trees)
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (!t.is_leaf(n) && t.parent[n] >= 0) {
        EXPECT_LE(t.feature[n], 1);
        EXPECT_LE(t.feature[t.parent[n]], 1);
      }
}

TEST(TreeParams, ColsampleByLevelAndNode) {
  Data D = gbdt_test::make_data(3000, 8, Task::kRegression, 0.0, 14);
  TrainParams base = with(gbdt_test::params_for(Task::kRegression, 6), {{"max_depth", "4"}});
  // bylevel keeping one feature: every node of a level splits on one feature.
  Model m = gbdt_test::train(D, with(base, {{"colsample_bylevel", "0.125"}}));
  std::set<int> all;
  for (const Tree& t : m.trees) {
    std::vector<std::set<int>> per_level(5);
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (!t.is_leaf(n)) {
        per_level[depth_of(t, n)].insert(t.feature[n]);
        all.insert(t.feature[n]);
      }
    for (const auto& s : per_level) EXPECT_LE(s.size(), 1u);
  }
  EXPECT_GT(all.size(), 2u);
  // bynode keeping one feature: nodes of one level differ somewhere.
  Model n1 = gbdt_test::train(D, with(base, {{"colsample_bynode", "0.125"}}));
  bool differ = false;
  for (const Tree& t : n1.trees) {
    std::vector<std::set<int>> per_level(5);
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (!t.is_leaf(n)) per_level[depth_of(t, n)].insert(t.feature[n]);
    for (const auto& s : per_level) differ |= s.size() > 1;
  }
  EXPECT_TRUE(differ);
  // Deterministic from the seed; another seed samples otherwise.
  TrainParams pn = with(base, {{"colsample_bynode", "0.5"}, {"colsample_bylevel", "0.8"}});
  Model a = gbdt_test::train(D, pn), b = gbdt_test::train(D, pn);
  pn.seed = 7;
  Model c = gbdt_test::train(D, pn);
  EXPECT_EQ(a.trees[3].feature, b.trees[3].feature);
  EXPECT_EQ(a.trees[3].value, b.trees[3].value);
  bool other = false;
  for (size_t t = 0; t < a.trees.size(); ++t) other |= a.trees[t].feature != c.trees[t].feature;
  EXPECT_TRUE(other);
}

TEST(TreeParams, Errors) {
  Data D = gbdt_test::make_data(500, 3, Task::kRegression, 0.0, 15);
  TrainParams base = gbdt_test::params_for(Task::kRegression, 2);
  auto has = [](const std::string& e, const char* s) {
    return e.find(s) != std::string::npos;
  };
  std::string e = error_of(D, with(base, {{"monotone_constraints", "{\"nope\": 1}", true}}));
  EXPECT_TRUE(has(e, "monotone_constraints") && has(e, "\"nope\"") && has(e, "f0, f1, f2")) << e;
  e = error_of(D, with(base, {{"monotone_constraints", "(1,2)", true}}));
  EXPECT_TRUE(has(e, "monotone_constraints") && has(e, "-1, 0 or 1")) << e;
  e = error_of(D, with(base, {{"monotone_constraints", "(1,0,0,1)", true}}));
  EXPECT_TRUE(has(e, "4 entries for 3 features")) << e;
  e = error_of(D, with(base, {{"monotone_constraints", "(1,", true}}));
  EXPECT_TRUE(has(e, "monotone_constraints") && has(e, "not valid")) << e;
  e = error_of(D, with(base, {{"interaction_constraints", "[[\"f0\",\"zz\"]]", true}}));
  EXPECT_TRUE(has(e, "interaction_constraints") && has(e, "\"zz\"")) << e;
  e = error_of(D, with(base, {{"interaction_constraints", "[[0,3]]", true}}));
  EXPECT_TRUE(has(e, "interaction_constraints") && has(e, "[0, 2]")) << e;
  e = error_of(D, with(base, {{"interaction_constraints", "[0,1]", true}}));
  EXPECT_TRUE(has(e, "interaction_constraints") && has(e, "not a list")) << e;

  EXPECT_TRUE(has(param_error({{"grow_policy", "leafwise", true}}), "depthwise or lossguide"));
  EXPECT_TRUE(has(param_error({{"max_leaves", "-1"}}), "[0, 65536]"));
  EXPECT_TRUE(has(param_error({{"colsample_bylevel", "0"}}), "colsample_bylevel\" = 0 is out of range"));
  EXPECT_TRUE(has(param_error({{"colsample_bynode", "1.5"}}), "in (0, 1]"));
  EXPECT_EQ(param_error({{"max_depth", "0"}}),
            "parameter \"max_depth\" = 0 is out of range: must be an integer in [1, 16]");
  EXPECT_TRUE(has(param_error({{"max_depth", "0"}, {"grow_policy", "lossguide", true}}),
                  "needs max_leaves > 0"));
  EXPECT_EQ(param_error({{"max_depth", "0"}, {"grow_policy", "lossguide", true}, {"max_leaves", "4"}}), "");
  EXPECT_EQ(param_error({{"num_parallel_tree", "0"}}),
            "parameter \"num_parallel_tree\" = 0 is out of range: must be an integer in [1, 1000]");
  EXPECT_TRUE(has(param_error({{"sampling_method", "gradient_based", true}}), "only uniform"));
  EXPECT_TRUE(has(param_error({{"multi_strategy", "multi_output_tree", true}}), "only one_output_per_tree"));
  EXPECT_TRUE(has(param_error({{"process_type", "update", true}}), "only default"));
  EXPECT_TRUE(has(param_error({{"updater", "grow_colmaker", true}}), "\"updater\""));
  EXPECT_EQ(param_error({{"sampling_method", "uniform", true}, {"num_parallel_tree", "1"}}), "");

  // the CUDA backend grows lossguide too: device cuda takes it, and where
  // there is no CUDA build or device the error says that, not grow_policy.
  try {
    gbdt_test::train(D, with(base, {{"grow_policy", "lossguide", true},
                                    {"max_leaves", "4"},
                                    {"device", "cuda", true}}));
    EXPECT_TRUE(cuda_compiled() && cuda_device_count() > 0) << "trained on cuda without a device";
  } catch (const std::exception& x) {
    const std::string m = x.what();
    EXPECT_FALSE(has(m, "grow_policy")) << m;
    EXPECT_TRUE(has(m, "device \"cuda\" requested") || has(m, "device 'cuda' requested")) << m;
    EXPECT_FALSE(cuda_compiled() && cuda_device_count() > 0) << m;
  }
}

TEST(TreeParams, UnusedParamsKeepTheRecord) {
  TrainParams a;
  TrainParams b = with(a, {{"grow_policy", "depthwise", true}, {"colsample_bylevel", "1"},
                           {"colsample_bynode", "1"}, {"max_leaves", "0"},
                           {"monotone_constraints", "(0,0)", true}});
  TreeExtParams ext;
  resolve_tree_params(&b, {"x", "y"}, &ext);
  EXPECT_FALSE(ext.general());
  EXPECT_EQ(params_to_kv(a), params_to_kv(b));
}

// The regression objectives and row weights with the tree parameters:
// monotone constraints hold for reg:quantileerror and reg:absoluteerror
// (adaptive leaves, refit then bounded), reg:pseudohubererror and
// a weighted reg:squarederror training, with both grow policies.
TEST(TreeParams, MonotoneWithNewObjectivesAndWeights) {
  Data D = gbdt_test::make_data(3000, 4, Task::kRegression, 0.05, 31);
  for (size_t r = 0; r < D.n; ++r) {
    const double a = std::isnan(D.cols[0][r]) ? 0 : D.cols[0][r];
    D.y[r] = (float)(a + 0.8 * std::sin(6 * a) + (std::isnan(D.cols[2][r]) ? 0.0 : 0.3 * D.cols[2][r]));
  }
  TrainParams base = gbdt_test::params_for(Task::kRegression, 20);
  for (const char* policy : {"depthwise", "lossguide"}) {
    for (const char* obj : {"reg:quantileerror", "reg:absoluteerror", "reg:pseudohubererror"}) {
      TrainParams p = with(base, {{"objective", obj, true},
                                  {"monotone_constraints", "(1,0,0,0)", true},
                                  {"grow_policy", policy, true}, {"max_leaves", "12"},
                                  {"quantile_alpha", "0.8"}});
      Model m = gbdt_test::train(D, p);
      EXPECT_LE(worst_decrease(m, D, 0, 1), 0.0) << obj << " " << policy;
      bool rec_mono = false, rec_q = false;
      for (auto& kv : m.params) {
        rec_mono |= kv.first == "monotone_constraints" && kv.second == "(1,0,0,0)";
        rec_q |= kv.first == "quantile_alpha";
      }
      EXPECT_TRUE(rec_mono) << obj;
      EXPECT_TRUE(rec_q) << obj;  // set to 0.8: recorded as C records it
    }
    // Row weights reach the general grower through the gradients.
    std::vector<float> w(D.n);
    for (size_t r = 0; r < D.n; ++r) w[r] = (float)(0.25 + (r % 7) * 0.5);
    TrainInput in = D.input();
    in.weights = w.data();
    TrainHooks hooks;
    hooks.default_device = "cpu";
    TrainParams p = with(base, {{"monotone_constraints", "(1,0,0,0)", true},
                                {"grow_policy", policy, true}, {"max_leaves", "12"}});
    Model weighted = train_model(in, p, hooks, "label");
    Model plain = gbdt_test::train(D, p);
    EXPECT_LE(worst_decrease(weighted, D, 0, 1), 0.0) << policy;
    ASSERT_EQ(weighted.trees.size(), plain.trees.size());
    EXPECT_NE(weighted.trees[0].value, plain.trees[0].value) << policy;
    // Weights of one change nothing, with the general grower too.
    std::vector<float> ones(D.n, 1.0f);
    in.weights = ones.data();
    Model one = train_model(in, p, hooks, "label");
    for (size_t t = 0; t < one.trees.size(); ++t)
      EXPECT_EQ(one.trees[t].value, plain.trees[t].value) << policy << " tree " << t;
  }
}

// Categorical features in the general grower.  Column 0 gets 30
// categories (partition splits), column 1 3 categories (one-hot); the label
// depends on both.  Without new parameters the general grower builds the
// fast path's trees bit for bit (categorical sets included); with lossguide,
// colsample_bynode, interaction and monotone constraints it still makes
// categorical splits; a monotone constraint on a categorical column is refused.
namespace {
struct CatInput {
  Data D;
  std::vector<std::vector<std::string>> cats;
  std::vector<uint32_t> counts;
  TrainInput input() const {
    TrainInput in = D.input();
    in.feature_types[0] = in.feature_types[1] = FeatureType::kCategorical;
    in.categories = cats;
    return in;
  }
};
CatInput make_cat_input(uint64_t seed) {
  CatInput c;
  c.D = gbdt_test::make_data(3000, 6, Task::kRegression, 0.1, seed);
  const std::set<int> member = {2, 3, 5, 11, 13, 17, 19, 23, 29};
  for (size_t r = 0; r < c.D.n; ++r) {
    const int a = std::min(29, (int)(gbdt_test::unif(seed + 7, r) * 30));
    const int b = std::min(2, (int)(gbdt_test::unif(seed + 8, r) * 3));
    if (!std::isnan(c.D.cols[0][r])) c.D.cols[0][r] = (float)a;
    c.D.cols[1][r] = (float)b;
    c.D.y[r] += (member.count(a) ? 2.0f : 0.0f) + (b == 1 ? -1.0f : 0.0f);
  }
  c.cats.assign(6, {});
  for (int k = 0; k < 30; ++k) c.cats[0].push_back("a" + std::to_string(k));
  for (int k = 0; k < 3; ++k) c.cats[1].push_back("b" + std::to_string(k));
  c.counts = {30, 3, 0, 0, 0, 0};
  return c;
}
int cat_nodes(const std::vector<Tree>& trees) {
  int n = 0;
  for (const Tree& t : trees)
    for (int32_t i = 0; i < t.num_nodes(); ++i) n += !t.is_leaf(i) && t.is_categorical(i);
  return n;
}
}  // namespace

TEST(TreeParams, GeneralGrowerCategorical) {
  CatInput c = make_cat_input(21);
  const TrainInput in = c.input();
  for (const std::vector<ParamKV>& kv :
       {std::vector<ParamKV>{{"max_depth", "5"}},
        std::vector<ParamKV>{{"max_depth", "4"}, {"max_cat_to_onehot", "8"}, {"subsample", "0.7"}}}) {
    TrainParams p = with(gbdt_test::params_for(Task::kRegression, 4), kv);
    TreeExtParams plain, forced;
    forced.force_general = true;
    BackendRun a = run_backend(c.D, p, plain, 1, &in, &c.counts);
    BackendRun b = run_backend(c.D, p, forced, 1, &in, &c.counts);
    expect_same_trees(a, b);
    EXPECT_GT(cat_nodes(a.trees), 0);
    for (size_t t = 0; t < a.trees.size(); ++t) {
      EXPECT_EQ(a.trees[t].cat_offset, b.trees[t].cat_offset) << "tree " << t;
      EXPECT_EQ(a.trees[t].cat_bits, b.trees[t].cat_bits) << "tree " << t;
    }
  }
  TrainHooks hooks;
  hooks.default_device = "cpu";
  for (const std::vector<ParamKV>& kv :
       {std::vector<ParamKV>{{"grow_policy", "lossguide"}, {"max_leaves", "12"}},
        std::vector<ParamKV>{{"colsample_bynode", "0.6"}, {"max_depth", "4"}},
        std::vector<ParamKV>{{"interaction_constraints", "[[0, 2], [1, 3, 4, 5]]"}},
        std::vector<ParamKV>{{"monotone_constraints", "(0,0,1,0,0,0)"}}}) {
    TrainParams p = with(gbdt_test::params_for(Task::kRegression, 6), kv);
    Model m = train_model(in, p, hooks, "label");
    EXPECT_GT(cat_nodes(m.trees), 0) << kv[0].key;
    // The binned walk of training and the raw walk of prediction agree.
    const std::vector<uint8_t> bytes = serialize_model(m);
    Model back = deserialize_model(bytes.data(), bytes.size());
    EXPECT_EQ(gbdt_test::predict_all(back, c.D), gbdt_test::predict_all(m, c.D)) << kv[0].key;
  }
  // Monotone in the numeric column 2 with categorical splits around it.
  TrainParams pm = with(gbdt_test::params_for(Task::kRegression, 6), {{"monotone_constraints", "(0,0,1,0,0,0)"}});
  Model mm = train_model(in, pm, hooks, "label");
  EXPECT_LE(worst_decrease(mm, c.D, 2, 1), 1e-6);
  TrainParams bad = with(gbdt_test::params_for(Task::kRegression, 2), {{"monotone_constraints", "(1,0,0,0,0,0)"}});
  try {
    train_model(in, bad, hooks, "label");
    ADD_FAILURE() << "monotone constraint on a categorical column accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("categorical feature \"f0\""), std::string::npos) << e.what();
  }
}

// A + T (merge of wt-t into wt-bt): lossguide with categorical features keeps
// max_leaves (with and without a depth limit) and still splits on the
// categorical columns; depthwise max_leaves likewise.
TEST(TreeParams, LossguideCategoricalRespectsMaxLeaves) {
  CatInput c = make_cat_input(23);
  const TrainInput in = c.input();
  TrainHooks hooks;
  hooks.default_device = "cpu";
  for (const char* policy : {"lossguide", "depthwise"}) {
    for (int ml : {3, 7}) {
      std::vector<ParamKV> kv = {{"grow_policy", policy, true}, {"max_leaves", std::to_string(ml)}};
      if (std::string(policy) == "lossguide") kv.push_back({"max_depth", "0"});
      TrainParams p = with(gbdt_test::params_for(Task::kRegression, 6), kv);
      Model m = train_model(in, p, hooks, "label");
      int most = 0;
      for (const Tree& t : m.trees) {
        EXPECT_LE(num_leaves(t), ml) << policy;
        most = std::max(most, num_leaves(t));
      }
      EXPECT_EQ(most, ml) << policy << ": trees never reached max_leaves";
      EXPECT_GT(cat_nodes(m.trees), 0) << policy << " " << ml;
      const std::vector<uint8_t> bytes = serialize_model(m);
      Model back = deserialize_model(bytes.data(), bytes.size());
      EXPECT_EQ(gbdt_test::predict_all(back, c.D), gbdt_test::predict_all(m, c.D)) << policy;
    }
  }
}

// Interaction constraints naming the categorical columns by name: every
// root-to-leaf path stays inside one set, categorical splits included, and
// the record holds the canonical index form.
TEST(TreeParams, InteractionConstraintsNameCategoricalColumns) {
  CatInput c = make_cat_input(24);
  const TrainInput in = c.input();
  TrainHooks hooks;
  hooks.default_device = "cpu";
  const std::vector<std::set<int>> sets = {{0, 2}, {1, 3, 4}};
  auto violations = [&](const Model& m) {
    int bad = 0;
    for (const Tree& t : m.trees)
      for (int32_t n = 0; n < t.num_nodes(); ++n) {
        if (!t.is_leaf(n)) continue;
        std::set<int> used;
        for (int32_t a = t.parent[n]; a >= 0; a = t.parent[a]) used.insert(t.feature[a]);
        bool ok = false;
        for (const auto& s : sets) ok |= std::includes(s.begin(), s.end(), used.begin(), used.end());
        bad += !ok;
      }
    return bad;
  };
  TrainParams base = gbdt_test::params_for(Task::kRegression, 8);
  EXPECT_GT(violations(train_model(in, base, hooks, "label")), 0) << "the data should mix sets";
  for (const char* policy : {"depthwise", "lossguide"}) {
    TrainParams p = with(base, {{"interaction_constraints", "[[\"f0\",\"f2\"],[\"f1\",\"f3\",\"f4\"]]", true},
                                {"grow_policy", policy, true}, {"max_leaves", "16"}});
    Model m = train_model(in, p, hooks, "label");
    EXPECT_EQ(violations(m), 0) << policy;
    int cat0 = 0, cat1 = 0;
    for (const Tree& t : m.trees)
      for (int32_t n = 0; n < t.num_nodes(); ++n)
        if (!t.is_leaf(n) && t.is_categorical(n)) (t.feature[n] == 0 ? cat0 : cat1)++;
    EXPECT_GT(cat0, 0) << policy;
    EXPECT_GT(cat1, 0) << policy;
    std::string rec;
    for (auto& kv : m.params)
      if (kv.first == "interaction_constraints") rec = kv.second;
    EXPECT_EQ(rec, "[[0,2],[1,3,4]]");
  }
}

// Monotone constraints on a numeric column hold on a grid with categorical
// columns present, under lossguide too; a constraint on a categorical column
// is refused by name in the object form as well.
TEST(TreeParams, MonotoneWithCategoricalPresent) {
  CatInput c = make_cat_input(25);
  for (size_t r = 0; r < c.D.n; ++r) {
    const double x = std::isnan(c.D.cols[2][r]) ? 0 : c.D.cols[2][r];
    c.D.y[r] += (float)(0.8 * std::sin(6 * x));  // breaks the order in column 2
  }
  const TrainInput in = c.input();
  TrainHooks hooks;
  hooks.default_device = "cpu";
  TrainParams base = gbdt_test::params_for(Task::kRegression, 10);
  EXPECT_GT(worst_decrease(train_model(in, base, hooks, "label"), c.D, 2, 1), 1e-3);
  for (const char* policy : {"depthwise", "lossguide"}) {
    TrainParams p = with(base, {{"monotone_constraints", "{\"f2\": 1}", true},
                                {"grow_policy", policy, true}, {"max_leaves", "20"}});
    Model m = train_model(in, p, hooks, "label");
    EXPECT_LE(worst_decrease(m, c.D, 2, 1), 1e-6) << policy;
    EXPECT_GT(cat_nodes(m.trees), 0) << policy;
  }
  TrainParams bad = with(base, {{"monotone_constraints", "{\"f1\": -1}", true}});
  try {
    train_model(in, bad, hooks, "label");
    ADD_FAILURE() << "monotone constraint on a categorical column accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("categorical feature \"f1\""), std::string::npos) << e.what();
  }
}

// Continued training with the tree parameters: 10 rounds then 10 more give
// the trees of 20 rounds at once (the column samples are seeded by the
// round number of the whole model), for each tree parameter.
TEST(TreeParams, ContinuedTrainingWithTreeParams) {
  Data D = gbdt_test::make_data(3000, 6, Task::kRegression, 0.1, 26);
  TrainHooks hooks;
  hooks.default_device = "cpu";
  for (const std::vector<ParamKV>& kv :
       {std::vector<ParamKV>{{"grow_policy", "lossguide", true}, {"max_leaves", "10"}, {"max_depth", "0"}},
        std::vector<ParamKV>{{"colsample_bynode", "0.5"}, {"colsample_bylevel", "0.7"}},
        std::vector<ParamKV>{{"interaction_constraints", "[[\"f0\",\"f1\"],[\"f2\",\"f3\",\"f4\"]]", true}},
        std::vector<ParamKV>{{"monotone_constraints", "(1,0,-1,0,0,0)", true}, {"max_leaves", "9"}}}) {
    TrainParams p = with(gbdt_test::params_for(Task::kRegression, 20), kv);
    TrainParams p10 = p;
    p10.num_round = 10;
    Model once = gbdt_test::train(D, p);
    Model first = gbdt_test::train(D, p10);
    Model cont = continue_training(D.input(), first, p10, hooks);
    ASSERT_EQ(cont.trees.size(), once.trees.size()) << kv[0].key;
    for (size_t t = 0; t < once.trees.size(); ++t) {
      EXPECT_EQ(cont.trees[t].feature, once.trees[t].feature) << kv[0].key << " tree " << t;
      EXPECT_EQ(cont.trees[t].value, once.trees[t].value) << kv[0].key << " tree " << t;
    }
    bool rec = false, rounds = false;
    for (auto& x : cont.params) {
      rec |= x.first == kv[0].key;
      rounds |= x.first == "init_model_rounds" && x.second == "10";
    }
    EXPECT_TRUE(rec) << kv[0].key << " not recorded in the continued model";
    EXPECT_TRUE(rounds) << kv[0].key << ": init_model_rounds lost from the params record";
  }
}

// Ranking (gradients from LambdaRank) with the tree parameters: lossguide with
// max_leaves and a monotone constraint grow with the ranking gradients.
TEST(TreeParams, RankingWithTreeParams) {
  Data D = gbdt_test::make_data(3000, 5, Task::kMulticlass, 0.02, 27);
  std::vector<uint32_t> codes(D.n);
  for (size_t r = 0; r < D.n; ++r) codes[r] = (uint32_t)(r % 60);
  TrainHooks hooks;
  hooks.default_device = "cpu";
  TrainInput in = D.input();
  in.query_group = codes.data();
  TrainParams p = with(TrainParams(), {{"objective", "rank:ndcg", true}, {"group_column", "qid", true},
                                       {"num_round", "8"}, {"grow_policy", "lossguide", true},
                                       {"max_leaves", "6"}, {"monotone_constraints", "(1,0,0,0,0)", true}});
  Model m = train_model(in, p, hooks, "rel");
  ASSERT_EQ(m.trees.size(), 8u);
  int most = 0;
  for (const Tree& t : m.trees) {
    EXPECT_LE(num_leaves(t), 6);
    most = std::max(most, num_leaves(t));
  }
  EXPECT_EQ(most, 6);
  EXPECT_LE(worst_decrease(m, D, 0, 1), 1e-6);
  p.nthread = 1;
  TrainParams p2 = p;
  p2.nthread = 2;
  EXPECT_EQ(serialize_model(train_model(in, p, hooks, "rel")),
            serialize_model(train_model(in, p2, hooks, "rel")));
}
