// several quantiles in one reg:quantileerror model (XGBoost 2+'s
// quantile_alpha list): one output per alpha, in the list's order, each
// output's trees fit to its own alpha's gradients and refit to its own
// residual quantile, each output's intercept its alpha-quantile of the
// labels (XGBoost 3.x's vector base_score).  Since an output's gradients
// depend only on its own margins, the outputs are trained by one
// single-output backend per alpha behind one TreeBackend of K outputs; the
// rows and columns sampled in a round are the same for every output.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../tree/tree_backend.h"
#include "../model/model.h"

namespace gbdt {

// Several quantiles: objective reg:quantileerror with a list of more than one.
inline bool is_multi_quantile(const TrainParams& p) {
  return p.objective == Objective::kQuantile && p.quantile_alphas.size() > 1;
}

// The quantiles of a model: its recorded quantile_alpha list (several
// outputs), else the one alpha (0.5 when not recorded).
std::vector<double> model_quantile_alphas(const Model& m);

// XGBoost's quantile metric with several alphas: the pinball loss averaged
// over rows (weighted) and alphas; pred is n x K row-major, K = alphas.size().
double multi_quantile_metric(const double* pred, const float* y, size_t n, const float* w,
                             const std::vector<double>& alphas);

// A TreeBackend of K = alphas.size() outputs made of K single-output
// backends (made by `make` from `data` with num_group 1 and alpha k):
// boost_round appends one tree per output, in output order.
using BackendFactory = std::function<std::unique_ptr<TreeBackend>(const BoostData&)>;
std::unique_ptr<TreeBackend> make_multi_quantile_backend(const BoostData& data,
                                                         const BackendFactory& make,
                                                         const std::vector<double>& alphas);

}  // namespace gbdt
