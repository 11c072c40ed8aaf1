#include "dropin_params.h"

#include <algorithm>
#include <cctype>

#include "../common/common.h"
#include "../objective/objective.h"

namespace gbdt {
namespace {

std::string lower(const std::string& s) {
  std::string r = s;
  for (char& c : r) c = (char)std::tolower((unsigned char)c);
  return r;
}

// Optimal string alignment distance, with early exit once every entry of a
// row passes `limit` (keys are short, but a hostile key may be long: the
// caller caps its length first).
size_t osa_distance(const std::string& a, const std::string& b, size_t limit) {
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > limit) return limit + 1;
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      size_t v = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        v = std::min(v, prev2[j - 2] + 1);
      cur[j] = v;
      row_min = std::min(row_min, v);
    }
    if (row_min > limit) return limit + 1;
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[m];
}

const ParamKV* find_kv(const std::vector<ParamKV>& kvs, const char* key) {
  const ParamKV* r = nullptr;
  for (const ParamKV& kv : kvs)
    if (kv.key == key) r = &kv;  // the last wins, as apply_params
  return r;
}

}  // namespace

std::string nearest_param_name(const std::string& key, const std::vector<std::string>& names) {
  // Names are at most a few dozen bytes: a longer key is no typo of one.
  if (key.empty() || key.size() > 64) return "";
  const std::string k = lower(key);
  const size_t limit = std::min<size_t>(3, std::max<size_t>(1, k.size() / 3));
  std::string best;
  size_t best_d = limit + 1;
  for (const std::string& n : names) {
    const size_t d = osa_distance(k, lower(n), limit);
    if (d < best_d) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

void check_dropin_params(const std::vector<ParamKV>& kvs, TrainParams* p) {
  // LightGBM grows leaf-wise: num_leaves is max_leaves with lossguide.
  const ParamKV* leaves = find_kv(kvs, "num_leaves");
  const ParamKV* policy = find_kv(kvs, "grow_policy");
  if (leaves != nullptr) {
    if (policy != nullptr && policy->value != "lossguide")
      throw InvalidInput("parameters \"num_leaves\" and \"grow_policy\" = \"" + policy->value +
                         "\" conflict: num_leaves grows trees leaf-wise (grow_policy "
                         "lossguide); give max_leaves for a depthwise limit");
    p->lossguide = true;
  }
  const ParamKV* depth = find_kv(kvs, "max_depth");
  if (depth != nullptr && depth->value == "-1" && !p->lossguide)
    throw InvalidInput("parameter \"max_depth\" = -1 (no depth limit) needs grow_policy "
                       "lossguide and max_leaves > 0 (LightGBM's num_leaves sets both)");
  // bagging_freq 0 turns LightGBM's bagging off: a bagging_fraction below 1
  // would then mean nothing there but sample rows here.
  const ParamKV* freq = find_kv(kvs, "bagging_freq");
  if (freq == nullptr) freq = find_kv(kvs, "subsample_freq");
  if (freq != nullptr && freq->value == "0" && p->subsample < 1.0)
    throw InvalidInput("parameters \"" + freq->key +
                       "\" = 0 and a row sample below 1 conflict: bagging_freq 0 turns bagging "
                       "off; give bagging_freq 1 or leave bagging_fraction (subsample) out");
  if (p->is_unbalance) {
    if (find_kv(kvs, "scale_pos_weight") != nullptr)
      throw InvalidInput("parameters \"is_unbalance\" and \"scale_pos_weight\" both set the "
                         "weight of the positive rows: give only one of them");
    if (p->objective_set && !objective_info(p->objective).binary)
      throw InvalidInput(std::string("parameter \"is_unbalance\" needs a binary objective, got ") +
                         objective_info(p->objective).name);
  }
}

}  // namespace gbdt
