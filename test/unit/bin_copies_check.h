// The CPU backend's optional copies of the bins (sparse_bins.h, joint_bins.h,
// the feature-major copy) only change speed: a model trained with them on
// (cpu_bin_copies) has the bytes of one trained with them off.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "model/model.h"
#include "test_util.h"

namespace gbdt_test {

inline std::vector<uint8_t> model_bytes_with_copies(const gbdt::TrainInput& in, gbdt::TrainParams p,
                                                    bool copies) {
  p.cpu_bin_copies = copies;
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  gbdt::Model m = gbdt::train_model(in, p, hooks, "label");
  m.report.seconds_load = m.report.seconds_bin = m.report.seconds_train = 0;
  return gbdt::serialize_model(m);
}

inline void expect_same_with_copies_on_and_off(const gbdt::TrainInput& in, const gbdt::TrainParams& p) {
  const std::vector<uint8_t> on = model_bytes_with_copies(in, p, true), off = model_bytes_with_copies(in, p, false);
  ASSERT_EQ(on.size(), off.size());
  EXPECT_EQ(std::memcmp(on.data(), off.data(), on.size()), 0);
}

inline void expect_same_with_copies_on_and_off(const Data& D, const gbdt::TrainParams& p,
                                               const std::vector<float>* w = nullptr) {
  gbdt::TrainInput in = D.input();
  if (w) in.weights = w->data();
  expect_same_with_copies_on_and_off(in, p);
}

}  // namespace gbdt_test
