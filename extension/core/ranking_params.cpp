// Ranking parameters, objective names and the training-time checks of
// ranking (see ranking.h).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common.h"
#include "ranking.h"

namespace gbdt {

bool is_rank_objective(Objective o) {
  return o == Objective::kRankPairwise || o == Objective::kRankNDCG || o == Objective::kRankMap;
}

bool parse_rank_objective(const std::string& n, Objective* out) {
  if (n == "rank:ndcg" || n == "lambdarank") {
    *out = Objective::kRankNDCG;
  } else if (n == "rank:pairwise") {
    *out = Objective::kRankPairwise;
  } else if (n == "rank:map") {
    *out = Objective::kRankMap;
  } else {
    return false;
  }
  return true;
}

const char* rank_objective_name(Objective o) {
  switch (o) {
    case Objective::kRankPairwise: return "rank:pairwise";
    case Objective::kRankNDCG: return "rank:ndcg";
    case Objective::kRankMap: return "rank:map";
    default: return nullptr;
  }
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

bool rank_bool(const ParamKV& kv) {
  const std::string& v = kv.value;
  if (v == "true" || v == "1" || v == "on" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "off" || v == "no") return false;
  throw InvalidInput("parameter \"" + kv.key + "\" must be a boolean (true or false), got \"" + v +
                     "\"");
}

std::string fmt_num(double v) {
  std::ostringstream o;
  o.precision(10);
  o << v;
  return o.str();
}

}  // namespace

bool apply_rank_param(const ParamKV& kv, TrainParams* p) {
  const std::string& k = kv.key;
  if (k == "group_column" || k == "qid_column") {
    if (kv.value.empty())
      throw InvalidInput("parameter \"" + k +
                         "\" must be the name of the query-group column (a non-empty string)");
    p->group_column = kv.value;
  } else if (k == "lambdarank_pair_method") {
    if (kv.value != "topk" && kv.value != "mean")
      throw InvalidInput("parameter \"lambdarank_pair_method\" = \"" + kv.value +
                         "\" is not supported: must be topk or mean");
    p->rank_pair_topk = kv.value == "topk";
  } else if (k == "lambdarank_num_pair_per_sample") {
    const char* s = kv.value.c_str();
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(s, &end);
    if (kv.value.empty() || end == s || *end != '\0' || errno == ERANGE || !std::isfinite(v) ||
        v != std::floor(v) || v < 1 || v > 1000000)
      throw InvalidInput("parameter \"lambdarank_num_pair_per_sample\" = " + kv.value +
                         " is out of range: must be an integer in [1, 1000000]");
    p->rank_num_pair = (int)v;
  } else if (k == "ndcg_exp_gain") {
    p->ndcg_exp_gain = rank_bool(kv);
  } else if (k == "lambdarank_normalization") {
    p->lambdarank_normalization = rank_bool(kv);
  } else if (k == "lambdarank_score_normalization") {
    p->lambdarank_score_normalization = rank_bool(kv);
  } else if (k == "lambdarank_unbiased") {
    if (rank_bool(kv))
      throw InvalidInput("parameter \"lambdarank_unbiased\" = true is not supported: only false "
                         "(position-debiased LambdaMART is not implemented)");
  } else {
    return false;
  }
  return true;
}

void rank_params_to_kv(const TrainParams& p, std::vector<std::pair<std::string, std::string>>* out) {
  if (!is_rank_objective(p.objective)) return;
  if (!p.group_column.empty()) out->emplace_back("group_column", p.group_column);
  out->emplace_back("lambdarank_pair_method", p.rank_pair_topk ? "topk" : "mean");
  out->emplace_back("lambdarank_num_pair_per_sample", std::to_string(rank_params_of(p).num_pair));
  out->emplace_back("ndcg_exp_gain", p.ndcg_exp_gain ? "true" : "false");
  if (!p.lambdarank_normalization) out->emplace_back("lambdarank_normalization", "false");
  if (!p.lambdarank_score_normalization)
    out->emplace_back("lambdarank_score_normalization", "false");
}

std::string rank_default_metric(const TrainParams& p) {
  const RankParams r = rank_params_of(p);
  std::string base = p.objective == Objective::kRankMap ? "map" : "ndcg";
  return r.topk ? base + "@" + std::to_string(r.num_pair) : base;
}

void prepare_ranking(TrainParams* p, const float* y, size_t n, bool has_groups,
                     const std::string& target) {
  const bool grouped = !p->group_column.empty() || has_groups;
  if (!p->objective_set && grouped) {
    p->objective = Objective::kRankNDCG;
    p->objective_set = true;
  }
  const bool rank = is_rank_objective(p->objective);
  if (!rank) {
    if (grouped)
      throw InvalidInput(std::string("parameter \"group_column\" is only for the ranking "
                                     "objectives rank:ndcg, rank:pairwise and rank:map, not ") +
                         objective_name(p->objective));
    if (!p->eval_metric.empty() && is_rank_metric(p->eval_metric))
      throw InvalidInput("parameter \"eval_metric\" = \"" + p->eval_metric +
                         "\" needs query groups: use a ranking objective with group_column");
    return;
  }
  const char* name = objective_name(p->objective);
  if (!has_groups)
    throw InvalidInput(std::string("objective ") + name +
                       " needs query groups: pass group_column => the column that identifies "
                       "the query of each row (params '{\"group_column\": \"qid\"}')");
  if (!p->eval_metric.empty() && !is_rank_metric(p->eval_metric))
    throw InvalidInput("parameter \"eval_metric\" = \"" + p->eval_metric + "\" is not a ranking "
                       "metric: objective " + name + " takes ndcg, ndcg@k, map, map@k, pre, pre@k");
  for (size_t i = 0; i < n; ++i) {
    const float v = y[i];
    if (p->objective == Objective::kRankMap) {
      if (v != 0.0f && v != 1.0f)
        throw InvalidInput("target column \"" + target + "\" has value " + fmt_num(v) +
                           ": rank:map needs binary relevance labels 0 or 1");
    } else if (p->ndcg_exp_gain) {
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

QueryGroups make_query_groups(const uint32_t* codes, size_t n) {
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
