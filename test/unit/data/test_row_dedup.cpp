// exact duplicate-row compression (row_dedup.h).  Training on the
// distinct rows with their multiplicity must build the very same model
// (serialized bytes, training and validation metrics included) as training
// on every row; where it cannot be exact it must not run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gbm/continue_training.h"
#include "metric/metrics.h"
#include "model/model.h"
#include "data/row_dedup.h"
#include "test_util.h"
#include "gbm/trainer.h"

using namespace gbdt;
using gbdt_test::Task;
using gbdt_test::unif;

namespace {

// Few levels per column (levels 0..L-1 as floats, `missing` NaN), so rows
// repeat; labels discrete too (regression: quarter steps).
struct DupData {
  gbdt_test::Data D;
  std::vector<float> w;  // empty: unweighted
  bool categorical = false;
  std::vector<std::vector<std::string>> cats;

  TrainInput input() const {
    TrainInput in = D.input();
    if (!w.empty()) in.weights = w.data();
    if (categorical) {
      in.feature_types[0] = FeatureType::kCategorical;
      in.categories = cats;
    }
    return in;
  }
};

DupData make_dup(size_t n, int d, int levels, Task task, double missing, uint64_t seed,
                 bool weights = false, bool categorical = false) {
  DupData R;
  gbdt_test::Data& D = R.D;
  D.n = n;
  D.d = d;
  D.cols.assign((size_t)d, std::vector<float>(n));
  D.y.resize(n);
  for (int f = 0; f < d; ++f) D.names.push_back("f" + std::to_string(f));
  for (size_t r = 0; r < n; ++r) {
    double x[4] = {0, 0, 0, 0};
    for (int f = 0; f < d; ++f) {
      const int v = (int)(unif(seed * 100 + (uint64_t)f, r) * levels);
      const bool miss = missing > 0 && unif(seed * 31 + (uint64_t)f, r) < missing;
      if (f < 4) x[f] = miss ? 0.5 * levels : v;
      D.cols[f][r] = miss ? NAN : (float)v;
    }
    const double noise = std::floor(unif(seed ^ 0x5EEDULL, r) * 3) - 1;  // -1, 0, 1
    const double s = (x[0] - 0.5 * levels) + 0.5 * std::sin(x[1]) + 0.25 * x[2] * (x[3] - 1) +
                     0.5 * noise;
    switch (task) {
      case Task::kRegression: D.y[r] = (float)(std::round(4 * s) / 4); break;
      case Task::kBinary: D.y[r] = s > 0 ? 1.0f : 0.0f; break;
      case Task::kMulticlass: D.y[r] = (float)(s < -1 ? 0 : s < 0.5 ? 1 : 2); break;
      case Task::kCount: D.y[r] = (float)std::max(0.0, std::round(s + 2)); break;
    }
  }
  if (weights) {
    R.w.resize(n);
    for (size_t r = 0; r < n; ++r) R.w[r] = (float)(0.5 * (1 + (int)(unif(seed + 9, r) * 3)));
  }
  if (categorical) {
    R.categorical = true;
    R.cats.assign((size_t)d, {});
    for (int c = 0; c < levels; ++c) R.cats[0].push_back("c" + std::to_string(c));
  }
  return R;
}

struct Run {
  Model m;
  bool deduped = false;
  std::vector<uint8_t> bytes;
};

TrainHooks hooks_logging(bool* deduped) {
  TrainHooks h;
  h.default_device = "cpu";
  h.log = [deduped](const std::string& s) {
    if (s.find("distinct rows") != std::string::npos) *deduped = true;
  };
  return h;
}

Run train_with(const DupData& R, TrainParams p, bool dedup, const Model* init = nullptr) {
  p.row_dedup = dedup;
  p.verbose = true;
  Run out;
  const TrainHooks h = hooks_logging(&out.deduped);
  out.m = init ? continue_training(R.input(), *init, p, h) : train_model(R.input(), p, h, "label");
  out.bytes = serialize_model(out.m);
  return out;
}

// Dedup on and off: the same bytes; on actually compressed (`expect_on`).
void expect_same(const DupData& R, const TrainParams& p, bool expect_on = true,
                 const Model* init = nullptr) {
  const Run on = train_with(R, p, true, init), off = train_with(R, p, false, init);
  EXPECT_EQ(on.deduped, expect_on);
  EXPECT_FALSE(off.deduped);
  EXPECT_EQ(on.m.trees.size(), off.m.trees.size());
  EXPECT_EQ(on.m.report.train_metric, off.m.report.train_metric);
  EXPECT_EQ(on.m.report.validation_metric, off.m.report.validation_metric);
  EXPECT_EQ(on.m.report.best_iteration, off.m.report.best_iteration);
  EXPECT_TRUE(on.bytes == off.bytes) << "models differ";
}

}  // namespace

TEST(RowDedup, DistinctRowsAndMultiplicities) {
  BinnedMatrix m;
  m.n_rows = 6;
  m.n_features = 3;
  m.resize_entries();
  const uint8_t rows[6][3] = {{1, 2, 3}, {1, 2, 3}, {0, 0, 0}, {1, 2, 3}, {0, 0, 0}, {1, 2, 4}};
  for (size_t r = 0; r < 6; ++r)
    for (int f = 0; f < 3; ++f) m.set(r, f, rows[r][f]);
  const std::vector<float> y = {1, 1, 0, 0, 0, 1};  // row 3: same bins as 0, other label
  const std::vector<float> mg = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};
  RowDedup d;
  ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), nullptr, mg.data(), 1}, 1.0, &d));
  ASSERT_EQ(d.matrix.n_rows, 4u);
  EXPECT_EQ(d.n_rows, 6u);
  EXPECT_EQ(d.row_of, (std::vector<uint32_t>{0, 0, 1, 2, 1, 3}));
  EXPECT_EQ(d.multiplicity, (std::vector<int32_t>{2, 2, 1, 1}));
  EXPECT_EQ(d.labels, (std::vector<float>{1, 0, 0, 1}));
  EXPECT_EQ(d.matrix.at(3, 2), 4u);
  EXPECT_EQ(d.matrix.at(2, 0), 1u);
  // Weights and margins are part of the key.
  const std::vector<float> w = {1, 2, 1, 1, 1, 1};
  ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), w.data(), mg.data(), 1}, 1.0, &d));
  EXPECT_EQ(d.matrix.n_rows, 5u);
  EXPECT_EQ(d.weights, (std::vector<float>{1, 2, 1, 1, 1}));
  const std::vector<float> mg2 = {0.5f, 0.5f, 0.5f, 0.5f, -0.0f, 0.5f};
  ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), nullptr, mg2.data(), 1}, 1.0, &d));
  EXPECT_EQ(d.matrix.n_rows, 5u);
  // Each training row's distinct row holds its margin (-0 kept apart).
  EXPECT_EQ(std::signbit(d.margins[d.row_of[4]]), true);
  EXPECT_EQ(d.margins[d.row_of[3]], 0.5f);
  // More distinct rows than the bound: not compressed.
  EXPECT_FALSE(dedup_rows(DedupInput{&m, y.data(), nullptr, mg.data(), 1}, 0.5, &d));
  EXPECT_EQ(d.matrix.n_rows, 0u);
  EXPECT_TRUE(d.row_of.empty());
}

TEST(RowDedup, KeysOfEveryLength) {
  // Keys packed into words: entries of 1-20 bytes (a last word of entries
  // padded, read in one load except on the table's last rows), the label
  // and weight, then K = 1-3 margins two to a word; and keys longer than
  // the table keeps (63-100 entries: compared by packing the first row
  // again).  Rows differing only in the byte before a word's end, the
  // weight, the last margin or the label are distinct; copies (the
  // table's last row among them) are not.
  std::vector<int> widths;
  for (int nf = 1; nf <= 20; ++nf) widths.push_back(nf);
  for (int nf : {55, 56, 63, 64, 65, 100}) widths.push_back(nf);
  for (int nf : widths)
    for (size_t K : {1u, 2u, 3u}) {
      const size_t n = 8;
      BinnedMatrix m;
      m.n_rows = n;
      m.n_features = nf;
      m.resize_entries();
      std::vector<float> y(n, 1.0f), w(n, 1.0f), mg(n * K, 0.25f);
      for (size_t r = 0; r < n; ++r)
        for (int f = 0; f < nf; ++f) m.set(r, f, (uint32_t)(f * 7 + 3));
      m.set(1, nf - 1, 200);          // last entry
      w[2] = 2.0f;                    // weight
      mg[3 * K + K - 1] = 0.5f;       // last margin
      y[4] = 0.0f;                    // label
      for (int f = 0; f < nf; ++f) m.set(5, f, 250);  // a row of its own
      // rows 0, 6, 7: copies (row 7 is the last row; row 6 is followed by it)
      RowDedup d;
      ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), w.data(), mg.data(), K}, 1.0, &d)) << nf;
      EXPECT_EQ(d.row_of, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 0, 0})) << nf << " " << K;
      EXPECT_EQ(d.multiplicity, (std::vector<int32_t>{3, 1, 1, 1, 1, 1})) << nf << " " << K;
      EXPECT_EQ(d.margins[3 * K + K - 1], 0.5f);
      // Margins equal on every row are left out of the key; each distinct
      // row still has them.
      std::vector<float> same(n * K, -0.0f);
      ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), nullptr, same.data(), K}, 1.0, &d)) << nf;
      EXPECT_EQ(d.row_of, (std::vector<uint32_t>{0, 1, 0, 0, 2, 3, 0, 0})) << nf << " " << K;
      ASSERT_EQ(d.margins.size(), 4 * K);
      for (float v : d.margins) EXPECT_TRUE(v == 0.0f && std::signbit(v));
    }
}

TEST(RowDedup, WideBinsAndLargeTables) {
  // 2-byte entries are compared whole.
  BinnedMatrix m;
  m.n_rows = 4;
  m.n_features = 1;
  m.wide = true;
  m.resize_entries();
  m.set(0, 0, 300);
  m.set(1, 0, 300 + 256);  // the same low byte
  m.set(2, 0, 300);
  m.set(3, 0, 44);
  const std::vector<float> y(4, 0.0f);
  RowDedup d;
  ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), nullptr, nullptr, 1}, 1.0, &d));
  EXPECT_EQ(d.multiplicity, (std::vector<int32_t>{2, 1, 1}));
  EXPECT_EQ(d.matrix.at(1, 0), 556u);
  // 300k rows: all distinct (refused, by the sample) and few distinct.
  const size_t n = 300000;
  BinnedMatrix big;
  big.n_rows = n;
  big.n_features = 3;
  big.resize_entries();
  std::vector<float> yb(n);
  for (size_t r = 0; r < n; ++r) {
    big.set(r, 0, (uint32_t)(r & 255));
    big.set(r, 1, (uint32_t)((r >> 8) & 255));
    big.set(r, 2, (uint32_t)(r >> 16));
    yb[r] = 0;
  }
  EXPECT_FALSE(dedup_rows(DedupInput{&big, yb.data(), nullptr, nullptr, 1}, kDedupMaxDistinct, &d));
  for (size_t r = 0; r < n; ++r) big.set(r, 2, 0);  // 65536 distinct of 300k
  ASSERT_TRUE(dedup_rows(DedupInput{&big, yb.data(), nullptr, nullptr, 1}, kDedupMaxDistinct, &d));
  EXPECT_EQ(d.matrix.n_rows, 65536u);
  size_t total = 0;
  for (int32_t c : d.multiplicity) total += (size_t)c;
  EXPECT_EQ(total, n);
}

TEST(RowDedup, MidSizeTablesSampledFirst) {
  // 8192 rows and more are sampled first (16 sqrt(n) rows, a quarter of the
  // table at most).  A table where every row appears exactly twice (the
  // sample's fewest repeats for that many distinct rows) is still
  // compressed; an all-distinct one is refused.
  for (size_t n : {8192u, 20000u, 87032u, 131070u}) {
    BinnedMatrix m;
    m.n_rows = n;
    m.n_features = 3;
    m.resize_entries();
    std::vector<float> y(n, 0.0f);
    for (size_t r = 0; r < n; ++r) {
      const size_t k = (r * 2654435761u) % (n / 2);  // each key on two rows, scattered
      m.set(r, 0, (uint32_t)(k & 255));
      m.set(r, 1, (uint32_t)((k >> 8) & 255));
      m.set(r, 2, (uint32_t)(k >> 16));
    }
    RowDedup d;
    ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), nullptr, nullptr, 1}, kDedupMaxDistinct, &d)) << n;
    EXPECT_EQ(d.matrix.n_rows, n / 2) << n;
    for (size_t r = 0; r < n; ++r) {
      m.set(r, 0, (uint32_t)(r & 255));
      m.set(r, 1, (uint32_t)((r >> 8) & 255));
      m.set(r, 2, (uint32_t)(r >> 16));
    }
    EXPECT_FALSE(dedup_rows(DedupInput{&m, y.data(), nullptr, nullptr, 1}, kDedupMaxDistinct, &d)) << n;
  }
}

TEST(RowDedup, ThreadsGiveTheSameDistinctRows) {
  // Row ranges hashed on their own threads, merged in range order: the same
  // distinct rows in the same order (first occurrence), row_of and
  // multiplicities as one pass; keys first seen late, or in several
  // ranges, included.
  const size_t n = 50000;
  BinnedMatrix m;
  m.n_rows = n;
  m.n_features = 2;
  m.resize_entries();
  std::vector<float> y(n), mg(n, 0.25f);
  for (size_t r = 0; r < n; ++r) {
    const size_t k = r < n / 2 ? (r * 7919) % 3000 : (r * 104729) % 9000;  // new keys in the 2nd half
    m.set(r, 0, (uint32_t)(k % 200));
    m.set(r, 1, (uint32_t)(k / 200));
    y[r] = (float)(k % 3);
  }
  RowDedup one;
  ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), nullptr, mg.data(), 1}, 0.5, &one, 1));
  EXPECT_GT(one.matrix.n_rows, 3000u);
  for (int nt : {2, 3, 4}) {
    RowDedup par;
    ASSERT_TRUE(dedup_rows(DedupInput{&m, y.data(), nullptr, mg.data(), 1}, 0.5, &par, nt)) << nt;
    EXPECT_EQ(par.row_of, one.row_of) << nt;
    EXPECT_EQ(par.multiplicity, one.multiplicity) << nt;
    EXPECT_EQ(par.matrix.bins, one.matrix.bins) << nt;
    EXPECT_EQ(par.labels, one.labels) << nt;
  }
  // Over the limit: refused with threads too.
  RowDedup d;
  EXPECT_FALSE(dedup_rows(DedupInput{&m, y.data(), nullptr, mg.data(), 1}, 0.05, &d, 2));
  EXPECT_TRUE(d.row_of.empty());
}

TEST(RowDedup, SameModelBinaryRegressionMulticlass) {
  TrainParams p = gbdt_test::params_for(Task::kBinary, 12, 1);
  expect_same(make_dup(4000, 4, 4, Task::kBinary, 0.0, 1), p);
  p.nthread = 2;
  p.eval_metric = "logloss,auc,error";
  expect_same(make_dup(4000, 4, 4, Task::kBinary, 0.1, 2), p);
  TrainParams r = gbdt_test::params_for(Task::kRegression, 12, 2);
  r.eval_metric = "rmse,mae";
  expect_same(make_dup(5000, 3, 5, Task::kRegression, 0.05, 3), r);
  TrainParams c = gbdt_test::params_for(Task::kMulticlass, 8, 1);
  c.num_class = 3;
  c.eval_metric = "mlogloss,merror";
  expect_same(make_dup(4000, 4, 3, Task::kMulticlass, 0.0, 4), c);
  TrainParams q = gbdt_test::params_for(Task::kCount, 8, 1);
  expect_same(make_dup(3000, 3, 4, Task::kCount, 0.0, 5), q);
}

TEST(RowDedup, SameModelWeightsCategoricalValidation) {
  TrainParams p = gbdt_test::params_for(Task::kBinary, 15, 2);
  p.scale_pos_weight = 2.5;
  expect_same(make_dup(4000, 4, 4, Task::kBinary, 0.1, 6, /*weights=*/true), p);
  TrainParams c = gbdt_test::params_for(Task::kRegression, 10, 1);
  expect_same(make_dup(4000, 3, 5, Task::kRegression, 0.1, 7, false, /*categorical=*/true), c);
  // Validation split, several metrics, early stopping (the training metric
  // of the kept trees is scored row by row).
  TrainParams v = gbdt_test::params_for(Task::kBinary, 60, 1);
  v.validation_fraction = 0.25;
  v.eval_metric = "error,logloss";
  v.early_stopping_rounds = 3;
  v.eta = 0.6;
  expect_same(make_dup(3000, 4, 4, Task::kBinary, 0.0, 8, true), v);
  // Depthwise growth with the general grower (constraints) and lossguide,
  // and num_parallel_tree.
  TrainParams g = gbdt_test::params_for(Task::kRegression, 8, 2);
  g.monotone_constraints = "(1,0,0)";
  expect_same(make_dup(3000, 3, 5, Task::kRegression, 0.0, 9), g);
  TrainParams l = gbdt_test::params_for(Task::kBinary, 8, 1);
  l.lossguide = true;
  l.max_leaves = 7;
  expect_same(make_dup(3000, 4, 4, Task::kBinary, 0.0, 10), l);
  TrainParams pt = gbdt_test::params_for(Task::kBinary, 5, 1);
  pt.num_parallel_tree = 3;
  pt.colsample_bytree = 0.7;
  expect_same(make_dup(3000, 4, 4, Task::kBinary, 0.0, 11), pt);
}

TEST(RowDedup, SameModelContinuedTraining) {
  const DupData R = make_dup(4000, 4, 4, Task::kBinary, 0.05, 12, true);
  TrainParams p = gbdt_test::params_for(Task::kBinary, 6, 1);
  p.row_dedup = false;
  const Model init = gbdt_test::train(R.D, p);
  expect_same(R, p, true, &init);
}

TEST(RowDedup, OffWhereNotExact) {
  const DupData R = make_dup(3000, 3, 4, Task::kRegression, 0.0, 13);
  TrainParams s = gbdt_test::params_for(Task::kRegression, 5, 1);
  s.subsample = 0.7;  // the sample draws per row index
  expect_same(R, s, false);
  TrainParams a = gbdt_test::params_for(Task::kRegression, 5, 1);
  a.objective = Objective::kAbsoluteError;  // leaves refit on per-row residuals
  expect_same(R, a, false);
  // A continuous column: (nearly) every row distinct.
  DupData C = R;
  for (size_t r = 0; r < C.D.n; ++r) C.D.cols[1][r] = (float)unif(77, r);
  expect_same(C, gbdt_test::params_for(Task::kRegression, 5, 1), false);
}

// The final training metric of a deduplicated training: each distinct row's
// loss once, summed over the training rows in order, must be the very
// double the metric gives on the expanded predictions, weighted or not;
// the metrics that are not sums of per-row terms say so (the trainer then
// expands).
TEST(RowDedup, DistinctMetricIsTheExpandedOne) {
  const size_t n = 5000, D = 37;
  std::vector<uint32_t> row_of(n);
  for (size_t r = 0; r < n; ++r) row_of[r] = (uint32_t)(unif(21, r) * D);
  std::vector<float> w(n);
  for (size_t r = 0; r < n; ++r) w[r] = (float)(0.25 + unif(22, r));
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  auto check = [&](const std::string& name, Objective obj, int K, const std::vector<double>& dp,
                   const std::vector<float>& dy, MetricParams mp = MetricParams()) {
    std::vector<double> p(n * (size_t)K);
    std::vector<float> y(n);
    for (size_t r = 0; r < n; ++r) {
      for (int k = 0; k < K; ++k) p[r * K + k] = dp[(size_t)row_of[r] * K + k];
      y[r] = dy[row_of[r]];
    }
    for (const float* wp : {(const float*)nullptr, (const float*)w.data()}) {
      double got = -1;
      ASSERT_TRUE(compute_metric_distinct(name, obj, K, dp.data(), D, row_of.data(), y.data(), n,
                                          wp, mp, &got))
          << name;
      const double want = compute_metric(name, obj, K, p.data(), y.data(), n, wp, mp);
      EXPECT_TRUE(same(got, want)) << name << (wp ? " weighted: " : ": ") << got << " vs " << want;
      const bool classic = name == "rmse" || name == "mae" || name == "logloss" ||
                           name == "error" || name == "mlogloss" || name == "merror" ||
                           name == "poisson-nloglik";
      if (!wp && classic) {  // the overload without weights and parameters too
        EXPECT_TRUE(same(got, compute_metric(name, obj, K, p.data(), y.data(), n))) << name;
      }
    }
  };
  std::vector<double> prob(D), pos(D);
  std::vector<float> y01(D), ycount(D), ypos(D);
  for (size_t d = 0; d < D; ++d) {
    prob[d] = 0.02 + 0.96 * unif(23, d);
    pos[d] = 0.1 + 5 * unif(24, d);
    y01[d] = unif(25, d) < 0.4 ? 1.0f : 0.0f;
    ycount[d] = (float)(int)(6 * unif(26, d));
    ypos[d] = (float)(0.2 + 4 * unif(27, d));
  }
  prob[3] = 0.0;  // clamped by logloss
  for (const char* m : {"logloss", "error", "error@0.7", "rmse", "mae"})
    check(m, Objective::kLogistic, 1, prob, y01);
  check("poisson-nloglik", Objective::kPoisson, 1, pos, ycount);
  for (const char* m : {"rmse", "mae", "rmsle", "mape", "mphe", "quantile", "gamma-deviance",
                        "gamma-nloglik", "tweedie-nloglik@1.3"}) {
    MetricParams mp;
    mp.huber_slope = 0.7;
    mp.quantile_alpha = 0.3;
    check(m, Objective::kSquaredError, 1, pos, ypos, mp);
  }
  std::vector<double> soft(D * 3);
  std::vector<float> cls(D);
  for (size_t d = 0; d < D; ++d) {
    double a = unif(28, d), b = unif(29, d), c = unif(30, d);
    soft[d * 3] = a / (a + b + c), soft[d * 3 + 1] = b / (a + b + c), soft[d * 3 + 2] = c / (a + b + c);
    cls[d] = (float)(int)(3 * unif(31, d));
  }
  check("mlogloss", Objective::kSoftprob, 3, soft, cls);
  check("merror", Objective::kSoftprob, 3, soft, cls);
  // auc without weights: ties within and across distinct rows (equal
  // predictions) ranked as over every row.
  {
    std::vector<double> tied = prob;
    tied[5] = tied[6] = tied[7];
    tied[11] = tied[12];
    std::vector<double> pe(n);
    std::vector<float> ye(n);
    for (size_t r = 0; r < n; ++r) pe[r] = tied[row_of[r]], ye[r] = y01[row_of[r]];
    double got = -1;
    ASSERT_TRUE(compute_metric_distinct("auc", Objective::kLogistic, 1, tied.data(), D,
                                        row_of.data(), ye.data(), n, nullptr, MetricParams(), &got));
    EXPECT_TRUE(same(got, compute_metric("auc", Objective::kLogistic, 1, pe.data(), ye.data(), n)))
        << got;
    EXPECT_GT(got, 0.0);
    double out = 42;  // weighted: the sums within a tie follow the sort's order, so it expands
    EXPECT_FALSE(compute_metric_distinct("auc", Objective::kLogistic, 1, tied.data(), D,
                                         row_of.data(), ye.data(), n, w.data(), MetricParams(),
                                         &out));
    EXPECT_EQ(out, 42);
    // A NaN prediction: the same error, naming the same row.
    tied[row_of[100]] = NAN;
    for (size_t r = 0; r < n; ++r) pe[r] = tied[row_of[r]];
    std::string want, msg;
    try {
      compute_metric("auc", Objective::kLogistic, 1, pe.data(), ye.data(), n);
    } catch (const InvalidInput& e) {
      want = e.what();
    }
    try {
      compute_metric_distinct("auc", Objective::kLogistic, 1, tied.data(), D, row_of.data(),
                              ye.data(), n, nullptr, MetricParams(), &out);
    } catch (const InvalidInput& e) {
      msg = e.what();
    }
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(msg, want);
  }
  // Not so computed: no value, *out untouched.
  std::vector<float> y(n, 1.0f);
  for (const char* m : {"cox-nloglik", "aft-nloglik", "interval-regression-accuracy"}) {
    double out = 42;
    EXPECT_FALSE(compute_metric_distinct(m, Objective::kLogistic, 1, prob.data(), D,
                                         row_of.data(), y.data(), n, nullptr, MetricParams(), &out))
        << m;
    EXPECT_EQ(out, 42) << m;
  }
  // A label that is not a class: the same error, naming the same row.
  std::vector<float> bad(n);
  for (size_t r = 0; r < n; ++r) bad[r] = cls[row_of[r]];
  bad[17] = 5;  // a row of distinct row row_of[17]: the labels of a distinct row must agree,
  for (size_t r = 0; r < n; ++r)
    if (row_of[r] == row_of[17]) bad[r] = 5;  // so the whole distinct row gets it
  std::string want, got;
  std::vector<double> p(n * 3);
  for (size_t r = 0; r < n; ++r)
    for (int k = 0; k < 3; ++k) p[r * 3 + k] = soft[(size_t)row_of[r] * 3 + k];
  try {
    compute_metric("mlogloss", Objective::kSoftprob, 3, p.data(), bad.data(), n);
  } catch (const InvalidInput& e) {
    want = e.what();
  }
  try {
    double out;
    compute_metric_distinct("mlogloss", Objective::kSoftprob, 3, soft.data(), D,
                            row_of.data(), bad.data(), n, nullptr, MetricParams(), &out);
  } catch (const InvalidInput& e) {
    got = e.what();
  }
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(got, want);
}
