// Scoring with the trees' float thresholds: value < threshold goes left,
// missing (NaN) follows the node's default direction.  Margins accumulate in
// float, tree by tree, exactly as training does.
#include <algorithm>
#include <cmath>
#include <vector>

#include "model.h"
#include "thread_pool.h"

namespace gbdt {

void predict_margin_row(const Model& m, const float* x, double* out, int rounds) {
  const int K = m.num_output_group;
  size_t ntrees = m.trees.size();
  if (rounds > 0) ntrees = std::min(ntrees, (size_t)rounds * K);
  float acc[64];
  std::vector<float> big;
  float* a = acc;
  if (K > 64) {
    big.resize(K);
    a = big.data();
  }
  for (int k = 0; k < K; ++k) a[k] = (float)m.base_margin[k];
  // Eight trees walked in lock-step (independent load chains the CPU
  // overlaps; a leaf stays put), then added in tree order as before.
  constexpr size_t G = 8;
  for (size_t i0 = 0; i0 < ntrees; i0 += G) {
    const size_t cnt = std::min(G, ntrees - i0);
    int32_t nd[G] = {};
    const Tree* const tr = m.trees.data() + i0;
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
        const unsigned go_left = ((nan & (t.default_left[n] != 0)) | (~nan & (v < t.threshold[n]))) & 1u;
        const int32_t c[3] = {t.right[n], l, n};
        nd[j] = c[inner ? go_left : 2u];
        active |= inner;
      }
      if (!active) break;
    }
    for (size_t j = 0; j < cnt; ++j) a[m.tree_group[i0 + j]] += tr[j].value[nd[j]];
  }
  for (int k = 0; k < K; ++k) out[k] = a[k];
}

void transform_margins(const Model& m, double* v) {
  switch (m.objective) {
    case Objective::kLogistic:
      v[0] = 1.0 / (1.0 + std::exp(-v[0]));
      break;
    case Objective::kPoisson:
      v[0] = std::exp(v[0]);
      break;
    case Objective::kSoftprob: {
      const int K = m.num_output_group;
      double mx = v[0];
      for (int k = 1; k < K; ++k) mx = std::max(mx, v[k]);
      double s = 0;
      for (int k = 0; k < K; ++k) {
        v[k] = std::exp(v[k] - mx);
        s += v[k];
      }
      for (int k = 0; k < K; ++k) v[k] /= s;
      break;
    }
    case Objective::kSquaredError:
      break;
  }
}

namespace {
double scalar_answer(const Model& m, double* v) {
  transform_margins(m, v);
  if (m.objective != Objective::kSoftprob) return v[0];
  int best = 0;
  for (int k = 1; k < m.num_output_group; ++k)
    if (v[k] > v[best]) best = k;
  return best < (int)m.class_labels.size() ? m.class_labels[best] : best;
}
}  // namespace

double predict_value_row(const Model& m, const float* x) {
  double small[16];
  std::vector<double> big;
  double* v = small;
  if (m.num_output_group > 16) {
    big.resize((size_t)m.num_output_group);
    v = big.data();
  }
  predict_margin_row(m, x, v);
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

struct FlatForest {
  std::vector<FlatNode> nodes;
  std::vector<uint32_t> start;  // first node of each tree
  std::vector<int32_t> depth;   // max depth of each tree (0: a single leaf)
};

void flatten(const Model& m, size_t ntrees, FlatForest* ff) {
  size_t total = 0;
  for (size_t t = 0; t < ntrees; ++t) total += m.trees[t].left.size();
  ff->nodes.resize(total);
  ff->start.resize(ntrees);
  ff->depth.assign(ntrees, 0);
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
    int32_t dmax = 0;
    stack.clear();
    if (tr.num_nodes() > 0) stack.emplace_back(0, 0);
    while (!stack.empty()) {
      auto [nd, dp] = stack.back();
      stack.pop_back();
      if (tr.left[nd] < 0) {
        dmax = std::max(dmax, dp);
      } else {
        stack.emplace_back(tr.left[nd], dp + 1);
        stack.emplace_back(tr.right[nd], dp + 1);
      }
    }
    ff->depth[t] = dmax;
    o += tr.left.size();
  }
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

}  // namespace

void predict_batch(const Model& m, const float* x, size_t n, double* out, int nthread) {
  const int K = m.num_output_group;
  const int d = m.n_features();
  const size_t ntrees = m.trees.size();
  FlatForest ff;
  flatten(m, ntrees, &ff);
  const FlatNode* fn = ff.nodes.data();
  const int32_t* tg = m.tree_group.data();
  const size_t block = 256;
  size_t nblocks = (n + block - 1) / block;
  auto work = [&](size_t b) {
    size_t begin = b * block, end = std::min(n, begin + block);
    const size_t rows = end - begin;
    float acc[block * 8];
    std::vector<float> big;
    float* a = acc;
    if (K > 8) {
      big.resize(rows * K);
      a = big.data();
    }
    for (size_t i = 0; i < rows; ++i)
      for (int k = 0; k < K; ++k) a[i * K + k] = (float)m.base_margin[k];
    const float* xb = x + begin * (size_t)d;
    // Tree-major over a block of rows: each tree's nodes stay in cache.
    for (size_t t = 0; t < ntrees; ++t) {
      const FlatNode* tr = fn + ff.start[t];
      const int g = tg[t];
      const int depth = ff.depth[t];
      size_t i = 0;
      constexpr int G = 8;
      for (; i + G <= rows; i += G) {
        int32_t nd[G] = {};
        const float* xr = xb + i * (size_t)d;
        for (int l = 0; l < depth; ++l) {
#pragma GCC unroll 8
          for (int j = 0; j < G; ++j) nd[j] = step(tr, nd[j], xr + (size_t)j * d);
        }
        for (int j = 0; j < G; ++j) a[(i + j) * K + g] += tr[nd[j]].thr;
      }
      for (; i < rows; ++i) {
        int32_t nd = 0;
        const float* xr = xb + i * (size_t)d;
        for (int l = 0; l < depth; ++l) nd = step(tr, nd, xr);
        a[i * K + g] += tr[nd].thr;
      }
    }
    for (size_t i = 0; i < rows; ++i) {
      double* o = out + (begin + i) * K;
      for (int k = 0; k < K; ++k) o[k] = a[i * K + k];
      transform_margins(m, o);
    }
  };
  if (nthread <= 1 || nblocks <= 1) {
    for (size_t b = 0; b < nblocks; ++b) work(b);
    return;
  }
  ThreadPool pool(std::min<int>(nthread, (int)nblocks));
  pool.run(nblocks, [&](size_t b, int) { work(b); });
}

}  // namespace gbdt
