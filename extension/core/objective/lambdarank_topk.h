// The topk pair loop of LambdaRank (rank:ndcg and rank:pairwise) for one
// query group, on arrays in rank order: the bulk of a ranking round when
// groups are large (each of the first k documents paired with every one
// below it: ~k x documents pairs a group).  lambdarank.cpp gathers a
// group's labels, margins and gains by rank position, prepares a TopkPairs
// for it, calls block() for each row i < k in blocks of documents (polling
// for cancel between blocks) and scatters the sums back to the group's rows.
//
// The pairs of row i are those (i, j), j > i, whose labels differ, in
// ascending j; each adds its lambda and hessian to both documents' sums in
// that order, as the plain pair loop does, so the sums have the same bits
// whichever path computes them.  A row's partners are a suffix of the list
// of the group's documents of another label (one list per label among the
// top rows, their values side by side), so with AVX2 their terms are
// computed four at a time from contiguous arrays (det_exp on vectors,
// common/det_exp_avx2.h), then added to the sums one by one in pair order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gbdt {

// One group's arrays by rank position (0 = the highest margin).
struct TopkGroup {
  size_t cnt = 0;
  const float* y = nullptr;      // labels
  const double* s = nullptr;     // margins (the float margins as doubles)
  const double* gain = nullptr;  // NDCG gains (2^y - 1 or y); null: rank:pairwise (|delta| = 1)
  const double* disc = nullptr;  // 1 / log2(position + 2)
  double inv_idcg = 0.0;         // rank:ndcg: 1 / ideal DCG@k (0 when it is 0)
  bool norm_by_diff = false;     // lambdarank_score_normalization and the margins not all equal
  double* g = nullptr;           // gradient sums, zeroed before row 0
  double* h = nullptr;           // hessian sums
};

// The pair loop of one group, reused from group to group (its buffers).
class TopkPairs {
 public:
  // The partner lists of rows 0 .. top-1 of t (t's arrays stay in use).
  void prepare(const TopkGroup& t, size_t top);
  // The pairs (i, j) of row i with j0 <= j < j1 (i < j0, i < top): adds
  // their terms to t.g and t.h and returns sum_lambda plus their
  // -2 x lambda, added in pair order.
  double block(size_t i, size_t j0, size_t j1, double sum_lambda);
  // The partner lists prepare() built (each a pass over the group).
  size_t lists() const { return n_lists_; }

 private:
  // The documents whose label is not `label`, ascending, with their values.
  struct Partners {
    float label = 0;
    size_t n = 0;
    std::vector<uint32_t> pos;
    std::vector<double> y, s, gain, disc;
  };
  TopkGroup t_;
  std::vector<Partners> lists_;      // one per label among the top rows (the first n_lists_)
  size_t n_lists_ = 0;
  std::vector<uint32_t> list_of_;    // top row -> its list
  std::vector<double> cg_, ch_, cl_;  // one block's terms
};

}  // namespace gbdt
