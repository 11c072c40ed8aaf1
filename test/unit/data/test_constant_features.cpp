// The CPU backend does not accumulate features whose bin is the
// same on every row (the extreme case of sparse_bins.h: no entries, the one
// cell filled from the node's sum).  Constant columns anywhere (first,
// between, last, all missing) change no tree and no prediction, on the
// row-parts path (few features) and on the feature-block path (many).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "model/model.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

// D with constant columns inserted before feature 0, after feature `mid`
// and at the end (one of them all missing).
Data with_constant_columns(const Data& D, int mid) {
  Data E;
  E.n = D.n;
  std::vector<float> c1(D.n, 3.5f), c2(D.n, NAN), c3(D.n, -1.0f);
  E.cols.push_back(c1);
  E.names.push_back("const_first");
  for (int f = 0; f < D.d; ++f) {
    E.cols.push_back(D.cols[f]);
    E.names.push_back(D.names[f]);
    if (f == mid) {
      E.cols.push_back(c2);
      E.names.push_back("all_missing");
    }
  }
  E.cols.push_back(c3);
  E.names.push_back("const_last");
  E.d = (int)E.cols.size();
  E.y = D.y;
  return E;
}

void expect_same_model(const Data& D, int mid, Task task, int nthread) {
  const Data E = with_constant_columns(D, mid);
  TrainParams p = gbdt_test::params_for(task, 8, nthread);
  p.max_depth = 5;
  const Model a = gbdt_test::train(D, p);
  const Model b = gbdt_test::train(E, p);
  ASSERT_EQ(a.trees.size(), b.trees.size());
  for (size_t t = 0; t < a.trees.size(); ++t) {
    const Tree& x = a.trees[t];
    const Tree& y = b.trees[t];
    ASSERT_EQ(x.value.size(), y.value.size()) << "tree " << t;
    for (size_t i = 0; i < x.value.size(); ++i) {
      ASSERT_EQ(std::memcmp(&x.value[i], &y.value[i], sizeof(float)), 0) << "tree " << t << " node " << i;
      ASSERT_EQ(x.left[i], y.left[i]) << "tree " << t << " node " << i;
      if (x.left[i] < 0) continue;
      // E's feature index: +1 for const_first, +1 more past `mid`.
      const int f = x.feature[i];
      ASSERT_EQ(y.feature[i], f + 1 + (f > mid ? 1 : 0)) << "tree " << t << " node " << i;
      ASSERT_EQ(x.split_bin[i], y.split_bin[i]) << "tree " << t << " node " << i;
    }
  }
  const std::vector<double> pa = gbdt_test::predict_all(a, D);
  const std::vector<double> pb = gbdt_test::predict_all(b, E);
  ASSERT_EQ(pa.size(), pb.size());
  EXPECT_EQ(std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(double)), 0);
}

}  // namespace

TEST(ConstantFeatures, ConstantColumnsChangeNoTreeFewFeatures) {
  // 70k rows: several row parts per node at 2 threads.
  const Data D = gbdt_test::make_data(70000, 6, Task::kBinary, 0.1, 41);
  expect_same_model(D, 2, Task::kBinary, 2);
  expect_same_model(D, 2, Task::kBinary, 1);
}

TEST(ConstantFeatures, ConstantColumnsChangeNoTreeManyFeatures) {
  // 200 features: (node, block of 64 features) tasks; the all-missing
  // column sits inside the first block, const_last in the last one.
  const Data D = gbdt_test::make_data(3000, 200, Task::kRegression, 0.05, 42);
  expect_same_model(D, 40, Task::kRegression, 2);
}
