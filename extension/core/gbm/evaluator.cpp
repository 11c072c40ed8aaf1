#include "evaluator.h"

#include <algorithm>
#include <sstream>

#include "../metric/drift.h"
#include "../objective/lambdarank.h"
#include "../tree/tree_backend.h"
#include "continue_training.h"
#include "multi_quantile.h"

namespace gbdt {

namespace {

std::string fmtd(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

}  // namespace

void eval_transform(const ObjectiveInfo& oi, const Model& m, double* v) {
  if (oi.eval_transform)
    oi.eval_transform(v, m.num_output_group);
  else
    transform_margins(m, v);
}

Evaluator::Evaluator(const TrainParams& p, int num_group, std::vector<std::string> metrics,
                     const ValidationRows& valid, const std::vector<int>& missing_bin)
    : p_(p),
      oi_(objective_info(p.objective)),
      K_(num_group),
      metrics_(std::move(metrics)),
      valid_(valid),
      missing_bin_(missing_bin),
      higher_(metric_higher_is_better(metrics_.back())) {
  mp_.huber_slope = p.huber_slope;
  mp_.quantile_alpha = p.quantile_alpha;
  if (is_multi_quantile(p)) mp_.quantile_alphas = &p.quantile_alphas;
  mp_.aft_distribution = p.aft_distribution;
  mp_.aft_scale = p.aft_scale;
}

// Ranking metrics (ndcg, map, pre) are computed per query group;
// survival:aft's read the upper bounds of the rows scored.
double Evaluator::metric(const std::string& name, const double* pred, const float* labels,
                         size_t nr, const float* w, const std::vector<uint32_t>& groups,
                         const std::vector<float>& upper) const {
  MetricParams mp = mp_;
  if (!upper.empty()) mp.label_upper = upper.data();
  if (oi_.ranking)
    return rank_metric_codes(name, groups.data(), nr, pred, labels, p_.ndcg_exp_gain, w);
  return compute_metric(name, p_.objective, K_, pred, labels, nr, w, mp);
}

void Evaluator::start(const Model* init, Model* m) {
  const size_t n_valid = valid_.matrix.n_rows;
  const int K = K_;
  vmargin_.assign(n_valid * (size_t)K, 0.0);
  if (init != nullptr && n_valid > 0) {
    const float* vw = valid_.weights.empty() ? nullptr : valid_.weights.data();
    init_model_validation(
        *init, valid_, metrics_,
        [&](const std::string& name, const double* pred) {
          return metric(name, pred, valid_.labels.data(), n_valid, vw, valid_.query_group,
                        valid_.labels_upper);
        },
        &vmargin_, &m->report.validation_metric);
  } else {
    for (size_t i = 0; i < n_valid; ++i)
      for (int k = 0; k < K; ++k) vmargin_[i * K + k] = (float)m->base_margin[k];
  }
  vpred_.assign(vmargin_.size(), 0.0);
}

bool Evaluator::after_round(int round, int trees, Model* m, const TrainHooks& hooks) {
  const size_t n_valid = valid_.matrix.n_rows;
  const int K = K_, P = m->num_parallel_tree;
  if (n_valid == 0) {
    if (p_.verbose && hooks.log && (round % 10 == 0 || round + 1 == p_.num_round))
      hooks.log("round " + std::to_string(round + 1) + " of " + std::to_string(p_.num_round));
    return false;
  }
  for (int j = 0; j < trees; ++j) {
    const int k = j / P;
    const Tree& t = m->trees[m->trees.size() - trees + j];
    for (size_t i = 0; i < n_valid; ++i) {
      const int32_t nd = valid_.matrix.leaf_of_row(t, i, missing_bin_.data());
      vmargin_[i * K + k] = (double)((float)vmargin_[i * K + k] + t.value[nd]);
    }
  }
  vpred_ = vmargin_;
  for (size_t i = 0; i < n_valid; ++i) eval_transform(oi_, *m, &vpred_[i * K]);
  const float* vw = valid_.weights.empty() ? nullptr : valid_.weights.data();
  double v = 0;
  std::string line;
  for (const std::string& name : metrics_) {
    v = metric(name, vpred_.data(), valid_.labels.data(), n_valid, vw, valid_.query_group,
               valid_.labels_upper);
    m->report.validation_metric.push_back(v);
    line += (line.empty() ? "" : ", ") + name + " = " + fmtd(v);
  }
  if (best_round_ < 0 || (higher_ ? v > best_ : v < best_)) {
    best_ = v;
    best_round_ = round;
  }
  if (p_.verbose && hooks.log)
    hooks.log("round " + std::to_string(round + 1) + " of " + std::to_string(p_.num_round) +
              ": validation " + line);
  return p_.early_stopping_rounds > 0 && round - best_round_ >= p_.early_stopping_rounds;
}

void Evaluator::keep_best(int init_rounds, int trees_per_round, Model* m) const {
  if (p_.early_stopping_rounds <= 0 || best_round_ < 0) return;
  // Counted over the whole model (XGBoost); the init model's rounds are
  // always kept.
  m->report.best_iteration = init_rounds + best_round_;
  const size_t keep = (size_t)(init_rounds + best_round_ + 1) * trees_per_round;
  m->trees.resize(keep);
  m->tree_group.resize(keep);
}

void Evaluator::final_metrics(const ScoredRows& rows, TreeBackend* backend,
                              std::vector<float>* margins, const CancelFn& cancel,
                              Model* m) const {
  // From the rows as the backend holds them: with row_dedup the distinct
  // ones, each scored and transformed once.
  const int K = K_;
  const BinnedMatrix& scored = *rows.matrix;
  const size_t ns = scored.n_rows, n = rows.n;
  const size_t M = metrics_.size();
  std::vector<double> pred;
  if (m->report.best_iteration < 0 ||
      (size_t)(m->report.best_iteration + 1) * M == m->report.validation_metric.size()) {
    backend->margins(margins);
    pred.assign(margins->begin(), margins->end());
  } else if (rows.remote != nullptr) {
    const std::vector<float> kept = rows.remote->margins_of_trees(m->trees.size());
    pred.assign(kept.begin(), kept.end());
  } else {
    // Early stopping dropped trees: score the rows with the kept ones, in
    // the order and precision of predict_margin_row.
    pred.resize(ns * (size_t)K);
    std::vector<float> acc((size_t)K);
    for (size_t r = 0; r < ns; ++r) {
      if ((r & 65535) == 0) check_cancel(cancel);
      for (int k = 0; k < K; ++k) acc[k] = (float)m->base_margin[k];
      for (size_t t = 0; t < m->trees.size(); ++t) {
        const Tree& tr = m->trees[t];
        acc[m->tree_group[t]] += tr.value[scored.leaf_of_row(tr, r, missing_bin_.data())];
      }
      for (int k = 0; k < K; ++k) pred[r * K + k] = acc[k];
    }
  }
  // What gbdt_drift compares live rows with, from the margins of the trees kept.
  if (rows.remote != nullptr)
    m->training_dist = training_distribution_of_counts(*m, rows.remote->bin_counts(), n, pred.data(),
                                                       nullptr, rows.held_out, rows.nthread, cancel);
  else
    m->training_dist = training_distribution(*m, *rows.training_rows, pred.data(), rows.row_of,
                                             rows.held_out, rows.nthread, cancel);
  for (size_t r = 0; r < ns; ++r) eval_transform(oi_, *m, &pred[r * K]);
  const float* y = rows.labels;
  const float* w = rows.weights;
  std::vector<double> expanded;  // the training rows' predictions, when a metric needs them
  for (const std::string& name : metrics_) {
    double v;
    if (rows.row_of == nullptr) {
      v = metric(name, pred.data(), y, n, w, *rows.query_group, *rows.labels_upper);
    } else if (!compute_metric_distinct(name, p_.objective, K, pred.data(), ns, rows.row_of, y,
                                        n, w, mp_, &v)) {
      if (expanded.empty()) {
        expanded.resize(n * (size_t)K);
        for (size_t r = 0; r < n; ++r)
          std::copy_n(&pred[(size_t)rows.row_of[r] * K], K, &expanded[r * K]);
      }
      v = metric(name, expanded.data(), y, n, w, *rows.query_group, *rows.labels_upper);
    }
    m->report.train_metric.push_back(v);
  }
}

}  // namespace gbdt
