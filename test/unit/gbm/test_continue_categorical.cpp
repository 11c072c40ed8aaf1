// Continued training (init_model) with categorical features at engine
// level: 10 rounds then 10 more on the same rows are the 20-round model
// (the init model's dictionaries and cuts); a code the init model has not
// seen scores as unseen in its trees, counts as missing in the new rounds'
// bins (unseen_categories.h) and does not enter the dictionary.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "data/binned_matrix.h"
#include "gbm/continue_training.h"
#include "model/model.h"
#include "data/quantile.h"
#include "test_util.h"
#include "data/unseen_categories.h"

using namespace gbdt;
using gbdt_test::unif;

namespace {

TrainHooks cpu_hooks() {
  TrainHooks h;
  h.default_device = "cpu";
  return h;
}

std::vector<uint8_t> tree_bytes(Model m) {
  m.params.clear();
  m.report = TrainingReport();
  return serialize_model(m);
}

// Column 0: n_cat categories (codes; some missing), column 1 numeric.
struct Rows {
  size_t n;
  std::vector<float> c0, c1, y;
  std::vector<std::vector<std::string>> cats;
  TrainInput input() const {
    TrainInput in;
    in.features.n_rows = n;
    in.features.columns = {c0.data(), c1.data()};
    in.labels = y.data();
    in.feature_names = {"colour", "x"};
    in.feature_types = {FeatureType::kCategorical, FeatureType::kFloat};
    in.categories = cats;
    return in;
  }
};

Rows make_rows(size_t n, int n_cat, uint64_t seed) {
  Rows r;
  r.n = n;
  r.c0.resize(n);
  r.c1.resize(n);
  r.y.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const int code = std::min(n_cat - 1, (int)(unif(seed, i) * n_cat));
    const bool miss = unif(seed + 1, i) < 0.05;
    r.c0[i] = miss ? NAN : (float)code;
    r.c1[i] = (float)(unif(seed + 2, i) * 4 - 2);
    r.y[i] = (float)((code % 3 == 1 ? 2.0 : 0.0) + (miss ? 1.0 : 0.0) + 0.5 * r.c1[i]);
  }
  r.cats.assign(2, {});
  for (int k = 0; k < n_cat; ++k) r.cats[0].push_back("v" + std::to_string(k));
  return r;
}

void expect_ten_plus_ten(int n_cat, TrainParams p) {
  Rows R = make_rows(2500, n_cat, 11);
  TrainParams p10 = p, p20 = p;
  p10.num_round = 10;
  p20.num_round = 20;
  const Model once = train_model(R.input(), p20, cpu_hooks(), "label");
  const Model first = train_model(R.input(), p10, cpu_hooks(), "label");
  const Model cont = continue_training(R.input(), first, p10, cpu_hooks());
  ASSERT_TRUE(once.has_categorical());
  EXPECT_EQ(cont.num_rounds(), 20);
  EXPECT_EQ(cont.categories, first.categories);
  EXPECT_EQ(tree_bytes(cont), tree_bytes(once));
}

}  // namespace

TEST(ContinueCategorical, TenPlusTenEqualsTwentyOneHot) {
  TrainParams p;
  p.max_depth = 3;
  p.max_cat_to_onehot = 8;
  expect_ten_plus_ten(5, p);
}

TEST(ContinueCategorical, TenPlusTenEqualsTwentyPartitionSampled) {
  TrainParams p;
  p.max_depth = 4;
  p.subsample = 0.8;
  p.colsample_bytree = 0.5;
  p.seed = 9;
  expect_ten_plus_ten(40, p);
}

TEST(ContinueCategorical, TenPlusTenEqualsTwentyWideBins) {
  TrainParams p;
  p.max_depth = 3;
  expect_ten_plus_ten(300, p);  // 300 bins, one per category (2-byte bin matrix)
}

TEST(ContinueCategorical, UnseenCodesAreMissingBinsAndKeepTheDictionary) {
  Rows R = make_rows(2000, 6, 21);
  TrainParams p;
  p.num_round = 5;
  p.max_depth = 3;
  const Model first = train_model(R.input(), p, cpu_hooks(), "label");
  // Rows with codes 6 and 9: values the init model has not seen.
  Rows N = R;
  size_t unseen = 0;
  for (size_t i = 0; i < N.n; i += 7) {
    N.c0[i] = (float)(6 + (i % 2) * 3);
    N.y[i] = 5.0f;
    ++unseen;
  }
  BinnedInput b = bin_with_cuts(N.input(), first.cuts, 1);
  const size_t changed =
      bin_unseen_categories_as_missing(first.categories, first.cuts, N.input().features, &b.matrix);
  EXPECT_EQ(changed, unseen);
  for (size_t i = 0; i < N.n; ++i) {
    const bool is_unseen = i % 7 == 0;
    if (is_unseen) {
      EXPECT_EQ(b.matrix.at(i, 0), first.cuts.nbins(0)) << i;
    } else if (!std::isnan(N.c0[i])) {
      EXPECT_EQ(b.matrix.at(i, 0), (int)N.c0[i]) << i;
    }
  }
  const Model cont = continue_training(N.input(), first, p, cpu_hooks());
  EXPECT_EQ(cont.categories, first.categories);
  EXPECT_EQ(cont.num_rounds(), 10);
  // The init model's trees send an unseen code left at every categorical
  // split: its part of the score equals the first model's prediction.
  float row[2] = {9.0f, 0.25f};
  double first_part = first.base_margin[0];
  for (size_t t = 0; t < first.trees.size(); ++t)
    first_part += first.trees[t].value[first.trees[t].leaf_of(row)];
  double cont_part = cont.base_margin[0];
  for (size_t t = 0; t < first.trees.size(); ++t)
    cont_part += cont.trees[t].value[cont.trees[t].leaf_of(row)];
  EXPECT_EQ(first_part, cont_part);
  // The new rounds learn the unseen rows' target (5): the continued model
  // moves toward it from the init model's score.
  std::vector<float> one = {row[0], row[1]};
  double full = cont.base_margin[0];
  for (size_t t = 0; t < cont.trees.size(); ++t) full += cont.trees[t].value[cont.trees[t].leaf_of(one.data())];
  EXPECT_GT(full, first_part);
}

TEST(ContinueCategorical, NothingChangesWithoutCategories) {
  Rows R = make_rows(100, 4, 3);
  BinnedInput b = bin_with_cuts(R.input(), compute_cuts(R.input().features, 16, 1), 1);
  const auto before = b.matrix.bins;
  std::vector<std::vector<std::string>> none;
  EXPECT_EQ(bin_unseen_categories_as_missing(none, b.cuts, R.input().features, &b.matrix), 0u);
  EXPECT_EQ(before, b.matrix.bins);
}
