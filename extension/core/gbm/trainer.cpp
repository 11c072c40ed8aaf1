#include "trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "../tree/tree_backend.h"
#include "../data/binned_matrix.h"
#include "../data/categorical_input.h"
#include "continue_training.h"
#include "evaluator.h"
#include "labels.h"
#include "../objective/gradients.h"
#include "../objective/label_quantiles.h"
#include "../metric/metrics.h"
#include "../model/model_limits.h"
#include "multi_quantile.h"
#include "../objective/lambdarank.h"
#include "../objective/objective.h"
#include "../data/row_dedup.h"
#include "../objective/survival.h"  // survival:cox, survival:aft

namespace gbdt {

int default_nthread() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : (int)n;
}

MemoryEstimate estimate_training_memory(const TrainShape& s) {
  const double n = (double)s.n_rows, d = s.n_features, K = s.num_class < 1 ? 1 : s.num_class;
  const double nv = n * s.validation_fraction;
  MemoryEstimate e;
  // Bins (the validation split copies its rows; the training matrix keeps
  // its capacity), labels; validation margins and predictions (doubles).
  e.data = n * d + nv * d + 4 * n + 16 * nv * K;
  // Gradient pairs (16), the backend's and the trainer's margins (4 + 4),
  // the final training predictions (8).
  e.per_class = 32 * n * K;
  // Row indices and their partition buffer, the round's sample (per output
  // when each output has its backend).
  e.rows = (8 * n + (s.subsample ? 5 * n : 0)) * (s.output_backends ? K : 1);
  e.histogram = 16.0 * (double)s.hist_bins;
  // The root: one histogram plus a partial one per further thread (at most
  // one per 32768 rows), and the split scan's per-thread buffers.
  const double partials = std::min((double)(s.nthread - 1), std::floor(n / 32768));
  e.histograms = e.histogram * (1 + std::max(0.0, partials)) + s.nthread * 20.0 * 264;
  const double nodes = std::min(std::ldexp(1.0, s.max_depth + 1) - 1, 2 * n + 1);
  e.tree = nodes * kTreeNodeBytes;
  return e;
}

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string fmtd(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

// Decides the objective when not given (infer_objective, the label rule of
// labels.h) and checks the labels fit it (the objective's rule, objective.h).
void resolve_objective(const float* y, size_t n, const std::string& target, TrainParams* p,
                       std::vector<double>* class_labels) {
  if (!p->objective_set) p->objective = infer_objective(y, n);  // labels.h's rule
  class_labels->clear();
  const ObjectiveInfo& oi = objective_info(p->objective);
  if (oi.multiclass) {
    if (p->num_class > kMaxClasses)
      throw InvalidInput("parameter \"num_class\" = " + std::to_string(p->num_class) +
                         " is out of range: at most " + std::to_string(kMaxClasses) +
                         " classes");
    float mx = 0;
    for (size_t i = 0; i < n; ++i) {
      if (y[i] < 0 || y[i] != std::floor(y[i]))
        throw InvalidInput("target column \"" + target + "\" has value " + fmtd(y[i]) + ": " +
                           oi.name + " needs class labels 0, 1, ..., num_class-1");
      if (y[i] > (float)(kMaxClasses - 1))
        throw InvalidInput("target column \"" + target + "\" has class " + fmtd(y[i]) + ": " +
                           oi.name + " supports at most " + std::to_string(kMaxClasses) +
                           " classes (labels 0 to " + std::to_string(kMaxClasses - 1) + ")");
      mx = std::max(mx, y[i]);
    }
    int k = (int)mx + 1;
    if (p->num_class == 0) p->num_class = std::max(k, 2);
    if (k > p->num_class)
      throw InvalidInput("target column \"" + target + "\" has class " + fmtd(mx) +
                         " but num_class = " + std::to_string(p->num_class));
    for (int c = 0; c < p->num_class; ++c) class_labels->push_back(c);
    return;
  }
  if (oi.check_labels) oi.check_labels(y, n, *p, target);  // ranking (after prepare_ranking)
  if (oi.label_ok)
    for (size_t i = 0; i < n; ++i)
      if (!oi.label_ok(y[i]))
        throw InvalidInput("target column \"" + target + "\" has value " + fmtd(y[i]) + ": " +
                           oi.name + " needs " + oi.label_rule + oi.label_hint);
  if (oi.binary) *class_labels = {0.0, 1.0};
}

// Row weights: finite and >= 0, and not all 0.
void check_weights(const std::vector<float>& w) {
  double s = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (!(w[i] >= 0) || !std::isfinite(w[i]))
      throw InvalidInput("weight column has value " + fmtd(w[i]) + " in row " +
                         std::to_string(i + 1) + ": weights must be finite and >= 0");
    s += w[i];
  }
  if (!w.empty() && !(s > 0))
    throw InvalidInput("weight column: all weights are 0; at least one row needs a weight > 0");
}

// XGBoost 3.x intercept (the objective's rule; centered log class priors
// for the multiclass objectives).  Returns margins per output group.
std::vector<double> estimate_base_margin(const TrainParams& p, const float* y, const float* w,
                                         size_t n, int K, const CancelFn& cancel) {
  const ObjectiveInfo& oi = objective_info(p.objective);
  if (p.base_score_set) {
    double b = p.base_score;
    if (oi.multiclass) return std::vector<double>((size_t)K, b);
    switch (oi.link) {
      case Link::kLogit:
        if (!(b > 0 && b < 1))
          throw InvalidInput("parameter \"base_score\" = " + fmtd(b) +
                             " is out of range: must be in (0, 1) for " + oi.name);
        return {std::log(b / (1 - b))};
      case Link::kLog:
        if (!(b > 0))
          throw InvalidInput("parameter \"base_score\" = " + fmtd(b) +
                             " is out of range: must be > 0 for " + oi.name);
        return {std::log(b)};
      default:
        return std::vector<double>((size_t)K, b);  // every quantile's
    }
  }
  if (oi.leaf_quantile) {
    // The objectives whose leaves are refit to a quantile of the residuals
    // (reg:quantileerror, reg:absoluteerror) start from that quantile of
    // the labels, their base_margin; several quantiles: each output from its own alpha.
    // One sort for every alpha, polling cancel (label_quantiles.h).
    const std::vector<double> alphas =
        is_multi_quantile(p) ? p.quantile_alphas : std::vector<double>{oi.leaf_quantile(p)};
    return label_quantiles(y, w, n, alphas, cancel);
  }
  if (oi.multiclass) {
    std::vector<double> cnt((size_t)K, 0.0);
    double total = (double)n;
    if (!w) {
      for (size_t i = 0; i < n; ++i) cnt[(size_t)y[i]] += 1.0;
    } else {
      total = 0;
      for (size_t i = 0; i < n; ++i) {
        cnt[(size_t)y[i]] += w[i];
        total += w[i];
      }
    }
    std::vector<double> lg((size_t)K);
    double mean = 0;
    for (int k = 0; k < K; ++k) {
      double pk = std::max(cnt[k] / total, 1e-16);
      lg[k] = std::log(pk);
      mean += lg[k];
    }
    mean /= K;
    for (int k = 0; k < K; ++k) lg[k] -= mean;
    return lg;
  }
  return {oi.base_margin(y, w, n, p)};
}

// The base margin in prediction space (XGBoost's base_score).
double margin_to_base_score(const ObjectiveInfo& oi, double margin) {
  switch (oi.link) {
    case Link::kLogit: return 1.0 / (1.0 + std::exp(-margin));
    case Link::kLog: return std::exp(margin);
    default: return margin;
  }
}

std::vector<uint8_t> feature_mask_for(int round, int d, const TrainParams& p) {
  std::vector<uint8_t> mask((size_t)d, 1);
  if (p.colsample_bytree >= 1.0) return mask;
  int keep = std::max(1, (int)std::lround(p.colsample_bytree * d));
  std::vector<int> order((size_t)d);
  for (int f = 0; f < d; ++f) order[f] = f;
  uint64_t state = mix64(p.seed ^ 0xC0FFEEULL) ^ mix64((uint64_t)round + 1);
  for (int i = 0; i < keep; ++i) {  // partial Fisher-Yates
    state = mix64(state);
    int j = i + (int)(state % (uint64_t)(d - i));
    std::swap(order[i], order[j]);
  }
  std::fill(mask.begin(), mask.end(), 0);
  for (int i = 0; i < keep; ++i) mask[order[i]] = 1;
  return mask;
}

// A categorical node's split_bin is 0: its threshold is the feature's first
// cut, which no categorical decision reads.
void fill_thresholds(const Cuts& c, Tree* t) {
  for (int32_t n = 0; n < t->num_nodes(); ++n)
    if (!t->is_leaf(n)) t->threshold[n] = c.values[c.ptr[t->feature[n]] + t->split_bin[n]];
}

bool is_validation_row(uint64_t seed, uint64_t r, double fraction) {
  uint64_t h = mix64(mix64(seed ^ 0x9E3779B97F4A7C15ULL) ^ r);
  return (double)(h >> 11) * (1.0 / 9007199254740992.0) < fraction;
}

// The metrics of a training: the given list or the objective's default
// (tweedie-nloglik carries the variance power, as XGBoost names it); each
// checked against the objective's number of outputs.
std::vector<std::string> resolve_metrics(const TrainParams& p) {
  const ObjectiveInfo& oi = objective_info(p.objective);
  std::vector<std::string> r;
  if (p.eval_metric.empty()) {
    std::string d = oi.default_metric_of ? oi.default_metric_of(p) : std::string(oi.default_metric);
    if (p.objective == Objective::kTweedie) {
      std::ostringstream o;
      o << d << '@' << p.tweedie_variance_power;
      d = o.str();
    }
    r.push_back(d);
    return r;
  }
  r = split_metrics(p.eval_metric);
  for (const std::string& name : r) {
    if (is_multi_quantile(p) && name != "quantile")  // one value over all outputs
      throw InvalidInput("parameter \"eval_metric\" = \"" + name + "\" is not supported with " +
                         std::to_string(p.quantile_alphas.size()) +
                         " quantiles (a list of quantile_alpha): use quantile");
    if (is_survival_metric(name)) check_survival_metric(name, p.objective);  // cox-nloglik, aft-nloglik
    const bool multi_metric = name == "mlogloss" || name == "merror";
    if (!oi.multiclass && multi_metric)
      throw InvalidInput("parameter \"eval_metric\" = \"" + name +
                         "\" needs objective multi:softprob or multi:softmax");
    if (oi.multiclass && !multi_metric)
      throw InvalidInput("parameter \"eval_metric\" = \"" + name +
                         "\" is for binary objectives and regression, not " + oi.name +
                         ": use mlogloss or merror");
  }
  return r;
}

// Refit leaves (adaptive-leaf objectives) keep monotone_constraints.  Top down, every node gets
// an interval [lo, hi] (root: unbounded); a split on a constrained feature
// cuts its interval at mid = its children's grown values' midpoint (clamped
// into the interval), the increasing side above, the decreasing side below;
// each leaf is clamped into its interval.  Every leaf on the "larger" side of
// a constrained split is then >= mid >= every leaf on the other side, so the
// predictions stay monotone whatever the refit did.
void bound_monotone_leaves(const std::vector<int8_t>& monotone, Tree* t) {
  struct Item {
    int32_t node;
    double lo, hi;
  };
  std::vector<Item> stack{{0, -HUGE_VAL, HUGE_VAL}};
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const int32_t nd = it.node;
    if (t->is_leaf(nd)) {
      t->value[nd] = (float)std::min(std::max((double)t->value[nd], it.lo), it.hi);
      continue;
    }
    const int32_t l = t->left[nd], r = t->right[nd];
    const int f = t->feature[nd];
    const int c = f >= 0 && (size_t)f < monotone.size() ? monotone[(size_t)f] : 0;
    if (c == 0) {
      stack.push_back({l, it.lo, it.hi});
      stack.push_back({r, it.lo, it.hi});
      continue;
    }
    const double mid =
        std::min(std::max(0.5 * ((double)t->value[l] + (double)t->value[r]), it.lo), it.hi);
    if (c > 0) {
      stack.push_back({l, it.lo, mid});
      stack.push_back({r, mid, it.hi});
    } else {
      stack.push_back({l, mid, it.hi});
      stack.push_back({r, it.lo, mid});
    }
  }
}

// Adaptive leaves: each leaf of `t` becomes eta * the alpha-quantile of the
// residuals y - margin (margins before the tree) of its rows (XGBoost's rule:
// unweighted interpolated, weighted by cumulative weight); a leaf without
// rows keeps its value.  *margins gets before + the new leaf, in float as
// the predictor adds it.  poll counts the rows routed and sorted (throws
// Cancelled).
void refit_leaves(const BinnedMatrix& mx, const std::vector<int>& missing_bin, const float* y,
                  const float* w, const std::vector<float>& before, double alpha, double eta,
                  const std::vector<int8_t>* monotone, Tree* t, std::vector<float>* margins,
                  CancelPoller* poll) {
  const size_t n = mx.n_rows;
  std::vector<int32_t> leaf(n);
  std::vector<std::vector<size_t>> rows((size_t)t->num_nodes());
  for (size_t r = 0; r < n; ++r) {
    poll->tick();
    leaf[r] = mx.leaf_of_row(*t, r, missing_bin.data());
    rows[(size_t)leaf[r]].push_back(r);
  }
  std::vector<float> res, rw;
  for (int32_t nd = 0; nd < t->num_nodes(); ++nd) {
    if (!t->is_leaf(nd) || rows[(size_t)nd].empty()) continue;
    res.clear();
    rw.clear();
    for (size_t r : rows[(size_t)nd]) {
      res.push_back(y[r] - before[r]);
      if (w) rw.push_back(w[r]);
    }
    const double q = label_quantile_polled(res.data(), w ? rw.data() : nullptr, res.size(),
                                           alpha, poll);
    t->value[nd] = (float)(eta * q);
  }
  if (monotone && !monotone->empty()) bound_monotone_leaves(*monotone, t);
  margins->resize(n);
  for (size_t r = 0; r < n; ++r) (*margins)[r] = before[r] + t->value[leaf[r]];
}

// refit_leaves for each output k of a round (trees[k], alpha alphas[k],
// margins column k of the n x K `before`); *margins gets n x K.
void refit_outputs(const BinnedMatrix& mx, const std::vector<int>& missing_bin, const float* y,
                   const float* w, const std::vector<float>& before,
                   const std::vector<double>& alphas, double eta,
                   const std::vector<int8_t>* monotone, Tree* trees,
                   std::vector<float>* margins, CancelPoller* poll) {
  const size_t n = mx.n_rows, K = alphas.size();
  std::vector<float> col(n), out;
  margins->resize(n * K);
  for (size_t k = 0; k < K; ++k) {
    for (size_t r = 0; r < n; ++r) col[r] = before[r * K + k];
    refit_leaves(mx, missing_bin, y, w, col, alphas[k], eta, monotone, &trees[k], &out, poll);
    for (size_t r = 0; r < n; ++r) (*margins)[r * K + k] = out[r];
  }
}

}  // namespace

namespace {

// Rows moved out of the binned input for validation (in place; the
// training rows keep their order).
}  // namespace

void check_validation_split(const TrainParams& p, size_t n_valid, size_t n_all) {
  if (n_valid == 0 || n_valid == n_all)
    throw InvalidInput("validation_fraction = " + fmtd(p.validation_fraction) + " leaves " +
                       std::to_string(n_all - n_valid) + " training and " +
                       std::to_string(n_valid) + " validation rows of " +
                       std::to_string(n_all) + ": both need at least one");
}

namespace {

using ValidationSplit = ValidationRows;  // matrix, labels, weights (empty = unweighted)

// `init_margins` (continued training: K margins per row, or null) are
// compacted like the rows, so they keep matching the training rows.
void split_validation(const TrainParams& p, BinnedInput* in, ValidationSplit* v,
                      std::vector<float>* init_margins) {
  if (p.validation_fraction <= 0) return;
  const size_t n_all = in->matrix.n_rows;
  const size_t K = init_margins != nullptr && n_all > 0 ? init_margins->size() / n_all : 0;
  const size_t d = (size_t)in->matrix.n_features;
  // with query groups, whole groups go to validation (hashed by group).
  const bool by_group = !in->query_group.empty();
  auto key = [&](size_t r) -> uint64_t { return by_group ? in->query_group[r] : r; };
  size_t n_valid = 0;
  for (size_t r = 0; r < n_all; ++r)
    n_valid += is_validation_row(p.seed, key(r), p.validation_fraction);
  check_validation_split(p, n_valid, n_all);
  v->matrix.n_rows = n_valid;
  v->matrix.n_features = (int)d;
  v->matrix.wide = in->matrix.wide;  // the same entry type
  v->matrix.resize_entries();
  v->labels.resize(n_valid);
  const bool weighted = !in->weights.empty();
  if (weighted) v->weights.resize(n_valid);
  const bool bounds = !in->labels_upper.empty();  // survival:aft
  if (bounds) v->labels_upper.resize(n_valid);
  size_t w = 0, k = 0;
  // copy_row(from, to_matrix, to): row `from` of in->matrix to row `to`.
  auto copy_row = [d](BinnedMatrix& src, size_t from, BinnedMatrix& dst, size_t to) {
    if (src.wide)
      std::copy(src.bins16.begin() + from * d, src.bins16.begin() + (from + 1) * d, dst.bins16.begin() + to * d);
    else
      std::copy(src.bins.begin() + from * d, src.bins.begin() + (from + 1) * d, dst.bins.begin() + to * d);
  };
  for (size_t r = 0; r < n_all; ++r) {
    if (is_validation_row(p.seed, key(r), p.validation_fraction)) {
      copy_row(in->matrix, r, v->matrix, k);
      if (weighted) v->weights[k] = in->weights[r];
      if (by_group) v->query_group.push_back(in->query_group[r]);
      if (bounds) v->labels_upper[k] = in->labels_upper[r];
      v->labels[k++] = in->labels[r];
    } else {
      if (w != r) copy_row(in->matrix, r, in->matrix, w);
      if (K > 0 && w != r)
        std::copy(init_margins->begin() + r * K, init_margins->begin() + (r + 1) * K,
                  init_margins->begin() + w * K);
      if (weighted) in->weights[w] = in->weights[r];
      if (by_group) in->query_group[w] = in->query_group[r];
      if (bounds) in->labels_upper[w] = in->labels_upper[r];
      in->labels[w++] = in->labels[r];
    }
  }
  if (by_group) in->query_group.resize(w);
  in->matrix.n_rows = w;
  in->matrix.resize_entries();
  in->labels.resize(w);
  if (weighted) in->weights.resize(w);
  if (bounds) in->labels_upper.resize(w);
  if (K > 0) init_margins->resize(w * K);
}

// survival:aft needs the upper bounds (label_upper_bound_column), and
// only it takes them.
void check_interval_labels(const TrainParams& p, const BinnedInput& in, const std::string& target) {
  const ObjectiveInfo& oi = objective_info(p.objective);
  const bool given = !in.labels_upper.empty() || !p.label_upper_bound_column.empty();
  if (!oi.interval_labels) {
    if (given)
      throw InvalidInput("parameter \"label_upper_bound_column\" is only for objective "
                         "survival:aft, not " + std::string(oi.name));
    return;
  }
  if (in.labels_upper.empty())
    throw InvalidInput(std::string(oi.name) + " needs parameter \"label_upper_bound_column\": "
                       "the column of the upper bounds of the survival times (the target \"" +
                       target + "\" is the lower bound)");
  if (in.labels_upper.size() != in.labels.size())
    throw std::logic_error("train_binned: labels_upper does not match the labels");
  check_aft_bounds(in.labels.data(), in.labels_upper.data(), in.labels.size(), target,
                   p.label_upper_bound_column);
}

// ---- the user's validation rows, continued training ----

// The user's validation rows (a validation relation): as many features as
// the training, at least one row, labels finite and fitting the objective.
void check_validation_rows(const ValidationRows& v, int d, const std::string& target,
                           const TrainParams& p, const std::vector<double>* class_labels) {
  if (v.matrix.n_features != d || v.labels.size() != v.matrix.n_rows)
    throw std::logic_error("validation rows do not match the training features");
  if (v.matrix.n_rows == 0)
    throw InvalidInput("parameter \"validation_relation\": the relation has no rows with a "
                       "non-NULL target \"" + target + "\"");
  for (float y : v.labels)
    if (!std::isfinite(y))
      throw InvalidInput("target column \"" + target + "\" of the validation_relation contains " +
                         fmtd(y) + ": labels must be finite");
  TrainParams q = p;  // objective resolved: only checks the labels
  std::vector<double> unused;
  try {
    resolve_objective(v.labels.data(), v.labels.size(), target, &q, &unused);
  } catch (const InvalidInput& e) {
    throw InvalidInput(std::string("validation_relation: ") + e.what());
  }
  (void)class_labels;
}

// Continued training: the init model's trees come first and the training
// rows' margins start from its predictions (floats given by the loader, or
// the rows' bins, which give the same leaves for values below the last cut).
void start_from_init_model(const Model& init, const BinnedMatrix& bins,
                           const std::vector<float>* given, std::vector<float>* margins,
                           Model* m) {
  const size_t n = bins.n_rows;
  const int d = bins.n_features, K = init.num_output_group;
  m->trees = init.trees;
  m->tree_group = init.tree_group;
  if (given != nullptr) {
    if (given->size() != n * (size_t)K)
      throw std::logic_error("init margins do not match the training rows");
    *margins = *given;
    return;
  }
  std::vector<int> missing_bin((size_t)d);
  for (int f = 0; f < d; ++f) missing_bin[f] = init.cuts.nbins(f);
  for (size_t r = 0; r < n; ++r) {
    float* a = &(*margins)[r * K];
    for (int k = 0; k < K; ++k) a[k] = (float)init.base_margin[k];
    for (size_t t = 0; t < init.trees.size(); ++t) {
      const Tree& tr = init.trees[t];
      a[init.tree_group[t]] += tr.value[bins.leaf_of_row(tr, r, missing_bin.data())];
    }
  }
}

// one round of num_parallel_tree trees per output group.  Every tree
// starts from the round's margins (the same gradients), samples its rows
// and columns as round `round * P + j` would (its own streams; P = 1 is the
// plain round), and gets leaves scaled by eta / P (BoostData::split);
// objectives with adaptive leaves refit each tree on the round's
// residuals.  *trees gets the K * P trees group-major (XGBoost's order)
// and *margins the round's margins plus every tree's leaf, added in that
// order in float as the predictor does; the backend restarts from them.
struct ParallelRound {
  TreeBackend& backend;
  const BoostData& bd;
  const BinnedMatrix& mx;
  const std::vector<int>& missing_bin;
  const float* y;
  const float* w;
  const std::vector<int8_t>* monotone;
};

void grow_parallel_trees(const ParallelRound& r, const TrainParams& p, int round,
                         const std::vector<double>& alphas, std::vector<Tree>* trees,
                         std::vector<float>* margins) {
  const int P = p.num_parallel_tree, K = r.bd.num_group, d = r.mx.n_features;
  const size_t n = r.mx.n_rows;
  std::vector<float> base, unused;
  r.backend.margins(&base);
  std::vector<std::vector<Tree>> grown((size_t)P);
  CancelPoller poll(r.bd.cancel);
  for (int j = 0; j < P; ++j) {
    if (j > 0) r.backend.init(r.bd, base);  // back to the round's gradients
    const int sample_round = round * P + j;
    r.backend.boost_round(sample_round, feature_mask_for(sample_round, d, p), &grown[(size_t)j]);
    if ((int)grown[(size_t)j].size() != K)
      throw std::logic_error("boost_round grew a tree count other than num_group");
    if (!alphas.empty())  // adaptive leaves, per output (one alpha each)
      refit_outputs(r.mx, r.missing_bin, r.y, r.w, base, alphas, p.eta / P, r.monotone,
                    grown[(size_t)j].data(), &unused, &poll);
  }
  trees->clear();
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < P; ++j) trees->push_back(std::move(grown[(size_t)j][(size_t)k]));
  *margins = base;
  for (size_t i = 0; i < n; ++i) {
    for (size_t t = 0; t < trees->size(); ++t) {
      const Tree& tr = (*trees)[t];  // 1- or 2-byte entries (leaf_of_row)
      (*margins)[i * (size_t)K + t / (size_t)P] += tr.value[r.mx.leaf_of_row(tr, i, r.missing_bin.data())];
    }
  }
  r.backend.init(r.bd, *margins);
}

// The sizes of one training.
struct Layout {
  int d = 0;         // features
  size_t n = 0;      // training rows
  size_t n_valid = 0;
  int K = 1;         // output groups: classes, quantiles, or 1
  int P = 1;         // trees per round and output group (num_parallel_tree)
  bool multi_q = false;  // several quantiles: one output (and backend) per alpha
  int nthread = 1;
};

Layout layout_of(const BinnedInput& in, const ValidationSplit& valid, const TrainParams& p) {
  Layout l;
  l.d = in.matrix.n_features;
  l.n = in.matrix.n_rows;
  l.n_valid = valid.matrix.n_rows;
  l.multi_q = is_multi_quantile(p);
  l.K = objective_info(p.objective).multiclass ? p.num_class
        : l.multi_q                             ? (int)p.quantile_alphas.size()
                                                : 1;
  l.P = p.num_parallel_tree;
  l.nthread = p.nthread > 0 ? p.nthread : default_nthread();
  return l;
}

// The data-independent part of the memory, charged before it is allocated
// and before the intercepts (a sort of the labels) are computed; the
// histograms and the trees are charged as they grow.
struct FixedCharge {
  double bytes = 0;
  std::string what, hint;
};

FixedCharge fixed_charge(const Layout& l, const BinnedInput& in, const TrainParams& p) {
  TrainShape shape;
  shape.n_rows = l.n + l.n_valid;
  shape.n_features = l.d;
  shape.hist_bins = in.cuts.total_hist_bins();
  shape.num_class = l.K;
  shape.output_backends = l.multi_q;  // one backend per quantile
  shape.nthread = l.nthread;
  shape.max_depth = p.max_depth > 0 ? p.max_depth : 16;  // 0 = no limit (lossguide)
  shape.validation_fraction = shape.n_rows ? (double)l.n_valid / (double)shape.n_rows : 0;
  shape.subsample = p.subsample < 1.0;
  const MemoryEstimate est = estimate_training_memory(shape);
  const int K = l.K;
  const std::string outputs =
      l.multi_q ? std::to_string(K) + " quantiles (quantile_alpha)"
                : std::to_string(K) + " output group" + (K == 1 ? "" : "s");
  FixedCharge c;
  c.bytes = est.data + est.per_class + est.rows;
  c.what = "the binned data, gradients and margins of " + std::to_string(shape.n_rows) +
           " rows x " + std::to_string(l.d) + " features x " + outputs;
  c.hint = l.multi_q ? "train on a sample of the rows, fewer features or fewer quantiles in "
                       "quantile_alpha"
                     : "train on a sample of the rows, fewer features or fewer classes";
  return c;
}

// The model's metadata (objective, outputs, features, categories), its
// base margins (the init model's, or the labels' intercepts), the tree
// constraints resolved against the feature names (rewritten in canonical
// index form into *p before the parameters are recorded), the report's
// row counts and the metrics (the objective's default or the given list;
// early stopping on the last, as XGBoost).  With several metrics the
// report's eval_metric is the comma-separated list, train_metric holds one
// value per metric and validation_metric one per metric and round
// (round-major).
std::vector<std::string> configure_model(const BinnedInput& in, const Layout& l,
                                         const std::vector<double>& class_labels,
                                         const TrainHooks& hooks, const Model* init,
                                         TrainParams* p, TreeExtParams* tree_ext, Model* m) {
  const int d = l.d;
  m->class_labels = class_labels;
  m->objective = p->objective;
  m->num_output_group = l.K;
  m->num_parallel_tree = l.P;
  m->feature_names = in.feature_names;
  m->feature_types = in.feature_types;
  if ((int)m->feature_types.size() != d) m->feature_types.assign((size_t)d, FeatureType::kFloat);
  m->categories = in.categories;
  const std::vector<uint32_t> n_categories =
      category_counts(in.feature_names, m->feature_types, in.categories);
  if (init != nullptr) {
    m->base_margin = init->base_margin;
    m->base_score = init->base_score;
  } else {
    const float* w = in.weights.empty() ? nullptr : in.weights.data();
    m->base_margin = estimate_base_margin(*p, in.labels.data(), w, l.n, l.K, hooks.cancel);
    m->base_score = margin_to_base_score(objective_info(p->objective), m->base_margin[0]);
  }
  resolve_tree_params(p, in.feature_names, tree_ext);
  // A monotone constraint orders a numeric feature's values; a categorical
  // feature's codes have no order to keep (XGBoost refuses it too).
  // Constraints on numeric features bound the categorical splits' weights
  // as any other split's.
  for (size_t f = 0; f < tree_ext->monotone.size() && f < n_categories.size(); ++f)
    if (tree_ext->monotone[f] != 0 && n_categories[f] > 0)
      throw InvalidInput("parameter \"monotone_constraints\" constrains the categorical feature \"" +
                         in.feature_names[f] +
                         "\": only numeric features can be monotone (give it 0 or leave it out)");
  resolve_is_unbalance(in.labels.data(), l.n, hooks.cancel, p);  // LightGBM's: from the training rows' labels
  m->params = params_to_kv(*p);
  if (init != nullptr) m->params.emplace_back("init_model_rounds", std::to_string(init->num_rounds()));
  m->report.rows_used = l.n;
  m->report.rows_skipped = in.rows_skipped;
  m->report.rows_validation = l.n_valid;
  m->report.seconds_load = in.seconds_load;
  m->report.seconds_bin = in.seconds_bin;
  std::vector<std::string> metrics = resolve_metrics(*p);
  for (size_t i = 0; i < metrics.size(); ++i) m->report.eval_metric += (i ? "," : "") + metrics[i];
  return metrics;
}

// What the backend trains on: the rows, gradient parameters and weights
// (scale_pos_weight folded into *grad_w for a binary objective's rows
// labelled 1, XGBoost's rule), split and sampling parameters; ranking and
// survival gradients computed on the host (*lambdarank owns the former).
BoostData boost_data(const BinnedInput& in, const Layout& l, const TrainParams& p,
                     const TreeExtParams& tree_ext, const std::vector<uint32_t>& n_categories,
                     const TrainHooks& hooks, const Model& m, std::vector<float>* grad_w,
                     std::unique_ptr<LambdaRank>* lambdarank) {
  const ObjectiveInfo& oi = objective_info(p.objective);
  const size_t n = l.n;
  const float* y = in.labels.data();
  const float* w = in.weights.empty() ? nullptr : in.weights.data();
  const float* gw = w;
  if (oi.binary && p.scale_pos_weight != 1.0) {
    grad_w->resize(n);
    for (size_t i = 0; i < n; ++i)
      (*grad_w)[i] = (w ? w[i] : 1.0f) * (y[i] == 1.0f ? (float)p.scale_pos_weight : 1.0f);
    gw = grad_w->data();
  }
  BoostData bd;
  bd.matrix = &in.matrix;
  bd.cuts = &m.cuts;
  bd.labels = y;
  bd.n_rows = n;
  bd.num_group = l.K;
  bd.objective = p.objective;
  bd.grad.max_delta_step = p.effective_max_delta_step();
  bd.grad.huber_slope = p.huber_slope;
  bd.grad.quantile_alpha = p.quantile_alpha;
  bd.grad.tweedie_variance_power = p.tweedie_variance_power;
  bd.weights = gw;
  // parallel trees' leaves are scaled by eta / num_parallel_tree
  // (XGBoost's rule; exactly eta for one tree).
  bd.split = SplitParams{p.reg_lambda, p.reg_alpha, p.gamma, p.min_child_weight,
                         p.effective_max_delta_step(), p.eta / l.P, (double)p.min_data_in_leaf};
  bd.max_depth = p.max_depth;
  bd.subsample = p.subsample;
  bd.seed = p.seed;
  bd.nthread = l.nthread;
  bd.cpu_bin_copies = p.cpu_bin_copies;
  bd.cancel = hooks.cancel;
  bd.budget = hooks.budget;
  if (!n_categories.empty()) bd.n_categories = &n_categories;
  bd.cat_split = CatSplitParams{p.max_cat_to_onehot, p.max_cat_threshold, p.cat_smooth, p.cat_l2,
                                (double)p.min_data_per_group};
  bd.split.count_rows = cat_counts_rows(bd.cat_split);
  if (oi.ranking) {
    // Every caller's path has checked the groups (prepare_ranking); this
    // keeps a ranking objective without them (one taken from an init
    // model, say) from ever reaching the gradients.
    if (in.query_group.size() != n)
      throw InvalidInput(std::string("objective ") + objective_name(p.objective) +
                         " needs query groups: pass group_column => the column that identifies "
                         "the query of each row (params '{\"group_column\": \"qid\"}')");
    lambdarank->reset(new LambdaRank(p.objective, rank_params_of(p),
                                     make_query_groups(in.query_group.data(), n), y, p.seed,
                                     l.nthread, w));
    LambdaRank* lr = lambdarank->get();
    const CancelFn cancel = hooks.cancel;
    bd.external_gradients = [lr, cancel](int round, const float* mg, double* g, double* h) {
      lr->gradients(round, mg, g, h, cancel);
    };
  }
  bd.tree_ext = tree_ext;
  if (oi.host_gradients)  // survival (survival.h)
    bd.external_gradients = oi.host_gradients(
        p.objective, y, in.labels_upper.empty() ? nullptr : in.labels_upper.data(), gw, n, p);
  return bd;
}

// The backend of the device that `p` / `hooks` select: "cuda" (an error
// when this library has no CUDA), "auto" (CUDA when a device is there,
// else, or when it fails to start, the CPU with a notice saying why), or
// the CPU; several quantiles get one single-output backend of that kind
// per quantile.
std::unique_ptr<TreeBackend> make_backend(const BoostData& bd, const TrainParams& p,
                                          const TrainHooks& hooks, bool multi_q) {
  const std::string device = p.device.empty() ? hooks.default_device : p.device;
  std::unique_ptr<TreeBackend> backend;
  if (device == "cuda") {
    if (!cuda_compiled())
      throw InvalidInput("device \"cuda\" requested but this gbdt library was built without CUDA");
    // Throws ResourceError saying why (no device, driver error, memory).
    backend = make_cuda_backend(bd);
  } else if (device == "auto" && cuda_compiled() && cuda_device_count() > 0) {
    try {
      backend = make_cuda_backend(bd);
    } catch (const ResourceError& e) {
      if (hooks.notice) hooks.notice(std::string("gbdt: training on the CPU: ") + e.what());
    }
  }
  if (!backend) backend = make_cpu_backend();
  if (multi_q) {
    const bool cuda = backend->name() != "cpu";
    backend.reset();
    backend = make_multi_quantile_backend(
        bd, [cuda](const BoostData& b) { return cuda ? make_cuda_backend(b) : make_cpu_backend(); },
        p.quantile_alphas);
  }
  return backend;
}

// The rounds' shared state: what boost() reads and the trees go into.
struct BoostState {
  const BinnedInput& in;
  const Layout& l;
  const TrainParams& p;
  const TrainHooks& hooks;
  BoostData& bd;
  TreeBackend* backend;
  const std::vector<int>& missing_bin;
  bool deduped;             // the backend holds the distinct rows (row_dedup)
  int init_rounds;          // rounds numbered after the init model's
  std::vector<float>* margins;
  double* tree_bytes;       // charged to the budget for the trees
};

// The trees of one round: num_parallel_tree per output group on the
// round's gradients, or the backend's round with adaptive leaves refit.
void grow_round(const BoostState& s, int round, const std::vector<double>& refit_alphas,
                std::vector<float>* before, CancelPoller* refit_poll, std::vector<Tree>* trees) {
  const TrainParams& p = s.p;
  const ObjectiveInfo& oi = objective_info(p.objective);
  const float* y = s.in.labels.data();
  const float* w = s.in.weights.empty() ? nullptr : s.in.weights.data();
  const int sample_round = s.init_rounds + round;  // sampling seeds
  if (s.l.P > 1) {
    // Rows as the backend holds them: the distinct ones when deduped (no
    // refit then: adaptive leaves turn row_dedup off).
    ParallelRound pr{*s.backend, s.bd, *s.bd.matrix, s.missing_bin, s.deduped ? s.bd.labels : y,
                     s.deduped ? s.bd.weights : w, &s.bd.tree_ext.monotone};
    grow_parallel_trees(pr, p, sample_round, refit_alphas, trees, s.margins);
    return;
  }
  if (oi.leaf_quantile) s.backend->margins(before);
  s.backend->boost_round(sample_round, feature_mask_for(sample_round, s.l.d, p), trees);
  if (oi.leaf_quantile && s.l.multi_q) {
    refit_outputs(s.in.matrix, s.missing_bin, y, w, *before, refit_alphas, p.eta,
                  &s.bd.tree_ext.monotone, trees->data(), s.margins, refit_poll);
    s.backend->init(s.bd, *s.margins);
  } else if (oi.leaf_quantile) {
    refit_leaves(s.in.matrix, s.missing_bin, y, w, *before, oi.leaf_quantile(p), p.eta,
                 &s.bd.tree_ext.monotone, &(*trees)[0], s.margins, refit_poll);
    s.backend->init(s.bd, *s.margins);  // the training margins with the refit leaves
  }
}

// The round loop (XGBoost's DoBoost): each round's trees are grown,
// charged to the memory budget, given their thresholds and appended
// group-major; the evaluator scores them and may stop early.
void boost(const BoostState& s, Evaluator* eval, Model* m) {
  const TrainParams& p = s.p;
  const ObjectiveInfo& oi = objective_info(p.objective);
  // Adaptive leaves: the alpha of each output.
  std::vector<double> refit_alphas;
  if (oi.leaf_quantile)
    refit_alphas = s.l.multi_q ? p.quantile_alphas : std::vector<double>{oi.leaf_quantile(p)};
  std::vector<float> before;  // margins before the round (adaptive leaves)
  CancelPoller refit_poll(s.hooks.cancel);
  const int TPR = s.l.K * s.l.P;  // trees of a round (group-major)
  for (int round = 0; round < p.num_round; ++round) {
    check_cancel(s.hooks.cancel);
    std::vector<Tree> trees;
    grow_round(s, round, refit_alphas, &before, &refit_poll, &trees);
    if (s.hooks.budget) {
      double nodes = 0;
      for (int k = 0; k < TPR; ++k) nodes += trees[k].num_nodes();
      s.hooks.budget->charge(nodes * kTreeNodeBytes,
                             "the trees of round " + std::to_string(round + 1) + " (" +
                                 std::to_string((long long)nodes) + " nodes)",
                             "lower num_round (now " + std::to_string(p.num_round) +
                                 ") or max_depth (now " + std::to_string(p.max_depth) + ")");
      *s.tree_bytes += nodes * kTreeNodeBytes;
    }
    for (int k = 0; k < TPR; ++k) {
      fill_thresholds(m->cuts, &trees[k]);
      m->trees.push_back(std::move(trees[k]));
      m->tree_group.push_back(k / s.l.P);
    }
    if (eval->after_round(round, TPR, m, s.hooks)) break;
  }
}

// One training on the device that `p` / `hooks` select, on the training
// rows of `in` (validation rows already split off into `valid`); *on_cuda
// tells whether it ran (or failed) on the CUDA backend.
// `p` has its objective resolved (resolve_objective) and class_labels are
// the model's.
Model train_once(const BinnedInput& in, const ValidationSplit& valid, TrainParams p,
                 const std::vector<double>& class_labels, const TrainHooks& hooks,
                 const TrainExtras& extras, bool* on_cuda) {
  const Model* init = extras.init_model;  // continued training
  const Layout l = layout_of(in, valid, p);
  const FixedCharge fc = fixed_charge(l, in, p);
  BudgetCharge fixed(hooks.budget, fc.bytes, fc.what, fc.hint);
  // Released when this training ends (the model is then serialized and
  // the backend's buffers are gone).
  struct TreeCharge {
    MemoryBudget* b;
    double n = 0;
    ~TreeCharge() {
      if (b) b->release(n);
    }
  } tree_charge{hooks.budget};
  Model m;
  TreeExtParams tree_ext;
  std::vector<std::string> metrics =
      configure_model(in, l, class_labels, hooks, init, &p, &tree_ext, &m);
  m.cuts = in.cuts;
  std::vector<int> missing_bin((size_t)l.d);
  for (int f = 0; f < l.d; ++f) missing_bin[f] = m.cuts.nbins(f);
  Evaluator eval(p, l.K, std::move(metrics), valid, missing_bin);
  check_cancel(hooks.cancel);

  const std::vector<uint32_t> n_categories =
      category_counts(in.feature_names, m.feature_types, in.categories);
  std::vector<float> grad_w;
  std::unique_ptr<LambdaRank> lambdarank;  // ranking gradients on the host
  BoostData bd = boost_data(in, l, p, tree_ext, n_categories, hooks, m, &grad_w, &lambdarank);
  std::unique_ptr<TreeBackend> backend =
      extras.remote ? extras.remote->make_backend(bd, p) : make_backend(bd, p, hooks, l.multi_q);
  *on_cuda = backend->name() != "cpu";
  m.report.backend = backend->name();

  const size_t n = l.n;
  const int K = l.K;
  std::vector<float> margins(n * (size_t)K);
  if (init != nullptr) {
    start_from_init_model(*init, in.matrix, extras.init_margins, &margins, &m);
  } else {
    CancelPoller poll(hooks.cancel);
    for (size_t r = 0; r < n; ++r) {
      poll.tick((size_t)K);
      for (int k = 0; k < K; ++k) margins[r * K + k] = (float)m.base_margin[k];
    }
  }
  // identical training rows trained once with their count (row_dedup.h).
  const ObjectiveInfo& oi = objective_info(p.objective);
  RowDedup dedup;
  const bool deduped = extras.remote == nullptr &&  // the rows are not here
                       row_dedup_possible(p, oi, bd, backend->name() == "cpu") &&
                       dedup_rows(DedupInput{&in.matrix, in.labels.data(), bd.weights,
                                             margins.data(), (size_t)K},
                                  kDedupMaxDistinct, &dedup, l.nthread);
  if (deduped) {
    bd.matrix = &dedup.matrix;
    bd.labels = dedup.labels.data();
    bd.weights = dedup.weights.empty() ? nullptr : dedup.weights.data();
    bd.n_rows = dedup.matrix.n_rows;
    bd.multiplicity = dedup.multiplicity.data();
    bd.rows_represented = n;
    if (hooks.log && p.verbose)
      hooks.log("training on " + std::to_string(bd.n_rows) + " distinct rows of " +
                std::to_string(n));
  }
  backend->init(bd, deduped ? dedup.margins : margins);
  eval.start(init, &m);

  const int init_rounds = init != nullptr ? init->num_rounds() : 0;
  const BoostState s{in, l, p, hooks, bd, backend.get(), missing_bin, deduped, init_rounds,
                     &margins, &tree_charge.n};
  auto tt = Clock::now();
  boost(s, &eval, &m);
  m.report.seconds_train = since(tt);
  eval.keep_best(init_rounds, K * l.P, &m);
  ScoredRows rows;
  rows.matrix = deduped ? &dedup.matrix : &in.matrix;
  rows.row_of = deduped ? dedup.row_of.data() : nullptr;
  rows.labels = in.labels.data();
  rows.weights = in.weights.empty() ? nullptr : in.weights.data();
  rows.n = n;
  rows.query_group = &in.query_group;
  rows.labels_upper = &in.labels_upper;
  rows.training_rows = &in.matrix;
  rows.held_out = p.validation_fraction > 0 ? &valid.matrix : nullptr;
  rows.nthread = l.nthread;
  rows.remote = extras.remote;
  eval.final_metrics(rows, backend.get(), &margins, hooks.cancel, &m);
  return m;
}

}  // namespace

bool hashed_validation_row(uint64_t seed, uint64_t row, double fraction) {
  return is_validation_row(seed, row, fraction);
}

Model train_binned(BinnedInput&& in, TrainParams p, const TrainHooks& hooks,
                   const std::string& target_name) {
  return train_binned(std::move(in), p, hooks, target_name, TrainExtras());
}

Model train_binned(BinnedInput&& in, TrainParams p, const TrainHooks& hooks,
                   const std::string& target_name, const TrainExtras& extras) {
  const int d = in.matrix.n_features;
  const size_t n_all = in.matrix.n_rows;
  if (d == 0) throw InvalidInput("no feature columns to train on");
  if (n_all == 0) throw InvalidInput("no rows to train on");
  if ((int)in.feature_names.size() != d)
    throw InvalidInput("feature_names has " + std::to_string(in.feature_names.size()) +
                       " entries for " + std::to_string(d) + " columns");
  if (in.labels.size() != n_all || in.cuts.n_features() != d ||
      (!in.weights.empty() && in.weights.size() != n_all))
    throw std::logic_error("train_binned: labels, weights or cuts do not match the matrix");
  check_weights(in.weights);
  check_categorical_cuts(in.cuts, category_counts(in.feature_names, in.feature_types, in.categories));
  for (size_t i = 0; i < n_all; ++i)
    if (!std::isfinite(in.labels[i]))
      throw InvalidInput("target column \"" + target_name + "\" contains " + fmtd(in.labels[i]) +
                         ": labels must be finite");
  if (!in.query_group.empty() && in.query_group.size() != n_all)
    throw std::logic_error("train_binned: query_group does not match the matrix");
  check_validation_params(p);
  // A continued training takes the init model's objective first, so that
  // the ranking checks below see the objective it will train.
  if (extras.init_model != nullptr) check_init_model(*extras.init_model, in.feature_names, &p);
  // ranking objective, group_column and relevance labels.
  prepare_ranking(&p, in.labels.data(), n_all, !in.query_group.empty(), target_name);
  // XGBoost weighs ranking by query group: one weight per group.
  if (is_rank_objective(p.objective) && !in.weights.empty())
    (void)rank_group_weights(make_query_groups(in.query_group.data(), n_all),
                             in.weights.data());
  // The objective is inferred from, and the labels checked on, every row.
  std::vector<double> class_labels;
  resolve_objective(in.labels.data(), n_all, target_name, &p, &class_labels);
  if (p.quantile_alphas.size() > 1 && p.objective != Objective::kQuantile)  // several quantiles
    throw InvalidInput("parameter \"quantile_alpha\" lists " +
                       std::to_string(p.quantile_alphas.size()) +
                       " quantiles: several quantiles need objective reg:quantileerror, not " +
                       objective_name(p.objective));
  if (extras.init_model != nullptr) class_labels = extras.init_model->class_labels;
  check_interval_labels(p, in, target_name);  // survival:aft
  ValidationSplit valid;
  TrainExtras ex = extras;
  std::vector<float> kept_margins;
  if (extras.remote != nullptr && (extras.validation != nullptr || extras.init_model != nullptr))
    throw InvalidInput("training across servers takes no validation_relation and no init_model "
                       "(use validation_fraction, or \"distributed\": \"off\")");
  if (extras.validation != nullptr) {
    if (p.validation_fraction > 0)
      throw InvalidInput("parameters \"validation_relation\" and \"validation_fraction\" both "
                         "choose the validation rows: give only one of them");
    check_validation_rows(*extras.validation, d, target_name, p, &class_labels);
    if (objective_info(p.objective).interval_labels) {  // the relation's upper bounds
      if (extras.validation->labels_upper.size() != extras.validation->labels.size())
        throw InvalidInput("parameter \"validation_relation\": survival:aft needs the upper "
                           "bounds of the validation rows (label_upper_bound_column)");
      try {
        check_aft_bounds(extras.validation->labels.data(),
                         extras.validation->labels_upper.data(),
                         extras.validation->labels.size(), target_name,
                         p.label_upper_bound_column);
      } catch (const InvalidInput& e) {
        throw InvalidInput(std::string("validation_relation: ") + e.what());
      }
    }
    // the ranking metrics are computed per query group of the validation rows.
    if (objective_info(p.objective).ranking &&
        extras.validation->query_group.size() != extras.validation->labels.size())
      throw InvalidInput(std::string("parameter \"validation_relation\": ") +
                         objective_name(p.objective) +
                         " needs the query groups of the validation rows (a column named as "
                         "group_column)");
    valid = std::move(*extras.validation);
  } else {
    if (extras.init_margins != nullptr && p.validation_fraction > 0) {
      // Continued training: the init margins follow the rows that stay.
      kept_margins = *extras.init_margins;
      split_validation(p, &in, &valid, &kept_margins);
      ex.init_margins = &kept_margins;
    } else if (extras.remote != nullptr) {
      extras.remote->bin_and_split(p, &in, &valid);  // the rows' bins stay where they are
    } else {
      split_validation(p, &in, &valid, nullptr);
    }
  }
  if (p.early_stopping_rounds > 0 && valid.matrix.n_rows == 0)
    throw InvalidInput("parameter \"early_stopping_rounds\" needs validation_fraction > 0 "
                       "or a validation_relation");
  bool on_cuda = false;
  try {
    return train_once(in, valid, p, class_labels, hooks, ex, &on_cuda);
  } catch (const Cancelled&) {
    throw;
  } catch (const InvalidInput&) {
    throw;  // the same input fails on the CPU too
  } catch (const std::exception& e) {
    // With device 'auto', a CUDA failure during training (out of memory, a
    // CUDA runtime error), not only at start-up, falls back to the CPU,
    // which builds the same model.
    const std::string device = p.device.empty() ? hooks.default_device : p.device;
    if (!on_cuda || device != "auto") throw;
    if (hooks.notice) hooks.notice(std::string("gbdt: training on the CPU: ") + e.what());
    p.device = "cpu";
    return train_once(in, valid, p, class_labels, hooks, ex, &on_cuda);
  }
}

BinnedInput bin_input(const TrainInput& in, int max_bin, size_t sample_rows, int nthread) {
  auto tb = Clock::now();
  BinnedInput b;
  const std::vector<uint32_t> counts =
      category_counts(in.feature_names, in.feature_types, in.categories);
  check_category_codes(in.features, in.feature_names, counts, nthread);
  b.cuts = compute_cuts(in.features, max_bin, nthread, sample_rows,
                        counts.empty() ? nullptr : &counts);
  b.matrix = bin_matrix(in.features, b.cuts, nthread);
  b.seconds_bin = since(tb);
  b.labels.assign(in.labels, in.labels + in.features.n_rows);
  if (in.weights) b.weights.assign(in.weights, in.weights + in.features.n_rows);
  b.feature_names = in.feature_names;
  b.feature_types = in.feature_types;
  b.categories = in.categories;
  b.rows_skipped = in.rows_skipped;
  b.seconds_load = in.seconds_load;
  if (in.query_group) b.query_group.assign(in.query_group, in.query_group + in.features.n_rows);
  if (in.labels_upper) b.labels_upper.assign(in.labels_upper, in.labels_upper + in.features.n_rows);
  return b;
}

Model train_model(const TrainInput& in, TrainParams p, const TrainHooks& hooks,
                  const std::string& target_name) {
  if (in.features.columns.empty()) throw InvalidInput("no feature columns to train on");
  if (in.features.n_rows == 0) throw InvalidInput("no rows to train on");
  check_cancel(hooks.cancel);
  BinnedInput b = bin_input(in, p.max_bin, (size_t)p.bin_sample_rows,
                            p.nthread > 0 ? p.nthread : default_nthread());
  return train_binned(std::move(b), p, hooks, target_name);
}

}  // namespace gbdt
