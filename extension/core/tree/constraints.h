// XGBoost's tree parameters beyond plain level-wise growth:
// monotone and interaction constraints, per-level and per-node column
// sampling, loss-guided growth with max_leaves.  Parsing of the constraint
// texts (by column name or index), the per-level/per-node feature samples,
// and the interaction bookkeeping; the grower that uses them is
// tree_grower.cpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace gbdt {

struct TrainParams;

// The resolved tree parameters a backend receives (BoostData::tree_ext).
struct TreeExtParams {
  std::vector<int8_t> monotone;                // per feature (-1, 0, 1); empty = none
  std::vector<std::vector<int>> interaction;   // sorted feature index sets; empty = none
  double colsample_bylevel = 1.0;
  double colsample_bynode = 1.0;
  bool lossguide = false;
  int max_leaves = 0;                          // 0 = no limit
  bool force_general = false;                  // tests: the general grower without new params

  // True when trees must be grown by the general grower (tree_grower.h)
  // instead of the backends' level-wise fast path.
  bool general() const {
    return force_general || !monotone.empty() || !interaction.empty() || colsample_bylevel < 1.0 ||
           colsample_bynode < 1.0 || lossguide || max_leaves > 0;
  }
};

// Monotone constraints: "(1,0,-1)" / "[1,0,-1]" (one per feature, in column
// order) or a JSON object {"column": 1, ...} by feature name (unlisted
// columns 0).  Returns one entry per feature, or an empty vector when every
// entry is 0.  Throws InvalidInput naming the parameter and the fault.
std::vector<int8_t> parse_monotone_constraints(const std::string& text,
                                               const std::vector<std::string>& feature_names);

// Interaction constraints: a JSON list of lists of feature names
// ('[["a","b"],["c"]]') or of feature indices ('[[0,1],[2]]').  Returns the
// sets sorted, duplicates removed.
std::vector<std::vector<int>> parse_interaction_constraints(
    const std::string& text, const std::vector<std::string>& feature_names);

// Canonical texts for the model's parameter record (index forms: apply
// again on the same columns they mean the same).
std::string monotone_to_text(const std::vector<int8_t>& m);
std::string interaction_to_text(const std::vector<std::vector<int>>& sets);

// Resolves p's constraint texts against the feature names into *out (with
// the other tree parameters) and rewrites the texts in canonical form.
void resolve_tree_params(TrainParams* p, const std::vector<std::string>& feature_names,
                         TreeExtParams* out);

// Checks combinations of tree parameters after apply_params (max_depth = 0
// needs grow_policy lossguide with max_leaves > 0).
void check_tree_params(const TrainParams& p);

// colsample_bylevel / colsample_bynode: keeps max(1, round(frac * k)) of the
// k features set in *mask, chosen by a partial Fisher-Yates shuffle seeded
// by (seed, round, group, salt, index).  Deterministic.
void sample_feature_subset(std::vector<uint8_t>* mask, double frac, uint64_t seed, int round,
                           int group, uint64_t salt, int64_t index);

// Interaction constraints: the features a node may split on, given the
// sorted features used on its path (XGBoost: the union of the constraint
// sets that contain all of them; every feature at the root).
void interaction_allowed(const std::vector<std::vector<int>>& sets, const std::vector<int>& used,
                         int n_features, std::vector<uint8_t>* allowed);

// The features a node may split on, shared by the CPU grower and the CUDA
// backend so that both sample the same: the tree's mask (colsample_bytree),
// colsample_bylevel's sample of it for the node's depth, colsample_bynode's
// sample of that for the node id, then the interaction constraints given
// the features used on the node's path.
class NodeFeatureSampler {
 public:
  NodeFeatureSampler(const TreeExtParams& ext, const uint8_t* tree_mask, int n_features,
                     uint64_t seed, int round, int group)
      : ext_(ext), tree_mask_(tree_mask), nf_(n_features), seed_(seed), round_(round),
        group_(group) {}
  // True when masks differ from the tree's mask at all.
  bool active() const {
    return ext_.colsample_bylevel < 1.0 || ext_.colsample_bynode < 1.0 ||
           !ext_.interaction.empty();
  }
  void mask(int depth, int32_t node_id, const std::vector<int>& used, std::vector<uint8_t>* out);

 private:
  const TreeExtParams& ext_;
  const uint8_t* tree_mask_;
  int nf_;
  uint64_t seed_;
  int round_, group_;
  std::vector<std::vector<uint8_t>> level_;  // per depth (colsample_bylevel)
  std::vector<uint8_t> allowed_;
};

// Adds feature f to the sorted path set used (no duplicates).
void add_used_feature(std::vector<int>* used, int f);

}  // namespace gbdt
