// Exact path-dependent TreeSHAP (Lundberg, Erion & Lee 2018, Algorithm 2):
// per-row feature contributions of a tree ensemble, weighted by the node
// covers (hessian sums) stored in the model, as XGBoost's pred_contribs
// (approx_contribs = false) and pred_interactions compute them.
//
// For each output group k the contributions phi[k][0 .. nf) plus the bias
// phi[k][nf] (base margin + cover-weighted mean leaf value of each tree of
// the group) sum to the row's margin for k, up to rounding.  Missing values
// (NaN) follow each split's default direction, as in scoring.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../common/common.h"
#include "../common/interruptible.h"
#include "../model/model.h"

namespace gbdt {

// Deepest tree (in edges from the root) TreeSHAP accepts: the per-thread
// path buffer grows with depth^2 and the recursion with depth.
constexpr int kMaxShapDepth = 512;

class TreeShap {
 public:
  // Precomputes each node's cover-weighted mean value and the deepest tree.
  // Throws InvalidInput when a tree is deeper than kMaxShapDepth or a split
  // node's cover is not positive (a model without hessian sums), naming the
  // tree and node.  cancel is polled through a CancelPoller (one unit per
  // node).  The model must outlive the explainer.
  explicit TreeShap(const Model& m, const CancelFn& cancel = CancelFn());

  int K() const { return K_; }
  int n_features() const { return nf_; }
  // Values per output group: n_features() contributions + the bias.
  int width() const { return nf_ + 1; }

  // Scratch space of one thread (the path buffer).
  struct Scratch {
    std::vector<uint8_t> buf;
  };

  // Contributions of row x (n_features() floats, NaN = missing) into
  // phi[K() * width()] (overwritten): phi[k * width() + f], bias at f =
  // n_features().  cancel is polled once per row and then through a
  // CancelPoller counting the path steps of every node visited, so a deep,
  // wide tree stops within milliseconds (throws Cancelled).  cancel may be
  // called from the thread that calls this (a worker thread's callback
  // must be safe there, e.g. a CancelFlag read).
  void contributions(const float* x, double* phi, Scratch& s,
                     const CancelFn& cancel = CancelFn()) const;

  // SHAP interaction values of row x into out[K() * width() * width()]
  // (overwritten): out[(k * width() + i) * width() + j].  Off the diagonal,
  // half the change of feature j's contribution when feature i is known
  // versus unknown; on it, feature i's contribution minus its interactions;
  // the bias sits at (n_features(), n_features()).  Rows sum to the
  // contributions.  Costs n_features() + 1 contribution passes.
  void interactions(const float* x, double* out, Scratch& s,
                    const CancelFn& cancel = CancelFn()) const;

 private:
  // The same counting on `poll` (interactions() shares one for all its passes).
  void contributions(const float* x, double* phi, Scratch& s, CancelPoller& poll) const;
  // condition: 0 plain; +1 feature cond_feature known (follows x); -1 unknown.
  void tree_pass(int t, const float* x, double* phi_k, Scratch& s, int condition,
                 int cond_feature, CancelPoller& poll) const;

  const Model& m_;
  int K_, nf_;
  int max_depth_ = 0;
  std::vector<std::vector<double>> mean_;  // per tree, per node
};

}  // namespace gbdt
