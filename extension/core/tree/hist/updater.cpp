// The CPU tree builder: the hist updater's driver (XGBoost's UpdateTree in
// src/tree/updater_quantile_hist.cc), its parts in their own files:
//  - gradients quantized to 64-bit fixed point (gradients.h), so histogram
//    sums are exact integers and the result does not depend on threads;
//  - the expansion policy (../driver.h): depth-wise, a level at a time;
//  - per level: split evaluation (evaluate_splits.h) for every node, stable
//    partition of each split node's rows (row_partitioner.h), then
//    histograms (histogram.h) for the smaller child only, the sibling being
//    parent - smaller (subtraction trick);
//  - margins updated from the rows' final leaf positions (leaf_update.h),
//    the last level fused with that update.
// Constraints, per-level/per-node column sampling and loss-guided growth
// go through the general grower (tree_grower.h), with the same driver policy.
// Node numbering (shared with the CUDA backend): within a level, nodes are
// visited in order; each split appends its left then right child.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../tree_backend.h"
#include "../apply_split.h"
#include "../categorical_split.h"
#include "../driver.h"
#include "../../common/parallel_policy.h"
#include "../../common/thread_choice.h"
#include "../../common/thread_pool.h"
#include "../../objective/gradient_pass.h"
#include "../../objective/gradients.h"
#include "../../objective/host_gradients.h"
#include "evaluate_splits.h"
#include "gradient_quantize.h"
#include "histogram.h"
#include "leaf_update.h"
#include "level_node.h"
#include "row_partitioner.h"
#include "tree_grower.h"

namespace gbdt {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Adds the time of its scope to *acc (the phase times of benchmarks).
struct ScopedPhase {
  explicit ScopedPhase(double* acc) : acc_(acc), t0_(Clock::now()) {}
  ~ScopedPhase() { *acc_ += since(t0_); }
  double* acc_;
  Clock::time_point t0_;
};

// The nodes of a level that split, their splits, and the right bin sets
// of the categorical ones (null: numeric).
struct LevelSplits {
  std::vector<LevelNode*> nodes;
  std::vector<SplitCandidate> splits;
  std::vector<const CatWords*> sets;
};

class CpuBackend final : public TreeBackend {
 public:
  std::string name() const override { return "cpu"; }
  ~CpuBackend() override {
    // Benchmarks: GBDT_PHASES=1 prints the phase times to stderr.
    const char* e = std::getenv("GBDT_PHASES");
    if (e && *e == '1') {
      for (auto& p : phase_seconds()) std::fprintf(stderr, "phase %s %.3f\n", p.first.c_str(), p.second);
      std::fprintf(stderr, "threads %s\n", thread_choice_.chose_one_thread() ? "one (chosen)" : "all");
    }
  }

  void init(const BoostData& d, const std::vector<float>& init_margins) override {
    // A restart on the same data (refit leaves, parallel trees: the trainer
    // calls init again with new margins) keeps the thread pool, the
    // histograms and the bin copies, and charges nothing again.
    const bool same = pool_ && data_.matrix == d.matrix && data_.cuts == d.cuts && n_ == d.n_rows &&
                      data_.nthread == d.nthread && data_.budget == d.budget &&
                      data_.cpu_bin_copies == d.cpu_bin_copies;
    if (!same) {
      hist_.release();
      partitioner_.release();
    }
    data_ = d;
    n_ = d.n_rows;
    K_ = d.num_group;
    margins_ = init_margins;
    if (!same) pool_.reset(new ThreadPool(d.nthread));
    pool_->set_serial(false);
    thread_choice_ = ThreadChoice{};
    const Cuts& c = *d.cuts;
    // The histograms and their block strategies (the bin copies of
    // sparse_bins.h and joint_bins.h), then the row lists and the
    // feature-major column copy, charged to the budget in that order.
    hist_.init(d.matrix, n_, c, pool_.get(), d.budget, d.max_depth, d.cpu_bin_copies, same);
    evaluator_.init(d.cuts, hist_.offsets(), hist_.total_bins(), d.split, d.cat_split, d.n_categories,
                    pool_->size());
    gpair_.resize(n_ * (size_t)K_);
    partitioner_.init(d.matrix, n_, pool_.get(), d.budget, d.cpu_bin_copies, same);
    if (d.subsample < 1.0) in_sample_.assign(n_, 1);  // only sampled rounds read it
    any_cat_ = false;
    if (d.n_categories)
      for (int f = 0; f < d.matrix->n_features && f < (int)d.n_categories->size(); ++f)
        any_cat_ = any_cat_ || (*d.n_categories)[f] > 0;
    // Benchmarks: GBDT_PHASES=1 also prints the histogram blocks.
    const char* ph = std::getenv("GBDT_PHASES");
    if (!same && ph && *ph == '1') hist_.print_blocks();
  }

  void margins(std::vector<float>* out) override { *out = margins_; }

  std::vector<std::pair<std::string, double>> phase_seconds() const override {
    return {{"gradients", t_grad_}, {"histograms", t_hist_}, {"split_evaluation", t_split_},
            {"partition", t_part_}, {"prediction_update", t_update_}};
  }

  void boost_round(int round, const std::vector<uint8_t>& feature_mask,
                   std::vector<Tree>* out) override {
    const auto t_round = Clock::now();
    thread_choice_.before_round(pool_.get());
    boost_round_steps(round, feature_mask, out);
    thread_choice_.after_round(pool_.get(), since(t_round));
  }

 private:
  void boost_round_steps(int round, const std::vector<uint8_t>& feature_mask,
                         std::vector<Tree>* out) {
    round_ = round;
    auto t0 = Clock::now();
    if (data_.external_gradients)
      external_gradients(round);  // ranking
    else
      compute_gradients();
    t_grad_ += since(t0);
    // Row sample of this round (shared by the K trees).
    uint32_t* rows = partitioner_.rows();
    n_sampled_ = 0;
    if (data_.subsample < 1.0) {
      for (size_t r = 0; r < n_; ++r) {
        uint8_t s = row_in_sample(data_.seed, round, r, data_.subsample) ? 1 : 0;
        in_sample_[r] = s;
        if (s) rows[n_sampled_++] = (uint32_t)r;
      }
    } else {
      for (size_t r = 0; r < n_; ++r) rows[r] = (uint32_t)r;
      n_sampled_ = n_;
    }
    // Each tree starts from the round's rows in increasing order (a tree
    // leaves them permuted, partly in the other row list).
    std::vector<uint32_t> sampled;
    if (K_ > 1) sampled.assign(rows, rows + n_sampled_);
    for (int k = 0; k < K_; ++k) {
      if (k > 0) std::copy(sampled.begin(), sampled.end(), rows);
      Tree t;
      build_tree(k, feature_mask, &t);
      out->push_back(std::move(t));
    }
  }

  // ---- gradients ----
  // gradients from BoostData::external_gradients (one output group).
  void external_gradients(int round) {
    ext_.g.resize(n_);
    ext_.h.resize(n_);
    data_.external_gradients(round, margins_.data(), ext_.g.data(), ext_.h.data());
    quant_.assign(1, quantize_external(ext_.g.data(), ext_.h.data(), n_, gpair_.data()));
    all_rows_sum_.clear();
  }
  ExternalGradients ext_;

  // The two passes of gradient_quantize.h, the quantizers from the maxima
  // over all the rows the distinct ones stand for.
  void compute_gradients() {
    GradientJob j;
    j.objective = data_.objective;
    j.grad = data_.grad;
    j.labels = data_.labels;
    j.weights = data_.weights;
    j.margins = margins_.data();
    j.n = n_;
    j.K = K_;
    std::vector<double> max_g, max_h;
    gradient_pairs(j, pool_.get(), gpair_.data(), &max_g, &max_h);
    quant_.assign(K_, Quantizer{});
    for (int k = 0; k < K_; ++k)
      quant_[k] = make_quantizer(max_g[k], max_h[k], data_.rows_represented ? data_.rows_represented : n_);
    all_rows_sum_ = quantize_pairs(gpair_.data(), n_, K_, quant_, data_.multiplicity, pool_.get());
  }
  // compute_gradients' sums per group; empty after external gradients.
  std::vector<GradSum> all_rows_sum_;

  // ---- the driver ----
  // One tree of output group k, depth-wise: the root (its sum, histogram),
  // then per level the evaluation of its nodes, the splits, the rows to the
  // children and the children's histograms; the last level is fused with
  // the margin update.
  void build_tree(int k, const std::vector<uint8_t>& feature_mask, Tree* tree) {
    if (data_.tree_ext.general()) return build_tree_general(k, feature_mask, tree);
    Driver<LevelNode> driver(/*lossguide=*/false, /*max_leaves=*/0);
    std::vector<LevelNode> leaves;
    LevelNode root = init_root(k, tree);
    if (data_.max_depth > 0)
      driver.push(root);
    else
      leaves.push_back(root);
    for (auto level = driver.pop(); !level.empty(); level = driver.pop()) {
      check_cancel(data_.cancel);
      const int depth = driver.depth();
      LevelSplits s;
      // The candidates stay charged to the budget until the level is done.
      auto charge = evaluate_level(k, depth, feature_mask, level, &s, &leaves);
      if (s.nodes.empty()) break;
      if (depth + 1 == data_.max_depth) {
        last_level(k, tree, level, s);  // the children are leaves: no partition
        break;
      }
      driver.push(grow_children(k, depth, tree, s));
    }
    update_margins(k, *tree, leaves);
  }

  // The root: its sum over the sampled rows (exact integers: any order;
  // every row's is summed by the quantization already), its leaf, and its
  // histogram when it may split.
  LevelNode init_root(int k, Tree* tree) {
    ScopedPhase ph(&t_hist_);
    const Quantizer& q = quant_[k];
    const GradSum* gp = &gpair_[(size_t)k * n_];
    const uint32_t* rows = partitioner_.rows();
    GradSum root_sum{0, 0};
    if (n_sampled_ == n_ && (size_t)k < all_rows_sum_.size()) {
      root_sum = all_rows_sum_[k];
    } else {
      const int nt = pool_->size();
      std::vector<GradSum> part((size_t)nt, GradSum{0, 0});
      pool_->run_blocks_sized(n_sampled_, n_sampled_, [&](size_t b, size_t e, int tid) {
        GradSum s{0, 0};
        for (size_t i = b; i < e; ++i) s = gs_add(s, gp[rows[i]]);
        part[tid] = gs_add(part[tid], s);
      });
      for (const GradSum& s : part) root_sum = gs_add(root_sum, s);
    }
    hist_.set_level(0, 1);
    LevelNode root{0, 0, n_sampled_, root_sum, nullptr};
    root.rows = partitioner_.rows();
    tree->add_node(-1, leaf_value(data_.split, q, root_sum), to_h(q, root_sum.h));
    if (data_.max_depth > 0) {
      root.hist = hist_.get();
      hist_.build({&root}, gp);
    }
    return root;
  }

  // The best split of every node of the level (evaluate_splits.h); the
  // nodes that do not split become leaves (their histograms go back).
  // Returns the charge of the candidates.
  std::unique_ptr<BudgetCharge> evaluate_level(int k, int depth, const std::vector<uint8_t>& feature_mask,
                                               std::vector<LevelNode>& level, LevelSplits* s,
                                               std::vector<LevelNode>* leaves) {
    ScopedPhase ph(&t_split_);
    hist_.set_level(depth + 1, level.size());  // of the children whose histograms this level builds
    auto charge = evaluator_.charge_level(data_.budget, level.size(), depth, data_.max_depth);
    evaluator_.evaluate(level, depth, quant_[k], feature_mask.data(), pool_.get(), &best_, &best_sets_);
    for (size_t i = 0; i < level.size(); ++i) {
      if (best_[i].feature >= 0) {
        s->nodes.push_back(&level[i]);
        s->splits.push_back(best_[i]);
        s->sets.push_back(best_sets_[i].words ? &best_sets_[i] : nullptr);
      } else {
        hist_.put(level[i].hist);
        level[i].hist = nullptr;
        leaves->push_back(level[i]);
      }
    }
    return charge;
  }

  // The splits of s applied to the tree (apply_split.h), in node order.
  std::vector<SplitChildren> apply_splits(int k, Tree* tree, const LevelSplits& s) const {
    std::vector<SplitChildren> out;
    out.reserve(s.nodes.size());
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      const LevelNode& p = *s.nodes[i];
      const SplitCandidate& sc = s.splits[i];
      out.push_back(s.sets[i] ? apply_split(tree, p.id, p.sum, sc, data_.split, quant_[k], s.sets[i],
                                            (*data_.n_categories)[sc.feature])
                              : apply_split(tree, p.id, p.sum, sc, data_.split, quant_[k],
                                            (const CatWords*)nullptr, 0u));
    }
    return out;
  }

  // The splits of the nodes at depth max_depth - 1, then each of their rows
  // gets its leaf's value added to its margin (leaf_update.h).
  void last_level(int k, Tree* tree, std::vector<LevelNode>& level, const LevelSplits& s) {
    ScopedPhase ph(&t_update_);
    const std::vector<SplitChildren> ch = apply_splits(k, tree, s);
    std::vector<float> vl(ch.size()), vr(ch.size());
    for (size_t i = 0; i < ch.size(); ++i) {
      vl[i] = tree->value[ch[i].left];
      vr[i] = tree->value[ch[i].right];
    }
    leaf_updater(k).last_level(s.nodes, s.splits, s.sets, vl, vr);
    for (LevelNode& ln : level) {
      hist_.put(ln.hist);
      ln.hist = nullptr;
    }
  }

  // The rows of the split nodes to their children (row_partitioner.h),
  // the children in the tree, and their histograms: the smaller child's
  // built, the larger one taking over its parent's, turned into parent -
  // smaller by the next level's split scan (2 live histograms per split
  // instead of 3).
  std::vector<LevelNode> grow_children(int k, int depth, Tree* tree, const LevelSplits& s) {
    std::vector<uint32_t*> child_rows;
    std::vector<size_t> nleft;
    {
      ScopedPhase ph(&t_part_);
      nleft = partitioner_.update(s.nodes, s.splits, s.sets, *data_.cuts, &child_rows);
    }
    ScopedPhase ph(&t_hist_);
    const std::vector<SplitChildren> ch = apply_splits(k, tree, s);
    std::vector<LevelNode> next;
    next.reserve(s.nodes.size() * 2);
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      const LevelNode& p = *s.nodes[i];
      next.push_back(LevelNode{ch[i].left, p.begin, p.begin + nleft[i], ch[i].left_sum, nullptr});
      next.back().rows = child_rows[i];
      next.push_back(LevelNode{ch[i].right, p.begin + nleft[i], p.end, ch[i].right_sum, nullptr});
      next.back().rows = child_rows[i];
    }
    std::vector<LevelNode*> build;
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      LevelNode& a = next[2 * i];
      LevelNode& b = next[2 * i + 1];
      LevelNode* small = a.size() <= b.size() ? &a : &b;
      small->hist = hist_.get();
      build.push_back(small);
    }
    hist_.set_level(depth + 1, next.size());
    hist_.build(build, &gpair_[(size_t)k * n_]);
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      LevelNode& a = next[2 * i];
      LevelNode& b = next[2 * i + 1];
      const bool a_built = a.size() <= b.size();
      LevelNode& large = a_built ? b : a;
      large.hist = s.nodes[i]->hist;
      large.pending_small = a_built ? a.hist : b.hist;
      s.nodes[i]->hist = nullptr;
    }
    return next;
  }

  LeafUpdater leaf_updater(int k) {
    return LeafUpdater(*data_.matrix, *data_.cuts, *pool_, &partitioner_, margins_.data(), n_, K_, k);
  }

  // The leaves' values to their rows' margins: the sampled rows by their
  // positions, the others by a walk through the tree.
  void update_margins(int k, const Tree& tree, const std::vector<LevelNode>& leaves) {
    ScopedPhase ph(&t_update_);
    LeafUpdater up = leaf_updater(k);
    up.leaves(
        leaves.size(), [&](size_t i) { return RowSpan{leaves[i].rows, leaves[i].begin, leaves[i].end}; },
        [&](size_t i) { return tree.value[leaves[i].id]; }, n_sampled_ * 2);
    if (n_sampled_ < n_) up.unsampled(tree, in_sample_.data(), (n_ - n_sampled_) * (size_t)data_.max_depth * 4);
  }

  // constraints, per-level/per-node column sampling, lossguide.
  void build_tree_general(int k, const std::vector<uint8_t>& feature_mask, Tree* tree) {
    GeneralGrowInput g;
    g.matrix = data_.matrix;
    g.cuts = data_.cuts;
    g.hist = &hist_;
    g.hist_offset = hist_.offsets();
    g.total_bins = hist_.total_bins();
    g.gpair = &gpair_[(size_t)k * n_];
    g.q = quant_[k];
    g.split = data_.split;
    g.ext = &data_.tree_ext;
    g.max_depth = data_.max_depth;
    g.feature_mask = feature_mask.data();
    g.seed = data_.seed;
    g.round = round_;
    g.group = k;
    g.row_idx = partitioner_.rows();
    g.tmp_idx = partitioner_.other(g.row_idx);
    g.n_sampled = n_sampled_;
    g.pool = pool_.get();
    g.cancel = data_.cancel;
    g.budget = data_.budget;
    g.margins = margins_.data();
    g.K = K_;
    g.n_rows = n_;
    g.in_sample = n_sampled_ < n_ ? in_sample_.data() : nullptr;
    g.n_categories = any_cat_ ? data_.n_categories : nullptr;
    g.cat_split = data_.cat_split;
    ScopedPhase ph(&t_split_);
    grow_tree_general(g, tree);
  }

  BoostData data_;
  size_t n_ = 0;
  int K_ = 1;
  std::vector<float> margins_;
  std::unique_ptr<ThreadPool> pool_;
  HistogramBuilder hist_;
  SplitEvaluator evaluator_;
  RowPartitioner partitioner_;
  std::vector<SplitCandidate> best_;  // evaluate_level's, per node of the level
  std::vector<CatWords> best_sets_;
  std::vector<GradSum> gpair_;
  std::vector<Quantizer> quant_;
  std::vector<uint8_t> in_sample_;
  size_t n_sampled_ = 0;
  bool any_cat_ = false;  // some feature is categorical
  int round_ = 0;  // the round being built (column sampling seeds)
  ThreadChoice thread_choice_;  // one thread or all for a small training
  double t_grad_ = 0, t_hist_ = 0, t_split_ = 0, t_part_ = 0, t_update_ = 0;
};

}  // namespace

std::unique_ptr<TreeBackend> make_cpu_backend() { return std::unique_ptr<TreeBackend>(new CpuBackend()); }

}  // namespace gbdt
