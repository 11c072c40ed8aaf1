#include "cross_validation.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>

#include "../common/concurrent_jobs.h"
#include "../common/interruptible.h"
#include "../metric/metrics.h"
#include "../objective/gradients.h"
#include "../objective/lambdarank.h"
#include "../objective/objective.h"

namespace gbdt {

int hashed_fold(uint64_t seed, uint64_t ordinal, int nfold) {
  // The hash of the validation_fraction split (trainer.cpp is_validation_row).
  const uint64_t h = mix64(mix64(seed ^ 0x9E3779B97F4A7C15ULL) ^ ordinal);
  const double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
  const int k = (int)(u * nfold);
  return k < nfold ? k : nfold - 1;
}

namespace {

std::string fold_count_text(int nfold) { return "nfold = " + std::to_string(nfold); }

// Rows of each fold; InvalidInput naming nfold when one has none.
void check_fold_sizes(const std::vector<int32_t>& fold, int nfold) {
  std::vector<size_t> count((size_t)nfold, 0);
  for (int32_t f : fold) count[(size_t)f]++;
  for (int k = 0; k < nfold; ++k)
    if (count[(size_t)k] == 0)
      throw InvalidInput(fold_count_text(nfold) + " leaves fold " + std::to_string(k) +
                         " without rows (" + std::to_string(fold.size()) +
                         " rows): use fewer folds or another seed");
}

}  // namespace

std::vector<int32_t> assign_folds(const BinnedInput& in, int nfold, uint64_t seed,
                                  bool stratified, const CancelFn& cancel) {
  const size_t n = in.labels.size();
  CancelPoller poll(cancel);
  if (nfold < 2)
    throw InvalidInput(fold_count_text(nfold) + " is out of range: must be at least 2");
  std::vector<int32_t> fold(n);
  if (!in.query_group.empty()) {
    if (stratified)
      throw InvalidInput("stratified folds are not for query groups (ranking): the folds keep "
                         "each query group whole; pass stratified => false");
    uint32_t groups = 0;
    for (uint32_t g : in.query_group) {
      poll.tick();
      groups = std::max(groups, g + 1);
    }
    if ((size_t)nfold > groups)
      throw InvalidInput(fold_count_text(nfold) + " is more than the " + std::to_string(groups) +
                         " query groups");
    for (size_t r = 0; r < n; ++r) {
      poll.tick();
      fold[r] = hashed_fold(seed, in.query_group[r], nfold);
    }
  } else {
    if ((size_t)nfold > n)
      throw InvalidInput(fold_count_text(nfold) + " is more than the " + std::to_string(n) +
                         " rows");
    if (!stratified) {
      for (size_t r = 0; r < n; ++r) {
        poll.tick();
        fold[r] = hashed_fold(seed, r, nfold);
      }
    } else {
      // classes: the distinct labels, ascending; per class the rows seen so far.
      std::map<float, uint64_t> cls;
      for (float y : in.labels) {
        poll.tick();
        cls.emplace(y, 0);
      }
      uint64_t c = 0;
      for (auto& kv : cls) kv.second = c++;
      std::vector<uint64_t> seen(cls.size(), 0), offset(cls.size());
      for (size_t i = 0; i < cls.size(); ++i) offset[i] = (uint64_t)hashed_fold(seed, i, nfold);
      for (size_t r = 0; r < n; ++r) {
        poll.tick();
        const uint64_t k = cls[in.labels[r]];
        fold[r] = (int32_t)((seen[k]++ + offset[k]) % (uint64_t)nfold);
      }
    }
  }
  check_fold_sizes(fold, nfold);
  return fold;
}

namespace {

// Rows `rows` of `in` as a BinnedInput of their own (the same cuts; query
// groups renumbered from 0 in order of first appearance).  with_bins false:
// the labels, weights, bounds and groups only (rows scored on in.matrix).
BinnedInput subset(const BinnedInput& in, const std::vector<size_t>& rows, bool with_bins,
                   CancelPoller* poll) {
  BinnedInput s;
  const size_t d = (size_t)in.matrix.n_features, m = rows.size();
  s.matrix.n_rows = m;
  s.matrix.n_features = in.matrix.n_features;
  s.matrix.wide = in.matrix.wide;
  if (with_bins) {
    s.cuts = in.cuts;
    s.matrix.resize_entries();
  }
  for (size_t i = 0; i < m && with_bins; ++i) {
    poll->tick(d);
    const size_t r = rows[i];
    if (in.matrix.wide)
      std::copy_n(in.matrix.bins16.begin() + r * d, d, s.matrix.bins16.begin() + i * d);
    else
      std::copy_n(in.matrix.bins.begin() + r * d, d, s.matrix.bins.begin() + i * d);
  }
  // Labels, weights, bounds and query groups (renumbered) of the rows.
  const bool weighted = !in.weights.empty(), bounds = !in.labels_upper.empty(),
             groups = !in.query_group.empty();
  s.labels.resize(m);
  if (weighted) s.weights.resize(m);
  if (bounds) s.labels_upper.resize(m);
  if (groups) s.query_group.resize(m);
  std::map<uint32_t, uint32_t> code;
  for (size_t i = 0; i < m; ++i) {
    poll->tick();
    const size_t r = rows[i];
    s.labels[i] = in.labels[r];
    if (weighted) s.weights[i] = in.weights[r];
    if (bounds) s.labels_upper[i] = in.labels_upper[r];
    if (groups) s.query_group[i] = code.emplace(in.query_group[r], (uint32_t)code.size()).first->second;
  }
  s.feature_names = in.feature_names;
  s.feature_types = in.feature_types;
  s.categories = in.categories;
  return s;
}

// The metrics after every round of `m` on rows `rows` of `mx` (their
// labels, weights, bounds and groups in `s`): out[r * M + i].  Margins are
// summed in float in tree order, as the predictor adds them.
void round_metrics(const Model& m, const BinnedMatrix& mx, const std::vector<size_t>& rows,
                   const BinnedInput& s, const std::vector<std::string>& metrics,
                   const TrainParams& p, CancelPoller* poll, std::vector<double>* out) {
  const size_t n = rows.size(), M = metrics.size();
  const int K = m.num_output_group, R = m.num_rounds(), TPR = m.trees_per_round();
  const ObjectiveInfo& oi = objective_info(m.objective);
  std::vector<int> missing_bin((size_t)mx.n_features);
  for (int f = 0; f < mx.n_features; ++f) missing_bin[f] = m.cuts.nbins(f);
  std::vector<float> margin(n * (size_t)K);
  for (size_t r = 0; r < n; ++r)
    for (int k = 0; k < K; ++k) margin[r * K + k] = (float)m.base_margin[(size_t)k];
  std::vector<double> pred(margin.size());
  MetricParams mp;
  mp.huber_slope = p.huber_slope;
  mp.quantile_alpha = p.quantile_alpha;
  if (p.quantile_alphas.size() > 1) mp.quantile_alphas = &p.quantile_alphas;
  mp.aft_distribution = p.aft_distribution;
  mp.aft_scale = p.aft_scale;
  if (!s.labels_upper.empty()) mp.label_upper = s.labels_upper.data();
  const float* w = s.weights.empty() ? nullptr : s.weights.data();
  out->assign((size_t)R * M, 0.0);
  for (int round = 0; round < R; ++round) {
    for (int j = 0; j < TPR; ++j) {
      const size_t t = (size_t)round * TPR + j;
      const Tree& tree = m.trees[t];
      const int k = m.tree_group[t];
      for (size_t r = 0; r < n; ++r) {
        poll->tick();
        margin[r * K + k] += tree.value[mx.leaf_of_row(tree, rows[r], missing_bin.data())];
      }
    }
    pred.assign(margin.begin(), margin.end());
    for (size_t r = 0; r < n; ++r) {
      if (oi.eval_transform)
        oi.eval_transform(&pred[r * K], K);
      else
        transform_margins(m, &pred[r * K]);
    }
    for (size_t i = 0; i < M; ++i)
      (*out)[(size_t)round * M + i] =
          oi.ranking ? rank_metric_codes(metrics[i], s.query_group.data(), n, pred.data(),
                                         s.labels.data(), p.ndcg_exp_gain, w)
                     : compute_metric(metrics[i], m.objective, K, pred.data(), s.labels.data(), n,
                                      w, mp);
  }
}

// One fold's result: its train and test metric histories.
struct FoldResult {
  std::vector<std::string> metrics;
  std::vector<double> train, test;
  int rounds = 0;
};

// Trains fold k and scores its rounds (one job of run_concurrent_jobs).
void run_fold(const BinnedInput& in, const TrainParams& p, const std::vector<int32_t>& fold,
              int k, const CancelFn& cancel, double memory_limit, const std::string& target,
              FoldResult* out) {
  CancelPoller poll(cancel);
  std::vector<size_t> train_rows, test_rows;
  for (size_t r = 0; r < fold.size(); ++r) {
    poll.tick();
    (fold[r] == k ? test_rows : train_rows).push_back(r);
  }
  MemoryBudget budget(memory_limit, "gbdt.max_memory");
  const double copy_bytes = (double)fold.size() * ((double)in.matrix.n_features *
                                                       (in.matrix.wide ? 2 : 1) + 16);
  BudgetCharge copies(memory_limit > 0 ? &budget : nullptr, copy_bytes,
                      "the rows of fold " + std::to_string(k) + " (" +
                          std::to_string(fold.size()) + " rows)",
                      "use fewer threads, or train on a sample of the rows");
  BinnedInput train = subset(in, train_rows, true, &poll);
  TrainHooks hooks;
  hooks.cancel = cancel;
  hooks.default_device = "cpu";
  hooks.budget = memory_limit > 0 ? &budget : nullptr;
  const Model m = train_binned(std::move(train), p, hooks, target);
  out->metrics = split_metrics(m.report.eval_metric);
  out->rounds = m.num_rounds();
  round_metrics(m, in.matrix, train_rows, subset(in, train_rows, false, &poll), out->metrics, p,
                &poll, &out->train);
  round_metrics(m, in.matrix, test_rows, subset(in, test_rows, false, &poll), out->metrics, p,
                &poll, &out->test);
}

void mean_std(const std::vector<FoldResult>& f, size_t i, bool test, double* mean, double* sd) {
  double s = 0, s2 = 0;
  for (const FoldResult& r : f) s += (test ? r.test : r.train)[i];
  const double mu = s / (double)f.size();
  for (const FoldResult& r : f) {
    const double d = (test ? r.test : r.train)[i] - mu;
    s2 += d * d;
  }
  *mean = mu;
  *sd = std::sqrt(s2 / (double)f.size());
}

}  // namespace

CvHistory cross_validate(const BinnedInput& in, const TrainParams& p0,
                         const std::vector<int32_t>& fold, int nfold, const TrainHooks& hooks,
                         const std::string& target_name) {
  if (p0.validation_fraction > 0)
    throw InvalidInput("parameter \"validation_fraction\" is not for cross-validation: the "
                       "folds are the test rows");
  if (!p0.validation_relation.empty())
    throw InvalidInput("parameter \"validation_relation\" is not for cross-validation: the "
                       "folds are the test rows");
  if (fold.size() != in.labels.size()) throw std::logic_error("cross_validate: fold size");
  TrainParams p = p0;
  p.early_stopping_rounds = 0;  // applied to the folds' mean below
  const std::string device = p.device.empty() ? hooks.default_device : p.device;
  const int nthread = p.nthread > 0 ? p.nthread : default_nthread();
  // Folds run concurrently on the CPU; on a GPU one at a time.
  const int workers = device == "cpu" ? std::max(1, std::min(nfold, nthread)) : 1;
  p.nthread = std::max(1, nthread / workers);
  if (workers > 1) p.device = "cpu";
  const double limit = hooks.budget != nullptr ? hooks.budget->limit() / workers : 0;

  std::vector<FoldResult> results((size_t)nfold);
  run_concurrent_jobs(
      workers, (size_t)nfold,
      [&](size_t k, const CancelFn& cancel) {
        run_fold(in, p, fold, (int)k, cancel, limit, target_name, &results[k]);
      },
      hooks.cancel);

  CvHistory h;
  h.metrics = results[0].metrics;
  h.rounds = results[0].rounds;
  for (const FoldResult& r : results) h.rounds = std::min(h.rounds, r.rounds);
  const size_t M = h.metrics.size();
  const bool higher = M > 0 && metric_higher_is_better(h.metrics.back());
  int rounds = h.rounds;
  for (int r = 0; r < h.rounds; ++r) {
    for (size_t i = 0; i < M; ++i) {
      double a, b, c, d;
      mean_std(results, (size_t)r * M + i, false, &a, &b);
      mean_std(results, (size_t)r * M + i, true, &c, &d);
      h.train_mean.push_back(a);
      h.train_std.push_back(b);
      h.test_mean.push_back(c);
      h.test_std.push_back(d);
    }
    if (p0.early_stopping_rounds > 0 && M > 0) {
      const double v = h.test_mean.back();
      if (h.best_round < 0 ||
          (higher ? v > h.test_mean[(size_t)h.best_round * M + M - 1]
                  : v < h.test_mean[(size_t)h.best_round * M + M - 1]))
        h.best_round = r;
      if (r - h.best_round >= p0.early_stopping_rounds) {
        rounds = h.best_round + 1;
        break;
      }
    }
  }
  if (h.best_round >= 0) rounds = std::min(rounds, h.best_round + 1);
  h.rounds = rounds;
  for (std::vector<double>* v : {&h.train_mean, &h.train_std, &h.test_mean, &h.test_std})
    v->resize((size_t)rounds * M);
  return h;
}

}  // namespace gbdt
