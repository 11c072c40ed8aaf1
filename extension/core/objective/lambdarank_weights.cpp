// Weights of the ranking objectives (XGBoost: one weight per query group):
// the group weights from the row weights.  See ranking.h.
#include <sstream>

#include "../common/common.h"
#include "lambdarank.h"

namespace gbdt {

namespace {

std::string fmt_weight(float v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}

}  // namespace

std::vector<double> rank_group_weights(const QueryGroups& groups, const float* w,
                                       const std::string& weight_column) {
  std::vector<double> out;
  if (w == nullptr) return out;
  const size_t ng = groups.size();
  out.resize(ng);
  for (size_t g = 0; g < ng; ++g) {
    const uint32_t b = groups.ptr[g], e = groups.ptr[g + 1];
    const float first = b < e ? w[groups.rows[b]] : 1.0f;
    for (uint32_t i = b + 1; i < e; ++i) {
      const float x = w[groups.rows[i]];
      if (x != first)
        throw InvalidInput("weight column \"" + weight_column + "\" gives query group " +
                           std::to_string(g + 1) + " (in order of first appearance) two weights, " +
                           fmt_weight(first) + " and " + fmt_weight(x) +
                           ": ranking objectives weigh whole query groups, every row of a group "
                           "needs the same weight");
    }
    out[g] = first;
  }
  return out;
}

}  // namespace gbdt
