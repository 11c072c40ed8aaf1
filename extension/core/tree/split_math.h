// Everything that decides a split or a leaf value, shared by the CPU and CUDA
// backends (__host__ __device__), so the two cannot drift.  Follows XGBoost's
// conventions: gain = GL^2/(HL+l) + GR^2/(HR+l) - G^2/(H+l) (no factor 1/2),
// L1 soft-thresholding with alpha, max_delta_step clipping, min_child_weight on
// hessian sums.  All arithmetic is plain IEEE double with no fused multiply-add
// (host: no -mfma; device: -fmad=false), so both sides compute the same bits.
#pragma once
#include <cmath>
#include <cstdint>

#include "../common/common.h"

namespace gbdt {

struct SplitParams {
  double reg_lambda;
  double reg_alpha;
  double gamma;
  double min_child_weight;
  double max_delta_step;
  double eta;
  // LightGBM's min_data_in_leaf: the fewest training rows a child may hold
  // (0: no limit, and then nothing below reads node_rows or cnt_factor).
  double min_data_in_leaf = 0.0;
  // Whether at_node() sets node_rows and cnt_factor without
  // min_data_in_leaf (categorical regularization counts rows,
  // categorical_split.h).
  bool count_rows = false;
  // The node being split, set per node by at_node(): its row count and
  // rows per unit of hessian (LightGBM's cnt_factor).
  double node_rows = 0.0;
  double cnt_factor = 0.0;
};

// Whether splits with p read the nodes' row counts (at_node).
GBDT_HD bool needs_node_rows(const SplitParams& p) { return p.min_data_in_leaf > 0.0 || p.count_rows; }

// Gradient and hessian sums as fixed-point integers: sums are exact and do not
// depend on the order of additions (threads, atomics).
struct GradSum {
  int64_t g;
  int64_t h;
};

GBDT_HD GradSum gs_add(GradSum a, GradSum b) { return GradSum{a.g + b.g, a.h + b.h}; }
GBDT_HD GradSum gs_sub(GradSum a, GradSum b) { return GradSum{a.g - b.g, a.h - b.h}; }

// Power-of-two scales that turn a double gradient into a fixed-point integer.
struct Quantizer {
  double g_scale;
  double h_scale;
  double g_inv;  // 1 / g_scale (exact: powers of two)
  double h_inv;
};

GBDT_HD double threshold_l1(double g, double alpha) {
  if (g > alpha) return g - alpha;
  if (g < -alpha) return g + alpha;
  return 0.0;
}

GBDT_HD double calc_weight(const SplitParams& p, double G, double H) {
  if (H < p.min_child_weight || H <= 0.0) return 0.0;
  double w = -threshold_l1(G, p.reg_alpha) / (H + p.reg_lambda);
  if (p.max_delta_step != 0.0) {
    if (w > p.max_delta_step) w = p.max_delta_step;
    if (w < -p.max_delta_step) w = -p.max_delta_step;
  }
  return w;
}

GBDT_HD double calc_gain(const SplitParams& p, double G, double H) {
  if (H < p.min_child_weight || H <= 0.0) return 0.0;
  if (p.max_delta_step == 0.0) {
    double t = threshold_l1(G, p.reg_alpha);
    return (t * t) / (H + p.reg_lambda);
  }
  double w = calc_weight(p, G, H);
  double r = -(2.0 * G * w + (H + p.reg_lambda) * w * w);
  if (p.reg_alpha != 0.0) r -= 2.0 * p.reg_alpha * (w < 0 ? -w : w);
  return r;
}

GBDT_HD double to_g(const Quantizer& q, int64_t v) { return (double)v * q.g_inv; }
GBDT_HD double to_h(const Quantizer& q, int64_t v) { return (double)v * q.h_inv; }

// p for the splits of one node with sum `parent` over `rows` rows: the
// histograms hold no row counts, so, as LightGBM's feature histogram does, a
// child's row count is estimated from its hessian sum,
// round(hessian * rows / parent hessian).  Exact when every row has the same
// hessian (squared error); an estimate otherwise.
GBDT_HD SplitParams at_node(const SplitParams& p, const Quantizer& q, GradSum parent, double rows) {
  SplitParams r = p;
  if (needs_node_rows(p)) {
    const double h = to_h(q, parent.h);
    r.node_rows = rows;
    r.cnt_factor = h > 0.0 ? rows / h : 0.0;
  }
  return r;
}

// Whether a split whose left child has hessian sum hl leaves a child with
// fewer than min_data_in_leaf (estimated) rows; never with the limit 0.
GBDT_HD bool too_few_rows(const SplitParams& p, double hl) {
  if (p.min_data_in_leaf <= 0.0) return false;
  const double left = floor(hl * p.cnt_factor + 0.5);
  return left < p.min_data_in_leaf || p.node_rows - left < p.min_data_in_leaf;
}

// Loss reduction of splitting parent into (left, right); -1 when a child
// violates min_child_weight or min_data_in_leaf (p from at_node then).
// parent_gain must be calc_gain(p, to_g(q, parent.g), to_h(q, parent.h))
// (split scans compute it once per node: same bits as split_gain).
GBDT_HD double split_gain_given_parent(const SplitParams& p, const Quantizer& q, GradSum parent,
                                       GradSum left, double parent_gain) {
  GradSum right = gs_sub(parent, left);
  double hl = to_h(q, left.h), hr = to_h(q, right.h);
  if (hl < p.min_child_weight || hr < p.min_child_weight || hl <= 0.0 || hr <= 0.0) return -1.0;
  if (too_few_rows(p, hl)) return -1.0;
  double gl = to_g(q, left.g), gr = to_g(q, right.g);
  return calc_gain(p, gl, hl) + calc_gain(p, gr, hr) - parent_gain;
}

GBDT_HD double parent_gain(const SplitParams& p, const Quantizer& q, GradSum parent) {
  return calc_gain(p, to_g(q, parent.g), to_h(q, parent.h));
}

GBDT_HD double split_gain(const SplitParams& p, const Quantizer& q, GradSum parent, GradSum left) {
  return split_gain_given_parent(p, q, parent, left, parent_gain(p, q, parent));
}

// The smallest gain that makes a split worth taking (XGBoost's kRtEps + gamma).
GBDT_HD bool split_is_useful(const SplitParams& p, double gain) { return gain > p.gamma + 1e-6; }

// A candidate split.  Candidates are compared by gain; ties go to the lower
// feature, then the lower bin, then "missing goes right" before "missing goes left".
struct SplitCandidate {
  double gain;
  int32_t feature;     // -1: none
  int32_t bin;         // rows with bin <= this go left
  int32_t default_left;
  GradSum left;        // sums of the left child (missing included when default_left)
};

GBDT_HD SplitCandidate no_split() { return SplitCandidate{-1.0, -1, 0, 0, GradSum{0, 0}}; }

GBDT_HD bool better_split(const SplitCandidate& a, const SplitCandidate& b) {
  if (a.feature < 0) return false;
  if (b.feature < 0) return true;
  if (a.gain != b.gain) return a.gain > b.gain;
  if (a.feature != b.feature) return a.feature < b.feature;
  if (a.bin != b.bin) return a.bin < b.bin;
  return a.default_left < b.default_left;
}

// ---- monotone constraints: XGBoost's TreeEvaluator ----
// A node's weight is clamped to its bounds [lo, hi] (from the monotone splits
// above it); gains use the clamped weights.

GBDT_HD double bounded_weight(const SplitParams& p, const Quantizer& q, GradSum s, double lo,
                              double hi) {
  const double w = calc_weight(p, to_g(q, s.g), to_h(q, s.h));
  return w < lo ? lo : (w > hi ? hi : w);
}

// XGBoost's gain given a weight, in calc_gain's convention (the L1 term).
GBDT_HD double gain_given_weight(const SplitParams& p, double G, double H, double w) {
  if (H < p.min_child_weight || H <= 0.0) return 0.0;
  double r = -(2.0 * G * w + (H + p.reg_lambda) * w * w);
  if (p.reg_alpha != 0.0) r -= 2.0 * p.reg_alpha * (w < 0 ? -w : w);
  return r;
}

GBDT_HD double bounded_parent_gain(const SplitParams& p, const Quantizer& q, GradSum s, double lo,
                                   double hi) {
  return gain_given_weight(p, to_g(q, s.g), to_h(q, s.h), bounded_weight(p, q, s, lo, hi));
}

// Like split_gain_given_parent with the children's weights clamped to the
// parent's bounds; -infinity when the split on a feature with constraint c
// (1 increasing, -1 decreasing) would order the children's weights wrongly.
// pg = bounded_parent_gain of the parent.
GBDT_HD double bounded_split_gain(const SplitParams& p, const Quantizer& q, GradSum parent,
                                  GradSum left, double lo, double hi, int c, double pg) {
  const GradSum right = gs_sub(parent, left);
  const double hl = to_h(q, left.h), hr = to_h(q, right.h);
  if (hl < p.min_child_weight || hr < p.min_child_weight || hl <= 0.0 || hr <= 0.0) return -1.0;
  if (too_few_rows(p, hl)) return -1.0;
  const double wl = bounded_weight(p, q, left, lo, hi), wr = bounded_weight(p, q, right, lo, hi);
  if ((c > 0 && wl > wr) || (c < 0 && wl < wr)) return -HUGE_VAL;
  return gain_given_weight(p, to_g(q, left.g), hl, wl) +
         gain_given_weight(p, to_g(q, right.g), hr, wr) - pg;
}

// Leaf value stored in the tree: eta * weight, rounded to float once.
GBDT_HD float leaf_value(const SplitParams& p, const Quantizer& q, GradSum s) {
  return (float)(p.eta * calc_weight(p, to_g(q, s.g), to_h(q, s.h)));
}

}  // namespace gbdt
