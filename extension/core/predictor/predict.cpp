// Scoring with the trees' float thresholds: value < threshold goes left,
// missing (NaN) follows the node's default direction.  Margins accumulate in
// float, tree by tree, exactly as training does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <immintrin.h>

#include <atomic>
#include <exception>

#include "../data/category_values.h"
#include "../common/cpu_features.h"
#include "../common/interruptible.h"
#include "../model/model.h"
#include "../objective/objective.h"
#include "predict.h"
#include "../common/thread_pool.h"

namespace gbdt {

void predict_margin_row(const Model& m, const float* x, double* out, int rounds) {
  predict_margin_row(m, x, out, rounds, CancelFn());
}

namespace {

// n values on the stack when n <= N, else on the heap (per-row margins).
template <typename T, size_t N>
struct SmallArray {
  T small[N];
  std::vector<T> big;
  T* p = small;
  explicit SmallArray(size_t n) {
    if (n > N) {
      big.resize(n);
      p = big.data();
    }
  }
  SmallArray(const SmallArray&) = delete;
  SmallArray& operator=(const SmallArray&) = delete;
};

// Trees tr[0, cnt) walked in lock-step from their roots for the row x: nd[j]
// = tree j's leaf (independent load chains the CPU overlaps; a leaf stays
// put).  kCat: the trees have categorical splits (Tree::goes_left's
// decisions, categorical_split.h, spelled out without branches).
template <bool kCat>
inline void lockstep_leaves(const Tree* tr, size_t cnt, const float* x, int32_t* nd) {
  for (;;) {
    unsigned active = 0;
    for (size_t j = 0; j < cnt; ++j) {
      const Tree& t = tr[j];
      const int32_t n = nd[j];
      const int32_t l = t.left[n];
      const unsigned inner = l >= 0;
      // A leaf reads a dummy (its feature field is not trusted, and x may
      // be empty); the pointer is picked without a branch.
      const float dummy = 0.0f;
      const float* src = inner ? x + t.feature[n] : &dummy;
      const float v = *src;
      const unsigned nan = v != v;
      unsigned left_val = v < t.threshold[n];
      if (kCat && t.is_categorical(n)) left_val = !t.cat_right(n, v);
      const unsigned go_left = ((nan & (t.default_left[n] != 0)) | (~nan & left_val)) & 1u;
      const int32_t c[3] = {t.right[n], l, n};
      nd[j] = c[inner ? go_left : 2u];
      active |= inner;
    }
    if (!active) break;
  }
}
}  // namespace

void predict_margin_row(const Model& m, const float* x, double* out, int rounds,
                        const CancelFn& cancel) {
  std::vector<float> codes;  // the row with unseen categories missing (category_values.h)
  if (!m.categories.empty()) x = row_with_codes(m, x, &codes);
  const int K = m.num_output_group;
  size_t ntrees = m.trees.size();
  if (rounds > 0) ntrees = std::min(ntrees, (size_t)rounds * (size_t)m.trees_per_round());
  SmallArray<float, 64> acc((size_t)K);
  float* a = acc.p;
  for (int k = 0; k < K; ++k) a[k] = (float)m.base_margin[k];
  // Eight trees walked in lock-step, then added in tree order as before.
  constexpr size_t G = 8;
  for (size_t i0 = 0; i0 < ntrees; i0 += G) {
    if (i0 != 0 && (i0 & 4095) == 0) check_cancel(cancel);
    const size_t cnt = std::min(G, ntrees - i0);
    int32_t nd[G] = {};
    const Tree* const tr = m.trees.data() + i0;
    bool cat = false;
    for (size_t j = 0; j < cnt; ++j) cat |= tr[j].has_categorical();
    if (cat)
      lockstep_leaves<true>(tr, cnt, x, nd);
    else
      lockstep_leaves<false>(tr, cnt, x, nd);
    for (size_t j = 0; j < cnt; ++j) a[m.tree_group[i0 + j]] += tr[j].value[nd[j]];
  }
  for (int k = 0; k < K; ++k) out[k] = a[k];
}

void transform_margins(const Model& m, double* v) {
  objective_info(m.objective).transform(v, m.num_output_group);
}

namespace {
// gbdt_predict's answer: the prediction, or for the multiclass objectives
// the class label of the most probable class (as XGBoost's multi:softmax).
double scalar_answer(const Model& m, double* v) {
  transform_margins(m, v);
  if (!objective_info(m.objective).multiclass && m.num_output_group > 1)  // several quantiles
    throw InvalidInput("the model predicts " + std::to_string(m.num_output_group) +
                       " quantiles (a quantile_alpha list): use gbdt_predict_quantiles(model, row) "
                       "for one value per quantile");
  if (!objective_info(m.objective).multiclass) return v[0];
  int best = 0;
  for (int k = 1; k < m.num_output_group; ++k)
    if (v[k] > v[best]) best = k;
  return best < (int)m.class_labels.size() ? m.class_labels[best] : best;
}
}  // namespace

double predict_value_row(const Model& m, const float* x) {
  return predict_value_row(m, x, CancelFn());
}

double predict_value_row(const Model& m, const float* x, const CancelFn& cancel) {
  SmallArray<double, 16> margins((size_t)m.num_output_group);
  double* v = margins.p;
  predict_margin_row(m, x, v, 0, cancel);
  return scalar_answer(m, v);
}

namespace {

// Trees flattened into one array of 16-byte nodes for batch scoring (same
// decisions as leaf_of: NaN follows default_left, else v < threshold goes
// left).  A leaf points to itself on both sides and carries its value in
// `thr`, so every row of a block can take exactly depth(tree) steps without
// branches; rows then proceed in lock-step groups (no mispredictions, and
// the CPU overlaps the groups' independent load chains).
struct FlatNode {
  float thr;        // split threshold, or the leaf value
  uint32_t fdl;     // feature | default_left << 31 (0 for a leaf)
  int32_t left;     // node index within the tree (self for a leaf)
  int32_t right;
};

// Shallow trees are also laid out as perfect binary trees (node p has
// children 2p+1 and 2p+2, leaves all at the tree's depth): a leaf above
// that depth is repeated below a pass-through node whose two subtrees are
// the same, so every path takes exactly depth steps and the next node is
// computed, not loaded.  A pass-through node's threshold is NaN (every
// value goes right, as v < NaN is false and its default is right), and
// only a pass-through node's is: a split's NaN threshold is laid out as
// -Infinity, the same decisions.  So a kernel may stop walking rows that
// are all at pass-through nodes: going right to the last level reaches a
// copy of their leaf.
struct PerfNode {
  float thr;     // split threshold, or the leaf value at the last level
  uint32_t fdl;  // feature | default_left << 31
};

constexpr int kMaxPerfectDepth = 10;

// Trees of a model with categorical splits, flattened like FlatNode with
// the code set of a categorical node (bit 30 of fdl) in the forest's
// cat_bits[off .. off + words); a numeric node has words = 0, so the set
// test is false for it whatever v.  Same decisions as Tree::goes_left.
constexpr uint32_t kCatFlag = 0x40000000u;
struct CatFlatNode {
  float thr;      // split threshold, or the leaf value
  uint32_t fdl;   // feature | categorical << 30 | default_left << 31 (0 for a leaf)
  int32_t left;   // node index within the tree (self for a leaf)
  int32_t right;
  uint32_t off;   // categorical: first word of the code set in cat_bits
  uint32_t words; // categorical: words of the code set (0: numeric or leaf), | kListFlag
                  // when they are a code list (Tree::is_cat_list)
};
constexpr uint32_t kListFlag = 0x80000000u;

struct FlatForest {
  std::vector<FlatNode> nodes;
  std::vector<uint32_t> start;  // first node of each tree
  std::vector<int32_t> depth;   // max depth of each tree (0: a single leaf)
  std::vector<int32_t> leaf_min;  // min depth of a leaf of each tree (the first level with pass-through nodes)
  bool perfect = false;         // every tree is in perf (depth <= kMaxPerfectDepth)
  bool categorical = false;     // some tree has categorical splits: the cat layout below
  bool cat_lists = false;       // some categorical set is a code list: only CatStep walks them
  std::vector<PerfNode> perf;
  std::vector<uint32_t> perf_start;
  // The features the perfect layout's first two levels test most often
  // (at most kMaxHeadFeatures), and per tree the slot among them of nodes
  // 0, 1 and 2 (-1: none).  The AVX2 kernel copies these features of a
  // block's rows into columns, so that rows at one of those nodes read
  // their values with a plain load instead of a gather.
  std::vector<int32_t> head_feat;
  std::vector<int16_t> head_slot;
  // Categorical models: every tree in cat (start[] as for nodes), code sets in cat_bits.
  std::vector<CatFlatNode> cat;
  std::vector<uint32_t> cat_bits;
  // Categorical models whose trees are all in perf: perf's categorical
  // nodes carry kCatFlag in fdl, their code sets at cat_bits[perf_cat_off[i]
  // .. + perf_cat_words[i]) (parallel to perf; 0 words elsewhere).
  std::vector<uint32_t> perf_cat_off, perf_cat_words;
  // The categorical features: values that are not codes are made missing
  // in a copy of each block before the kernels see it (category_values.h).
  CategoryCodes codes;
};

void place_perfect(const Tree& tr, int32_t nd, size_t pos, int level, int depth, PerfNode* out) {
  if (level == depth) {
    // Only a leaf can sit at the tree's maximum depth.
    out[pos] = PerfNode{tr.value[nd], 0u};
    return;
  }
  if (tr.left[nd] < 0) {
    out[pos] = PerfNode{std::numeric_limits<float>::quiet_NaN(), 0u};  // pass-through: both subtrees hold the leaf
    place_perfect(tr, nd, 2 * pos + 1, level + 1, depth, out);
    place_perfect(tr, nd, 2 * pos + 2, level + 1, depth, out);
    return;
  }
  const float thr = tr.threshold[nd];
  out[pos] = PerfNode{thr == thr ? thr : -std::numeric_limits<float>::infinity(),
                      (uint32_t)tr.feature[nd] | (tr.default_left[nd] ? 0x80000000u : 0u)};
  place_perfect(tr, tr.left[nd], 2 * pos + 1, level + 1, depth, out);
  place_perfect(tr, tr.right[nd], 2 * pos + 2, level + 1, depth, out);
}

constexpr size_t kMaxHeadFeatures = 64;

void place_head_columns(size_t ntrees, FlatForest* ff) {
  std::vector<std::pair<uint32_t, int32_t>> uses;  // (count, feature)
  std::vector<uint32_t> count;
  // Node 0 is tested when the tree has a level, nodes 1 and 2 when it has two.
  auto tested = [ff](size_t t, int k) { return ff->depth[t] > (k > 0 ? 1 : 0); };
  auto feature = [ff](size_t t, int k) { return ff->perf[ff->perf_start[t] + k].fdl & 0x3fffffffu; };
  for (size_t t = 0; t < ntrees; ++t)
    for (int k = 0; k < 3 && tested(t, k); ++k) {
      const uint32_t f = feature(t, k);
      if (f >= count.size()) count.resize((size_t)f + 1, 0);
      count[f]++;
    }
  for (size_t f = 0; f < count.size(); ++f)
    if (count[f] > 0) uses.emplace_back(count[f], (int32_t)f);
  std::sort(uses.begin(), uses.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (uses.size() > kMaxHeadFeatures) uses.resize(kMaxHeadFeatures);
  std::vector<int16_t> slot_of(count.size(), -1);
  ff->head_feat.clear();
  for (const auto& u : uses) {
    slot_of[(size_t)u.second] = (int16_t)ff->head_feat.size();
    ff->head_feat.push_back(u.second);
  }
  ff->head_slot.assign(ntrees * 3, -1);
  for (size_t t = 0; t < ntrees; ++t)
    for (int k = 0; k < 3 && tested(t, k); ++k)
      ff->head_slot[t * 3 + k] = slot_of[feature(t, k)];
}

void flatten_perfect(const Model& m, size_t ntrees, FlatForest* ff) {
  ff->perfect = false;
  size_t total = 0;
  for (size_t t = 0; t < ntrees; ++t) {
    if (ff->depth[t] > kMaxPerfectDepth) return;
    total += ((size_t)2 << ff->depth[t]) - 1;
  }
  ff->perf.resize(total + 32);  // + 32: a level's nodes are read up to 32 at a time
  ff->perf_start.resize(ntrees);
  size_t o = 0;
  for (size_t t = 0; t < ntrees; ++t) {
    ff->perf_start[t] = (uint32_t)o;
    if (m.trees[t].num_nodes() > 0) place_perfect(m.trees[t], 0, 0, 0, ff->depth[t], &ff->perf[o]);
    o += ((size_t)2 << ff->depth[t]) - 1;
  }
  ff->perfect = true;
  place_head_columns(ntrees, ff);
}

void flatten_categorical(const Model& m, size_t ntrees, FlatForest* ff) {
  ff->cat.resize(ff->nodes.size());
  ff->cat_bits.clear();
  ff->cat_lists = false;
  for (size_t t = 0; t < ntrees; ++t) {
    const Tree& tr = m.trees[t];
    CatFlatNode* out = ff->cat.data() + ff->start[t];
    for (int32_t i = 0; i < tr.num_nodes(); ++i) {
      const FlatNode& f = ff->nodes[ff->start[t] + i];
      CatFlatNode& n = out[i];
      n = CatFlatNode{f.thr, f.fdl, f.left, f.right, 0u, 0u};
      if (tr.left[i] >= 0 && tr.is_categorical(i)) {
        n.fdl |= kCatFlag;
        n.off = (uint32_t)ff->cat_bits.size();
        n.words = tr.cat_offset[i + 1] - tr.cat_offset[i];
        if (tr.is_cat_list(i)) {
          n.words |= kListFlag;
          ff->cat_lists = true;
        }
        ff->cat_bits.insert(ff->cat_bits.end(), tr.cat_bits.begin() + tr.cat_offset[i],
                            tr.cat_bits.begin() + tr.cat_offset[i + 1]);
      }
    }
  }
  ff->cat_bits.push_back(0u);  // never empty (data() of a numeric node's empty set)
}

// The categorical marks of the perfect layout (FlatForest::perf_cat_off):
// node by node as place_perfect lays the tree out, from the tree's
// CatFlatNode table cn.
void place_perfect_cat(const Tree& tr, const CatFlatNode* cn, int32_t nd, size_t pos, int level,
                       int depth, PerfNode* out, uint32_t* off, uint32_t* words) {
  if (level == depth) return;  // a leaf
  if (tr.left[nd] < 0) {
    place_perfect_cat(tr, cn, nd, 2 * pos + 1, level + 1, depth, out, off, words);
    place_perfect_cat(tr, cn, nd, 2 * pos + 2, level + 1, depth, out, off, words);
    return;
  }
  if (cn[nd].fdl & kCatFlag) {
    out[pos].fdl |= kCatFlag;
    off[pos] = cn[nd].off;
    words[pos] = cn[nd].words;
  }
  place_perfect_cat(tr, cn, tr.left[nd], 2 * pos + 1, level + 1, depth, out, off, words);
  place_perfect_cat(tr, cn, tr.right[nd], 2 * pos + 2, level + 1, depth, out, off, words);
}

void flatten_perfect_categorical(const Model& m, size_t ntrees, FlatForest* ff) {
  ff->perf_cat_off.assign(ff->perf.size(), 0u);
  ff->perf_cat_words.assign(ff->perf.size(), 0u);
  for (size_t t = 0; t < ntrees; ++t) {
    if (m.trees[t].num_nodes() == 0) continue;
    const size_t o = ff->perf_start[t];
    place_perfect_cat(m.trees[t], ff->cat.data() + ff->start[t], 0, 0, 0, ff->depth[t],
                      &ff->perf[o], &ff->perf_cat_off[o], &ff->perf_cat_words[o]);
  }
}

void flatten(const Model& m, size_t ntrees, FlatForest* ff) {
  size_t total = 0;
  for (size_t t = 0; t < ntrees; ++t) total += m.trees[t].left.size();
  ff->nodes.resize(total);
  ff->start.resize(ntrees);
  ff->depth.assign(ntrees, 0);
  ff->leaf_min.assign(ntrees, 0);
  ff->categorical = false;
  size_t o = 0;
  std::vector<std::pair<int32_t, int32_t>> stack;
  for (size_t t = 0; t < ntrees; ++t) {
    const Tree& tr = m.trees[t];
    ff->start[t] = (uint32_t)o;
    for (int32_t i = 0; i < tr.num_nodes(); ++i) {
      FlatNode& n = ff->nodes[o + i];
      if (tr.left[i] < 0) {
        n.thr = tr.value[i];
        n.fdl = 0;
        n.left = n.right = i;
      } else {
        n.thr = tr.threshold[i];
        n.fdl = (uint32_t)tr.feature[i] | (tr.default_left[i] ? 0x80000000u : 0u);
        n.left = tr.left[i];
        n.right = tr.right[i];
      }
    }
    int32_t dmax = 0, dmin = std::numeric_limits<int32_t>::max();
    stack.clear();
    if (tr.num_nodes() > 0) stack.emplace_back(0, 0);
    while (!stack.empty()) {
      auto [nd, dp] = stack.back();
      stack.pop_back();
      if (tr.left[nd] < 0) {
        dmax = std::max(dmax, dp);
        dmin = std::min(dmin, dp);
      } else {
        stack.emplace_back(tr.left[nd], dp + 1);
        stack.emplace_back(tr.right[nd], dp + 1);
      }
    }
    ff->depth[t] = dmax;
    ff->leaf_min[t] = tr.num_nodes() > 0 ? dmin : 0;
    o += tr.left.size();
    ff->categorical |= tr.has_categorical();
  }
  if (ff->categorical) flatten_categorical(m, ntrees, ff);
  ff->codes = CategoryCodes(m);
  // The vector kernels test bit fields only: a forest with a code list
  // scores through CatStep (score_chunk), without the perfect layout.
  if (ff->categorical && ff->cat_lists)
    ff->perfect = false;
  else
    flatten_perfect(m, ntrees, ff);
  if (ff->categorical && ff->perfect) flatten_perfect_categorical(m, ntrees, ff);
}

inline int32_t step(const FlatNode* tr, int32_t nd, const float* xr) {
  const FlatNode& n = tr[nd];
  const float v = xr[n.fdl & 0x7fffffffu];
  const unsigned nan = v != v;
  const unsigned dl = n.fdl >> 31;
  const unsigned lt = v < n.thr;
  const unsigned go_right = ((nan & dl) | (~nan & lt)) ^ 1u;
  // Indexed load instead of a (mispredicted) branch: child[0] = left, child[1] = right.
  return (&n.left)[go_right];
}

// step() for CatFlatNode: categorical nodes send a code in their set right
// (cat_goes_right: an integer-truncated code in [0, 32 * words)), other
// values left; missing follows default_left.  Branch-free: the set test of
// a numeric node (words = 0) is false and not used.
struct CatStep {
  const uint32_t* bits;
  int32_t operator()(const CatFlatNode* tr, int32_t nd, const float* xr) const {
    const CatFlatNode& n = tr[nd];
    const float v = xr[n.fdl & 0x3fffffffu];
    const unsigned nan = v != v;
    const unsigned dl = n.fdl >> 31;
    const unsigned cat = (n.fdl >> 30) & 1u;
    const unsigned lt = v < n.thr;
    unsigned in_set;
    if (n.words & kListFlag) {  // a code list (imported sets only): binary search
      in_set = cat_list_goes_right(bits + n.off, n.words & ~kListFlag, v) ? 1u : 0u;
    } else {
      const bool in_range = v >= 0.0f && v < 32.0f * (float)n.words;
      const uint32_t c = (uint32_t)(in_range ? v : 0.0f);
      in_set = in_range & ((bits[n.off + (c >> 5)] >> (c & 31)) & 1u);
    }
    const unsigned left_val = (cat & (in_set ^ 1u)) | ((cat ^ 1u) & lt);
    const unsigned go_left = ((nan & dl) | (~nan & left_val)) & 1u;
    return (&n.left)[go_left ^ 1u];
  }
};

inline uint32_t perf_step(const PerfNode* tr, uint32_t p, const float* xr) {
  const PerfNode n = tr[p];
  const float v = xr[n.fdl & 0x7fffffffu];
  const unsigned nan = v != v;
  const unsigned dl = n.fdl >> 31;
  const unsigned lt = v < n.thr;
  const unsigned go_right = ((nan & dl) | (~nan & lt)) ^ 1u;
  return 2 * p + 1 + go_right;
}

// perf_step for a categorical model's perfect layout (kCatFlag in fdl):
// the decisions of CatStep.
inline uint32_t perf_cat_step(const PerfNode* tr, const uint32_t* coff, const uint32_t* cw,
                              const uint32_t* bits, uint32_t p, const float* xr) {
  const PerfNode n = tr[p];
  const float v = xr[n.fdl & 0x3fffffffu];
  const unsigned nan = v != v;
  const unsigned dl = n.fdl >> 31;
  const unsigned cat = (n.fdl >> 30) & 1u;
  const unsigned lt = v < n.thr;
  const bool in_range = cat && v >= 0.0f && v < 32.0f * (float)cw[p];
  const uint32_t c = (uint32_t)(in_range ? v : 0.0f);
  const unsigned in_set = in_range ? ((bits[coff[p] + (c >> 5)] >> (c & 31)) & 1u) : 0u;
  const unsigned left_val = cat ? (in_set ^ 1u) : lt;
  const unsigned go_left = nan ? dl : left_val;
  return 2 * p + 1 + (go_left ^ 1u);
}

// Checked between trees of a block and, in deep trees, every
// kCheckLevels levels of the walk: true when the block must stop (its
// output is then incomplete).  `flag` is shared by the threads of a batch;
// `poll` (counting node visits towards the caller's cancel callback) is
// ticked on the calling thread only and raises the flag (and sets `fired`)
// when the callback reports a cancel, so the workers stop within a few
// thousand node visits too.
struct BlockStop {
  CancelFlag* flag = nullptr;
  CancelPoller* poll = nullptr;
  bool* fired = nullptr;
  // `units`: the node visits (rows x levels) done since the last check.
  bool operator()(uint64_t units) {
    if (flag != nullptr && flag->raised()) return true;
    if (poll == nullptr) return false;
    try {
      poll->tick(units);
    } catch (const Cancelled&) {
      if (fired != nullptr) *fired = true;
      if (flag != nullptr) flag->raise();
      return true;
    }
    return false;
  }
};

// Levels of a tree walked between two stop checks: G rows x 512 levels, a
// few thousand node visits (microseconds).  Trees of at most this depth
// (every trained one) are walked without a check inside.
constexpr int kCheckLevels = 512;

// One tree over rows of x (row-major, d features), G rows walked in
// lock-step for `depth` steps of the layout's step function (a leaf steps
// to itself), each row's leaf value added to its margin a[row * K + g].
// A tree deeper than kCheckLevels checks stop (may be null) every
// kCheckLevels levels; returns false when it reported a stop (the rows'
// margins are then incomplete).
template <int G, class Idx, class Node, class Step>
bool walk_tree_lockstep(const Node* tr, int depth, int g, int K, const float* xb, size_t rows,
                        int d, float* a, Step step_fn, BlockStop* stop) {
  size_t i = 0;
  for (; i + G <= rows; i += G) {
    Idx nd[G] = {};
    const float* xr = xb + i * (size_t)d;
    for (int l0 = 0; l0 < depth; l0 += kCheckLevels) {
      const int l1 = std::min(depth, l0 + kCheckLevels);
      for (int l = l0; l < l1; ++l) {
#pragma GCC unroll 16
        for (int j = 0; j < G; ++j) nd[j] = step_fn(tr, nd[j], xr + (size_t)j * d);
      }
      if (l1 < depth && stop != nullptr && (*stop)((uint64_t)G * kCheckLevels)) return false;
    }
    for (int j = 0; j < G; ++j) a[(i + j) * K + g] += tr[nd[j]].thr;
  }
  for (; i < rows; ++i) {
    Idx nd = 0;
    const float* xr = xb + i * (size_t)d;
    for (int l0 = 0; l0 < depth; l0 += kCheckLevels) {
      const int l1 = std::min(depth, l0 + kCheckLevels);
      for (int l = l0; l < l1; ++l) nd = step_fn(tr, nd, xr);
      if (l1 < depth && stop != nullptr && (*stop)(kCheckLevels)) return false;
    }
    a[i * K + g] += tr[nd].thr;
  }
  return true;
}


std::atomic<int> g_kernel{0};  // set_predict_kernel_for_tests


// Tree t of a perfect layout as the vector kernels read it, and the rows
// they leave over (fewer than a step's) walked one by one with the same
// decisions (perf_step / perf_cat_step) and additions.
struct PerfTree {
  const PerfNode* tr;
  const uint32_t* coff;      // categorical layouts: per node its set's offset in bits
  const uint32_t* cw;        // and its words
  const float* thr_base;     // node p's threshold at [2p]
  const int* fdl_base;       // its fdl at [2p]
  int g, depth;
  int leaf_min;              // the first level with pass-through nodes
};

inline PerfTree perf_tree(const FlatForest& ff, const int32_t* tg, size_t t, bool cat) {
  const PerfNode* tr = ff.perf.data() + ff.perf_start[t];
  return PerfTree{tr,
                  cat ? ff.perf_cat_off.data() + ff.perf_start[t] : nullptr,
                  cat ? ff.perf_cat_words.data() + ff.perf_start[t] : nullptr,
                  &tr[0].thr,
                  (const int*)(const void*)&tr[0].fdl,
                  tg[t],
                  ff.depth[t],
                  ff.leaf_min[t]};
}

// Rows the vector kernels left to perf_tree_rows, summed over trees
// (scoring_rows_walked_for_tests): only a batch's last rows should be.
std::atomic<size_t> g_rows_walked{0};

// The perfect-layout trees' row walk for the rows [i, rows) a vector kernel
// leaves after its steps.
template <bool kCat>
void perf_tree_rows(const PerfTree& pt, const uint32_t* bits, int K, const float* xb, size_t i, size_t rows,
                    int d, float* a) {
  if (i < rows) g_rows_walked.fetch_add(rows - i, std::memory_order_relaxed);
  for (; i < rows; ++i) {
    uint32_t nd = 0;
    const float* xr = xb + i * (size_t)d;
    for (int l = 0; l < pt.depth; ++l)
      nd = kCat ? perf_cat_step(pt.tr, pt.coff, pt.cw, bits, nd, xr) : perf_step(pt.tr, nd, xr);
    a[i * K + pt.g] += pt.tr[nd].thr;
  }
}

// The perfect-layout trees over rows [0, rows) of xb, 16 rows per step in
// AVX-512 lanes: the same decisions as perf_step (NaN follows default_left,
// else v < threshold goes left) and the same float additions in tree order.
// kCat: a categorical model's layout (FlatForest::perf_cat_off): a lane at a
// categorical node (kCatFlag in fdl) tests its value's code in the node's
// set (in range: 0 <= v < 32 * words, the code its truncation), as CatStep
// and perf_cat_step do.  perfect_groups_avx512 takes rows [i, i + 16 V)
// through one tree, V independent 16-row groups in flight (gather latency):
// 4 while 64 rows are left, then 1 (a chunk of 32 or 48 rows, a block's
// tail; before, those rows were walked one by one: on 500-feature rows,
// chunks of 32, every row).
// GCC 12 warns about the gathers' unset pass-through operand.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <bool kCat, int V>
__attribute__((target("avx512f"), always_inline)) inline void perfect_groups_avx512(
    const PerfTree& pt, const uint32_t* bits, int K, const float* xb, size_t i, int d, float* a) {
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i rowoff = _mm512_mullo_epi32(lane, _mm512_set1_epi32(d));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i two = _mm512_set1_epi32(2);
  // The feature index bits of fdl (a categorical layout's bit 30 is kCatFlag).
  const __m512i fmask = _mm512_set1_epi32(kCat ? 0x3fffffff : 0x7fffffff);
  const __m512i b31 = _mm512_set1_epi32(31);
  const __m512i cflag = _mm512_set1_epi32((int)kCatFlag);
  const __m512 zerof = _mm512_setzero_ps();
  const __m512 f32 = _mm512_set1_ps(32.0f);
  alignas(64) float leaf[16];
  const PerfNode* tr = pt.tr;
  const uint32_t* coff = pt.coff;
  const uint32_t* cw = pt.cw;
  const float* thr_base = pt.thr_base;
  const int* fdl_base = pt.fdl_base;
  const int g = pt.g;
  const int depth = pt.depth;
  __m512i p[V];
  for (int u = 0; u < V; ++u) p[u] = zero;
  for (int l = 0; l < depth; ++l) {
    // Levels of at most 16 nodes: the level's nodes (consecutive in the
    // perfect layout, thr and fdl interleaved) in two registers, picked
    // by permutation; deeper levels: gathers.
    const int lbase = (1 << l) - 1;
    const bool small = l <= 4, mid = !kCat && l == 5;
    __m512i na = zero, nb = zero, nc = zero, nd = zero;
    if (small || mid) {
      na = _mm512_loadu_si512((const void*)(tr + lbase));
      nb = _mm512_loadu_si512((const void*)(tr + lbase + 8));
    }
    if (mid) {
      nc = _mm512_loadu_si512((const void*)(tr + lbase + 16));
      nd = _mm512_loadu_si512((const void*)(tr + lbase + 24));
    }
    const __m512i lb2 = _mm512_set1_epi32(2 * lbase);
#pragma GCC unroll 4
    for (int u = 0; u < V; ++u) {
      const float* xr = xb + (i + 16 * u) * (size_t)d;
      const __m512i idx2 = _mm512_slli_epi32(p[u], 1);
      __m512 thr;
      __m512i fdl;
      if (small) {
        const __m512i q2 = _mm512_sub_epi32(idx2, lb2);
        thr = _mm512_castsi512_ps(_mm512_permutex2var_epi32(na, q2, nb));
        fdl = _mm512_permutex2var_epi32(na, _mm512_add_epi32(q2, one), nb);
      } else if (mid) {
        // 32 nodes in four registers: the low 5 index bits pick within a
        // pair, q2 >= 32 picks the pair.
        const __m512i q2 = _mm512_sub_epi32(idx2, lb2);
        const __m512i q21 = _mm512_add_epi32(q2, one);
        const __mmask16 hi = _mm512_cmpge_epi32_mask(q2, _mm512_set1_epi32(32));
        thr = _mm512_castsi512_ps(_mm512_mask_blend_epi32(
            hi, _mm512_permutex2var_epi32(na, q2, nb), _mm512_permutex2var_epi32(nc, q2, nd)));
        fdl = _mm512_mask_blend_epi32(hi, _mm512_permutex2var_epi32(na, q21, nb),
                                      _mm512_permutex2var_epi32(nc, q21, nd));
      } else {
        thr = _mm512_i32gather_ps(idx2, thr_base, 4);
        fdl = _mm512_i32gather_epi32(idx2, fdl_base, 4);
      }
      const __m512i xi = _mm512_add_epi32(rowoff, _mm512_and_si512(fdl, fmask));
      const __m512 v = _mm512_i32gather_ps(xi, xr, 4);
      const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
      const __mmask16 lt = _mm512_cmp_ps_mask(v, thr, _CMP_LT_OQ);
      const __mmask16 dl = _mm512_cmplt_epi32_mask(fdl, zero);
      __mmask16 left_val = lt;
      if (kCat) {
        const __mmask16 cat = _mm512_test_epi32_mask(fdl, cflag);
        if (cat != 0) {
          const __m512i w = _mm512_mask_i32gather_epi32(zero, cat, p[u], (const int*)cw, 4);
          const __m512 lim = _mm512_mul_ps(f32, _mm512_cvtepu32_ps(w));
          const __mmask16 inr = (__mmask16)(cat & _mm512_cmp_ps_mask(v, zerof, _CMP_GE_OQ) &
                                            _mm512_cmp_ps_mask(v, lim, _CMP_LT_OQ));
          const __m512i c = _mm512_maskz_cvttps_epu32(inr, v);
          const __m512i o = _mm512_mask_i32gather_epi32(zero, inr, p[u], (const int*)coff, 4);
          const __m512i wi = _mm512_add_epi32(o, _mm512_srli_epi32(c, 5));
          const __m512i word = _mm512_mask_i32gather_epi32(zero, inr, wi, (const int*)bits, 4);
          const __m512i bit =
              _mm512_and_si512(_mm512_srlv_epi32(word, _mm512_and_si512(c, b31)), one);
          const __mmask16 in_set = (__mmask16)(inr & _mm512_test_epi32_mask(bit, bit));
          left_val = (__mmask16)((cat & ~in_set) | (~cat & lt));
        }
      }
      const __mmask16 left = (__mmask16)((nan & dl) | (~nan & left_val));
      // left: 2p + 1, right: 2p + 2
      const __m512i r = _mm512_add_epi32(idx2, two);
      p[u] = _mm512_mask_sub_epi32(r, left, r, one);
    }
  }
  for (int u = 0; u < V; ++u) {
    const size_t i0 = i + 16 * u;
    const __m512 lv = _mm512_i32gather_ps(_mm512_slli_epi32(p[u], 1), thr_base, 4);
    if (K == 1) {
      _mm512_storeu_ps(a + i0, _mm512_add_ps(_mm512_loadu_ps(a + i0), lv));
    } else {
      _mm512_store_ps(leaf, lv);
      for (int j = 0; j < 16; ++j) a[(i0 + j) * K + g] += leaf[j];
    }
  }
}

template <bool kCat>
__attribute__((target("avx512f"))) void perfect_trees_avx512(const FlatForest& ff,
                                                             const int32_t* tg, int K,
                                                             const float* xb, size_t rows, int d,
                                                             float* a, BlockStop* stop) {
  const size_t ntrees = ff.perf_start.size();
  const uint32_t* bits = ff.cat_bits.data();
  for (size_t t = 0; t < ntrees; ++t) {
    if (stop != nullptr && (*stop)(rows * (uint64_t)(ff.depth[t] + 1))) return;
    const PerfTree pt = perf_tree(ff, tg, t, kCat);
    size_t i = 0;
    for (; i + 64 <= rows; i += 64) perfect_groups_avx512<kCat, 4>(pt, bits, K, xb, i, d, a);
    for (; i + 16 <= rows; i += 16) perfect_groups_avx512<kCat, 1>(pt, bits, K, xb, i, d, a);
    perf_tree_rows<kCat>(pt, bits, K, xb, i, rows, d, a);
  }
}

#pragma GCC diagnostic pop

// perfect_trees_avx512 for CPUs with AVX2 but not AVX-512 (AMD Zen 2,
// client Intel): 8 rows per step, the same decisions and the same float
// additions in tree order.  Levels of at most 8 nodes are picked from
// registers by permutation; deeper levels and the feature values are
// gathered.  kCat: a categorical model's layout, as perfect_trees_avx512.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <bool kCat>
__attribute__((target("avx2"))) void perfect_trees_avx2(const FlatForest& ff, const int32_t* tg, int K,
                                                        const float* xb, size_t rows, int d, float* a,
                                                        BlockStop* stop) {
  const size_t ntrees = ff.perf_start.size();
  // The head features (FlatForest::head_feat) of the rows as columns: a
  // row group at node 0, 1 or 2 loads its values (no gather).
  const size_t nh = rows >= 32 ? ff.head_feat.size() : 0;
  std::vector<float> head(nh * rows);
  for (size_t h = 0; h < nh; ++h) {
    const float* src = xb + ff.head_feat[h];
    float* col = head.data() + h * rows;
    for (size_t r = 0; r < rows; ++r) col[r] = src[r * (size_t)d];
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i rowoff = _mm256_mullo_epi32(lane, _mm256_set1_epi32(d));
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i two = _mm256_set1_epi32(2);
  const __m256i seven = _mm256_set1_epi32(7);
  const __m256i fmask = _mm256_set1_epi32(kCat ? 0x3fffffff : 0x7fffffff);
  const __m256i b31 = _mm256_set1_epi32(31);
  const __m256i cflag = _mm256_set1_epi32((int)kCatFlag);
  const __m256 zerof = _mm256_setzero_ps();
  const __m256 f32 = _mm256_set1_ps(32.0f);
  const uint32_t* bits = ff.cat_bits.data();
  alignas(32) float leaf[8];
  for (size_t t = 0; t < ntrees; ++t) {
    if (stop != nullptr && (*stop)(rows * (uint64_t)(ff.depth[t] + 1))) return;
    const PerfTree pt = perf_tree(ff, tg, t, kCat);
    const PerfNode* tr = pt.tr;
    const uint32_t* coff = pt.coff;
    const uint32_t* cw = pt.cw;
    const float* thr_base = pt.thr_base;
    const int* fdl_base = pt.fdl_base;
    const int g = pt.g;
    const int depth = pt.depth;
    const int leaf_min = pt.leaf_min;
    const int16_t* hs = nh > 0 ? &ff.head_slot[t * 3] : nullptr;
    const float* h0 = hs != nullptr && hs[0] >= 0 ? head.data() + hs[0] * rows : nullptr;
    const float* h1 = hs != nullptr && hs[1] >= 0 && hs[2] >= 0 ? head.data() + hs[1] * rows : nullptr;
    const float* h2 = h1 != nullptr ? head.data() + hs[2] * rows : nullptr;
    size_t i = 0;
    constexpr int V = 4;  // independent 8-row groups in flight
    for (; i + 8 * V <= rows; i += 8 * V) {
      __m256i p[V];
      for (int u = 0; u < V; ++u) p[u] = zero;
      unsigned done = 0;  // groups whose rows are all at pass-through nodes
      for (int l = 0; l < depth && done != (1u << V) - 1; ++l) {
        // Up to 8 nodes (thr and fdl interleaved) in two registers.
        const int lbase = (1 << l) - 1;
        const bool small = l <= 3;
        __m256i na = zero, nb = zero;
        if (small) {
          na = _mm256_loadu_si256((const __m256i*)(const void*)(tr + lbase));
          nb = _mm256_loadu_si256((const __m256i*)(const void*)(tr + lbase + 4));
        }
        const __m256i lb2 = _mm256_set1_epi32(2 * lbase);
#pragma GCC unroll 4
        for (int u = 0; u < V; ++u) {
          if (done & (1u << u)) continue;
          const float* xr = xb + (i + 8 * u) * (size_t)d;
          const __m256i idx2 = _mm256_slli_epi32(p[u], 1);
          __m256 thr;
          __m256i fdl;
          if (small) {
            // q2 in [0, 16), even: its low 3 bits pick within a register
            // (permutevar8x32 reads only those), bit 3 the register; q2 + 1
            // (the fdl) is in the same register.
            const __m256i q2 = _mm256_sub_epi32(idx2, lb2);
            const __m256i hi = _mm256_cmpgt_epi32(q2, seven);
            const __m256i q21 = _mm256_add_epi32(q2, one);
            thr = _mm256_castsi256_ps(_mm256_blendv_epi8(_mm256_permutevar8x32_epi32(na, q2),
                                                         _mm256_permutevar8x32_epi32(nb, q2), hi));
            fdl = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(na, q21), _mm256_permutevar8x32_epi32(nb, q21),
                                     hi);
          } else {
            thr = _mm256_i32gather_ps(thr_base, idx2, 4);
            fdl = _mm256_i32gather_epi32(fdl_base, idx2, 4);
          }
          if (l >= leaf_min && _mm256_movemask_ps(_mm256_cmp_ps(thr, thr, _CMP_UNORD_Q)) == 0xff) {
            // Every row at a pass-through node: right to the last level.
            p[u] = _mm256_sub_epi32(_mm256_slli_epi32(_mm256_add_epi32(p[u], two), depth - l), two);
            done |= 1u << u;
            continue;
          }
          __m256 v;
          if (l == 0 && h0 != nullptr) {
            v = _mm256_loadu_ps(h0 + i + 8 * u);
          } else if (l == 1 && h1 != nullptr) {
            v = _mm256_blendv_ps(_mm256_loadu_ps(h1 + i + 8 * u), _mm256_loadu_ps(h2 + i + 8 * u),
                                 _mm256_castsi256_ps(_mm256_cmpeq_epi32(p[u], two)));
          } else {
            const __m256i xi = _mm256_add_epi32(rowoff, _mm256_and_si256(fdl, fmask));
            v = _mm256_i32gather_ps(xr, xi, 4);
          }
          const __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
          __m256 left_val = _mm256_cmp_ps(v, thr, _CMP_LT_OQ);
          if (kCat) {
            const __m256i cat = _mm256_cmpeq_epi32(_mm256_and_si256(fdl, cflag), cflag);
            if (!_mm256_testz_si256(cat, cat)) {
              const __m256i w = _mm256_mask_i32gather_epi32(zero, (const int*)cw, p[u], cat, 4);
              const __m256 lim = _mm256_mul_ps(f32, _mm256_cvtepi32_ps(w));  // words < 2^24
              const __m256i inr = _mm256_and_si256(
                  cat, _mm256_castps_si256(_mm256_and_ps(_mm256_cmp_ps(v, zerof, _CMP_GE_OQ),
                                                         _mm256_cmp_ps(v, lim, _CMP_LT_OQ))));
              const __m256i c = _mm256_and_si256(inr, _mm256_cvttps_epi32(v));
              const __m256i o = _mm256_mask_i32gather_epi32(zero, (const int*)coff, p[u], inr, 4);
              const __m256i wi = _mm256_add_epi32(o, _mm256_srli_epi32(c, 5));
              const __m256i word = _mm256_mask_i32gather_epi32(zero, (const int*)bits, wi, inr, 4);
              const __m256i bit = _mm256_and_si256(_mm256_srlv_epi32(word, _mm256_and_si256(c, b31)), one);
              const __m256i in_set = _mm256_and_si256(inr, _mm256_cmpeq_epi32(bit, one));
              // categorical lanes: left when the code is not in the set
              left_val = _mm256_blendv_ps(left_val, _mm256_castsi256_ps(_mm256_andnot_si256(in_set, cat)),
                                          _mm256_castsi256_ps(cat));
            }
          }
          // Missing: the sign bit of fdl (default left) decides, else left_val.
          const __m256 left =
              _mm256_blendv_ps(left_val, _mm256_castsi256_ps(_mm256_srai_epi32(fdl, 31)), nan);
          // left: 2p + 1, right: 2p + 2
          p[u] = _mm256_add_epi32(_mm256_add_epi32(idx2, two), _mm256_castps_si256(left));
        }
      }
      for (int u = 0; u < V; ++u) {
        const size_t i0 = i + 8 * u;
        const __m256 lv = _mm256_i32gather_ps(thr_base, _mm256_slli_epi32(p[u], 1), 4);
        if (K == 1) {
          _mm256_storeu_ps(a + i0, _mm256_add_ps(_mm256_loadu_ps(a + i0), lv));
        } else {
          _mm256_store_ps(leaf, lv);
          for (int j = 0; j < 8; ++j) a[(i0 + j) * K + g] += leaf[j];
        }
      }
    }
    perf_tree_rows<kCat>(pt, bits, K, xb, i, rows, d, a);
  }
}
#pragma GCC diagnostic pop

// Whether kernel `kern` scores perfect-layout trees with AVX-512 (score_chunk)
// and so steps 64 rows at a time (score_block's chunks).
inline bool avx512_kernel(int kern) { return kern == 0 && cpu_has_avx512f(); }

// Adds the trees' outputs for rows [0, rows) of xb (row-major, d features)
// into a (rows x K margins), kernel `kern` (set_predict_kernel_for_tests).
// Returns false when stop reported a stop between trees.
bool score_chunk(const Model& m, const FlatForest& ff, int kern, const float* xb, size_t rows,
                 float* a, BlockStop* stop) {
  const int K = m.num_output_group;
  const int d = m.n_features();
  const size_t ntrees = ff.start.size();
  const FlatNode* fn = ff.nodes.data();
  const int32_t* tg = m.tree_group.data();
  if (ff.categorical && ff.perfect && avx512_kernel(kern)) {
    // Categorical splits, shallow trees: 16 rows per step in AVX-512 lanes.
    perfect_trees_avx512<true>(ff, tg, K, xb, rows, d, a, stop);
  } else if (ff.categorical && ff.perfect && (kern == 0 || kern == 3) && cpu_has_avx2()) {
    // The same in AVX2 lanes, 8 rows per step.
    perfect_trees_avx2<true>(ff, tg, K, xb, rows, d, a, stop);
  } else if (ff.categorical) {
    // Categorical splits: row by row with each tree's own walk, trees in
    // order (the float additions of predict_margin_row).
    const CatStep cs{ff.cat_bits.data()};
    const CatFlatNode* cn = ff.cat.data();
    for (size_t t = 0; t < ntrees; ++t) {
      if (stop != nullptr && (*stop)(rows * (uint64_t)(ff.depth[t] + 1))) return false;
      if (!walk_tree_lockstep<8, int32_t>(cn + ff.start[t], ff.depth[t], tg[t], K, xb, rows, d, a,
                                          cs, stop))
        return false;
    }
  }
  const bool perfect = ff.perfect && kern != 2 && !ff.categorical;
  const bool simd512 = perfect && avx512_kernel(kern);
  const bool simd = simd512 || (perfect && (kern == 0 || kern == 3) && cpu_has_avx2());
  if (simd512)
    perfect_trees_avx512<false>(ff, tg, K, xb, rows, d, a, stop);
  else if (simd)
    perfect_trees_avx2<false>(ff, tg, K, xb, rows, d, a, stop);
  const bool flat = !perfect && !ff.categorical;
  for (size_t t = 0; !simd && perfect && t < ntrees; ++t) {
    if (stop != nullptr && (*stop)(rows * (uint64_t)(ff.depth[t] + 1))) return false;
    walk_tree_lockstep<16, uint32_t>(ff.perf.data() + ff.perf_start[t], ff.depth[t], tg[t], K, xb,
                                     rows, d, a, perf_step, nullptr);  // at most 10 levels
  }
  for (size_t t = 0; flat && t < ntrees; ++t) {
    if (stop != nullptr && (*stop)(rows * (uint64_t)(ff.depth[t] + 1))) return false;
    if (!walk_tree_lockstep<8, int32_t>(fn + ff.start[t], ff.depth[t], tg[t], K, xb, rows, d, a,
                                        step, stop))
      return false;
  }
  return true;
}

// L1 data cache bytes a chunk of rows is sized to (score_block).
constexpr size_t kChunkBytes = 32 * 1024;

// Rows per chunk for rows of d features: a multiple of `group` rows (the
// rows a kernel's step takes: the AVX2 kernel's 4 groups of 8, the AVX-512
// kernel's 4 groups of 16), at least one group.
inline size_t chunk_rows(int d, size_t group) {
  const size_t r = kChunkBytes / (sizeof(float) * (size_t)std::max(d, 1));
  return std::max(group, r / group * group);
}

// Scores rows [0, rows) of xb (row-major, d features) into out (rows x K,
// transformed).  Tree-major over each chunk of the block: each tree's nodes
// stay in cache, and so do the chunk's rows.
// Returns false (out incomplete) when stop reported a stop between trees.
bool score_block(const Model& m, const FlatForest& ff, const float* xb, size_t rows, double* out,
                 BlockStop* stop) {
  constexpr size_t kMaxRows = 256;
  const int K = m.num_output_group;
  const int d = m.n_features();
  float acc[kMaxRows * 8];
  std::vector<float> big;
  float* a = acc;
  if (K > 8 || rows > kMaxRows) {
    big.resize(rows * K);
    a = big.data();
  }
  for (size_t i = 0; i < rows; ++i)
    for (int k = 0; k < K; ++k) a[i * K + k] = (float)m.base_margin[k];
  const int kern = g_kernel.load(std::memory_order_relaxed);
  std::vector<float> coded;  // the block with unseen categories missing
  if (!ff.codes.empty()) {
    coded.assign(xb, xb + rows * (size_t)d);
    ff.codes.mark_missing(coded.data(), rows, (size_t)d);
    xb = coded.data();
  }
  // The block in chunks of rows that fit in a core's L1 cache (kChunkBytes,
  // at least one step of the kernel: 32 rows, 64 with AVX-512): the kernels
  // go tree by tree over their rows, so on wide rows (500 features: 2 kB
  // each) a whole block's rows would be read back from L2 or L3 by every
  // tree.  Each row adds its trees in the same order whatever the chunks:
  // the same floats.
  const size_t R = chunk_rows(d, avx512_kernel(kern) ? 64 : 32);
  for (size_t c = 0; c < rows; c += R) {
    const size_t n = std::min(R, rows - c);
    const float* xc = xb + c * (size_t)d;
    float* ac = a + c * (size_t)K;
    if (!score_chunk(m, ff, kern, xc, n, ac, stop)) return false;
  }
  if (stop != nullptr && stop->flag != nullptr && stop->flag->raised())
    return false;
  for (size_t i = 0; i < rows; ++i) {
    double* o = out + i * K;
    for (int k = 0; k < K; ++k) o[k] = a[i * K + k];
    transform_margins(m, o);
  }
  return true;
}

constexpr size_t kBlock = 256;

}  // namespace

void set_predict_kernel_for_tests(int kernel) { g_kernel.store(kernel); }

size_t scoring_rows_walked_for_tests() { return g_rows_walked.load(); }

namespace {
// The raw-row decoder that goes with the kernel: the widest with kernel 0,
// AVX2 with kernel 3, scalar otherwise.
RawDecode raw_decoder() {
  const int k = g_kernel.load(std::memory_order_relaxed);
  return k == 0 ? RawDecode::kBest : k == 3 ? RawDecode::kAvx2 : RawDecode::kScalar;
}
}  // namespace

struct PreparedForest {
  FlatForest ff;
};

std::shared_ptr<const PreparedForest> prepare_forest(const Model& m) {
  auto p = std::make_shared<PreparedForest>();
  flatten(m, m.trees.size(), &p->ff);
  return p;
}

size_t prepared_forest_bytes(const PreparedForest& p) {
  const FlatForest& f = p.ff;
  return sizeof(PreparedForest) + f.nodes.capacity() * sizeof(FlatNode) +
         (f.start.capacity() + f.perf_start.capacity() + f.cat_bits.capacity() +
          f.perf_cat_off.capacity() + f.perf_cat_words.capacity()) * sizeof(uint32_t) +
         f.depth.capacity() * sizeof(int32_t) + f.perf.capacity() * sizeof(PerfNode) +
         f.cat.capacity() * sizeof(CatFlatNode);
}

// One row over the perfect layout: 16 trees stepped in lock-step (the next
// node computed, not loaded; no branches), each tree its own depth, leaf
// values added in tree order as predict_margin_row adds them (same bits).
void predict_margin_row(const Model& m, const PreparedForest& pf, const float* x, double* out,
                        const CancelFn& cancel) {
  const FlatForest& ff = pf.ff;
  if (!ff.perfect || ff.categorical || g_kernel.load(std::memory_order_relaxed) == 2) {
    predict_margin_row(m, x, out, 0, cancel);
    return;
  }
  const int K = m.num_output_group;
  SmallArray<float, 64> acc((size_t)K);
  float* a = acc.p;
  for (int k = 0; k < K; ++k) a[k] = (float)m.base_margin[k];
  const size_t ntrees = ff.perf_start.size();
  const int32_t* tg = m.tree_group.data();
  const PerfNode* perf = ff.perf.data();
  constexpr size_t G = 16;
  for (size_t i0 = 0; i0 < ntrees; i0 += G) {
    if (i0 != 0 && (i0 & 4095) == 0) check_cancel(cancel);
    const size_t cnt = std::min(G, ntrees - i0);
    const PerfNode* tr[G];
    int dep[G];
    uint32_t nd[G];
    int dmax = 0;
    for (size_t j = 0; j < cnt; ++j) {
      tr[j] = perf + ff.perf_start[i0 + j];
      dep[j] = ff.depth[i0 + j];
      nd[j] = 0;
      dmax = std::max(dmax, dep[j]);
    }
    for (int l = 0; l < dmax; ++l)
      for (size_t j = 0; j < cnt; ++j) {
        const uint32_t next = perf_step(tr[j], nd[j], x);
        nd[j] = l < dep[j] ? next : nd[j];
      }
    for (size_t j = 0; j < cnt; ++j) a[tg[i0 + j]] += tr[j][nd[j]].thr;
  }
  for (int k = 0; k < K; ++k) out[k] = a[k];
}

double predict_value_row(const Model& m, const PreparedForest& pf, const float* x,
                         const CancelFn& cancel) {
  SmallArray<double, 16> margins((size_t)m.num_output_group);
  double* v = margins.p;
  predict_margin_row(m, pf, x, v, cancel);
  return scalar_answer(m, v);
}

// The batch in flight is cut into blocks of kBlock rows, the tasks of one
// job of the engine's thread pool (thread_pool.h): start() hands them to the
// workers and returns, so the caller can read the next rows meanwhile;
// finish() scores the blocks left on the calling thread, which alone polls
// the caller's cancel callback, and waits for the workers' last ones.
struct BatchPredictor::Impl {
  const Model& m;
  std::shared_ptr<const PreparedForest> prepared;  // shared with other predictors of m
  const FlatForest& ff;
  int nthread;
  // The batch in flight.
  bool in_flight = false;
  float* x = nullptr;
  size_t n = 0;
  double* out = nullptr;
  RawRows raw;
  RawShape shape;
  bool has_raw = false;
  size_t nblocks = 0;
  CancelFlag cancel;                // skip the blocks not yet taken, stop those being scored
  // Calling thread only.
  CancelFn poll;                    // the caller's cancel callback (may be empty)
  CancelPoller* caller_poller = nullptr;  // finish()'s poller of `poll`
  bool poll_fired = false;          // poll reported a cancel for the batch in flight
  bool stopped = false;             // the pool was stopped with a batch in flight
  std::function<void(size_t, int)> score_task;  // one block: (block, thread)
  // Last, so it is destroyed first: its stop hook reads the members above.
  std::unique_ptr<ThreadPool> pool;

  Impl(const Model& model, int nt, std::shared_ptr<const PreparedForest> forest)
      : m(model),
        prepared(forest != nullptr ? std::move(forest) : prepare_forest(model)),
        ff(prepared->ff),
        nthread(nt < 1 ? 1 : nt) {
    score_task = [this](size_t b, int tid) { score_one(b, tid == 0); };
  }
  ~Impl() { pool.reset(); }

  void start_workers() {
    try {
      pool.reset(new ThreadPool(nthread));
      // The backend is going away (stop_all_worker_groups: the owner is not
      // inside a method of the predictor): blocks being scored stop at their
      // next check (BlockStop), and the owner hears Cancelled.
      pool->set_stop_hook([this] {
        cancel.raise();
        nthread = 1;
        if (in_flight) stopped = true;
      });
    } catch (...) {
      pool.reset();
      nthread = 1;  // score on the calling thread only
    }
  }

  // Scores block b of the batch in flight, unless the batch was stopped.
  // On the calling thread (caller), BlockStop also ticks finish()'s poller.
  void score_one(size_t b, bool caller) {
    if (cancel.raised()) return;
    BlockStop st;
    st.flag = &cancel;
    if (caller && caller_poller != nullptr) {
      st.poll = caller_poller;
      st.fired = &poll_fired;
    }
    const int d = m.n_features();
    const size_t begin = b * kBlock, end = std::min(n, begin + kBlock);
    try {
      if (has_raw) decode_raw_rows(raw, shape, d, begin, end, x, raw_decoder());
      score_block(m, ff, x + begin * (size_t)d, end - begin,
                  out + begin * (size_t)m.num_output_group, &st);
    } catch (...) {
      cancel.raise();  // the other blocks stop; the pool rethrows this one
      throw;
    }
  }

  // Runs the batch's blocks left (all of them without workers) and waits
  // for the workers' blocks; with use_poll, polls the caller's callback
  // while it scores and every 10 ms while it waits.
  void run_rest(bool use_poll) {
    CancelPoller poller(poll);
    caller_poller = use_poll && poll ? &poller : nullptr;
    auto waiting = [&] {
      if (caller_poller == nullptr || cancel.raised()) return;
      if (poll()) {
        poll_fired = true;
        cancel.raise();
      }
    };
    try {
      if (pool != nullptr) {
        pool->finish(waiting);
      } else {
        for (size_t b = 0; b < nblocks; ++b) score_task(b, 0);
      }
    } catch (...) {
      caller_poller = nullptr;
      in_flight = false;
      throw;
    }
    caller_poller = nullptr;
    in_flight = false;
  }
};

BatchPredictor::BatchPredictor(const Model& m, int nthread) : impl_(new Impl(m, nthread, nullptr)) {}

BatchPredictor::BatchPredictor(const Model& m, int nthread,
                               std::shared_ptr<const PreparedForest> forest)
    : impl_(new Impl(m, nthread, std::move(forest))) {}

BatchPredictor::~BatchPredictor() { abandon(); }

int BatchPredictor::K() const { return impl_->m.num_output_group; }

void BatchPredictor::set_cancel(CancelFn fn) { impl_->poll = std::move(fn); }

void BatchPredictor::prestart() {
  Impl& s = *impl_;
  if (s.nthread > 1 && s.pool == nullptr) s.start_workers();
}

void BatchPredictor::start(float* x, size_t n, double* out, const RawRows* raw) {
  Impl& s = *impl_;
  if (s.in_flight) finish();
  if (s.nthread > 1 && n > kBlock && s.pool == nullptr) s.start_workers();
  s.has_raw = raw != nullptr && raw->pending != nullptr;
  if (s.has_raw) {
    s.shape = raw_shape(*raw, s.m.n_features());
    s.raw = *raw;
  }
  s.x = x;
  s.n = n;
  s.out = out;
  s.nblocks = (n + kBlock - 1) / kBlock;
  s.cancel.clear();
  s.poll_fired = false;
  s.stopped = false;
  s.in_flight = true;
  // With workers, they start on the blocks now; without, finish() scores.
  if (s.pool != nullptr) s.pool->start(s.nblocks, s.score_task);
}

void BatchPredictor::finish() {
  Impl& s = *impl_;
  if (!s.in_flight) return;
  s.run_rest(true);  // rethrows a block's exception
  if (s.poll_fired || s.stopped) {
    s.poll_fired = s.stopped = false;
    throw Cancelled();
  }
}

void BatchPredictor::abandon() noexcept {
  Impl& s = *impl_;
  if (!s.in_flight) return;
  s.cancel.raise();  // the blocks left are skipped
  try {
    s.run_rest(false);
  } catch (...) {
  }
  s.poll_fired = s.stopped = false;
}
void predict_batch(const Model& m, const float* x, size_t n, double* out, int nthread) {
  predict_batch(m, x, n, out, nthread, CancelFn());
}

void predict_batch(const Model& m, const float* x, size_t n, double* out, int nthread,
                   const CancelFn& cancel) {
  BatchPredictor p(m, nthread);
  if (cancel) p.set_cancel(cancel);
  p.start(const_cast<float*>(x), n, out, nullptr);
  p.finish();
}

}  // namespace gbdt
