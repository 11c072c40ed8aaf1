// What every fuzz target does with a model that passed validation: score it
// (row by row, in a batch and through BatchPredictor, with NaN features),
// evaluate the scores, introspect it, export it, and serialize it again.
// Anything but the engine's own error types, or a crash, hang or sanitizer
// report, is a finding.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "predictor/explain.h"
#include "metric/metrics.h"
#include "model/model.h"
#include "predictor/predict.h"
#include "model/xgb_json.h"

namespace gbdt_fuzz {

[[noreturn]] inline void finding(const char* what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::abort();
}

inline void exercise_model(const gbdt::Model& m) {
  using namespace gbdt;
  const int d = m.n_features();
  const int K = m.num_output_group;
  const size_t n = 4;
  // Rows: zeros, all missing, huge values of both signs, each split's threshold.
  std::vector<float> x(n * (size_t)d, 0.0f);
  for (int f = 0; f < d; ++f) {
    x[1 * (size_t)d + f] = NAN;
    x[2 * (size_t)d + f] = (f & 1) ? 3e38f : -3e38f;
  }
  for (const Tree& t : m.trees)
    for (int32_t nd = 0; nd < t.num_nodes(); ++nd)
      if (!t.is_leaf(nd)) x[3 * (size_t)d + t.feature[nd]] = t.threshold[nd];
  std::vector<double> margins((size_t)K);
  for (size_t r = 0; r < n; ++r) {
    predict_margin_row(m, x.data() + r * d, margins.data());
    try {
      (void)predict_value_row(m, x.data() + r * d);
    } catch (const InvalidInput&) {
      // A model with several quantiles has no one value per row: the
      // documented error (gbdt_predict points to gbdt_predict_quantiles).
    }
  }
  std::vector<double> out(n * (size_t)K), out2(n * (size_t)K);
  predict_batch(m, x.data(), n, out.data(), 1);
  {
    BatchPredictor bp(m, 1);
    std::vector<float> xc = x;
    bp.start(xc.data(), n, out2.data());
    bp.finish();
  }
  // Metrics on the scores: labels the objective accepts.
  std::vector<float> y(n);
  for (size_t r = 0; r < n; ++r) y[r] = (float)(r % (size_t)(K > 1 ? K : 2));
  try {
    (void)evaluate_all(m.objective, K, out.data(), y.data(), n);
  } catch (const InvalidInput&) {
    // NaN scores: an error naming the metric is the documented answer.
  }
  (void)model_info_json(m);
  for (const char* kind : {"gain", "total_gain", "weight", "cover", "total_cover"})
    (void)feature_importance(m, kind);
  try {
    (void)export_xgboost_json(m);
  } catch (const InvalidInput&) {
    // +Infinity thresholds have no JSON form: a documented error.
  }
  // A valid model serializes to bytes that decode to the same bytes.
  std::vector<uint8_t> b = serialize_model(m);
  Model back;
  try {
    back = deserialize_model(b.data(), b.size());
  } catch (const CorruptModel& e) {
    std::fprintf(stderr, "%s\n", e.what());
    finding("a validated model does not decode after serialization");
  }
  if (serialize_model(back) != b) finding("serialize(deserialize(b)) != b");
}

}  // namespace gbdt_fuzz
