#include "tree_grower.h"

#include "histogram.h"
#include "leaf_update.h"
#include "../driver.h"
#include "row_partitioner.h"
#include "../apply_split.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace gbdt {

namespace {

struct GNode {
  int32_t id = 0;
  int depth = 0;
  size_t begin = 0, end = 0;  // segment of row_idx
  GradSum sum{0, 0};
  int hist = -1;              // histogram slot, -1: none
  double lower = -HUGE_VAL;   // monotone bounds of the node's weight
  double upper = HUGE_VAL;
  std::vector<int> used;      // features split on along the path (sorted)
  SplitCandidate best = no_split();
  std::vector<uint32_t> best_set;  // right bin set words when best is categorical
};

class Grower {
 public:
  Grower(const GeneralGrowInput& in, Tree* tree)
      : in_(in), tree_(tree), nf_(in.matrix->n_features), ext_(*in.ext),
        mono_(!in.ext->monotone.empty()),
        sampler_(*in.ext, in.feature_mask, nf_, in.seed, in.round, in.group) {
    is_cat_.assign((size_t)nf_, 0);
    if (in.n_categories)
      for (int f = 0; f < nf_ && f < (int)in.n_categories->size(); ++f)
        is_cat_[f] = (*in.n_categories)[f] > 0;
    // per feature its bin set words in cand_sets_ (cat_set_words).
    cat_woff_.assign((size_t)nf_ + 1, 0);
    int max_nb = 256;
    for (int f = 0; f < nf_; ++f) {
      const int nb = in.cuts->nbins(f);
      cat_woff_[f + 1] = cat_woff_[f] + (is_cat_[f] ? (size_t)cat_set_words(nb) : 0);
      if (is_cat_[f]) max_nb = std::max(max_nb, nb);
    }
    cand_sets_.assign(cat_woff_[nf_], 0);
    scratch_.resize((size_t)in.pool->size());
    for (CatScratch& cs : scratch_) {
      cs.order.resize((size_t)max_nb);
      cs.order_tmp.resize((size_t)max_nb);
      cs.wt.resize((size_t)max_nb);
      cs.wt_tmp.resize((size_t)max_nb);
    }
  }

  ~Grower() {
    if (in_.budget) in_.budget->release(charged_);
  }

  void grow() {
    const SplitParams& sp = in_.split;
    GradSum root{0, 0};
    for (size_t i = 0; i < in_.n_sampled; ++i) root = gs_add(root, in_.gpair[in_.row_idx[i]]);
    GNode r;
    r.end = in_.n_sampled;
    r.sum = root;
    tree_->add_node(-1, leaf_value(sp, in_.q, root), to_h(in_.q, root.h));
    nodes_.push_back(r);
    if (expandable(nodes_[0])) {
      nodes_[0].hist = get_hist();
      build_hist(nodes_[0]);
      evaluate(0);
    }
    // The expansion policy (driver.h): depth-wise levels or the open leaf
    // with the largest gain first (ties: the lower node id), max_leaves.
    auto worse = [this](const int32_t& a, const int32_t& b) {
      const double ga = nodes_[a].best.gain, gb = nodes_[b].best.gain;
      if (ga != gb) return ga < gb;
      return a > b;
    };
    Driver<int32_t> driver(ext_.lossguide, ext_.max_leaves, worse);
    if (nodes_[0].best.feature >= 0) driver.push(0);
    std::vector<int32_t> kids;
    for (auto batch = driver.pop(); !batch.empty(); batch = driver.pop()) {
      check_cancel(in_.cancel);
      for (int32_t id : driver.take_dropped()) put_hist(id);
      for (int32_t id : batch) {
        kids.clear();
        split(id, &kids);
        driver.push(kids);
      }
    }
    for (int32_t id : driver.take_dropped()) put_hist(id);
    update_margins();
  }

 private:
  bool expandable(const GNode& n) const { return in_.max_depth == 0 || n.depth < in_.max_depth; }

  // ---- histograms ----
  int get_hist() {
    if (!free_.empty()) {
      int h = free_.back();
      free_.pop_back();
      return h;
    }
    const double bytes = (double)in_.total_bins * sizeof(GradSum);
    if (in_.budget) {
      in_.budget->charge(bytes,
                         "the histograms of " + std::to_string(hists_.size() + 1) +
                             " open nodes of one tree",
                         "lower max_leaves (now " + std::to_string(ext_.max_leaves) +
                             "), max_depth or max_bin");
      charged_ += bytes;
    }
    hists_.emplace_back(new GradSum[in_.total_bins]);
    return (int)hists_.size() - 1;
  }

  void put_hist(int32_t id) {
    GNode& n = nodes_[id];
    if (n.hist >= 0) free_.push_back(n.hist);
    n.hist = -1;
  }

  // The node's histogram by the CPU driver's HistogramBuilder (histogram.h)
  // from its segment of row_idx: the same integer sums as any other order.
  void build_hist(const GNode& n) {
    LevelNode ln{n.id, n.begin, n.end, n.sum, hists_[n.hist].get()};
    ln.rows = in_.row_idx;
    in_.hist->build({&ln}, in_.gpair);
  }

  // ---- weights and gains ----
  double node_gain(const GNode& n) const {
    if (!mono_) return parent_gain(in_.split, in_.q, n.sum);
    return bounded_parent_gain(in_.split, in_.q, n.sum, n.lower, n.upper);
  }

  // sp: at_node(in_.split, ...) of node n (min_data_in_leaf's row counts).
  double gain(const SplitParams& sp, const GNode& n, int f, GradSum left, double pg) const {
    if (!mono_) return split_gain_given_parent(sp, in_.q, n.sum, left, pg);
    return bounded_split_gain(sp, in_.q, n.sum, left, n.lower, n.upper, ext_.monotone[f], pg);
  }

  SplitCandidate scan_feature(const GNode& n, int f, double pg, uint32_t* set, int tid) {
    const SplitParams sp = at_node(in_.split, in_.q, n.sum, (double)(n.end - n.begin));
    const GradSum* h = hists_[n.hist].get() + in_.hist_offset[f];
    const int nb = in_.cuts->nbins(f);
    if (is_cat_[f]) {  // one-hot / partition splits (categorical_split.h)
      const double bounds[2] = {n.lower, n.upper};
      CatScratch& cs = scratch_[(size_t)tid];
      return best_categorical_split_words(h, nb, f, n.sum, sp, in_.q, in_.cat_split, set,
                                          (int)(cat_woff_[f + 1] - cat_woff_[f]), cs.order.data(),
                                          cs.wt.data(), cs.order_tmp.data(), cs.wt_tmp.data(),
                                          mono_ ? bounds : nullptr, mono_ ? ext_.monotone[f] : 0);
    }
    const GradSum miss = h[nb];
    SplitCandidate best = no_split();
    GradSum acc{0, 0};
    for (int b = 0; b < nb; ++b) {
      if (b > 0 && h[b].g == 0 && h[b].h == 0) continue;  // repeats bin b-1
      acc = gs_add(acc, h[b]);
      SplitCandidate c1{gain(sp, n, f, acc, pg), f, b, 0, acc};  // missing right
      if (split_is_useful(sp, c1.gain) && better_split(c1, best)) best = c1;
      if (miss.h != 0) {  // missing left
        const GradSum l = gs_add(acc, miss);
        SplitCandidate c2{gain(sp, n, f, l, pg), f, b, 1, l};
        if (split_is_useful(sp, c2.gain) && better_split(c2, best)) best = c2;
      }
    }
    return best;
  }

  void evaluate(int32_t id) {
    GNode& n = nodes_[id];
    sampler_.mask(n.depth, n.id, n.used, &mask_);
    const double pg = node_gain(n);
    cand_.assign((size_t)nf_, no_split());
    const int fb = 8;
    const size_t nblk = (size_t)((nf_ + fb - 1) / fb);
    in_.pool->run(nblk, [&](size_t t, int tid) {
      const int f0 = (int)t * fb, f1 = std::min(nf_, f0 + fb);
      for (int f = f0; f < f1; ++f)
        if (mask_[f]) cand_[f] = scan_feature(n, f, pg, cand_sets_.data() + cat_woff_[f], tid);
    });
    SplitCandidate best = no_split();
    for (int f = 0; f < nf_; ++f)
      if (better_split(cand_[f], best)) best = cand_[f];
    n.best = best;
    if (best.feature >= 0 && is_cat_[best.feature])
      n.best_set.assign(cand_sets_.begin() + (ptrdiff_t)cat_woff_[best.feature],
                        cand_sets_.begin() + (ptrdiff_t)cat_woff_[best.feature + 1]);
  }

  // ---- one split ----
  // Splits node id by its best candidate; appends the children that can
  // split further to *open (left first).
  void split(int32_t id, std::vector<int32_t>* open) {
    const SplitCandidate s = nodes_[id].best;
    GNode p = nodes_[id];  // copy: nodes_ grows below
    const bool cat = is_cat_[s.feature] != 0;
    // Stable partition of the segment: left rows first.
    const int nb = in_.cuts->nbins(s.feature);
    const size_t d = (size_t)nf_;
    uint32_t* idx = in_.row_idx;
    uint32_t* tmp = in_.tmp_idx;
    size_t l = p.begin, nr = 0;
    const CatWords cw{p.best_set.data(), (int)p.best_set.size(), (uint32_t)nb};
    const CatWords* cats = cat ? &cw : nullptr;
    in_.matrix->visit([&](auto* bins) {  // uint8_t or uint16_t entries
    const auto* col = bins + s.feature;
    visit_route(row_route(s, nb, cats), [&](auto goes_left) {
      for (size_t i = p.begin; i < p.end; ++i) {
        const uint32_t row = idx[i];
        if (goes_left((unsigned)col[(size_t)row * d]))
          idx[l++] = row;
        else
          tmp[nr++] = row;
      }
    });
    });
    std::copy(tmp, tmp + nr, idx + l);
    const size_t mid_row = l;

    // Children (monotone: weights bounded by the parent's bounds).
    GNode L, R;
    SplitChildren ch;
    const uint32_t n_codes = cat ? (*in_.n_categories)[s.feature] : 0;
    if (mono_)
      ch = apply_split_bounded(tree_, id, p.sum, s, in_.split, in_.q, p.lower, p.upper,
                               ext_.monotone[s.feature], &L.lower, &L.upper, &R.lower, &R.upper,
                               cats, n_codes);
    else
      ch = apply_split(tree_, id, p.sum, s, in_.split, in_.q, cats, n_codes);
    const int32_t li = ch.left, ri = ch.right;
    L.id = li;
    R.id = ri;
    L.depth = R.depth = p.depth + 1;
    L.begin = p.begin;
    L.end = R.begin = mid_row;
    R.end = p.end;
    L.sum = ch.left_sum;
    R.sum = ch.right_sum;
    if (!ext_.interaction.empty()) {
      L.used = p.used;
      add_used_feature(&L.used, s.feature);
      R.used = L.used;
    }
    const int parent_hist = p.hist;
    nodes_[id].hist = -1;
    nodes_.push_back(L);
    nodes_.push_back(R);
    if (!expandable(L)) {
      if (parent_hist >= 0) free_.push_back(parent_hist);
      return;
    }
    // The smaller child's histogram is built, the larger one's is the
    // parent's minus it (in the parent's buffer).
    const bool left_small = (L.end - L.begin) <= (R.end - R.begin);
    GNode& small = nodes_[left_small ? li : ri];
    small.hist = get_hist();
    build_hist(small);
    GNode& large = nodes_[left_small ? ri : li];
    large.hist = parent_hist;
    in_.hist->subtract(hists_[large.hist].get(), hists_[small.hist].get());
    for (int32_t c : {li, ri}) {
      evaluate(c);
      if (nodes_[c].best.feature >= 0)
        open->push_back(c);
      else
        put_hist(c);
    }
  }

  void update_margins() {
    std::vector<int32_t> leaves;
    for (int32_t i = 0; i < (int32_t)nodes_.size(); ++i)
      if (tree_->is_leaf(i)) leaves.push_back(i);
    LeafUpdater up(*in_.matrix, *in_.cuts, *in_.pool, nullptr, in_.margins, in_.n_rows, in_.K, in_.group);
    // Rows of a node in increasing order (split's stable partition).
    up.leaves(
        leaves.size(),
        [&](size_t i) {
          const GNode& n = nodes_[leaves[i]];
          return RowSpan{in_.row_idx, n.begin, n.end};
        },
        [&](size_t i) { return tree_->value[nodes_[leaves[i]].id]; }, in_.n_sampled * 2);
    if (in_.in_sample) up.unsampled(*tree_, in_.in_sample, in_.n_rows * 4);
  }

  const GeneralGrowInput& in_;
  Tree* tree_;
  const int nf_;
  const TreeExtParams& ext_;
  const bool mono_;
  std::vector<GNode> nodes_;  // by tree node id
  std::vector<std::unique_ptr<GradSum[]>> hists_;
  std::vector<int> free_;
  double charged_ = 0;
  NodeFeatureSampler sampler_;
  std::vector<uint8_t> mask_;
  std::vector<SplitCandidate> cand_;
  std::vector<uint32_t> cand_sets_;   // per feature f, the right set of cand_[f] at cat_woff_[f]
  std::vector<size_t> cat_woff_;      // n_features + 1 word offsets (0 words: numeric)
  struct CatScratch {                 // best_categorical_split_words' scratch, per thread
    std::vector<int> order, order_tmp;
    std::vector<double> wt, wt_tmp;
  };
  std::vector<CatScratch> scratch_;
  std::vector<uint8_t> is_cat_;       // per feature: categorical
};

}  // namespace

void grow_tree_general(const GeneralGrowInput& in, Tree* tree) {
  Grower g(in, tree);
  g.grow();
}

}  // namespace gbdt
