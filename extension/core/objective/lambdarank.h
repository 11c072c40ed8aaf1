// Learning to rank with query groups (XGBoost 3.x rank:pairwise, rank:ndcg,
// rank:map): the query groups of the training rows, LambdaMART gradients
// computed on the host (one implementation for the CPU and CUDA backends,
// handed to them through BoostData::external_gradients), the ranking
// metrics (ndcg@k, map@k, pre@k) and the ranking parameters.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../common/common.h"
#include "../gbm/params.h"

namespace gbdt {

// The objectives whose registry entry (objective.h) is a ranking one:
// rank:pairwise, rank:ndcg, rank:map (objective_ranking.cpp).
bool is_rank_objective(Objective o);

// The lambdarank parameters in effect (XGBoost's LambdaRankParam).
struct RankParams {
  bool topk = true;          // lambdarank_pair_method = topk (else mean)
  int num_pair = 32;         // lambdarank_num_pair_per_sample in effect
  bool exp_gain = true;      // ndcg_exp_gain: gain 2^rel - 1 (else rel)
  bool normalization = true;        // lambdarank_normalization
  bool score_normalization = true;  // lambdarank_score_normalization
};
RankParams rank_params_of(const TrainParams& p);

// ---- query groups ----
// Rows of each query group: group g's rows are rows[ptr[g] .. ptr[g+1]),
// ascending (their order in the relation).  Groups are numbered in the
// order of their first row.
struct QueryGroups {
  std::vector<uint32_t> ptr{0};
  std::vector<uint32_t> rows;
  size_t size() const { return ptr.size() - 1; }
};
// From a dense code per row (0 .. G-1, first appearance order).  Rows
// without codes (codes null, n > 0: a ranking training given no query
// groups) are an InvalidInput.
QueryGroups make_query_groups(const uint32_t* codes, size_t n);

// ---- weights (XGBoost: one weight per query group) ----
// The weight of each group from row weights (`w`: one per row; null: none,
// the result is empty).  Every row of a group must carry the same weight:
// throws InvalidInput naming the weight column, the group (its number in
// first-appearance order) and the two weights otherwise.
std::vector<double> rank_group_weights(const QueryGroups& groups, const float* w,
                                       const std::string& weight_column = "weight");

// ---- training setup ----
// The label rule of the ranking objectives (ObjectiveInfo::check_labels):
// relevance degrees, integers >= 0, at most 31 with ndcg_exp_gain
// (>= 0 without); rank:map: 0 or 1.  Throws InvalidInput naming target.
void check_rank_labels(const float* y, size_t n, const TrainParams& p, const std::string& target);
// Defaults the objective to rank:ndcg when group_column is given without one;
// throws InvalidInput when group_column is given with a non-ranking
// objective, a ranking objective comes without it, or eval_metric names a
// ranking metric without a ranking objective (or another metric with one).
// The labels are checked after it by the objective's check_labels
// (check_rank_labels).  `has_groups`: the input carries group codes.
void prepare_ranking(TrainParams* p, const float* labels, size_t n, bool has_groups,
                     const std::string& target);
// The default eval metric: ndcg@k (rank:ndcg, rank:pairwise) or map@k
// (rank:map) with k the truncation for topk, plain ndcg / map for mean.
std::string rank_default_metric(const TrainParams& p);

// ---- gradients ----
// The most document pairs one round may form over all query groups (about
// 4.3 billion; a round of that many pairs takes minutes on one thread).  A
// ranking training over real query lists stays below it: 30,000 queries of
// 300 documents paired in full form 1.35 billion.
constexpr uint64_t kMaxRankPairsPerRound = uint64_t(1) << 32;
// The pairs one round forms (LambdaRank's pair loops, counted from the
// group sizes and labels): topk, each of the first min(k, n) of a group's n
// documents with every one below it; mean, k partners per document of a
// group with two relevance levels or more.
uint64_t rank_pairs_per_round(const QueryGroups& groups, const float* labels, const RankParams& rp);

// LambdaMART gradient and hessian of every row of the groups for the
// current margins; pairs of topk: each of the first num_pair documents
// (ranked by margin, ties in row order) with every document below it;
// mean: num_pair random partners per document from outside its relevance
// bucket, drawn with a generator seeded by (seed, round, group).  Groups
// are independent, so the result is the same whatever nthread.  A training
// whose rounds would form more than kMaxRankPairsPerRound pairs is refused
// (InvalidInput naming lambdarank_num_pair_per_sample).
class LambdaRank {
 public:
  // `weights`: row weights (null: unweighted), one per group in effect
  // (rank_group_weights).  A group's gradients and hessians are scaled by
  // w_g * G / sum(w) after the lambda normalization (XGBoost 3.x).
  LambdaRank(Objective obj, const RankParams& rp, QueryGroups groups, const float* labels,
             uint64_t seed, int nthread, const float* weights = nullptr);
  ~LambdaRank();
  LambdaRank(const LambdaRank&) = delete;
  LambdaRank& operator=(const LambdaRank&) = delete;
  // grad/hess: one double per training row.  `cancel` is polled on the
  // calling thread inside the groups' pair loops (and while it waits for
  // the worker threads, which stop at their next check once it saw a
  // cancel); throws Cancelled.
  void gradients(int round, const float* margins, double* grad, double* hess,
                 const CancelFn& cancel = CancelFn());

 private:
  struct Impl;
  Impl* impl_;
};

// ---- metrics ----
// ndcg, ndcg@k, map, map@k, pre, pre@k, each with an optional trailing '-'
// (groups without relevant documents score 0 instead of 1).
bool is_rank_metric(const std::string& name);
// The mean over groups of the metric, predictions ranked descending (ties
// keep row order).  exp_gain: NDCG gain 2^rel - 1 (else rel).  `weights`
// (row weights, null: none): the mean is weighted by the group weights
// (rank_group_weights), sum(w_g * metric_g) / sum(w_g), as XGBoost's (whose
// ndcg adds a group without relevant documents unweighted: 1, or 0 with
// '-'); when every group weighs 0 the plain mean.  map@k: the precisions at the
// relevant documents of the top k over min(k, relevant documents).
double rank_metric(const std::string& name, const QueryGroups& groups, const double* pred,
                   const float* labels, bool exp_gain, const float* weights = nullptr);
// rank_metric with the groups given by a code per row.
double rank_metric_codes(const std::string& name, const uint32_t* codes, size_t n,
                         const double* pred, const float* labels, bool exp_gain,
                         const float* weights = nullptr);

}  // namespace gbdt
