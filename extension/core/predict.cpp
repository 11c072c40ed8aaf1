// Scoring with the trees' float thresholds: value < threshold goes left,
// missing (NaN) follows the node's default direction.  Margins accumulate in
// float, tree by tree, exactly as training does.
#include <algorithm>
#include <cmath>
#include <vector>

#include "model.h"
#include "thread_pool.h"

namespace gbdt {

namespace {

inline int32_t leaf_of(const Tree& t, const float* x) {
  int32_t nd = 0;
  while (t.left[nd] >= 0) {
    float v = x[t.feature[nd]];
    bool left = v != v ? t.default_left[nd] != 0 : v < t.threshold[nd];
    nd = left ? t.left[nd] : t.right[nd];
  }
  return nd;
}

}  // namespace

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
  for (size_t i = 0; i < ntrees; ++i) {
    const Tree& t = m.trees[i];
    a[m.tree_group[i]] += t.value[leaf_of(t, x)];
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
  std::vector<double> v((size_t)m.num_output_group);
  predict_margin_row(m, x, v.data());
  return scalar_answer(m, v.data());
}

void predict_batch(const Model& m, const float* x, size_t n, double* out, int nthread) {
  const int K = m.num_output_group;
  const int d = m.n_features();
  const size_t block = 256;
  size_t nblocks = (n + block - 1) / block;
  auto work = [&](size_t b) {
    size_t begin = b * block, end = std::min(n, begin + block);
    std::vector<float> acc((end - begin) * K);
    for (size_t i = begin; i < end; ++i)
      for (int k = 0; k < K; ++k) acc[(i - begin) * K + k] = (float)m.base_margin[k];
    // Tree-major over a block of rows: each tree's nodes stay in cache.
    for (size_t t = 0; t < m.trees.size(); ++t) {
      const Tree& tr = m.trees[t];
      int g = m.tree_group[t];
      for (size_t i = begin; i < end; ++i) acc[(i - begin) * K + g] += tr.value[leaf_of(tr, x + i * d)];
    }
    for (size_t i = begin; i < end; ++i) {
      double* o = out + i * K;
      for (int k = 0; k < K; ++k) o[k] = acc[(i - begin) * K + k];
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
