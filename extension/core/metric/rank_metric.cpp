// Ranking metrics per query group: ndcg[@k][-], map[@k][-], pre[@k][-]
// (XGBoost's names and semantics).  See ranking.h.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "../common/common.h"
#include "../objective/lambdarank.h"

namespace gbdt {

namespace {

struct MetricSpec {
  enum Kind { kNDCG, kMAP, kPre } kind = kNDCG;
  size_t k = std::numeric_limits<size_t>::max();  // top k (all when not given)
  bool minus = false;  // groups without relevant documents score 0, not 1
};

bool parse_metric(const std::string& name, MetricSpec* out) {
  std::string s = name;
  MetricSpec m;
  if (!s.empty() && s.back() == '-') {
    m.minus = true;
    s.pop_back();
  }
  std::string base = s, ks;
  const size_t at = s.find('@');
  if (at != std::string::npos) {
    base = s.substr(0, at);
    ks = s.substr(at + 1);
    if (ks.empty() || ks.size() > 9 || ks.find_first_not_of("0123456789") != std::string::npos)
      return false;
    m.k = (size_t)std::strtoul(ks.c_str(), nullptr, 10);
    if (m.k == 0) return false;
  }
  if (base == "ndcg")
    m.kind = MetricSpec::kNDCG;
  else if (base == "map")
    m.kind = MetricSpec::kMAP;
  else if (base == "pre")
    m.kind = MetricSpec::kPre;
  else
    return false;
  if (out) *out = m;
  return true;
}

}  // namespace

bool is_rank_metric(const std::string& name) { return parse_metric(name, nullptr); }

double rank_metric(const std::string& name, const QueryGroups& groups, const double* pred,
                   const float* labels, bool exp_gain, const float* weights) {
  MetricSpec m;
  if (!parse_metric(name, &m))
    throw InvalidInput("eval_metric \"" + name + "\" is not a ranking metric: must be ndcg, "
                       "map or pre, optionally with @k and a trailing -");
  auto gain = [exp_gain](float y) {
    return exp_gain ? std::ldexp(1.0, (int)y) - 1.0 : (double)y;
  };
  const size_t ng = groups.size();
  if (ng == 0) return std::nan("");
  const std::vector<double> gw = rank_group_weights(groups, weights);
  double sum_w = 0;
  for (double x : gw) sum_w += x;
  const bool weighted = !gw.empty() && sum_w > 0;
  std::vector<uint32_t> rank;
  std::vector<float> ys;
  double total = 0;
  for (size_t g = 0; g < ng; ++g) {
    const uint32_t* rows = groups.rows.data() + groups.ptr[g];
    const size_t cnt = groups.ptr[g + 1] - groups.ptr[g];
    rank.resize(cnt);
    std::iota(rank.begin(), rank.end(), 0u);
    std::stable_sort(rank.begin(), rank.end(),
                     [&](uint32_t a, uint32_t b) { return pred[rows[a]] > pred[rows[b]]; });
    const size_t k = std::min(cnt, m.k);
    const double empty = m.minus ? 0.0 : 1.0;
    double v = 0;
    bool empty_group = false;
    switch (m.kind) {
      case MetricSpec::kNDCG: {
        double dcg = 0, idcg = 0;
        for (size_t i = 0; i < k; ++i)
          dcg += gain(labels[rows[rank[i]]]) / std::log2((double)i + 2.0);
        ys.clear();
        for (size_t i = 0; i < cnt; ++i) ys.push_back(labels[rows[i]]);
        std::sort(ys.begin(), ys.end(), [](float a, float b) { return a > b; });
        for (size_t i = 0; i < k; ++i) idcg += gain(ys[i]) / std::log2((double)i + 2.0);
        v = idcg > 0 ? dcg / idcg : empty;
        empty_group = !(idcg > 0);
        break;
      }
      case MetricSpec::kMAP: {
        // Precision at each relevant document of the top k, over all the
        // group's relevant documents (XGBoost's map@k).
        double rel = 0, hits = 0, sum = 0;
        for (size_t i = 0; i < cnt; ++i) rel += labels[rows[i]] > 0 ? 1 : 0;
        for (size_t i = 0; i < k; ++i)
          if (labels[rows[rank[i]]] > 0) {
            hits += 1;
            sum += hits / (double)(i + 1);
          }
        v = rel > 0 ? sum / std::min(rel, (double)k) : empty;
        break;
      }
      case MetricSpec::kPre: {
        double hits = 0;
        for (size_t i = 0; i < k; ++i) hits += labels[rows[rank[i]]] > 0 ? 1 : 0;
        v = k > 0 ? hits / (double)k : 0.0;
        break;
      }
    }
    // XGBoost 3.x: a group without relevant documents adds its ndcg (1, or
    // 0 with '-') unweighted; the others add w_g * metric_g.
    const bool unweighted_empty = m.kind == MetricSpec::kNDCG && v == empty && empty_group;
    total += weighted && !unweighted_empty ? gw[g] * v : v;
  }
  return total / (weighted ? sum_w : (double)ng);
}

double rank_metric_codes(const std::string& name, const uint32_t* codes, size_t n,
                         const double* pred, const float* labels, bool exp_gain,
                         const float* weights) {
  return rank_metric(name, make_query_groups(codes, n), pred, labels, exp_gain, weights);
}

}  // namespace gbdt
