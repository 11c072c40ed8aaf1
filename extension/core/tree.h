// One regression tree as flat arrays (node 0 is the root).
#pragma once
#include <cstdint>
#include <vector>

namespace gbdt {

struct Tree {
  // Per node.  A leaf has left == -1 and right == -1.
  std::vector<int32_t> left;
  std::vector<int32_t> right;
  std::vector<int32_t> parent;       // -1 for the root
  std::vector<int32_t> feature;      // split feature, -1 for leaves
  std::vector<int32_t> split_bin;    // rows with bin <= split_bin go left
  std::vector<float> threshold;      // value < threshold goes left (XGBoost's split_condition)
  std::vector<uint8_t> default_left; // where missing values go
  std::vector<float> value;          // leaf: eta * weight; internal: eta * weight of the node
  std::vector<float> gain;           // loss change of the split (0 for leaves)
  std::vector<double> cover;         // hessian sum of the node
  // Categorical splits; all three empty when the tree has none.  Otherwise
  // split_type[n] is 1 for a categorical split of node n (0: numeric), and
  // its category set is the bit field cat_bits[cat_offset[n] ..
  // cat_offset[n + 1]) (32 categories per word, code c in word c / 32, bit
  // c % 32): a category code in the set goes RIGHT, every other code
  // (including codes never seen in training) goes LEFT, missing follows
  // default_left (XGBoost's rule).  cat_offset has num_nodes() + 1 entries.
  std::vector<uint8_t> split_type;
  std::vector<uint32_t> cat_offset;
  std::vector<uint32_t> cat_bits;

  bool has_categorical() const { return !split_type.empty(); }

  int32_t num_nodes() const { return (int32_t)left.size(); }
  bool is_leaf(int32_t n) const { return left[n] < 0; }

  // The leaf row x (features as float, NaN = missing) falls into: value <
  // threshold goes left, missing follows default_left.
  int32_t leaf_of(const float* x) const {
    const int32_t* L = left.data();
    const int32_t* R = right.data();
    const int32_t* F = feature.data();
    const float* T = threshold.data();
    const uint8_t* D = default_left.data();
    int32_t nd = 0;
    while (L[nd] >= 0) {
      const float v = x[F[nd]];
      const unsigned nan = v != v;
      const unsigned go_left = (nan & (D[nd] != 0)) | (~nan & (v < T[nd]));
      // Both children loaded, then an indexed pick: no data-dependent branch.
      const int32_t c[2] = {R[nd], L[nd]};
      nd = c[go_left & 1u];
    }
    return nd;
  }

  // The leaf a binned training row falls into: bin <= split_bin goes left,
  // the missing bin (missing_bin[f] = the feature's number of value bins)
  // follows default_left.  The same leaf as leaf_of() on the row's values
  // when they lie below the last cut (true for the rows the cuts were made
  // from), since bin(v) <= b exactly when v < cut[b] = threshold.
  int32_t leaf_of_bins(const uint8_t* row, const int* missing_bin) const {
    int32_t nd = 0;
    while (left[nd] >= 0) {
      const int f = feature[nd];
      const int b = row[f];
      const bool go_left = b == missing_bin[f] ? default_left[nd] != 0 : b <= split_bin[nd];
      nd = go_left ? left[nd] : right[nd];
    }
    return nd;
  }

  int32_t add_node(int32_t parent_id, float node_value, double node_cover) {
    left.push_back(-1);
    right.push_back(-1);
    parent.push_back(parent_id);
    feature.push_back(-1);
    split_bin.push_back(0);
    threshold.push_back(0.0f);
    default_left.push_back(0);
    value.push_back(node_value);
    gain.push_back(0.0f);
    cover.push_back(node_cover);
    return (int32_t)left.size() - 1;
  }
};

}  // namespace gbdt
