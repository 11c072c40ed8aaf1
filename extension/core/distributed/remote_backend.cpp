// The coordinator's tree backend: the depth-wise driver of the CPU backend
// (tree/hist/updater.cpp) with the rows on the shards.  Per round the
// shards send their gradient maxima (the quantizers are those of the
// global maxima), per level the histograms of the nodes to build; the
// coordinator adds them (exact integers), derives each sibling by
// subtraction in the split scan, and decides every split with the same
// SplitEvaluator and apply_split as one server.  Histograms are built for
// the child with the smaller hessian: either child gives the same sibling,
// the sums being exact.
#include "remote_backend.h"

#include <algorithm>
#include <cstring>

#include "../common/thread_pool.h"
#include "../objective/gradients.h"
#include "../tree/apply_split.h"
#include "../tree/driver.h"
#include "../tree/hist/evaluate_splits.h"
#include "../tree/hist/histogram.h"
#include "../tree/hist/level_node.h"
#include "shard_protocol.h"
#include "wire.h"

namespace gbdt {

namespace {

class RemoteBackend final : public TreeBackend {
 public:
  RemoteBackend(ShardCalls& calls, std::vector<uint64_t> train_offsets, uint64_t n_train,
                double scale_pos_weight)
      : calls_(calls), offsets_(std::move(train_offsets)), n_train_(n_train), spw_(scale_pos_weight) {}

  // The trees are built on the shards' CPUs, exactly as the CPU backend
  // builds them: the model's report says "cpu" either way (so the model
  // bytes equal one server's).
  std::string name() const override { return "cpu"; }

  void init(const BoostData& d, const std::vector<float>& init_margins) override;
  void boost_round(int round, const std::vector<uint8_t>& feature_mask, std::vector<Tree>* out) override;
  void margins(std::vector<float>* out) override;

 private:
  LevelNode root_node(int k, Tree* tree);
  std::vector<LevelNode> grow_children(int k, Tree* tree, std::vector<LevelNode*>& nodes,
                                       const std::vector<SplitCandidate>& splits);
  void finish_tree(int k, const Tree& tree);
  void build_tree(int k, const std::vector<uint8_t>& feature_mask, Tree* tree);
  GradSum* new_hist() {
    GradSum* h = pool_->get();
    std::memset((void*)h, 0, total_bins_ * sizeof(GradSum));
    return h;
  }

  ShardCalls& calls_;
  std::vector<uint64_t> offsets_;  // global training-row id of each shard's first row
  uint64_t n_train_;
  double spw_;  // the shards fold it into their rows' weights, as the trainer does
  BoostData data_;
  int K_ = 1;
  size_t total_bins_ = 0;
  std::vector<uint32_t> hist_offset_;
  std::unique_ptr<HistPool> pool_;
  std::unique_ptr<ThreadPool> threads_;
  SplitEvaluator evaluator_;
  std::vector<Quantizer> quant_;
  std::vector<GradSum> root_sum_;
  uint64_t n_sampled_ = 0;
  size_t trees_built_ = 0;
  std::vector<SplitCandidate> best_;
  std::vector<CatWords> best_sets_;
};

void RemoteBackend::init(const BoostData& d, const std::vector<float>& init_margins) {
  if (pool_) throw std::logic_error("a distributed training starts once");
  data_ = d;
  K_ = d.num_group;
  const Cuts& c = *d.cuts;
  total_bins_ = c.total_hist_bins();
  for (int f = 0; f < c.n_features(); ++f) hist_offset_.push_back(c.hist_offset(f));
  pool_.reset(new HistPool(total_bins_));
  threads_.reset(new ThreadPool(d.nthread));
  evaluator_.init(d.cuts, hist_offset_.data(), total_bins_, d.split, d.cat_split, nullptr, threads_->size());
  // Every row starts from the base margins (no init model here): the
  // shards are sent those K values, not n x K.
  SetupRequest s;
  s.objective = (int32_t)d.objective;
  s.num_group = K_;
  s.grad = d.grad;
  s.base_margins.assign(init_margins.begin(), init_margins.begin() + K_);
  for (size_t i = 0; i < init_margins.size(); ++i)
    if (init_margins[i] != s.base_margins[i % K_]) throw std::logic_error("distributed: rows with other initial margins");
  s.subsample = d.subsample;
  s.seed = d.seed;
  s.max_depth = d.max_depth;
  s.cpu_bin_copies = d.cpu_bin_copies ? 1 : 0;
  s.nthread = 0;  // the shard's own cores
  s.scale_pos_weight = spw_;
  std::vector<std::string> payloads;
  for (uint64_t o : offsets_) {
    s.train_offset = o;
    payloads.push_back(encode(s));
  }
  calls_.all("setup", payloads);
}

void RemoteBackend::boost_round(int round, const std::vector<uint8_t>& feature_mask, std::vector<Tree>* out) {
  calls_.set_round(round);
  // The quantizers of the global maxima: max is exact in any order.
  QuantizeRequest q;
  q.round = round;
  q.n_total = n_train_;
  q.maxima.max_g.assign(K_, 0.0);
  q.maxima.max_h.assign(K_, 0.0);
  for (const std::string& r : calls_.all_same("grad", encode_u64((uint64_t)round))) {
    const GradMaxima m = decode_grad_maxima(r);
    if (m.max_g.size() != (size_t)K_) throw ShardError("a shard sent the maxima of another number of groups");
    for (int k = 0; k < K_; ++k) {
      q.maxima.max_g[k] = std::max(q.maxima.max_g[k], m.max_g[k]);
      q.maxima.max_h[k] = std::max(q.maxima.max_h[k], m.max_h[k]);
    }
  }
  quant_.assign(K_, Quantizer{});
  for (int k = 0; k < K_; ++k) quant_[k] = make_quantizer(q.maxima.max_g[k], q.maxima.max_h[k], n_train_);
  root_sum_.assign(K_, GradSum{0, 0});
  n_sampled_ = 0;
  for (const std::string& r : calls_.all_same("quantize", encode(q))) {
    const RootSums rs = decode_root_sums(r);
    if (rs.sums.size() != (size_t)K_) throw ShardError("a shard sent the sums of another number of groups");
    n_sampled_ += rs.n_sampled;
    for (int k = 0; k < K_; ++k) root_sum_[k] = gs_add(root_sum_[k], rs.sums[k]);
  }
  for (int k = 0; k < K_; ++k) {
    Tree t;
    build_tree(k, feature_mask, &t);
    out->push_back(std::move(t));
  }
}

// The depth-wise driver of updater.cpp: the root, then per level the
// evaluation of its nodes, the splits, and the children's histograms from
// the shards; the last level's splits and the leaves go to the shards with
// the finished tree.
void RemoteBackend::build_tree(int k, const std::vector<uint8_t>& feature_mask, Tree* tree) {
  Driver<LevelNode> driver(/*lossguide=*/false, /*max_leaves=*/0);
  LevelNode root = root_node(k, tree);
  if (data_.max_depth > 0)
    driver.push(root);
  else
    pool_->put(root.hist);
  for (auto level = driver.pop(); !level.empty(); level = driver.pop()) {
    check_cancel(data_.cancel);
    const int depth = driver.depth();
    auto charge = evaluator_.charge_level(data_.budget, level.size(), depth, data_.max_depth);
    evaluator_.evaluate(level, depth, quant_[k], feature_mask.data(), threads_.get(), &best_, &best_sets_);
    std::vector<LevelNode*> nodes;
    std::vector<SplitCandidate> splits;
    for (size_t i = 0; i < level.size(); ++i) {
      if (best_[i].feature >= 0) {
        nodes.push_back(&level[i]);
        splits.push_back(best_[i]);
      } else {
        pool_->put(level[i].hist);
      }
    }
    if (nodes.empty()) break;
    if (depth + 1 == data_.max_depth) {  // the children are leaves
      for (size_t i = 0; i < nodes.size(); ++i) {
        apply_split(tree, nodes[i]->id, nodes[i]->sum, splits[i], data_.split, quant_[k]);
        pool_->put(nodes[i]->hist);
      }
      break;
    }
    driver.push(grow_children(k, tree, nodes, splits));
  }
  for (LevelNode& open : driver.take_dropped()) pool_->put(open.hist);
  finish_tree(k, *tree);
}

// The root over the round's sampled rows: its sum (from quantize), its leaf
// and the sum of the shards' root histograms.
LevelNode RemoteBackend::root_node(int k, Tree* tree) {
  const GradSum sum = root_sum_[k];
  tree->add_node(-1, leaf_value(data_.split, quant_[k], sum), to_h(quant_[k], sum.h));
  LevelNode root{0, 0, (size_t)n_sampled_, sum, nullptr};
  root.hist = new_hist();
  for (const std::string& r : calls_.all_same("root", encode_u64((uint64_t)k)))
    add_histograms(r, total_bins_, 1, 0, root.hist, nullptr);
  return root;
}

// The splits applied to the tree, then sent to the shards, which route
// their rows and send the histograms of the child with the smaller hessian
// and their left row counts; the other child takes over its parent's
// histogram, turned into parent - smaller by the next split scan.
std::vector<LevelNode> RemoteBackend::grow_children(int k, Tree* tree, std::vector<LevelNode*>& nodes,
                                                    const std::vector<SplitCandidate>& splits) {
  SplitRequest q;
  q.group = k;
  std::vector<SplitChildren> ch;
  for (size_t i = 0; i < nodes.size(); ++i) {
    ch.push_back(apply_split(tree, nodes[i]->id, nodes[i]->sum, splits[i], data_.split, quant_[k]));
    const SplitCandidate& s = splits[i];
    const uint8_t build = ch[i].left_sum.h <= ch[i].right_sum.h ? 1 : 2;
    q.splits.push_back(SplitOrder{nodes[i]->id, s.feature, s.bin, (uint8_t)(s.default_left ? 1 : 0),
                                  ch[i].left, ch[i].right, build});
  }
  const size_t L = nodes.size();
  std::vector<GradSum*> built(L);
  for (size_t i = 0; i < L; ++i) built[i] = new_hist();
  std::vector<uint64_t> n_left;
  // The histograms of a reply are contiguous: add them into one block,
  // then copy each into its node's buffer.
  std::vector<GradSum> block(L * total_bins_, GradSum{0, 0});
  for (const std::string& r : calls_.all("split", std::vector<std::string>(calls_.shards(), encode(q))))
    add_histograms(r, total_bins_, L, L, block.data(), &n_left);
  std::vector<LevelNode> next;
  next.reserve(2 * L);
  for (size_t i = 0; i < L; ++i) {
    std::memcpy((void*)built[i], &block[i * total_bins_], total_bins_ * sizeof(GradSum));
    const LevelNode& p = *nodes[i];
    if (n_left[i] > p.size()) throw ShardError("the shards sent more rows for a child than its parent has");
    LevelNode l{ch[i].left, 0, (size_t)n_left[i], ch[i].left_sum, nullptr};
    LevelNode r{ch[i].right, 0, p.size() - (size_t)n_left[i], ch[i].right_sum, nullptr};
    LevelNode& small = q.splits[i].build == 1 ? l : r;
    LevelNode& large = q.splits[i].build == 1 ? r : l;
    small.hist = built[i];
    large.hist = p.hist;
    large.pending_small = built[i];
    next.push_back(l);
    next.push_back(r);
  }
  return next;
}

// The tree to the shards: they add each leaf's value to its rows' margins.
void RemoteBackend::finish_tree(int k, const Tree& tree) {
  FinishRequest f;
  f.group = k;
  f.tree = tree;
  calls_.all_same("finish", encode(f));
  ++trees_built_;
}

void RemoteBackend::margins(std::vector<float>* out) {
  *out = remote_margins(calls_, trees_built_, K_);
}

}  // namespace

std::vector<float> remote_margins(ShardCalls& calls, size_t trees, int K) {
  std::vector<float> all;
  for (const std::string& r : calls.all_same("margins", encode_u64(trees))) {
    ByteReader rd(r, "margins");
    const std::vector<float> v = rd.get_vector<float>((size_t)1 << 31);
    rd.done();
    if (v.size() % (size_t)K != 0) rd.fail("a partial row of margins");
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

std::unique_ptr<TreeBackend> make_remote_backend(ShardCalls& calls, std::vector<uint64_t> train_offsets,
                                                 uint64_t n_train, double scale_pos_weight) {
  return std::unique_ptr<TreeBackend>(
      new RemoteBackend(calls, std::move(train_offsets), n_train, scale_pos_weight));
}

}  // namespace gbdt
