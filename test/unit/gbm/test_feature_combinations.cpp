// Cross-feature robustness sweep: small trainings over a
// pairwise-covering subset of the combinations of objective family x
// grow_policy x categorical column (none / narrow / wide > 255 levels, with
// NULLs, and unseen categories at predict time) x num_parallel_tree x
// sampling x validation fraction x weights x init_model continuation x
// constraints.  Each case checks: no crash; a combination the engine
// refuses throws gbdt::InvalidInput (and exactly the combinations listed in
// expected_invalid() do); two runs byte-equal and nthread 1 == nthread 2;
// model bytes round trip; predictions finite (unseen codes and NULL rows
// included); XGBoost JSON export/import margins within 1e-6; SHAP
// contributions sum to the margin.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gbm/continue_training.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "gbm/trainer.h"
#include "predictor/treeshap.h"
#include "model/xgb_json.h"

using namespace gbdt;
using gbdt_test::unif;

namespace {

// ---- the grid -------------------------------------------------------------

enum Obj { kReg, kBin, kMulti, kQuantiles, kPoisson, kGamma, kTweedie, kAft, kCox, kRank, kNumObj };
const char* const kObjNames[] = {"reg", "binary", "multiclass", "quantiles", "poisson",
                                 "gamma", "tweedie", "aft", "cox", "rank_ndcg"};

// Dimensions (values per dimension): objective, grow policy, categorical
// column, num_parallel_tree, sampling, validation fraction, weights,
// init_model continuation, constraints, extras (none / early stopping
// with two eval metrics / few bins with one-hot and small partition sets).
enum Dim {
  kDObj, kDGrow, kDCat, kDTrees, kDSample, kDValid, kDWeights, kDInit, kDCons, kDExtra, kNumDims
};
const int kDimSize[kNumDims] = {kNumObj, 2, 3, 2, 2, 2, 2, 2, 3, 3};

struct Combo {
  int v[kNumDims];
  std::string name() const {
    static const char* cat[] = {"nocat", "cat20", "cat400"};
    static const char* cons[] = {"nocons", "monotone", "interaction"};
    std::ostringstream o;
    o << kObjNames[v[kDObj]] << "_" << (v[kDGrow] ? "lossguide" : "depthwise") << "_"
      << cat[v[kDCat]] << "_npt" << (v[kDTrees] ? 3 : 1) << (v[kDSample] ? "_sampled" : "")
      << (v[kDValid] ? "_valid" : "") << (v[kDWeights] ? "_weighted" : "")
      << (v[kDInit] ? "_init" : "") << "_" << cons[v[kDCons]]
      << (v[kDExtra] == 1 ? "_earlystop" : v[kDExtra] == 2 ? "_fewbins" : "");
    return o.str();
  }
};

// Greedy t-wise covering (AETG-style, t = 2 or 3): each new case is the
// candidate, of a fixed pseudo-random batch, covering the most value
// t-tuples (of any t dimensions) not covered yet.  Deterministic.
using Tuple = std::array<int, 6>;  // (dim, value) x t; unused slots -1

template <class Fn>
void for_each_tuple(const Combo& c, int t, Fn fn) {
  for (int a = 0; a < kNumDims; ++a)
    for (int b = a + 1; b < kNumDims; ++b) {
      if (t == 2) {
        fn(Tuple{a, c.v[a], b, c.v[b], -1, -1});
        continue;
      }
      for (int e = b + 1; e < kNumDims; ++e) fn(Tuple{a, c.v[a], b, c.v[b], e, c.v[e]});
    }
}

std::set<Tuple> all_tuples(int t) {
  std::set<Tuple> all;
  for (int a = 0; a < kNumDims; ++a)
    for (int b = a + 1; b < kNumDims; ++b)
      for (int x = 0; x < kDimSize[a]; ++x)
        for (int y = 0; y < kDimSize[b]; ++y) {
          if (t == 2) {
            all.insert(Tuple{a, x, b, y, -1, -1});
            continue;
          }
          for (int e = b + 1; e < kNumDims; ++e)
            for (int z = 0; z < kDimSize[e]; ++z) all.insert(Tuple{a, x, b, y, e, z});
        }
  return all;
}

std::vector<Combo> covering_cases(int t, uint64_t seed) {
  std::set<Tuple> uncovered = all_tuples(t);
  std::vector<Combo> out;
  uint64_t ctr = 0;
  while (!uncovered.empty()) {
    Combo best{};
    size_t best_gain = 0;
    for (int cand = 0; cand < 40; ++cand) {
      Combo c;
      for (int d = 0; d < kNumDims; ++d)
        c.v[d] = std::min(kDimSize[d] - 1, (int)(unif(seed, ctr++) * kDimSize[d]));
      // Start from an uncovered tuple so that every batch makes progress.
      const Tuple& u = *uncovered.begin();
      for (int i = 0; i < 6 && (cand == 0 || cand % 2 == 1); i += 2)
        if (u[i] >= 0) c.v[u[i]] = u[i + 1];
      size_t gain = 0;
      for_each_tuple(c, t, [&](const Tuple& x) { gain += uncovered.count(x); });
      if (gain > best_gain) {
        best_gain = gain;
        best = c;
      }
    }
    for_each_tuple(best, t, [&](const Tuple& x) { uncovered.erase(x); });
    out.push_back(best);
  }
  return out;
}

// ---- data -----------------------------------------------------------------

constexpr int kNumeric = 4;

struct CaseData {
  size_t n = 0;
  int d = 0;
  int levels = 0;  // categories of the last column (0: no categorical column)
  std::vector<std::vector<float>> cols;
  std::vector<float> y, upper, w;
  std::vector<uint32_t> groups;
  std::vector<std::vector<std::string>> cats;
  std::vector<std::string> names;

  TrainInput input() const {
    TrainInput in;
    in.features.n_rows = n;
    for (const auto& c : cols) in.features.columns.push_back(c.data());
    in.labels = y.data();
    in.feature_names = names;
    in.feature_types.assign((size_t)d, FeatureType::kFloat);
    if (levels > 0) {
      in.feature_types[(size_t)d - 1] = FeatureType::kCategorical;
      in.categories = cats;
    }
    if (!upper.empty()) in.labels_upper = upper.data();
    if (!w.empty()) in.weights = w.data();
    if (!groups.empty()) in.query_group = groups.data();
    return in;
  }
};

CaseData make_case_data(int obj, int levels, bool weighted, size_t n, uint64_t seed) {
  CaseData D;
  D.n = n;
  D.levels = levels;
  D.d = kNumeric + (levels > 0 ? 1 : 0);
  D.cols.assign((size_t)D.d, std::vector<float>(n));
  for (int f = 0; f < D.d; ++f) D.names.push_back("f" + std::to_string(f));
  if (levels > 0) {
    D.cats.assign((size_t)D.d, {});
    for (int k = 0; k < levels; ++k) D.cats.back().push_back("c" + std::to_string(k));
  }
  D.y.resize(n);
  if (obj == kAft) D.upper.resize(n);
  const size_t group_rows = 20;
  if (obj == kRank)
    for (size_t r = 0; r < n; ++r) D.groups.push_back((uint32_t)(r / group_rows));
  for (size_t r = 0; r < n; ++r) {
    double x[kNumeric];
    for (int f = 0; f < kNumeric; ++f) {
      x[f] = unif(seed * 100 + (uint64_t)f, r) * 2 - 1;
      const bool miss = unif(seed * 100 + 50 + (uint64_t)f, r) < 0.05;  // NULLs
      D.cols[f][r] = miss ? NAN : (float)x[f];
    }
    const double u = unif(seed * 100 + 90, r);
    double s = 1.5 * x[0] + std::sin(3 * x[1]) + x[2] * x[3] + 0.3 * (u - 0.5);
    if (levels > 0) {
      const bool miss = unif(seed * 100 + 91, r) < 0.05;
      const int code = std::min(levels - 1, (int)(unif(seed * 100 + 92, r) * levels));
      D.cols.back()[r] = miss ? NAN : (float)code;
      if (!miss) s += 0.3 * (code % 7 - 3);
    }
    switch (obj) {
      case kReg:
      case kQuantiles: D.y[r] = (float)s; break;
      case kBin: D.y[r] = s > 0 ? 1.0f : 0.0f; break;
      case kMulti: D.y[r] = s < -0.7 ? 0.0f : s < 0.7 ? 1.0f : 2.0f; break;
      case kPoisson:
      case kTweedie: D.y[r] = (float)std::floor(std::exp(0.5 * s) * (0.5 + u)); break;
      case kGamma: D.y[r] = (float)(std::exp(0.3 * s) * (0.5 + u)); break;
      case kAft: {
        const float lo = (float)(std::exp(0.3 * s) * (0.5 + u));
        D.y[r] = lo;
        D.upper[r] = r % 3 == 0 ? std::numeric_limits<float>::infinity()
                     : r % 5 == 0 ? 1.5f * lo
                                  : lo;
        break;
      }
      case kCox: {
        const float t = (float)(std::exp(0.3 * s) * (0.5 + u));
        D.y[r] = r % 4 == 0 ? -t : t;  // negative: right-censored
        break;
      }
      case kRank: D.y[r] = (float)std::max(0.0, std::min(4.0, std::floor((s + 2.5) * 0.8))); break;
    }
  }
  if (weighted) {
    D.w.resize(n);
    for (size_t r = 0; r < n; ++r)
      D.w[r] = obj == kRank ? 0.5f + 0.5f * (float)((r / group_rows) % 3)  // one weight per group
                            : (float)(0.2 + 2.0 * unif(seed * 100 + 93, r));
  }
  return D;
}

// Rows scored after training: the training rows' first 200, then rows with
// every value NULL, and rows whose category code was never seen (>= the
// number of categories).
std::vector<float> predict_rows(const CaseData& D, size_t* n_out) {
  const size_t base = std::min<size_t>(D.n, 200);
  const size_t n = base + 6;
  std::vector<float> x(n * (size_t)D.d);
  for (size_t r = 0; r < base; ++r)
    for (int f = 0; f < D.d; ++f) x[r * D.d + f] = D.cols[f][r];
  for (size_t r = base; r < n; ++r)
    for (int f = 0; f < D.d; ++f) {
      const bool all_null = r < base + 2;
      float v = all_null ? NAN : (float)(unif(777, r * 8 + f) * 2 - 1);
      if (!all_null && f == D.d - 1 && D.levels > 0) v = (float)(D.levels + (int)(r - base));
      x[r * D.d + f] = v;
    }
  *n_out = n;
  return x;
}

// ---- parameters -----------------------------------------------------------

TrainParams params_for(const Combo& c, int d) {
  TrainParams p;
  p.num_round = 3;
  p.nthread = 1;
  p.max_depth = 4;
  p.objective_set = true;
  p.seed = 7;
  switch (c.v[kDObj]) {
    case kReg: p.objective = Objective::kSquaredError; break;
    case kBin: p.objective = Objective::kLogistic; break;
    case kMulti:
      p.objective = Objective::kSoftprob;
      p.num_class = 3;
      break;
    case kQuantiles:
      p.objective = Objective::kQuantile;
      p.quantile_alphas = {0.1, 0.5, 0.9};
      break;
    case kPoisson: p.objective = Objective::kPoisson; break;
    case kGamma: p.objective = Objective::kGamma; break;
    case kTweedie: p.objective = Objective::kTweedie; break;
    case kAft:
      p.objective = Objective::kSurvivalAft;
      p.label_upper_bound_column = "hi";
      break;
    case kCox: p.objective = Objective::kSurvivalCox; break;
    case kRank:
      p.objective = Objective::kRankNDCG;
      p.group_column = "qid";
      break;
  }
  if (c.v[kDGrow]) {
    p.lossguide = true;
    p.max_leaves = 8;
    p.max_depth = 0;
  }
  p.num_parallel_tree = c.v[kDTrees] ? 3 : 1;
  if (c.v[kDSample]) {
    p.subsample = 0.7;
    p.colsample_bytree = 0.8;
    p.colsample_bynode = 0.8;
  }
  if (c.v[kDValid]) p.validation_fraction = 0.2;
  if (c.v[kDWeights]) p.weight_column = "w";
  if (c.v[kDCons] == 1) {
    std::string m = "(1,0,-1,0";
    for (int f = kNumeric; f < d; ++f) m += ",0";
    p.monotone_constraints = m + ")";
  } else if (c.v[kDCons] == 2) {
    p.interaction_constraints = d > kNumeric ? "[[0,1],[2,3,4]]" : "[[0,1],[2,3]]";
  }
  if (c.v[kDExtra] == 1) {
    static const char* const metrics[kNumObj] = {
        "mae,rmse",          "auc,logloss",        "merror,mlogloss",
        "quantile",          "rmse,poisson-nloglik", "rmse,gamma-nloglik",
        "rmse,tweedie-nloglik@1.5", "interval-regression-accuracy,aft-nloglik", "cox-nloglik",
        "map@5,ndcg@5"};
    p.eval_metric = metrics[c.v[kDObj]];
    p.early_stopping_rounds = 1;
    p.num_round = 5;
  } else if (c.v[kDExtra] == 2) {
    p.max_bin = 8;
    p.max_cat_to_onehot = 32;  // one-hot splits on the 20-level column
    p.max_cat_threshold = 4;
  }
  return p;
}

Model train_case(const Combo& c, const CaseData& D, TrainParams p, int nthread) {
  p.nthread = nthread;
  TrainHooks hooks;
  hooks.default_device = "cpu";
  const TrainInput in = D.input();
  if (!c.v[kDInit]) return train_model(in, p, hooks, "label");
  TrainParams first = p;
  first.num_round = 2;
  const Model init = train_model(in, first, hooks, "label");
  return continue_training(in, init, p, hooks, "label");
}

std::vector<uint8_t> bytes_of(Model m) {
  m.report.seconds_load = m.report.seconds_bin = m.report.seconds_train = 0;
  return serialize_model(m);
}

std::vector<double> margins(const Model& m, const std::vector<float>& x, size_t n) {
  const int K = m.num_output_group, d = m.n_features();
  std::vector<double> out(n * (size_t)K);
  for (size_t r = 0; r < n; ++r) predict_margin_row(m, x.data() + r * d, out.data() + r * K);
  return out;
}

// Combinations the engine refuses (InvalidInput); every other one must train.
bool expected_invalid(const Combo& c, std::string* why) {
  if (c.v[kDExtra] == 1 && !c.v[kDValid]) {
    *why = "early_stopping_rounds without validation rows";
    return true;
  }
  return false;
}

// Runs one case; returns "" when every check passed, else what failed.
std::string run_case(const Combo& c, size_t n, uint64_t seed) {
  const int levels = c.v[kDCat] == 0 ? 0 : c.v[kDCat] == 1 ? 20 : 400;
  const CaseData D = make_case_data(c.v[kDObj], levels, c.v[kDWeights] != 0, n, seed);
  const TrainParams p = params_for(c, D.d);
  std::string why;
  const bool invalid = expected_invalid(c, &why);
  Model a;
  try {
    a = train_case(c, D, p, 1);
  } catch (const InvalidInput& e) {
    if (invalid) return "";
    return std::string("InvalidInput on a valid combination: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("non-InvalidInput exception: ") + e.what();
  }
  if (invalid) return "trained although expected invalid (" + why + ")";
  std::ostringstream fail;
  // Determinism: two runs byte-equal; 2 threads the same bytes.
  const std::vector<uint8_t> ba = bytes_of(a);
  if (bytes_of(train_case(c, D, p, 1)) != ba) fail << "two runs differ; ";
  if (bytes_of(train_case(c, D, p, 2)) != ba) fail << "nthread 1 vs 2 differ; ";
  // Model bytes round trip.
  const std::vector<uint8_t> s = serialize_model(a);
  const Model back = deserialize_model(s.data(), s.size());
  if (serialize_model(back) != s) fail << "serialize/deserialize not idempotent; ";
  size_t np = 0;
  const std::vector<float> x = predict_rows(D, &np);
  const int K = a.num_output_group;
  std::vector<double> pa(np * (size_t)K), pb(np * (size_t)K);
  predict_batch(a, x.data(), np, pa.data(), 1);
  predict_batch(back, x.data(), np, pb.data(), 2);
  if (pa != pb) fail << "decoded model predicts differently; ";
  for (double v : pa)
    if (!std::isfinite(v)) {
      fail << "non-finite prediction; ";
      break;
    }
  // Margins: finite; SHAP contributions sum to them.
  const std::vector<double> ma = margins(a, x, np);
  {
    TreeShap shap(a);
    TreeShap::Scratch scratch;
    std::vector<double> phi((size_t)shap.K() * shap.width());
    double worst = 0;
    for (size_t r = 0; r < np; ++r) {
      shap.contributions(x.data() + r * D.d, phi.data(), scratch);
      for (int k = 0; k < K; ++k) {
        double sum = 0;
        for (int f = 0; f < shap.width(); ++f) sum += phi[(size_t)k * shap.width() + f];
        const double m = ma[r * K + k];
        if (!std::isfinite(m)) fail << "non-finite margin; ";
        worst = std::max(worst, std::fabs(sum - m) / (1.0 + std::fabs(m)));
      }
    }
    if (worst > 1e-6) fail << "SHAP sum off the margin by " << worst << "; ";
  }
  // XGBoost JSON export / import: the same margins within 1e-6.
  {
    const Model imp = import_xgboost_json(export_xgboost_json(a));
    const std::vector<double> mi = margins(imp, x, np);
    double worst = 0;
    for (size_t i = 0; i < ma.size(); ++i) worst = std::max(worst, std::fabs(ma[i] - mi[i]));
    if (!(worst <= 1e-6)) fail << "XGBoost JSON round trip margins differ by " << worst << "; ";
  }
  return fail.str();
}

}  // namespace

// The generated sets cover every pair (and every triple) of values of any
// two (three) dimensions.
TEST(FeatureCombinations, CasesCoverEveryTuple) {
  for (int t : {2, 3}) {
    const std::vector<Combo> cs = covering_cases(t, 424242 + t);
    std::set<Tuple> hit;
    for (const Combo& c : cs) for_each_tuple(c, t, [&](const Tuple& x) { hit.insert(x); });
    EXPECT_EQ(hit, all_tuples(t)) << t;
    EXPECT_LT(cs.size(), t == 2 ? 60u : 400u) << t;
  }
}

void sweep(int t, size_t n, uint64_t seed) {
  const std::vector<Combo> cs = covering_cases(t, seed);
  std::cout << "  " << cs.size() << " combinations, " << n << " rows\n";
  int i = 0, invalid = 0;
  for (const Combo& c : cs) {
    std::string why;
    invalid += expected_invalid(c, &why) ? 1 : 0;
    const std::string r = run_case(c, n, seed + (uint64_t)i++);
    EXPECT_EQ(r, "") << c.name();
  }
  // Most combinations train (the invalid ones are the exception).
  EXPECT_LT(invalid * 4, (int)cs.size());
}

// Every pair of values, 2000 rows (wide categories have ~5 rows each).
TEST(FeatureCombinations, PairwiseSweep) { sweep(2, 2000, 424244); }

// Every triple of values, 400 rows: small nodes, categories with no row in
// a node, empty validation groups.
TEST(FeatureCombinations, TriplewiseSweepSmallTables) { sweep(3, 400, 424245); }

// A ranking objective's validation rows (a validation relation) without
// their query groups: make_query_groups read a null code array (segfault).
// Now an InvalidInput naming validation_relation and group_column; with the
// groups, the training runs (metrics per validation query group).
TEST(FeatureCombinations, RankingValidationRowsNeedTheirGroups) {
  Combo c{};
  c.v[kDObj] = kRank;
  const CaseData D = make_case_data(kRank, 0, true, 600, 5);
  const CaseData V = make_case_data(kRank, 0, true, 200, 6);
  TrainParams p = params_for(c, D.d);
  TrainHooks hooks;
  hooks.default_device = "cpu";
  for (bool with_groups : {false, true}) {
    BinnedInput b = bin_input(D.input(), p.max_bin, 0, 1);
    ValidationRows v = make_validation_rows(V.input().features, V.y.data(), b.cuts, 1, false);
    if (with_groups) v.query_group = V.groups;
    TrainExtras ex;
    ex.validation = &v;
    if (!with_groups) {
      try {
        train_binned(std::move(b), p, hooks, "label", ex);
        ADD_FAILURE() << "trained without the validation rows' query groups";
      } catch (const InvalidInput& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("validation_relation"), std::string::npos) << m;
        EXPECT_NE(m.find("group_column"), std::string::npos) << m;
      }
      continue;
    }
    const Model m = train_binned(std::move(b), p, hooks, "label", ex);
    ASSERT_EQ(m.report.validation_metric.size(), 3u);
    for (double x : m.report.validation_metric) EXPECT_TRUE(x >= 0 && x <= 1) << x;
  }
}

// Continued training through the engine API (continue_training) with a
// ranking objective, survival:aft, and validation rows of each: the query
// groups and upper bounds reach the training (bin_with_cuts dropped them:
// "needs query groups" / "needs label_upper_bound_column" on valid input),
// and the init model's validation rounds are scored with the ranking
// metrics ("unknown metric ndcg@32" before).
TEST(FeatureCombinations, ContinuedTrainingKeepsGroupsAndBounds) {
  for (int obj : {kRank, kAft}) {
    Combo c{};
    c.v[kDObj] = obj;
    const CaseData D = make_case_data(obj, 20, obj == kRank, 600, 8);
    const CaseData V = make_case_data(obj, 20, obj == kRank, 200, 9);
    TrainParams p = params_for(c, D.d);
    TrainHooks hooks;
    hooks.default_device = "cpu";
    TrainParams first = p;
    first.num_round = 2;
    const Model init = train_model(D.input(), first, hooks, "label");
    const TrainInput vin = V.input();
    const Model m = continue_training(D.input(), init, p, hooks, "label", &vin);
    EXPECT_EQ(m.num_rounds(), 5) << kObjNames[obj];
    ASSERT_EQ(m.report.validation_metric.size(), 5u) << kObjNames[obj];
    for (double x : m.report.validation_metric) EXPECT_TRUE(std::isfinite(x)) << kObjNames[obj];
  }
}
