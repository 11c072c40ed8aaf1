// A shard of a distributed training: its rows as floats until the global
// cuts arrive, then their bins, gradients, row partition and margins, held
// for the whole training and driven by the coordinator's requests
// (shard_protocol.h).  The work on the rows is the CPU backend's own parts:
// gradient_quantize.h, HistogramBuilder, RowPartitioner, LeafUpdater; the
// decisions (quantizers, splits, leaf values) come from the coordinator.
// Requests may come from any role that can call the shard function, so
// each one is checked against the state it needs (order, node ids, sizes).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "../common/interruptible.h"
#include "../common/thread_pool.h"
#include "../gbm/trainer.h"
#include "../include/gbdt/distributed.h"
#include "../metric/drift.h"
#include "../objective/gradients.h"
#include "../objective/objective.h"
#include "../tree/hist/gradient_quantize.h"
#include "../tree/hist/histogram.h"
#include "../tree/hist/leaf_update.h"
#include "../tree/hist/row_partitioner.h"
#include "shard_protocol.h"

namespace gbdt {

namespace {

[[noreturn]] void out_of_order(const std::string& step, const char* why) {
  throw InvalidInput("gbdt shard request \"" + step + "\" " + why);
}

class Worker final : public ShardWorker {
 public:
  Worker(const ShardOpenRequest& r, double memory_limit)
      : d_((int)r.features.size()),
        has_weight_(!r.weight.empty()),
        budget_(memory_limit, "gbdt.max_memory", "a gbdt shard training") {
    nthread_ = r.nthread > 0 ? r.nthread : default_nthread();
    cols_.resize((size_t)d_);
    range_ = ValueRange(d_);
  }

  void read(RowBatchSource& src, const CancelFn& cancel);
  std::string describe() const override;
  uint64_t rows_skipped = 0;
  std::string step(const std::string& name, const std::string& payload, const CancelFn& cancel) override;

 private:
  std::string sample(const std::string& payload) const;
  std::string bin(const std::string& payload, const CancelFn& cancel);
  void setup(const std::string& payload);
  std::string grad(const std::string& payload);
  std::string quantize(const std::string& payload);
  std::string root(const std::string& payload);
  std::string split(const std::string& payload);
  void finish(const std::string& payload);
  std::string margins(const std::string& payload, const CancelFn& cancel) const;
  std::string bin_counts(const CancelFn& cancel) const;

  // A shard may hold no training row: no reference into an empty vector.
  const GradSum* group_pairs(int k) const { return gpair_.data() + (size_t)k * n_; }
  GradSum sum_of(const LevelNode& ln, int k) const {
    const GradSum* gp = group_pairs(k);
    GradSum s{0, 0};
    for (size_t i = ln.begin; i < ln.end; ++i) s = gs_add(s, gp[ln.rows[i]]);
    return s;
  }

  int d_;
  bool has_weight_;
  // Histograms and row buffers are charged here as they are made: a
  // request cannot make the shard allocate without bound.
  MemoryBudget budget_;
  int nthread_;
  // Before the cuts: the rows as floats (per feature), all labels.
  std::vector<std::vector<float>> cols_;
  std::vector<float> labels_, weights_;
  ValueRange range_;
  size_t n_read_ = 0;
  // After the cuts: the training rows' bins, labels and weights.
  bool binned_ = false;
  Cuts cuts_;
  BinnedMatrix matrix_;
  size_t n_ = 0;
  // After setup.
  bool ready_ = false;
  SetupRequest setup_;
  Objective objective_ = Objective::kSquaredError;
  int K_ = 1;
  std::vector<float> margins_, grad_w_;
  std::unique_ptr<ThreadPool> pool_;
  HistogramBuilder hist_;
  RowPartitioner part_;
  std::vector<GradSum> gpair_;
  std::vector<uint8_t> in_sample_;
  std::vector<uint32_t> sampled_;
  // Round state: pass 1 done (gradients waiting for the quantizers), the
  // next tree's group (K_: none before the next round), the open tree.
  int round_ = -1;
  bool pairs_pending_ = false;
  int next_group_ = 0;
  int open_group_ = -1;
  std::map<int32_t, LevelNode> open_;  // the open tree's nodes that may still split
  std::map<int32_t, int> depth_;       // their depths (a split below max_depth is refused)
  std::vector<Tree> trees_;            // every finished tree, in order
};

void Worker::read(RowBatchSource& src, const CancelFn& cancel) {
  CancelPoller poll(cancel);
  src.reset();
  RowBatch b;
  while (src.next(&b)) {
    if ((int)b.columns.size() != d_ || (has_weight_ && b.roles.size() != 1))
      throw std::logic_error("shard source: a batch of another shape than requested");
    for (size_t r = 0; r < b.n_rows; ++r) {
      poll.tick((uint64_t)d_ + 1);
      const float y = b.labels[r];
      if (!std::isfinite(y)) throw InvalidInput("the target column contains a value that is not finite");
      labels_.push_back(y);
      if (has_weight_) weights_.push_back(((const float*)b.roles[0])[r]);
    }
    for (int f = 0; f < d_; ++f) {
      const float* c = b.columns[f];
      cols_[f].insert(cols_[f].end(), c, c + b.n_rows);
      for (size_t r = 0; r < b.n_rows; ++r) range_.add(f, c[r]);
    }
    n_read_ += b.n_rows;
  }
}

std::string Worker::describe() const {
  Describe m;
  m.n_rows = n_read_;
  m.n_features = d_;
  m.has_weight = has_weight_ ? 1 : 0;
  m.rows_skipped = rows_skipped;
  m.lo = range_.lo;
  m.hi = range_.hi;
  return encode(m);
}

std::string Worker::step(const std::string& name, const std::string& payload, const CancelFn& cancel) {
  if (name == "labels") {
    if (binned_) out_of_order(name, "comes after the rows were binned");
    return encode(Labels{labels_, weights_});
  }
  if (name == "sample") return sample(payload);
  if (name == "bin") return bin(payload, cancel);
  if (name == "setup") {
    setup(payload);
    return std::string();
  }
  if (name == "grad") return grad(payload);
  if (name == "quantize") return quantize(payload);
  if (name == "root") return root(payload);
  if (name == "split") return split(payload);
  if (name == "finish") {
    finish(payload);
    return std::string();
  }
  if (name == "margins") return margins(payload, cancel);
  if (name == "bin_counts") return bin_counts(cancel);
  throw InvalidInput("unknown gbdt shard request \"" + name + "\"");
}

// The rows of the global cut sample that are this shard's: global ids
// cut_sample_row(i, n_total, take) within [offset, offset + rows).
std::string Worker::sample(const std::string& payload) const {
  if (binned_) out_of_order("sample", "comes after the rows were binned");
  const SampleRequest q = decode_sample_request(payload);
  if (q.offset + n_read_ > q.n_total) out_of_order("sample", "names more rows than all shards have");
  Sample s;
  size_t i = 0;
  for (; i < q.take; ++i) {
    const size_t g = cut_sample_row(i, q.n_total, q.take);
    if (g < q.offset) continue;
    if (g >= q.offset + n_read_) break;
    const size_t r = g - q.offset;
    for (int f = 0; f < d_; ++f) s.values.push_back(cols_[f][r]);
    ++s.rows;
  }
  return encode(s);
}

// Bins every row with the coordinator's cuts, then keeps the training
// rows and sends back the validation rows' bins (in row order).
std::string Worker::bin(const std::string& payload, const CancelFn& cancel) {
  if (binned_) out_of_order("bin", "comes twice");
  BinRequest q = decode_bin_request(payload);
  if (q.cuts.n_features() != d_) out_of_order("bin", "has cuts of another number of features");
  cuts_ = std::move(q.cuts);
  ColumnInput in;
  in.n_rows = n_read_;
  for (int f = 0; f < d_; ++f) in.columns.push_back(cols_[f].data());
  std::vector<uint32_t> train, valid;
  CancelPoller poll(cancel);
  for (size_t r = 0; r < n_read_; ++r) {
    poll.tick();
    (q.validation_fraction > 0 && hashed_validation_row(q.seed, q.offset + r, q.validation_fraction)
         ? valid
         : train)
        .push_back((uint32_t)r);
  }
  const int nt = q.nthread > 0 ? q.nthread : nthread_;
  ValidationBins vb;
  if (!valid.empty()) {
    const BinnedMatrix vm = bin_matrix(in, cuts_, nt, &valid);
    vb.rows = vm.n_rows;
    vb.bins.assign(vm.bins.begin(), vm.bins.end());
  }
  poll.poll_now();
  matrix_ = bin_matrix(in, cuts_, nt, valid.empty() ? nullptr : &train);
  if (matrix_.wide) throw InvalidInput("gbdt shard: cuts with more than 255 bins per feature");
  n_ = matrix_.n_rows;
  if (!valid.empty()) {
    std::vector<float> y, w;
    for (uint32_t r : train) {
      y.push_back(labels_[r]);
      if (has_weight_) w.push_back(weights_[r]);
    }
    labels_.swap(y);
    weights_.swap(w);
  }
  cols_.clear();
  cols_.shrink_to_fit();
  binned_ = true;
  return encode(vb);
}

// The training's constants: objective, base margins, sampling; the
// histogram and partition buffers sized for the training rows.
void Worker::setup(const std::string& payload) {
  if (!binned_ || ready_) out_of_order("setup", "comes before the rows were binned, or twice");
  setup_ = decode_setup_request(payload);
  const ObjectiveInfo* oi = nullptr;
  for (const ObjectiveInfo* o : all_objectives())
    if ((int32_t)o->code == setup_.objective) oi = o;
  if (oi == nullptr || oi->ranking || oi->host_gradients || oi->leaf_quantile || oi->interval_labels)
    throw InvalidInput("gbdt shard: an objective a shard cannot train");
  if (oi->multiclass != (setup_.num_group > 1)) throw InvalidInput("gbdt shard: a bad number of output groups");
  if (oi->multiclass)
    for (float y : labels_)
      if (!(y >= 0 && y < (float)setup_.num_group && y == std::floor(y)))
        throw InvalidInput("gbdt shard: a class label outside 0 .. num_class - 1");
  objective_ = oi->code;
  K_ = setup_.num_group;
  margins_.resize(n_ * (size_t)K_);
  for (size_t r = 0; r < n_; ++r)
    for (int k = 0; k < K_; ++k) margins_[r * K_ + k] = setup_.base_margins[k];
  // scale_pos_weight folded into the weights of rows labelled 1, as the
  // trainer does for a binary objective.
  if (oi->binary && setup_.scale_pos_weight != 1.0) {
    grad_w_.resize(n_);
    for (size_t i = 0; i < n_; ++i)
      grad_w_[i] = (has_weight_ ? weights_[i] : 1.0f) * (labels_[i] == 1.0f ? (float)setup_.scale_pos_weight : 1.0f);
  }
  pool_.reset(new ThreadPool(setup_.nthread > 0 ? setup_.nthread : nthread_));
  const bool copies = setup_.cpu_bin_copies != 0;
  hist_.init(&matrix_, n_, cuts_, pool_.get(), &budget_, setup_.max_depth, copies, false);
  part_.init(&matrix_, n_, pool_.get(), &budget_, copies, false);
  gpair_.resize(n_ * (size_t)K_);
  in_sample_.assign(n_, 1);
  ready_ = true;
  next_group_ = K_;
}

// Pass 1 of the round's gradients; replies with the maxima.
std::string Worker::grad(const std::string& payload) {
  if (!ready_ || next_group_ < K_ || open_group_ >= 0) out_of_order("grad", "comes before the round's trees are done");
  const uint64_t round = decode_u64(payload, "grad");
  if (round > (uint64_t)1 << 30) out_of_order("grad", "names a bad round");
  GradientJob j;
  j.objective = objective_;
  j.grad = setup_.grad;
  j.labels = labels_.data();
  j.weights = !grad_w_.empty() ? grad_w_.data() : has_weight_ ? weights_.data() : nullptr;
  j.margins = margins_.data();
  j.n = n_;
  j.K = K_;
  GradMaxima m;
  gradient_pairs(j, pool_.get(), gpair_.data(), &m.max_g, &m.max_h);
  round_ = (int)round;
  pairs_pending_ = true;
  return encode(m);
}

// Pass 2 with the global quantizers, the round's row sample (by global
// training-row id) and its sums per group.
std::string Worker::quantize(const std::string& payload) {
  const QuantizeRequest q = decode_quantize_request(payload);
  if (!pairs_pending_ || q.round != round_) out_of_order("quantize", "does not follow its round's grad");
  if (q.maxima.max_g.size() != (size_t)K_) out_of_order("quantize", "has another number of groups");
  std::vector<Quantizer> quant((size_t)K_);
  for (int k = 0; k < K_; ++k) quant[k] = make_quantizer(q.maxima.max_g[k], q.maxima.max_h[k], q.n_total);
  RootSums rs;
  rs.sums = quantize_pairs(gpair_.data(), n_, K_, quant, nullptr, pool_.get());
  sampled_.clear();
  for (size_t r = 0; r < n_; ++r) {
    in_sample_[r] = row_in_sample(setup_.seed, round_, setup_.train_offset + r, setup_.subsample) ? 1 : 0;
    if (in_sample_[r]) sampled_.push_back((uint32_t)r);
  }
  if (sampled_.size() < n_)
    for (int k = 0; k < K_; ++k) {
      GradSum s{0, 0};
      const GradSum* gp = group_pairs(k);
      for (uint32_t r : sampled_) s = gs_add(s, gp[r]);
      rs.sums[k] = s;
    }
  rs.n_sampled = sampled_.size();
  pairs_pending_ = false;
  next_group_ = 0;
  return encode(rs);
}

// Opens the tree of the next group: its root holds the sampled rows in
// increasing order; replies with the root's histogram.
std::string Worker::root(const std::string& payload) {
  const uint64_t k = decode_u64(payload, "root");
  if (pairs_pending_ || open_group_ >= 0 || (int64_t)k != next_group_ || next_group_ >= K_)
    out_of_order("root", "is not the next tree of the round");
  open_group_ = (int)k;
  uint32_t* rows = part_.rows();
  std::copy(sampled_.begin(), sampled_.end(), rows);
  LevelNode root{0, 0, sampled_.size(), GradSum{0, 0}, nullptr};
  root.rows = rows;
  root.sum = sum_of(root, open_group_);
  open_.clear();
  depth_.clear();
  depth_[0] = 0;
  hist_.set_level(0, 1);
  root.hist = hist_.get();
  hist_.build({&root}, group_pairs(open_group_));
  std::string out = encode_histograms({}, {root.hist}, hist_.total_bins());
  hist_.put(root.hist);
  root.hist = nullptr;
  open_[0] = root;
  return out;
}

// Routes the rows of the split nodes to their children and builds the
// histograms the coordinator asked for; replies with each split's left row
// count and those histograms.
std::string Worker::split(const std::string& payload) {
  const SplitRequest q = decode_split_request(payload);
  if (open_group_ < 0 || q.group != open_group_) out_of_order("split", "names no open tree");
  std::vector<LevelNode*> nodes;
  std::vector<SplitCandidate> splits;
  std::set<int32_t> child_ids;
  for (const SplitOrder& s : q.splits) {
    auto it = open_.find(s.node);
    if (it == open_.end() || (!nodes.empty() && nodes.back()->id >= s.node))
      out_of_order("split", "names a node that is not open, or nodes out of order");
    if (depth_[s.node] + 1 > setup_.max_depth) out_of_order("split", "splits a node at max_depth");
    if (s.feature < 0 || s.feature >= d_ || s.bin < 0 || s.bin >= cuts_.nbins(s.feature))
      out_of_order("split", "names a feature or bin the cuts do not have");
    if (s.left <= s.node || s.right <= s.node || s.left == s.right || open_.count(s.left) ||
        open_.count(s.right) || !child_ids.insert(s.left).second || !child_ids.insert(s.right).second)
      out_of_order("split", "gives bad child ids");
    nodes.push_back(&it->second);
    splits.push_back(SplitCandidate{0.0, s.feature, s.bin, s.default_left, GradSum{0, 0}});
  }
  std::vector<uint32_t*> child_rows;
  const std::vector<const CatWords*> sets(nodes.size(), nullptr);
  const std::vector<size_t> nleft = part_.update(nodes, splits, sets, cuts_, &child_rows);
  std::map<int32_t, LevelNode> next;
  std::vector<LevelNode*> build;
  std::vector<uint64_t> counts;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const LevelNode& p = *nodes[i];
    const SplitOrder& s = q.splits[i];
    LevelNode l{s.left, p.begin, p.begin + nleft[i], GradSum{0, 0}, nullptr};
    LevelNode r{s.right, p.begin + nleft[i], p.end, GradSum{0, 0}, nullptr};
    l.rows = r.rows = child_rows[i];
    next[s.left] = l;
    next[s.right] = r;
    depth_[s.left] = depth_[s.right] = depth_[p.id] + 1;
    counts.push_back(nleft[i]);
  }
  for (const SplitOrder& s : q.splits)
    if (s.build) {
      LevelNode& c = next[s.build == 1 ? s.left : s.right];
      c.sum = sum_of(c, open_group_);  // the sparse bins' dominant cells need the node's sum
      c.hist = hist_.get();
      build.push_back(&c);
    }
  hist_.build(build, group_pairs(open_group_));
  std::vector<const GradSum*> hists;
  for (LevelNode* c : build) hists.push_back(c->hist);
  std::string out = encode_histograms(counts, hists, hist_.total_bins());
  for (LevelNode* c : build) {
    hist_.put(c->hist);
    c->hist = nullptr;
  }
  // Nodes that did not split stay open until finish (they are leaves).
  for (const SplitOrder& s : q.splits) open_.erase(s.node);
  for (auto& e : next) open_[e.first] = e.second;
  return out;
}

// The finished tree: each open node is a leaf, or split at the last level
// (its rows routed by the split with no partition); the rows outside the
// round's sample walk the tree.
void Worker::finish(const std::string& payload) {
  FinishRequest q = decode_finish_request(payload, cuts_);
  if (open_group_ < 0 || q.group != open_group_) out_of_order("finish", "names no open tree");
  const Tree& t = q.tree;
  LeafUpdater up(matrix_, cuts_, *pool_, &part_, margins_.data(), n_, K_, open_group_);
  std::vector<LevelNode> leaves;
  std::vector<LevelNode*> last;
  std::vector<SplitCandidate> splits;
  std::vector<float> vl, vr;
  for (auto& e : open_) {
    const int32_t id = e.first;
    if (id >= t.num_nodes()) out_of_order("finish", "has a tree without an open node");
    if (t.is_leaf(id)) {
      leaves.push_back(e.second);
      continue;
    }
    if (!t.is_leaf(t.left[id]) || !t.is_leaf(t.right[id])) out_of_order("finish", "splits an open node twice");
    last.push_back(&e.second);
    splits.push_back(SplitCandidate{0.0, t.feature[id], t.split_bin[id], t.default_left[id], GradSum{0, 0}});
    vl.push_back(t.value[t.left[id]]);
    vr.push_back(t.value[t.right[id]]);
  }
  if (!last.empty()) up.last_level(last, splits, std::vector<const CatWords*>(last.size(), nullptr), vl, vr);
  up.leaves(
      leaves.size(), [&](size_t i) { return RowSpan{leaves[i].rows, leaves[i].begin, leaves[i].end}; },
      [&](size_t i) { return t.value[leaves[i].id]; }, sampled_.size() * 2);
  if (sampled_.size() < n_) up.unsampled(t, in_sample_.data(), (n_ - sampled_.size()) * (size_t)setup_.max_depth * 4);
  trees_.push_back(std::move(q.tree));
  open_.clear();
  open_group_ = -1;
  ++next_group_;
}

// Every training row's margins: the current ones, or from the first
// `trees` trees in the order and precision of the trainer's rescoring
// after early stopping (float sums from the base margins).
std::string Worker::margins(const std::string& payload, const CancelFn& cancel) const {
  if (!ready_ || open_group_ >= 0) out_of_order("margins", "comes before setup or inside a tree");
  const uint64_t T = decode_u64(payload, "margins");
  if (T > trees_.size()) out_of_order("margins", "names more trees than were built");
  if (T == trees_.size()) return encode_floats(margins_);
  std::vector<int> missing_bin((size_t)d_);
  for (int f = 0; f < d_; ++f) missing_bin[f] = cuts_.nbins(f);
  std::vector<float> out(n_ * (size_t)K_);
  CancelPoller poll(cancel);
  for (size_t r = 0; r < n_; ++r) {
    poll.tick(T + 1);
    float* acc = &out[r * K_];
    for (int k = 0; k < K_; ++k) acc[k] = setup_.base_margins[k];
    for (size_t i = 0; i < T; ++i)
      acc[i % (size_t)K_] += trees_[i].value[matrix_.leaf_of_row(trees_[i], r, missing_bin.data())];
  }
  return encode_floats(out);
}

std::string Worker::bin_counts(const CancelFn& cancel) const {
  if (!binned_) out_of_order("bin_counts", "comes before the rows were binned");
  std::vector<uint64_t> counts(cuts_.total_hist_bins(), 0);
  CancelPoller poll(cancel);
  count_bins(matrix_, cuts_, nthread_, &poll, &counts);
  return encode_counts(counts);
}

}  // namespace

std::unique_ptr<ShardWorker> open_shard_worker(RowBatchSource& src, const ShardOpenRequest& r,
                                               const CancelFn& cancel, uint64_t rows_skipped,
                                               double memory_limit) {
  if (r.features.empty() || r.features.size() > kMaxShardFeatures)
    throw InvalidInput("gbdt shard: a bad number of features");
  std::unique_ptr<Worker> w(new Worker(r, memory_limit));
  w->read(src, cancel);
  w->rows_skipped = rows_skipped;
  return std::unique_ptr<ShardWorker>(w.release());
}

}  // namespace gbdt
