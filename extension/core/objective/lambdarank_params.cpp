// Ranking parameters, objective names and the training-time checks of
// ranking (see ranking.h).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "../common/common.h"
#include "objective.h"
#include "lambdarank.h"

namespace gbdt {

bool is_rank_objective(Objective o) {
  const int c = (int)o;
  return c >= 0 && c < kNumObjectives && objective_info(o).ranking;
}

RankParams rank_params_of(const TrainParams& p) {
  RankParams r;
  r.topk = p.rank_pair_topk;
  r.num_pair = p.rank_num_pair > 0 ? p.rank_num_pair : (p.rank_pair_topk ? 32 : 1);
  r.exp_gain = p.ndcg_exp_gain;
  r.normalization = p.lambdarank_normalization;
  r.score_normalization = p.lambdarank_score_normalization;
  return r;
}

namespace {

std::string fmt_num(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

}  // namespace

std::string rank_default_metric(const TrainParams& p) {
  const RankParams r = rank_params_of(p);
  std::string base = p.objective == Objective::kRankMap ? "map" : "ndcg";
  return r.topk ? base + "@" + std::to_string(r.num_pair) : base;
}

void check_rank_labels(const float* y, size_t n, const TrainParams& p,
                       const std::string& target) {
  const char* name = objective_name(p.objective);
  for (size_t i = 0; i < n; ++i) {
    const float v = y[i];
    if (p.objective == Objective::kRankMap) {
      if (v != 0.0f && v != 1.0f)
        throw InvalidInput("target column \"" + target + "\" has value " + fmt_num(v) +
                           ": rank:map needs binary relevance labels 0 or 1");
    } else if (p.ndcg_exp_gain) {
      if (v < 0 || v != std::floor(v) || v > 31)
        throw InvalidInput("target column \"" + target + "\" has value " + fmt_num(v) + ": " +
                           name + " with ndcg_exp_gain needs relevance degrees 0, 1, ..., 31 "
                           "(set ndcg_exp_gain to false for other gains)");
    } else if (v < 0) {
      throw InvalidInput("target column \"" + target + "\" has value " + fmt_num(v) + ": " +
                         name + " needs relevance labels >= 0");
    }
  }
}

void prepare_ranking(TrainParams* p, const float* y, size_t n, bool has_groups,
                     const std::string& target) {
  const bool grouped = !p->group_column.empty() || has_groups;
  if (!p->objective_set && grouped) {
    p->objective = Objective::kRankNDCG;
    p->objective_set = true;
  }
  const bool rank = is_rank_objective(p->objective);
  // eval_metric is a comma-separated list: each name is checked.
  const std::vector<std::string> metrics = split_metrics(p->eval_metric);
  if (!rank) {
    if (grouped)
      throw InvalidInput(std::string("parameter \"group_column\" is only for the ranking "
                                     "objectives rank:ndcg, rank:pairwise and rank:map, not ") +
                         objective_name(p->objective));
    for (const std::string& m : metrics)
      if (is_rank_metric(m))
        throw InvalidInput("parameter \"eval_metric\" = \"" + m +
                           "\" needs query groups: use a ranking objective with group_column");
    return;
  }
  const char* name = objective_name(p->objective);
  if (!has_groups)
    throw InvalidInput(std::string("objective ") + name +
                       " needs query groups: pass group_column => the column that identifies "
                       "the query of each row (params '{\"group_column\": \"qid\"}')");
  for (const std::string& m : metrics)
    if (!is_rank_metric(m))
      throw InvalidInput("parameter \"eval_metric\" = \"" + m + "\" is not a ranking "
                         "metric: objective " + name + " takes ndcg, ndcg@k, map, map@k, pre, pre@k");
  // The labels: check_rank_labels, through the objective's check_labels
  // (resolve_objective in trainer.cpp).
  (void)y;
  (void)n;
  (void)target;
}

QueryGroups make_query_groups(const uint32_t* codes, size_t n) {
  if (codes == nullptr && n > 0)
    throw InvalidInput("the ranking rows have no query groups (group_column)");
  QueryGroups q;
  uint32_t ng = 0;
  for (size_t i = 0; i < n; ++i) ng = std::max(ng, codes[i] + 1);
  std::vector<uint32_t> cnt((size_t)ng + 1, 0);
  for (size_t i = 0; i < n; ++i) cnt[codes[i] + 1]++;
  q.ptr.assign((size_t)ng + 1, 0);
  for (uint32_t g = 0; g < ng; ++g) q.ptr[g + 1] = q.ptr[g] + cnt[g + 1];
  // Codes present in the rows only (a validation split leaves gaps).
  std::vector<uint32_t> pos(q.ptr.begin(), q.ptr.end() - 1);
  q.rows.resize(n);
  for (size_t i = 0; i < n; ++i) q.rows[pos[codes[i]]++] = (uint32_t)i;
  std::vector<uint32_t> ptr{0};
  for (uint32_t g = 0; g < ng; ++g)
    if (q.ptr[g + 1] > q.ptr[g]) ptr.push_back(q.ptr[g + 1]);
  q.ptr.swap(ptr);
  return q;
}

}  // namespace gbdt
