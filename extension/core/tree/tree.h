// One regression tree as flat arrays (node 0 is the root).
#pragma once
#include <cstdint>
#include <vector>

#include "categorical_split.h"

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
  // split_type[n] == 2 (kCatList) stores the same kind of set compactly as
  // its codes, strictly increasing, in cat_bits[cat_offset[n] ..
  // cat_offset[n + 1]): imported sets of a few codes spread over many
  // categories (a dense field would take a word per 32 codes up to the
  // largest).  Training makes bit fields only.  A model's scoring treats a
  // value that is not a code of the feature's categories as missing before
  // any node sees it (category_values.h).
  // Training writes split_bin 0 at a categorical node (threshold: the
  // feature's first cut, never read by a categorical decision).
  std::vector<uint8_t> split_type;
  std::vector<uint32_t> cat_offset;
  std::vector<uint32_t> cat_bits;

  bool has_categorical() const { return !split_type.empty(); }

  int32_t num_nodes() const { return (int32_t)left.size(); }
  bool is_leaf(int32_t n) const { return left[n] < 0; }

  bool is_categorical(int32_t n) const { return !split_type.empty() && split_type[n] != 0; }
  // Whether node n's set is a code list (kCatList) rather than a bit field.
  bool is_cat_list(int32_t n) const { return !split_type.empty() && split_type[n] == kCatList; }

  // Whether the non-missing value v goes right at categorical node n.
  bool cat_right(int32_t n, float v) const {
    const uint32_t* seg = cat_bits.data() + cat_offset[n];
    const uint32_t len = cat_offset[n + 1] - cat_offset[n];
    return split_type[n] == kCatList ? cat_list_goes_right(seg, len, v) : cat_goes_right(seg, len, v);
  }

  // Calls fn(code) for every code of categorical node n's set, ascending.
  template <typename Fn>
  void for_each_cat_code(int32_t n, Fn fn) const {
    const uint32_t lo = cat_offset[n], hi = cat_offset[n + 1];
    if (split_type[n] == kCatList) {
      for (uint32_t i = lo; i < hi; ++i) fn(cat_bits[i]);
      return;
    }
    for (uint32_t w = lo; w < hi; ++w)
      for (uint32_t bits = cat_bits[w]; bits != 0; bits &= bits - 1)
        fn((w - lo) * 32u + (uint32_t)__builtin_ctz(bits));
  }

  // The decision of split node n for value v (NaN = missing): the one rule
  // of every tree walk (leaf_of, prediction, TreeSHAP).
  bool goes_left(int32_t n, float v) const {
    if (v != v) return default_left[n] != 0;
    if (is_categorical(n)) return !cat_right(n, v);
    return v < threshold[n];
  }

  // The leaf row x (features as float, NaN = missing) falls into: value <
  // threshold goes left, missing follows default_left; categorical nodes:
  // see categorical_split.h.
  int32_t leaf_of(const float* x) const {
    if (has_categorical()) {
      int32_t nd = 0;
      while (left[nd] >= 0) nd = goes_left(nd, x[feature[nd]]) ? left[nd] : right[nd];
      return nd;
    }
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

  // Whether bin b of node n's feature goes left (missing_bin: the feature's
  // number of value bins).  At a categorical node bin b stands for code b
  // (the "other" bin 254 for all codes >= 254, which a code set holds all
  // or none of).
  bool bin_goes_left(int32_t n, int b, int missing_bin) const {
    if (b == missing_bin) return default_left[n] != 0;
    if (is_categorical(n)) return !cat_right(n, (float)b);
    return b <= split_bin[n];
  }

  // The leaf a binned training row falls into: bin <= split_bin goes left,
  // the missing bin (missing_bin[f] = the feature's number of value bins)
  // follows default_left.  The same leaf as leaf_of() on the row's values
  // when they lie below the last cut (true for the rows the cuts were made
  // from), since bin(v) <= b exactly when v < cut[b] = threshold.
  // BinT: uint8_t or uint16_t (binned_matrix.h).
  template <typename BinT>
  int32_t leaf_of_bins(const BinT* row, const int* missing_bin) const {
    int32_t nd = 0;
    if (has_categorical()) {
      while (left[nd] >= 0) {
        const int f = feature[nd];
        nd = bin_goes_left(nd, (int)row[f], missing_bin[f]) ? left[nd] : right[nd];
      }
      return nd;
    }
    while (left[nd] >= 0) {
      const int f = feature[nd];
      const int b = row[f];
      const bool go_left = b == missing_bin[f] ? default_left[nd] != 0 : b <= split_bin[nd];
      nd = go_left ? left[nd] : right[nd];
    }
    return nd;
  }

  // Makes split node n categorical with the code set words[0 .. nwords)
  // (creating the categorical arrays on the first one); kind kCatList:
  // words are the set's codes, strictly increasing.  The words go in
  // at cat_offset[n], so nodes may be split in any order.
  void set_categorical(int32_t n, const uint32_t* words, uint32_t nwords, uint8_t kind = 1) {
    if (split_type.empty()) {
      split_type.assign(left.size(), 0);
      cat_offset.assign(left.size() + 1, 0);
      cat_bits.clear();
    }
    const uint32_t at = cat_offset[n], old = cat_offset[n + 1] - at;
    cat_bits.erase(cat_bits.begin() + at, cat_bits.begin() + at + old);
    cat_bits.insert(cat_bits.begin() + at, words, words + nwords);
    for (size_t i = (size_t)n + 1; i < cat_offset.size(); ++i) cat_offset[i] = cat_offset[i] - old + nwords;
    split_type[n] = kind;
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
    if (!split_type.empty()) {
      split_type.push_back(0);
      cat_offset.push_back(cat_offset.back());
    }
    return (int32_t)left.size() - 1;
  }
};

}  // namespace gbdt
