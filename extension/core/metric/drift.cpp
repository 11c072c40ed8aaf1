#include "drift.h"

#include <algorithm>
#include <cmath>

#include "../common/interruptible.h"
#include "../common/thread_pool.h"
#include "../objective/objective.h"

namespace gbdt {

namespace {

// Rows counted between two cancel polls (one fork-join over the features).
constexpr size_t kRowsPerStep = (size_t)1 << 16;
// Training predictions the equal-frequency edges are taken from (evenly
// spaced rows), so that the sort stays small whatever the rows.
constexpr size_t kEdgeSampleRows = (size_t)1 << 16;

bool is_categorical(const Model& m, int f) {
  return f < (int)m.feature_types.size() && m.feature_types[f] == FeatureType::kCategorical;
}

// Categories of feature f (0: numeric or none).
size_t n_categories(const Model& m, int f) {
  return f < (int)m.categories.size() ? m.categories[f].size() : 0;
}

// Equal-frequency edges over the prediction values `v` (NaN dropped),
// strictly ascending.
std::vector<double> quantile_edges(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  std::vector<double> edges;
  if (v.empty()) return edges;
  std::sort(v.begin(), v.end());
  for (int q = 1; q < kDriftPredictionBins; ++q) {
    const double e = v[(size_t)q * v.size() / kDriftPredictionBins];
    if (edges.empty() || e > edges.back()) edges.push_back(e);
  }
  return edges;
}

// The scalar prediction of each training row (rows x 1), from the margins
// of its distinct row.
std::vector<double> training_predictions(const Model& m, const double* margins, size_t rows,
                                         const uint32_t* row_of, CancelPoller* poll) {
  const int K = m.num_output_group > 0 ? m.num_output_group : 1;
  std::vector<double> out(rows), tmp((size_t)K);
  for (size_t r = 0; r < rows; ++r) {
    poll->tick();
    const size_t src = row_of != nullptr ? row_of[r] : r;
    std::copy_n(margins + src * (size_t)K, K, tmp.data());
    transform_margins(m, tmp.data());
    out[r] = drift_prediction_value(m, tmp.data());
  }
  return out;
}

// Appends the scalar predictions of the held-out rows, from their bins, in
// the order and precision of predict_margin_row (as the trainer scores rows
// after early stopping).
void held_out_predictions(const Model& m, const BinnedMatrix& mx, CancelPoller* poll,
                          std::vector<double>* out) {
  const int K = m.num_output_group > 0 ? m.num_output_group : 1;
  std::vector<int> missing_bin((size_t)mx.n_features);
  for (int f = 0; f < mx.n_features; ++f) missing_bin[f] = m.cuts.nbins(f);
  std::vector<float> acc((size_t)K);
  std::vector<double> v((size_t)K);
  for (size_t r = 0; r < mx.n_rows; ++r) {
    poll->tick(m.trees.size() + 1);
    for (int k = 0; k < K; ++k) acc[k] = (float)m.base_margin[k];
    for (size_t t = 0; t < m.trees.size(); ++t) {
      const Tree& tr = m.trees[t];
      acc[m.tree_group[t]] += tr.value[mx.leaf_of_row(tr, r, missing_bin.data())];
    }
    for (int k = 0; k < K; ++k) v[k] = acc[k];
    transform_margins(m, v.data());
    out->push_back(drift_prediction_value(m, v.data()));
  }
}

double share(uint64_t count, uint64_t total) { return total ? (double)count / (double)total : 0.0; }

// PSI and KS of two distributions over the same slots (train, live).
void compare(const std::vector<uint64_t>& train, uint64_t train_total,
             const std::vector<uint64_t>& live, uint64_t live_total, DriftRow* out) {
  double psi = 0, ks = 0, cp = 0, cq = 0;
  for (size_t i = 0; i < train.size(); ++i) {
    const double p = share(train[i], train_total), q = share(live[i], live_total);
    cp += p;
    cq += q;
    ks = std::max(ks, std::fabs(cp - cq));
    const double pe = std::max(p, kDriftPsiEpsilon), qe = std::max(q, kDriftPsiEpsilon);
    psi += (qe - pe) * std::log(qe / pe);
  }
  out->psi = psi;
  out->ks = ks;
}

}  // namespace

void count_bins(const BinnedMatrix& mx, const Cuts& c, int nthread, CancelPoller* poll,
                std::vector<uint64_t>* slots) {
  const int d = mx.n_features;
  ThreadPool pool(std::max(1, std::min(nthread, d)));
  for (size_t begin = 0; begin < mx.n_rows; begin += kRowsPerStep) {
    const size_t end = std::min(mx.n_rows, begin + kRowsPerStep);
    poll->poll_now();
    pool.run((size_t)d, [&](size_t f, int) {
      uint64_t* s = slots->data() + c.hist_offset((int)f);
      for (size_t r = begin; r < end; ++r) ++s[mx.at(r, (int)f)];
    });
  }
}


double drift_prediction_value(const Model& m, const double* outputs) {
  const int K = m.num_output_group > 0 ? m.num_output_group : 1;
  if (objective_info(m.objective).multiclass && K > 1)
    return (double)(std::max_element(outputs, outputs + K) - outputs);
  return outputs[0];
}

int drift_prediction_bin(const std::vector<double>& edges, double p) {
  if (std::isnan(p)) return -1;
  return (int)(std::upper_bound(edges.begin(), edges.end(), p) - edges.begin());
}

TrainingDistribution training_distribution(const Model& m, const BinnedMatrix& mx,
                                           const double* margins, const uint32_t* row_of,
                                           const BinnedMatrix* held_out, int nthread,
                                           const CancelFn& cancel) {
  const int d = mx.n_features;
  const Cuts& c = m.cuts;
  if (mx.n_rows == 0 || c.n_features() != d) return TrainingDistribution();
  CancelPoller poll(cancel);
  std::vector<uint64_t> counts(c.total_hist_bins(), 0);
  count_bins(mx, c, nthread, &poll, &counts);
  return training_distribution_of_counts(m, std::move(counts), mx.n_rows, margins, row_of, held_out,
                                         nthread, cancel);
}

TrainingDistribution training_distribution_of_counts(const Model& m, std::vector<uint64_t> bin_counts,
                                                     size_t n, const double* margins,
                                                     const uint32_t* row_of,
                                                     const BinnedMatrix* held_out, int nthread,
                                                     const CancelFn& cancel) {
  TrainingDistribution td;
  const Cuts& c = m.cuts;
  const int d = c.n_features();
  if (held_out != nullptr && (held_out->n_rows == 0 || held_out->n_features != d)) held_out = nullptr;
  const size_t nh = held_out != nullptr ? held_out->n_rows : 0;
  if (n == 0 || bin_counts.size() != c.total_hist_bins()) return td;
  CancelPoller poll(cancel);
  td.rows = n + nh;
  td.bin_counts = std::move(bin_counts);
  if (held_out != nullptr) count_bins(*held_out, c, nthread, &poll, &td.bin_counts);
  std::vector<double> pred = training_predictions(m, margins, n, row_of, &poll);
  if (held_out != nullptr) held_out_predictions(m, *held_out, &poll, &pred);
  const int K = m.num_output_group > 0 ? m.num_output_group : 1;
  if (objective_info(m.objective).multiclass && K > 1) {
    for (int k = 1; k < K; ++k) td.pred_edges.push_back(k - 0.5);
  } else {
    std::vector<double> sample;
    const size_t all = pred.size(), take = std::min(all, kEdgeSampleRows);
    sample.reserve(take);
    for (size_t i = 0; i < take; ++i) sample.push_back(pred[cut_sample_row(i, all, take)]);
    td.pred_edges = quantile_edges(std::move(sample));
  }
  td.pred_counts.assign(td.pred_edges.size() + 1, 0);
  for (double v : pred) {
    poll.tick();
    const int b = drift_prediction_bin(td.pred_edges, v);
    if (b >= 0) ++td.pred_counts[(size_t)b];
  }
  return td;
}

void add_drift_rows(const Model& m, const float* x, const double* outputs, size_t n,
                    int nthread, DriftCounts* c) {
  const int d = m.n_features();
  const int K = m.num_output_group > 0 ? m.num_output_group : 1;
  const Cuts& cuts = m.cuts;
  if (d > 0 && n > 0) {
    ThreadPool pool(std::max(1, std::min(nthread, d)));
    pool.run((size_t)d, [&](size_t fi, int) {
      const int f = (int)fi;
      uint64_t* slots = c->bin_counts + cuts.hist_offset(f);
      const bool cat = is_categorical(m, f);
      const float ncat = (float)n_categories(m, f);
      uint64_t unseen = 0;
      for (size_t r = 0; r < n; ++r) {
        const float v = x[r * (size_t)d + f];
        if (cat && v == v && v >= ncat)
          ++unseen;
        else
          ++slots[cuts.bin_of(f, v)];
      }
      c->unseen[fi] += unseen;
    });
  }
  const size_t npred = m.training_dist.pred_counts.size();
  for (size_t r = 0; r < n; ++r) {
    const int b = drift_prediction_bin(m.training_dist.pred_edges,
                                       drift_prediction_value(m, outputs + r * (size_t)K));
    if (b >= 0 && (size_t)b < npred) ++c->pred_counts[(size_t)b];
  }
  c->rows += n;
}

std::vector<DriftRow> drift_report(const Model& m, const DriftCounts& live) {
  const TrainingDistribution& td = m.training_dist;
  if (td.empty())
    throw InvalidInput("the model holds no training distribution (imported models and models "
                       "trained before gbdt 0.3 have none): retrain it with gbdt_train");
  if (live.rows == 0) throw InvalidInput("no rows to compare with the training rows");
  const Cuts& c = m.cuts;
  std::vector<DriftRow> rows;
  for (int f = 0; f < m.n_features(); ++f) {
    const size_t nslots = (size_t)c.nbins(f) + 1;
    const size_t off = c.hist_offset(f);
    std::vector<uint64_t> train(td.bin_counts.begin() + off, td.bin_counts.begin() + off + nslots);
    std::vector<uint64_t> now(live.bin_counts + off, live.bin_counts + off + nslots);
    DriftRow row;
    row.feature = m.feature_names[f];
    row.has_missing = true;
    row.missing_rate_train = share(train.back(), td.rows);
    row.missing_rate_now = share(now.back(), live.rows);
    if (is_categorical(m, f)) {
      row.has_unseen = true;
      row.unseen_category_rate = share(live.unseen[f], live.rows);
      train.push_back(0);  // the training has no unseen category
      now.push_back(live.unseen[f]);
    }
    compare(train, td.rows, now, live.rows, &row);
    rows.push_back(std::move(row));
  }
  DriftRow pred;
  pred.feature = "prediction";
  uint64_t train_total = 0, live_total = 0;
  for (uint64_t v : td.pred_counts) train_total += v;
  const std::vector<uint64_t> now_pred(live.pred_counts, live.pred_counts + td.pred_counts.size());
  for (uint64_t v : now_pred) live_total += v;
  compare(td.pred_counts, train_total, now_pred, live_total, &pred);
  rows.push_back(std::move(pred));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const DriftRow& a, const DriftRow& b) { return a.psi > b.psi; });
  return rows;
}

}  // namespace gbdt
