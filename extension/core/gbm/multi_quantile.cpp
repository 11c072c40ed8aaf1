#include "multi_quantile.h"

#include <cstdlib>
#include <stdexcept>

#include "../common/interruptible.h"
#include "params.h"

namespace gbdt {

std::vector<double> model_quantile_alphas(const Model& m) {
  for (const auto& kv : m.params) {
    if (kv.first != "quantile_alpha") continue;
    TrainParams p;
    apply_params({{"quantile_alpha", kv.second, false}}, &p);
    if (p.quantile_alphas.size() > 1) return p.quantile_alphas;
    return {p.quantile_alpha};
  }
  return {0.5};
}

double multi_quantile_metric(const double* pred, const float* y, size_t n, const float* w,
                             const std::vector<double>& alphas) {
  const size_t K = alphas.size();
  double s = 0, sw = 0;
  for (size_t i = 0; i < n; ++i) {
    const double wi = w ? (double)w[i] : 1.0;
    double row = 0;
    for (size_t k = 0; k < K; ++k) {
      const double d = (double)y[i] - pred[i * K + k];
      row += d >= 0 ? alphas[k] * d : (alphas[k] - 1) * d;
    }
    s += wi * row;
    sw += wi;
  }
  return sw > 0 ? s / (sw * (double)K) : 0.0;
}

namespace {

class MultiQuantileBackend : public TreeBackend {
 public:
  MultiQuantileBackend(const BoostData& data, const BackendFactory& make,
                       const std::vector<double>& alphas)
      : alphas_(alphas), cancel_(data.cancel) {
    for (size_t k = 0; k < alphas_.size(); ++k) subs_.push_back(make(one_output(data, k)));
  }

  std::string name() const override { return subs_[0]->name(); }

  void init(const BoostData& data, const std::vector<float>& init_margins) override {
    const size_t n = data.n_rows, K = alphas_.size();
    if (init_margins.size() != n * K)
      throw std::logic_error("multi-quantile margins do not match rows x quantiles");
    n_ = n;
    std::vector<float> col(n);
    // Each output's start copies and may bin its rows again: a poll per output.
    CancelPoller poll(data.cancel);
    for (size_t k = 0; k < K; ++k) {
      poll.tick(n + 1);
      for (size_t r = 0; r < n; ++r) col[r] = init_margins[r * K + k];
      subs_[k]->init(one_output(data, k), col);
    }
  }

  void boost_round(int round, const std::vector<uint8_t>& feature_mask,
                   std::vector<Tree>* out) override {
    for (auto& b : subs_) {
      check_cancel(cancel_);
      std::vector<Tree> t;
      b->boost_round(round, feature_mask, &t);
      if (t.size() != 1) throw std::logic_error("a single-output backend grew other than one tree");
      out->push_back(std::move(t[0]));
    }
  }

  void margins(std::vector<float>* out) override {
    const size_t K = alphas_.size();
    out->assign(n_ * K, 0.0f);
    std::vector<float> col;
    // Scattering each output into its column misses the cache on every
    // row: a poll per output.
    CancelPoller poll(cancel_);
    for (size_t k = 0; k < K; ++k) {
      poll.tick(n_ + 1);
      subs_[k]->margins(&col);
      for (size_t r = 0; r < n_ && r < col.size(); ++r) (*out)[r * K + k] = col[r];
    }
  }

  std::vector<std::pair<std::string, double>> phase_seconds() const override {
    std::vector<std::pair<std::string, double>> sum;
    for (const auto& b : subs_) {
      auto ph = b->phase_seconds();
      if (sum.empty()) {
        sum = ph;
        continue;
      }
      for (size_t i = 0; i < ph.size() && i < sum.size(); ++i) sum[i].second += ph[i].second;
    }
    return sum;
  }

 private:
  BoostData one_output(const BoostData& data, size_t k) const {
    BoostData d = data;
    d.num_group = 1;
    d.grad.quantile_alpha = alphas_[k];
    return d;
  }

  std::vector<double> alphas_;
  CancelFn cancel_;
  std::vector<std::unique_ptr<TreeBackend>> subs_;
  size_t n_ = 0;
};

}  // namespace

std::unique_ptr<TreeBackend> make_multi_quantile_backend(const BoostData& data,
                                                         const BackendFactory& make,
                                                         const std::vector<double>& alphas) {
  return std::unique_ptr<TreeBackend>(new MultiQuantileBackend(data, make, alphas));
}

}  // namespace gbdt
