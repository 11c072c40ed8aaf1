// Helpers shared by the engine unit tests: deterministic synthetic data and
// one-call training.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/common.h"
#include "objective/gradients.h"
#include "model/model.h"
#include "gbm/params.h"
#include "predictor/predict.h"
#include "gbm/trainer.h"

namespace gbdt_test {

// Puts the default scoring kernel back when a test that picks one ends.
struct KernelRestore {
  ~KernelRestore() { gbdt::set_predict_kernel_for_tests(0); }
};

// Uniform in [0, 1) from a counter: same numbers on every platform.
inline double unif(uint64_t seed, uint64_t i) {
  return (double)(gbdt::mix64(gbdt::mix64(seed) ^ i) >> 11) * (1.0 / 9007199254740992.0);
}

// Column-major data set with labels.
struct Data {
  size_t n = 0;
  int d = 0;
  std::vector<std::vector<float>> cols;
  std::vector<float> y;
  std::vector<std::string> names;

  gbdt::TrainInput input() const {
    gbdt::TrainInput in;
    in.features.n_rows = n;
    for (const auto& c : cols) in.features.columns.push_back(c.data());
    in.labels = y.data();
    in.feature_names = names;
    in.feature_types.assign((size_t)d, gbdt::FeatureType::kFloat);
    return in;
  }
  // Row-major copy of row r.
  std::vector<float> row(size_t r) const {
    std::vector<float> x((size_t)d);
    for (int f = 0; f < d; ++f) x[f] = cols[f][r];
    return x;
  }
  std::vector<float> row_major() const {
    std::vector<float> x(n * (size_t)d);
    for (size_t r = 0; r < n; ++r)
      for (int f = 0; f < d; ++f) x[r * d + f] = cols[f][r];
    return x;
  }
};

enum class Task { kRegression, kBinary, kMulticlass, kCount };

// Features uniform in [-1, 1), `missing` fraction NaN; the label is a fixed
// nonlinear function of the first features plus noise.
inline Data make_data(size_t n, int d, Task task, double missing = 0.0, uint64_t seed = 1) {
  Data D;
  D.n = n;
  D.d = d;
  D.cols.assign((size_t)d, std::vector<float>(n));
  D.y.resize(n);
  for (int f = 0; f < d; ++f) D.names.push_back("f" + std::to_string(f));
  for (size_t r = 0; r < n; ++r) {
    double x[8] = {0};
    for (int f = 0; f < d; ++f) {
      double v = unif(seed * 1000 + (uint64_t)f, r) * 2.0 - 1.0;
      if (f < 8) x[f] = v;
      bool miss = missing > 0 && unif(seed * 7777 + (uint64_t)f, r) < missing;
      D.cols[f][r] = miss ? NAN : (float)v;
    }
    double noise = unif(seed ^ 0xABCDEFULL, r) - 0.5;
    double s = 2.0 * x[0] + std::sin(3.0 * x[1]) + x[2] * x[3] + 0.3 * noise;
    switch (task) {
      case Task::kRegression: D.y[r] = (float)s; break;
      case Task::kBinary: D.y[r] = s + 0.5 * noise > 0 ? 1.0f : 0.0f; break;
      case Task::kMulticlass: {
        int c = s < -1.0 ? 0 : s < 0.0 ? 1 : s < 1.0 ? 2 : 3;
        D.y[r] = (float)c;
        break;
      }
      case Task::kCount: D.y[r] = (float)std::floor(std::exp(0.5 * s) * (1.0 + noise)); break;
    }
  }
  return D;
}

inline gbdt::TrainParams params_for(Task task, int rounds = 10, int nthread = 1) {
  gbdt::TrainParams p;
  p.num_round = rounds;
  p.nthread = nthread;
  p.objective_set = true;
  switch (task) {
    case Task::kRegression: p.objective = gbdt::Objective::kSquaredError; break;
    case Task::kBinary: p.objective = gbdt::Objective::kLogistic; break;
    case Task::kMulticlass: p.objective = gbdt::Objective::kSoftprob; break;
    case Task::kCount: p.objective = gbdt::Objective::kPoisson; break;
  }
  return p;
}

inline gbdt::Model train(const Data& D, const gbdt::TrainParams& p) {
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  return gbdt::train_model(D.input(), p, hooks, "label");
}

// Predictions after transform, n x K.
inline std::vector<double> predict_all(const gbdt::Model& m, const Data& D, int nthread = 1) {
  std::vector<float> x = D.row_major();
  std::vector<double> out(D.n * (size_t)m.num_output_group);
  gbdt::predict_batch(m, x.data(), D.n, out.data(), nthread);
  return out;
}

}  // namespace gbdt_test
