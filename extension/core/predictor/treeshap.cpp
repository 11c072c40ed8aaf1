// Path-dependent TreeSHAP, written from Algorithm 2 of Lundberg, Erion & Lee,
// "Consistent Individualized Feature Attribution for Tree Ensembles" (2018),
// with the conditioning used for interaction values.
//
// A path element records a feature d met on the way from the root, the
// fraction z of the training cover that flowed along the path's splits on d
// ("zero" fraction: d unknown) and whether the row itself follows them (o,
// "one" fraction: d known), and w, the permutation weight of the subsets of
// the path's features of each size.
#include "treeshap.h"
#include "../data/category_values.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "../common/interruptible.h"

namespace gbdt {
namespace {

struct PathElem {
  int32_t d;  // feature, -1 for the root's dummy element
  double z;   // zero fraction
  double o;   // one fraction
  double w;   // permutation weight
};

// 1 / k for k = 0 .. kMaxShapDepth + 2 (index 0 unused): the path loops
// multiply by these instead of dividing.
struct Reciprocals {
  double v[kMaxShapDepth + 3];
  Reciprocals() {
    v[0] = 0;
    for (int k = 1; k < kMaxShapDepth + 3; ++k) v[k] = 1.0 / (double)k;
  }
};
const Reciprocals kInv;

// EXTEND: appends (pz, po, pi) to the path of length len (now len + 1) and
// updates the subset-size weights.
inline void extend(PathElem* m, int len, double pz, double po, int32_t pi) {
  m[len] = PathElem{pi, pz, po, len == 0 ? 1.0 : 0.0};
  const double r = kInv.v[len + 1];
  const double por = po * r, pzr = pz * r;
  for (int i = len - 1; i >= 0; --i) {
    const double wi = m[i].w;
    m[i + 1].w += por * wi * (double)(i + 1);
    m[i].w = pzr * wi * (double)(len - i);
  }
}

// UNWIND: removes element i from the path of length len (now len - 1),
// undoing its EXTEND.
inline void unwind(PathElem* m, int len, int i) {
  const int l = len - 1;
  const double o = m[i].o, z = m[i].z;
  double n = m[l].w;
  const double l1 = (double)(l + 1);
  if (o != 0) {
    const double a = l1 / o, b = z * kInv.v[l + 1];
    for (int j = l - 1; j >= 0; --j) {
      const double t = m[j].w;
      m[j].w = n * a * kInv.v[j + 1];
      n = t - m[j].w * b * (double)(l - j);
    }
  } else {
    const double a = l1 / z;
    for (int j = l - 1; j >= 0; --j) m[j].w = m[j].w * a * kInv.v[l - j];
  }
  for (int j = i; j < l; ++j) {
    m[j].d = m[j + 1].d;
    m[j].z = m[j + 1].z;
    m[j].o = m[j + 1].o;
  }
}

// The total weight the path would have after unwinding element i (the
// path itself is left unchanged).
inline double unwound_sum(const PathElem* m, int len, int i) {
  const int l = len - 1;
  const double o = m[i].o, z = m[i].z;
  const double l1 = (double)(l + 1);
  double total = 0;
  if (o != 0) {
    const double a = l1 / o, b = z * kInv.v[l + 1];
    double n = m[l].w;
    for (int j = l - 1; j >= 0; --j) {
      const double t = n * a * kInv.v[j + 1];
      total += t;
      n = m[j].w - t * b * (double)(l - j);
    }
  } else if (z != 0) {
    for (int j = l - 1; j >= 0; --j) total += m[j].w * kInv.v[l - j];
    total *= l1 / z;
  }
  return total;
}

struct Walk {
  const Tree* t;
  const double* mean;
  const float* x;
  double* phi;
  int condition;
  int cond_feature;
  CancelPoller* poll;  // counts the path steps of every node visited
};

// RECURSE.  parent: the parent's path (plen elements); this node's path is
// built right after it in the buffer.  A visit costs about plen steps (the
// copy and EXTEND), a leaf about len^2 more (an UNWIND sum per element):
// counted so that one deep, wide tree polls cancel every few milliseconds.
void recurse(const Walk& w, int32_t node, const PathElem* parent, int plen, double pz, double po,
             int32_t pi, double cond_frac) {
  if (cond_frac == 0) return;
  w.poll->tick((uint64_t)plen + 1);
  PathElem* m = const_cast<PathElem*>(parent) + plen + 1;
  std::copy(parent, parent + plen, m);
  int len = plen;
  // The conditioned feature never enters the path: its value is fixed
  // (known or unknown) for every subset.
  if (w.condition == 0 || pi != w.cond_feature) {
    extend(m, len, pz, po, pi);
    ++len;
  }
  const Tree& t = *w.t;
  if (t.left[node] < 0) {
    w.poll->tick((uint64_t)len * (uint64_t)len);
    const double v = (double)t.value[node] * cond_frac;
    for (int i = 1; i < len; ++i) {
      const double s = unwound_sum(m, len, i);
      w.phi[m[i].d] += s * (m[i].o - m[i].z) * v;
    }
    return;
  }
  const int32_t d = t.feature[node];
  const float xv = w.x[d];
  const bool go_left = t.goes_left(node, xv);  // numeric or categorical (tree.h)
  const int32_t hot = go_left ? t.left[node] : t.right[node];
  const int32_t cold = go_left ? t.right[node] : t.left[node];
  const double cover = t.cover[node];
  const double hot_zf = t.cover[hot] / cover;
  const double cold_zf = t.cover[cold] / cover;
  double iz = 1, io = 1;
  for (int k = 1; k < len; ++k) {
    if (m[k].d == d) {
      // A feature met again: its fractions multiply into the new element.
      iz = m[k].z;
      io = m[k].o;
      unwind(m, len, k);
      --len;
      break;
    }
  }
  double hot_cf = cond_frac, cold_cf = cond_frac;
  if (w.condition > 0 && d == w.cond_feature) {
    cold_cf = 0;
  } else if (w.condition < 0 && d == w.cond_feature) {
    hot_cf *= hot_zf;
    cold_cf *= cold_zf;
  }
  recurse(w, hot, m, len, iz * hot_zf, io, d, hot_cf);
  recurse(w, cold, m, len, iz * cold_zf, 0.0, d, cold_cf);
}

}  // namespace

TreeShap::TreeShap(const Model& m, const CancelFn& cancel)
    : m_(m), K_(m.num_output_group > 0 ? m.num_output_group : 1), nf_(m.n_features()) {
  mean_.resize(m.trees.size());
  std::vector<int32_t> order, depth;
  CancelPoller poll(cancel);
  for (size_t ti = 0; ti < m.trees.size(); ++ti) {
    const Tree& t = m.trees[ti];
    const int32_t nn = t.num_nodes();
    if (nn == 0) continue;
    // Pre-order (parents before children), iteratively: trees are
    // validated acyclic, but may be deep.
    order.clear();
    depth.assign((size_t)nn, 0);
    order.push_back(0);
    for (size_t i = 0; i < order.size(); ++i) {
      poll.tick();
      const int32_t n = order[i];
      if (t.left[n] < 0) continue;
      if (depth[n] + 1 > kMaxShapDepth)
        throw InvalidInput("tree " + std::to_string(ti) + " is deeper than " +
                           std::to_string(kMaxShapDepth) +
                           " levels, the most gbdt_explain supports");
      if (!(t.cover[n] > 0) || !(t.cover[t.left[n]] >= 0) || !(t.cover[t.right[n]] >= 0))
        throw InvalidInput("tree " + std::to_string(ti) + " node " + std::to_string(n) +
                           " has no positive cover (hessian sum): explanations need the "
                           "covers of every split node");
      depth[t.left[n]] = depth[t.right[n]] = depth[n] + 1;
      max_depth_ = std::max(max_depth_, depth[n] + 1);
      order.push_back(t.left[n]);
      order.push_back(t.right[n]);
    }
    // Mean values bottom-up: a leaf's value, a split's cover-weighted mean
    // of its children.
    std::vector<double>& mv = mean_[ti];
    mv.assign((size_t)nn, 0.0);
    for (size_t i = order.size(); i-- > 0;) {
      const int32_t n = order[i];
      if (t.left[n] < 0) {
        mv[n] = (double)t.value[n];
      } else {
        const int32_t l = t.left[n], r = t.right[n];
        mv[n] = (mv[l] * t.cover[l] + mv[r] * t.cover[r]) / t.cover[n];
      }
    }
  }
}

void TreeShap::tree_pass(int ti, const float* x, double* phi_k, Scratch& s, int condition,
                         int cond_feature, CancelPoller& poll) const {
  const Tree& t = m_.trees[ti];
  if (t.num_nodes() == 0) return;
  // Path of depth D: at most D + 1 elements; one segment per level.
  const size_t D = (size_t)max_depth_;
  const size_t need = (D + 3) * (D + 4) / 2 * sizeof(PathElem);
  if (s.buf.size() < need) s.buf.resize(need);
  PathElem* root = reinterpret_cast<PathElem*>(s.buf.data());
  Walk w{&t, mean_[ti].data(), x, phi_k, condition, cond_feature, &poll};
  recurse(w, 0, root, 0, 1.0, 1.0, -1, 1.0);
  if (condition == 0) phi_k[nf_] += mean_[ti][0];
}

void TreeShap::contributions(const float* x, double* phi, Scratch& s,
                             const CancelFn& cancel) const {
  CancelPoller poll(cancel);
  poll.poll_now();  // once per row, however little its trees cost
  contributions(x, phi, s, poll);
}

void TreeShap::contributions(const float* x, double* phi, Scratch& s, CancelPoller& poll) const {
  std::vector<float> codes;  // unseen categories missing, as in scoring (category_values.h)
  if (!m_.categories.empty()) x = row_with_codes(m_, x, &codes);
  const int W = width();
  std::fill(phi, phi + (size_t)K_ * W, 0.0);
  for (int k = 0; k < K_; ++k)
    phi[(size_t)k * W + nf_] = k < (int)m_.base_margin.size() ? m_.base_margin[k] : 0.0;
  for (size_t ti = 0; ti < m_.trees.size(); ++ti) {
    poll.tick();
    const int k = ti < m_.tree_group.size() ? m_.tree_group[ti] : 0;
    tree_pass((int)ti, x, phi + (size_t)k * W, s, 0, -1, poll);
  }
}

void TreeShap::interactions(const float* x, double* out, Scratch& s,
                            const CancelFn& cancel) const {
  std::vector<float> codes;  // unseen categories missing, as in scoring (category_values.h)
  if (!m_.categories.empty()) x = row_with_codes(m_, x, &codes);
  const int W = width();
  const size_t KW = (size_t)K_ * W;
  std::vector<double> phi(KW), on(KW), off(KW);
  CancelPoller poll(cancel);
  poll.poll_now();
  contributions(x, phi.data(), s, poll);
  std::fill(out, out + KW * W, 0.0);
  for (int i = 0; i < nf_; ++i) {
    std::fill(on.begin(), on.end(), 0.0);
    std::fill(off.begin(), off.end(), 0.0);
    for (size_t ti = 0; ti < m_.trees.size(); ++ti) {
      poll.tick();
      const int k = ti < m_.tree_group.size() ? m_.tree_group[ti] : 0;
      tree_pass((int)ti, x, on.data() + (size_t)k * W, s, 1, i, poll);
      tree_pass((int)ti, x, off.data() + (size_t)k * W, s, -1, i, poll);
    }
    for (int k = 0; k < K_; ++k) {
      double* row = out + ((size_t)k * W + i) * W;
      double diag = phi[(size_t)k * W + i];
      for (int j = 0; j < nf_; ++j) {
        if (j == i) continue;
        row[j] = (on[(size_t)k * W + j] - off[(size_t)k * W + j]) / 2;
        diag -= row[j];
      }
      row[i] = diag;
    }
  }
  for (int k = 0; k < K_; ++k) out[((size_t)k * W + nf_) * W + nf_] = phi[(size_t)k * W + nf_];
}

}  // namespace gbdt
