// The topk pair loop of LambdaRank (rank:ndcg and rank:pairwise) for one
// query group, on arrays in rank order: the bulk of a ranking round when
// groups are large (each of the first k documents paired with every one
// below it: ~k x documents pairs a group).  lambdarank.cpp gathers a
// group's labels, margins and gains by rank position, calls topk_block() for
// each row i < k in blocks of documents (polling for cancel between blocks)
// and scatters the sums back to the group's rows.
//
// The pairs of row i are those (i, j), j > i, whose labels differ, in
// ascending j; each adds its lambda and hessian to both documents' sums in
// that order, as the plain pair loop does, so the sums have the same bits
// whichever path computes them.  With AVX2 four pairs are computed at once
// (det_exp on vectors, common/det_exp_avx2.h), their terms added
// to the row's sums one by one in pair order.
#pragma once
#include <cstddef>
#include <cstdint>

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
  uint32_t* scratch = nullptr;   // cnt entries: the partners of one block
};

// The pairs (i, j) of row i with j0 <= j < j1 (i < j0): adds their terms to
// g and h and returns sum_lambda plus their -2 x lambda, added in pair order.
double topk_block(const TopkGroup& t, size_t i, size_t j0, size_t j1, double sum_lambda);

}  // namespace gbdt
