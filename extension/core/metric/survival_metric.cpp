// gbdt_evaluate's metrics of a survival:aft model (see survival.h):
// aft-nloglik and interval-regression-accuracy of the predicted times
// against the rows' intervals [lower, upper], with the model's distribution.
#include <cmath>
#include <cstdlib>

#include "../common/common.h"
#include "../model/model.h"
#include "../objective/survival.h"

namespace gbdt {

std::vector<std::pair<std::string, double>> evaluate_aft(const Model& m, const double* pred,
                                                         const float* lower,
                                                         const float* upper, size_t n,
                                                         const std::string& target,
                                                         const std::string& upper_column) {
  int dist = 0;
  double sigma = 1.0;
  for (const auto& kv : m.params) {
    if (kv.first == "aft_loss_distribution" && !parse_aft_distribution(kv.second, &dist))
      throw InvalidInput("the model's aft_loss_distribution \"" + kv.second +
                         "\" is not one of normal, logistic, extreme");
    if (kv.first == "aft_loss_distribution_scale") sigma = std::strtod(kv.second.c_str(), nullptr);
  }
  check_aft_bounds(lower, upper, n, target, upper_column);
  // The metrics read margins (XGBoost's): the predicted times' logs.
  std::vector<double> margin(pred, pred + n);
  for (double& v : margin) v = std::log(v);
  std::vector<std::pair<std::string, double>> r;
  for (const char* name : {"aft-nloglik", "interval-regression-accuracy"})
    r.emplace_back(name, interval_metric(name, margin.data(), lower, upper, n, nullptr, dist, sigma));
  return r;
}

}  // namespace gbdt
