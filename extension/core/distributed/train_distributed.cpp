// The coordinator's training across servers (gbdt/distributed.h): the load
// as one server's (row counts and labels from every shard, the cut sample
// by global row id, the value ranges merged, the cuts computed here), then
// the ordinary trainer (train_binned) with the shards' rows behind
// RemoteRows: their bins, validation split, margins and bin counts stay on
// the shards and only what the trainer asks for comes back.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "../common/interruptible.h"
#include "../data/quantile.h"
#include "../gbm/trainer.h"
#include "../include/gbdt/distributed.h"
#include "../objective/objective.h"
#include "remote_backend.h"
#include "shard_calls.h"
#include "shard_protocol.h"

namespace gbdt {

namespace {

// The shards' rows as the trainer sees them.
class ShardRows final : public RemoteRows {
 public:
  ShardRows(ShardCalls& calls, std::vector<uint64_t> counts, int d, int nthread)
      : calls_(calls), counts_(std::move(counts)), d_(d), nthread_(nthread) {}

  void bin_and_split(const TrainParams& p, BinnedInput* in, ValidationRows* valid) override;
  std::unique_ptr<TreeBackend> make_backend(const BoostData& bd, const TrainParams& p) override {
    K_ = bd.num_group;
    return make_remote_backend(calls_, train_offsets_, n_train_, p.scale_pos_weight);
  }
  std::vector<float> margins_of_trees(size_t trees) override {
    std::vector<float> m = remote_margins(calls_, trees, K_);
    if (m.size() != n_train_ * (size_t)K_) throw ShardError("the shards sent margins of another number of rows");
    return m;
  }
  std::vector<uint64_t> bin_counts() override;

 private:
  ShardCalls& calls_;
  std::vector<uint64_t> counts_;  // rows per shard (all, before the split)
  int d_;
  int nthread_;
  std::vector<uint64_t> train_offsets_;
  uint64_t n_train_ = 0;
  int K_ = 1;
  size_t bins_ = 0;
};

// The split is validation_fraction's (hashed_validation_row of the global
// row id): computed here for the labels, on each shard for its rows, whose
// validation bins come back to be scored here each round.
void ShardRows::bin_and_split(const TrainParams& p, BinnedInput* in, ValidationRows* valid) {
  const size_t n_all = in->labels.size();
  const double fraction = p.validation_fraction;
  std::vector<uint8_t> is_valid(n_all, 0);
  size_t n_valid = 0;
  if (fraction > 0) {
    for (size_t r = 0; r < n_all; ++r) n_valid += is_valid[r] = hashed_validation_row(p.seed, r, fraction) ? 1 : 0;
    check_validation_split(p, n_valid, n_all);
  }
  std::vector<std::string> payloads;
  BinRequest q;
  q.cuts = in->cuts;
  q.validation_fraction = fraction;
  q.seed = p.seed;
  q.nthread = 0;
  uint64_t offset = 0;
  for (uint64_t c : counts_) {
    q.offset = offset;
    payloads.push_back(encode(q));
    offset += c;
  }
  const std::vector<std::string> replies = calls_.all("bin", payloads);
  valid->matrix.n_rows = n_valid;
  valid->matrix.n_features = d_;
  valid->matrix.resize_entries();
  size_t at = 0;
  offset = 0;
  for (size_t s = 0; s < replies.size(); ++s) {
    const ValidationBins vb = decode_validation_bins(replies[s]);
    uint64_t expect = 0;
    for (uint64_t r = offset; r < offset + counts_[s]; ++r) expect += is_valid[r];
    if (vb.rows != expect || vb.bins.size() != expect * (size_t)d_)
      throw ShardError("a shard sent another number of validation rows than its rows give");
    for (size_t i = 0; i < vb.bins.size(); ++i)
      if ((int)vb.bins[i] > in->cuts.nbins((int)(i % (size_t)d_))) throw ShardError("a shard sent a bin outside the cuts");
    std::copy(vb.bins.begin(), vb.bins.end(), valid->matrix.bins.begin() + at * (size_t)d_);
    at += vb.rows;
    train_offsets_.push_back(offset - (uint64_t)std::count(is_valid.begin(), is_valid.begin() + offset, 1));
    offset += counts_[s];
  }
  // The labels and weights of the two sides, in row order.
  const bool weighted = !in->weights.empty();
  size_t w = 0;
  for (size_t r = 0; r < n_all; ++r) {
    if (is_valid[r]) {
      valid->labels.push_back(in->labels[r]);
      if (weighted) valid->weights.push_back(in->weights[r]);
    } else {
      in->labels[w] = in->labels[r];
      if (weighted) in->weights[w] = in->weights[r];
      ++w;
    }
  }
  in->labels.resize(w);
  if (weighted) in->weights.resize(w);
  in->matrix.n_rows = w;
  n_train_ = w;
  bins_ = in->cuts.total_hist_bins();
}

std::vector<uint64_t> ShardRows::bin_counts() {
  std::vector<uint64_t> all(bins_, 0);
  for (const std::string& r : calls_.all_same("bin_counts", std::string())) {
    const std::vector<uint64_t> c = decode_counts(r, bins_, "bin counts");
    for (size_t i = 0; i < bins_; ++i) all[i] += c[i];
  }
  return all;
}

// Opens every shard and checks that each one read the features asked for.
std::vector<Describe> open_shards(ShardCalls& calls, const DistributedTrainSpec& spec) {
  std::vector<std::string> payloads;
  for (const ShardOpenRequest& r : spec.requests) payloads.push_back(encode_open_request(r));
  std::vector<Describe> out;
  for (const std::string& r : calls.all("open", payloads)) out.push_back(decode_describe(r));
  for (size_t s = 0; s < out.size(); ++s)
    if ((size_t)out[s].n_features != spec.feature_names.size() ||
        (out[s].has_weight != 0) != !spec.requests[s].weight.empty())
      throw ShardError("a shard read other columns than it was asked for");
  return out;
}

// The cuts one server computes from the same rows: cuts_from_sample of the
// rows cut_sample_row picks by global id (every row up to the bound), then
// the value ranges of every row.
Cuts global_cuts(ShardCalls& calls, const std::vector<Describe>& shards, uint64_t n_all, int d,
                 const TrainParams& p, int nthread) {
  const size_t bound = p.bin_sample_rows > 0 ? (size_t)p.bin_sample_rows : cut_sample_rows(d);
  const uint64_t take = std::min<uint64_t>(n_all, bound);
  std::vector<std::string> payloads;
  uint64_t offset = 0;
  for (const Describe& s : shards) {
    payloads.push_back(encode(SampleRequest{offset, n_all, take}));
    offset += s.n_rows;
  }
  std::vector<std::vector<float>> cols((size_t)d);
  uint64_t rows = 0;
  for (const std::string& r : calls.all("sample", payloads)) {
    const Sample s = decode_sample(r);
    if (s.values.size() != s.rows * (size_t)d) throw ShardError("a shard sent a malformed cut sample");
    for (size_t i = 0; i < s.values.size(); ++i) cols[i % (size_t)d].push_back(s.values[i]);
    rows += s.rows;
  }
  if (rows != take) throw ShardError("the shards sent " + std::to_string(rows) + " rows of a cut sample of " +
                                     std::to_string(take));
  ColumnInput sample;
  sample.n_rows = (size_t)take;
  for (int f = 0; f < d; ++f) sample.columns.push_back(cols[f].data());
  Cuts cuts = cuts_from_sample(sample, p.max_bin, nthread);
  ValueRange range(d);
  for (const Describe& s : shards) {
    ValueRange r(d);
    r.lo = s.lo;
    r.hi = s.hi;
    range.merge(r);
  }
  set_value_range(&cuts, range.lo, range.hi);
  return cuts;
}

}  // namespace

std::string distributed_refusal(const TrainParams& p) {
  if (p.objective_set) {
    const ObjectiveInfo& oi = objective_info(p.objective);
    if (oi.ranking) return std::string("objective ") + oi.name + " needs whole query groups on one server";
    if (oi.host_gradients || oi.interval_labels)
      return std::string("objective ") + oi.name + " needs every row's label on one server";
    if (oi.leaf_quantile) return std::string("objective ") + oi.name + " refits its leaves from every row's residual";
  }
  if (p.quantile_alphas.size() > 1) return "several quantiles (quantile_alpha) train one backend each";
  if (p.num_parallel_tree > 1) return "parameter \"num_parallel_tree\" > 1";
  if (p.lossguide || p.max_leaves > 0) return "loss-guided growth (grow_policy, max_leaves)";
  if (!p.monotone_constraints.empty() || !p.interaction_constraints.empty())
    return "tree constraints (monotone_constraints, interaction_constraints)";
  if (p.colsample_bylevel < 1.0 || p.colsample_bynode < 1.0) return "colsample_bylevel or colsample_bynode < 1";
  if (!p.group_column.empty()) return "parameter \"group_column\" (ranking)";
  if (!p.validation_relation.empty()) return "parameter \"validation_relation\" (use validation_fraction)";
  if (!p.categorical_features.empty()) return "categorical features";
  if (p.device == "cuda") return "device \"cuda\" (the shards train on their CPUs)";
  return std::string();
}

Model train_distributed(ShardLink& link, const DistributedTrainSpec& spec, TrainParams p, const TrainHooks& hooks,
                        ShardTraffic* traffic) {
  const std::string refusal = distributed_refusal(p);
  if (!refusal.empty()) throw InvalidInput("cannot train across servers: " + refusal);
  if (spec.requests.size() != link.shard_count() || spec.requests.empty())
    throw std::logic_error("train_distributed: one open request per shard");
  const int d = (int)spec.feature_names.size();
  const int nthread = p.nthread > 0 ? p.nthread : default_nthread();
  const auto t0 = std::chrono::steady_clock::now();
  ShardCalls calls(link, traffic);
  const std::vector<Describe> shards = open_shards(calls, spec);
  std::vector<uint64_t> counts;
  BinnedInput in;
  for (const Describe& s : shards) {
    counts.push_back(s.n_rows);
    in.rows_skipped += s.rows_skipped;
  }
  size_t s = 0;
  for (const std::string& r : calls.all_same("labels", std::string())) {
    const Labels l = decode_labels(r);
    if (l.labels.size() != counts[s] || (l.weights.empty() == (shards[s].has_weight != 0) && counts[s] > 0))
      throw ShardError("a shard sent labels of another number of rows");
    in.labels.insert(in.labels.end(), l.labels.begin(), l.labels.end());
    in.weights.insert(in.weights.end(), l.weights.begin(), l.weights.end());
    ++s;
  }
  const uint64_t n_all = in.labels.size();
  if (n_all == 0) throw InvalidInput("no rows to train on: the shards have no rows with a target");
  in.cuts = global_cuts(calls, shards, n_all, d, p, nthread);
  in.matrix.n_rows = n_all;  // the bins stay on the shards
  in.matrix.n_features = d;
  in.feature_names = spec.feature_names;
  in.feature_types = spec.feature_types;
  in.seconds_load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ShardRows rows(calls, counts, d, nthread);
  TrainExtras ex;
  ex.remote = &rows;
  Model m = train_binned(std::move(in), p, hooks, spec.target_name, ex);
  calls.set_round(-1);
  calls.all_same("close", std::string());
  return m;
}

}  // namespace gbdt
