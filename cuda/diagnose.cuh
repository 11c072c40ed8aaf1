// Stage-by-stage comparison of the CUDA backend's device results with the
// host's computation of the same stage (GBDT_CUDA_DIAGNOSE=1; slow: every
// stage's output is downloaded).  Each function recomputes one stage on the
// host with the engine's shared functions (the CPU backend's arithmetic) from
// the device's own inputs and returns "" when the device agrees, else where
// the two part.  Depth-wise growth only (lossguide trees are not checked).
//   gradients   quantizer and every row's quantized pair (gradients.h)
//   histograms  every level node's histogram from its rows (64-bit sums)
//   split       the best numeric split of each node (split_math.h)
//   partition   each split node's rows: stable, left rows first
#pragma once
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "tree/tree_backend.h"
#include "data/binned_matrix.h"
#include "tree/categorical_split.h"
#include "objective/gradients.h"
#include "tree/split_math.h"

namespace gbdt {
namespace diagnose {

inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// margins n x K (row-major), device quantizers and pairs (gpair[k * n + r]).
inline std::string gradients(const BoostData& d, const std::vector<float>& margins, int K,
                             const std::vector<Quantizer>& dq, const std::vector<GradSum>& dg) {
  const size_t n = d.n_rows;
  std::vector<GradHess> gh(n * (size_t)K);
  for (size_t r = 0; r < n; ++r) {
    const float* m = margins.data() + r * (size_t)K;
    if (objective_is_multiclass(d.objective)) {
      double mx, sum;
      softmax_prepare(m, K, &mx, &sum);
      for (int k = 0; k < K; ++k)
        gh[(size_t)k * n + r] = weighted(softmax_gradient(m, k, mx, sum, (int)d.labels[r]), d.weights, r);
    } else {
      gh[r] = weighted(scalar_gradient(d.objective, (double)m[0], (double)d.labels[r], d.grad), d.weights, r);
    }
  }
  for (int k = 0; k < K; ++k) {
    double mg = 0, mh = 0;
    for (size_t r = 0; r < n; ++r) {
      const GradHess& x = gh[(size_t)k * n + r];
      if (std::fabs(x.g) > mg) mg = std::fabs(x.g);
      if (x.h > mh) mh = x.h;
    }
    const Quantizer q = make_quantizer(mg, mh, n);
    std::ostringstream o;
    o.precision(17);
    if (!same_bits(q.g_scale, dq[k].g_scale) || !same_bits(q.h_scale, dq[k].h_scale)) {
      o << "gradients: group " << k << " quantizer scales: device " << dq[k].g_scale << "/"
        << dq[k].h_scale << " host " << q.g_scale << "/" << q.h_scale << " (gradient maxima "
        << mg << ", " << mh << ")";
      return o.str();
    }
    for (size_t r = 0; r < n; ++r) {
      const GradHess& x = gh[(size_t)k * n + r];
      const GradSum h{quantize(x.g, q.g_scale), quantize(x.h, q.h_scale)};
      const GradSum& g = dg[(size_t)k * n + r];
      if (g.g != h.g || g.h != h.h) {
        o << "gradients: group " << k << " row " << r << " (margin " << margins[r * (size_t)K + k]
          << ", label " << d.labels[r] << "): device (" << g.g << ", " << g.h << ") host (" << h.g
          << ", " << h.h << ")";
        return o.str();
      }
    }
  }
  return "";
}

// The histogram (T slots) of rows[begin, end) from the host's bin matrix.
inline std::vector<GradSum> host_histogram(const BinnedMatrix& m, const std::vector<uint32_t>& off,
                                           const uint32_t* rows, uint32_t begin, uint32_t end,
                                           const GradSum* gp, size_t T) {
  std::vector<GradSum> h(T, GradSum{0, 0});
  for (uint32_t p = begin; p < end; ++p) {
    const uint32_t r = rows[p];
    for (int f = 0; f < m.n_features; ++f) {
      GradSum& s = h[off[f] + m.at(r, f)];
      s = gs_add(s, gp[r]);
    }
  }
  return h;
}

// node: its label in messages; dev: the device's T slots.
inline std::string histogram(const std::string& node, const std::vector<GradSum>& host,
                             const GradSum* dev, const std::vector<uint32_t>& off, int nf) {
  for (size_t s = 0; s < host.size(); ++s)
    if (host[s].g != dev[s].g || host[s].h != dev[s].h) {
      int f = 0;
      while (f + 1 < nf && off[f + 1] <= s) ++f;
      std::ostringstream o;
      o << "histograms: " << node << " feature " << f << " bin " << s - off[f] << " (slot " << s
        << "): device (" << dev[s].g << ", " << dev[s].h << ") host (" << host[s].g << ", "
        << host[s].h << ")";
      return o.str();
    }
  return "";
}

// The best numeric split of one node from its histogram, enumerated as
// k_eval_splits and the CPU's scan (missing right, then missing left).
inline SplitCandidate host_best_split(const GradSum* h, const GradSum& psum,
                                      const std::vector<uint32_t>& off,
                                      const std::vector<int32_t>& nbins, const uint8_t* fmask,
                                      const SplitParams& sp, const Quantizer& q) {
  const double pgain = parent_gain(sp, q, psum);
  SplitCandidate best = no_split();
  for (int f = 0; f < (int)off.size(); ++f) {
    if (!fmask[f]) continue;
    const GradSum* fh = h + off[f];
    const GradSum miss = fh[nbins[f]];
    GradSum acc{0, 0};
    for (int b = 0; b < nbins[f]; ++b) {
      acc = gs_add(acc, fh[b]);
      SplitCandidate c1{split_gain_given_parent(sp, q, psum, acc, pgain), f, b, 0, acc};
      if (split_is_useful(sp, c1.gain) && better_split(c1, best)) best = c1;
      if (miss.h != 0) {
        const GradSum l = gs_add(acc, miss);
        SplitCandidate c2{split_gain_given_parent(sp, q, psum, l, pgain), f, b, 1, l};
        if (split_is_useful(sp, c2.gain) && better_split(c2, best)) best = c2;
      }
    }
  }
  return best;
}

inline std::string split(const std::string& node, const SplitCandidate& host, const SplitCandidate& dev) {
  if (host.feature == dev.feature && host.bin == dev.bin && host.default_left == dev.default_left &&
      (host.feature < 0 || same_bits(host.gain, dev.gain)))
    return "";
  std::ostringstream o;
  o.precision(17);
  o << "split: " << node << ": device f" << dev.feature << "/bin " << dev.bin << "/dl "
    << dev.default_left << " gain " << dev.gain << ", host f" << host.feature << "/bin " << host.bin
    << "/dl " << host.default_left << " gain " << host.gain;
  return o.str();
}

// Rows before and after one split node's partition of [begin, end): left
// rows (goes_left) first, each side in its original order.
inline std::string partition(const std::string& node, const BinnedMatrix& m, const uint32_t* before,
                             const uint32_t* after, uint32_t begin, uint32_t end, int feature,
                             int bin, int default_left, int nbins, const uint32_t* set, int set_w,
                             uint32_t dev_nleft) {
  std::vector<uint32_t> left, right;
  for (uint32_t p = begin; p < end; ++p) {
    const uint32_t r = before[p], b = m.at(r, feature);
    const bool l = (int)b == nbins ? default_left != 0
                   : set ? !cat_words_has(set, set_w, b)
                         : (int)b <= bin;
    (l ? left : right).push_back(r);
  }
  std::ostringstream o;
  if (left.size() != dev_nleft) {
    o << "partition: " << node << ": device " << dev_nleft << " rows left, host " << left.size();
    return o.str();
  }
  left.insert(left.end(), right.begin(), right.end());
  for (uint32_t p = begin; p < end; ++p)
    if (after[p] != left[p - begin]) {
      o << "partition: " << node << " position " << p << ": device row " << after[p] << ", host row "
        << left[p - begin];
      return o.str();
    }
  return "";
}

}  // namespace diagnose
}  // namespace gbdt
