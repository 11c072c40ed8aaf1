// TreeSHAP (treeshap.h): contributions sum to the margin on trained models,
// equal the exact Shapley values of the path-dependent value function
// computed over every feature subset, and interaction values agree with
// their definition and sum to the contributions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "predictor/predict.h"
#include "test_util.h"
#include "predictor/treeshap.h"

using gbdt::Model;
using gbdt::TreeShap;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

// E[tree(x) | features in S known]: features in S follow x, the others
// split the expectation by the children's covers.
double cond_expectation(const gbdt::Tree& t, int32_t n, const float* x, unsigned S) {
  if (t.left[n] < 0) return t.value[n];
  const int f = t.feature[n];
  if (S & (1u << f)) {
    const bool left = std::isnan(x[f]) ? t.default_left[n] != 0 : x[f] < t.threshold[n];
    return cond_expectation(t, left ? t.left[n] : t.right[n], x, S);
  }
  const int32_t l = t.left[n], r = t.right[n];
  return (t.cover[l] * cond_expectation(t, l, x, S) + t.cover[r] * cond_expectation(t, r, x, S)) /
         t.cover[n];
}

double value_of(const Model& m, int k, const float* x, unsigned S) {
  double v = m.base_margin[k];
  for (size_t t = 0; t < m.trees.size(); ++t)
    if (m.tree_group[t] == k) v += cond_expectation(m.trees[t], 0, x, S);
  return v;
}

// Exact Shapley values by enumerating the subsets (M <= 10 features).
std::vector<double> brute_force(const Model& m, const float* x) {
  const int M = m.n_features(), K = m.num_output_group, W = M + 1;
  std::vector<double> fact(M + 1, 1.0);
  for (int i = 1; i <= M; ++i) fact[i] = fact[i - 1] * i;
  std::vector<double> phi((size_t)K * W, 0.0);
  for (int k = 0; k < K; ++k) {
    std::vector<double> v(1u << M);
    for (unsigned S = 0; S < (1u << M); ++S) v[S] = value_of(m, k, x, S);
    for (int i = 0; i < M; ++i)
      for (unsigned S = 0; S < (1u << M); ++S) {
        if (S & (1u << i)) continue;
        const int s = __builtin_popcount(S);
        phi[(size_t)k * W + i] += fact[s] * fact[M - s - 1] / fact[M] * (v[S | (1u << i)] - v[S]);
      }
    phi[(size_t)k * W + M] = v[0];
  }
  return phi;
}

Model trained(Task task, size_t n, int d, int rounds, int depth, double missing) {
  Data D = gbdt_test::make_data(n, d, task, missing, 3);
  gbdt::TrainParams p = gbdt_test::params_for(task, rounds);
  p.max_depth = depth;
  return gbdt_test::train(D, p);
}

void check_sums(Task task, double tol) {
  Data D = gbdt_test::make_data(600, 7, task, 0.1, 5);
  gbdt::TrainParams p = gbdt_test::params_for(task, 30);
  p.max_depth = 5;
  Model m = gbdt_test::train(D, p);
  TreeShap ts(m);
  const int K = ts.K(), W = ts.width();
  std::vector<double> phi((size_t)K * W), margin(K);
  TreeShap::Scratch s;
  double worst = 0;
  for (size_t r = 0; r < D.n; ++r) {
    std::vector<float> x = D.row(r);
    ts.contributions(x.data(), phi.data(), s);
    gbdt::predict_margin_row(m, x.data(), margin.data());
    for (int k = 0; k < K; ++k) {
      double sum = 0;
      for (int f = 0; f < W; ++f) sum += phi[(size_t)k * W + f];
      worst = std::max(worst, std::fabs(sum - margin[k]));
    }
  }
  EXPECT_LT(worst, tol);
}

}  // namespace

TEST(TreeShap, SumsToMarginRegression) { check_sums(Task::kRegression, 1e-4); }
TEST(TreeShap, SumsToMarginBinary) { check_sums(Task::kBinary, 1e-4); }
TEST(TreeShap, SumsToMarginMulticlass) { check_sums(Task::kMulticlass, 1e-4); }

TEST(TreeShap, EqualsBruteForceShapley) {
  for (Task task : {Task::kRegression, Task::kMulticlass}) {
    // Deep trees over 6 features: features repeat along paths.
    Model m = trained(task, 400, 6, 8, 6, 0.15);
    TreeShap ts(m);
    const int K = ts.K(), W = ts.width();
    TreeShap::Scratch s;
    Data D = gbdt_test::make_data(40, 6, task, 0.2, 11);
    std::vector<double> phi((size_t)K * W);
    double worst = 0;
    for (size_t r = 0; r < D.n; ++r) {
      std::vector<float> x = D.row(r);
      ts.contributions(x.data(), phi.data(), s);
      std::vector<double> ref = brute_force(m, x.data());
      for (size_t i = 0; i < phi.size(); ++i) worst = std::max(worst, std::fabs(phi[i] - ref[i]));
    }
    EXPECT_LT(worst, 1e-9);
  }
}

TEST(TreeShap, InteractionsMatchDefinition) {
  Model m = trained(Task::kRegression, 400, 5, 6, 5, 0.1);
  TreeShap ts(m);
  const int W = ts.width(), M = ts.n_features();
  TreeShap::Scratch s;
  Data D = gbdt_test::make_data(10, 5, Task::kRegression, 0.2, 13);
  std::vector<double> inter((size_t)W * W), phi(W);
  std::vector<double> fact(M + 1, 1.0);
  for (int i = 1; i <= M; ++i) fact[i] = fact[i - 1] * i;
  double worst = 0;
  for (size_t r = 0; r < D.n; ++r) {
    std::vector<float> x = D.row(r);
    ts.interactions(x.data(), inter.data(), s);
    ts.contributions(x.data(), phi.data(), s);
    std::vector<double> v(1u << M);
    for (unsigned S = 0; S < (1u << M); ++S) v[S] = value_of(m, 0, x.data(), S);
    for (int i = 0; i < M; ++i) {
      double row = 0;
      for (int j = 0; j < W; ++j) row += inter[(size_t)i * W + j];
      worst = std::max(worst, std::fabs(row - phi[i]));
      for (int j = 0; j < M; ++j) {
        if (j == i) continue;
        // Shapley interaction index, halved (split between (i,j) and (j,i)).
        double ref = 0;
        const unsigned bi = 1u << i, bj = 1u << j;
        for (unsigned S = 0; S < (1u << M); ++S) {
          if (S & (bi | bj)) continue;
          const int s = __builtin_popcount(S);
          ref += fact[s] * fact[M - s - 2] / (2 * fact[M - 1]) *
                 (v[S | bi | bj] - v[S | bi] - v[S | bj] + v[S]);
        }
        worst = std::max(worst, std::fabs(inter[(size_t)i * W + j] - ref));
      }
    }
    worst = std::max(worst, std::fabs(inter[(size_t)M * W + M] - phi[M]));
  }
  EXPECT_LT(worst, 1e-9);
}

TEST(TreeShap, RejectsMissingCoversAndPollsCancel) {
  Model m = trained(Task::kRegression, 200, 4, 3, 3, 0.0);
  Model bad = m;
  bad.trees[1].cover[0] = 0;
  EXPECT_THROW({ TreeShap ts(bad); }, gbdt::InvalidInput);
  TreeShap ts(m);
  std::vector<double> phi(ts.width());
  TreeShap::Scratch s;
  std::vector<float> x(4, 0.5f);
  EXPECT_THROW(ts.contributions(x.data(), phi.data(), s, [] { return true; }), gbdt::Cancelled);
}
