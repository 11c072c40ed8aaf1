// load_binned (include/gbdt/data_source.h): every way through the load (one
// pass, counting + sample, counting + sample + binning, a one-pass attempt
// that falls back to the passes) gives the cuts and bins of the in-memory
// trainer's bin_input on the same rows, carries the role columns, and
// refuses a source whose passes disagree.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "data/load.h"
#include "gbm/trainer.h"
#include "test_util.h"

using namespace gbdt;

namespace {

// Rows held in vectors, handed out in batches of `batch` rows.
class VectorSource : public RowBatchSource {
 public:
  std::vector<std::vector<float>> cols;
  std::vector<float> labels, weights, upper;
  std::vector<uint32_t> groups;
  std::vector<RoleColumn> roles;
  size_t batch = 1000;
  double estimate = -1;
  bool rescan = true;
  int resets = 0;
  size_t drop_on_pass = 0;  // > 0: that pass (1-based) leaves out the last row

  double estimated_rows() const override { return estimate; }
  bool can_rescan() const override { return rescan; }
  void reset() override {
    if (resets > 0 && !rescan) ADD_FAILURE() << "reset() of a source that cannot rescan";
    resets++;
    pos_ = 0;
  }
  bool next(RowBatch* out) override {
    size_t n = labels.size();
    if (drop_on_pass > 0 && (size_t)resets == drop_on_pass) n--;
    if (pos_ >= n) return false;
    const size_t r = pos_, m = std::min(batch, n - r);
    out->n_rows = m;
    out->columns.clear();
    for (const auto& c : cols) out->columns.push_back(c.data() + r);
    out->labels = labels.data() + r;
    out->roles.clear();
    for (const RoleColumn& rc : roles) {
      if (rc.role == Role::kWeight) out->roles.push_back(weights.data() + r);
      if (rc.role == Role::kLabelUpper) out->roles.push_back(upper.data() + r);
      if (rc.role == Role::kQueryGroup) out->roles.push_back(groups.data() + r);
    }
    pos_ += m;
    return true;
  }

 private:
  size_t pos_ = 0;
};

VectorSource make_source(size_t n, int nf, uint64_t seed) {
  VectorSource s;
  s.cols.assign((size_t)nf, std::vector<float>(n));
  s.labels.resize(n);
  s.weights.resize(n);
  s.upper.resize(n);
  s.groups.resize(n);
  for (size_t r = 0; r < n; r++) {
    for (int f = 0; f < nf; f++) {
      double u = gbdt_test::unif(seed + (uint64_t)f, r);
      // Feature 1 has missing values; feature 2 few distinct values.
      float v = (float)(u * 100.0 - 30.0);
      if (f == 1 && u < 0.1) v = NAN;
      if (f == 2) v = (float)std::floor(u * 7);
      s.cols[(size_t)f][r] = v;
    }
    s.labels[r] = (float)gbdt_test::unif(seed + 99, r);
    s.weights[r] = (float)(1 + r % 3);
    s.upper[r] = s.labels[r] + 1;
    s.groups[r] = (uint32_t)(r / 10);
  }
  return s;
}

BinnedInput reference(const VectorSource& s, const LoadOptions& o) {
  TrainInput in;
  in.features.n_rows = s.labels.size();
  for (const auto& c : s.cols) in.features.columns.push_back(c.data());
  in.labels = s.labels.data();
  return bin_input(in, o.max_bin, o.sample_rows, o.nthread);
}

void expect_same_bins(const BinnedInput& a, const BinnedInput& b) {
  EXPECT_EQ(a.cuts.ptr, b.cuts.ptr);
  ASSERT_EQ(a.cuts.values.size(), b.cuts.values.size());
  for (size_t i = 0; i < a.cuts.values.size(); i++)
    EXPECT_EQ(a.cuts.values[i], b.cuts.values[i]) << "cut " << i;
  ASSERT_EQ(a.cuts.min_values.size(), b.cuts.min_values.size());
  for (size_t f = 0; f < a.cuts.min_values.size(); f++) {
    if (std::isnan(a.cuts.min_values[f])) EXPECT_TRUE(std::isnan(b.cuts.min_values[f]));
    else EXPECT_EQ(a.cuts.min_values[f], b.cuts.min_values[f]) << "min of feature " << f;
  }
  ASSERT_EQ(a.matrix.n_rows, b.matrix.n_rows);
  ASSERT_EQ(a.matrix.n_features, b.matrix.n_features);
  EXPECT_EQ(a.matrix.wide, b.matrix.wide);
  EXPECT_TRUE(a.matrix.bins == b.matrix.bins);
  EXPECT_TRUE(a.matrix.bins16 == b.matrix.bins16);
  EXPECT_EQ(a.labels, b.labels);
}

LoadOptions options(int nf, size_t sample_rows) {
  LoadOptions o;
  o.n_features = nf;
  o.max_bin = 32;
  o.sample_rows = sample_rows;
  o.nthread = 2;
  return o;
}

}  // namespace

TEST(LoadBinned, SourceReadOnceIsOnePass) {
  VectorSource s = make_source(5000, 4, 1);
  s.rescan = false;
  s.batch = 777;
  LoadOptions o = options(4, 1000);
  BinnedInput got;
  LoadStats st;
  load_binned(s, o, &got, &st);
  EXPECT_EQ(s.resets, 1);
  EXPECT_EQ(st.passes, 1);
  EXPECT_EQ(st.rows, 5000u);
  EXPECT_EQ(st.sample_rows, 1000u);
  expect_same_bins(got, reference(s, o));
}

TEST(LoadBinned, SampleSmallerThanRowsTakesThreePasses) {
  VectorSource s = make_source(5000, 4, 2);
  s.batch = 333;
  LoadOptions o = options(4, 700);
  o.one_pass = false;
  BinnedInput got;
  LoadStats st;
  load_binned(s, o, &got, &st);
  EXPECT_EQ(s.resets, 3);
  EXPECT_EQ(st.passes, 3);
  EXPECT_EQ(st.sample_rows, 700u);
  expect_same_bins(got, reference(s, o));
}

TEST(LoadBinned, SampleOfEveryRowTakesTwoPasses) {
  VectorSource s = make_source(900, 3, 3);
  s.batch = 100;
  LoadOptions o = options(3, 1000);
  o.one_pass = false;
  BinnedInput got;
  LoadStats st;
  load_binned(s, o, &got, &st);
  EXPECT_EQ(s.resets, 2);
  EXPECT_EQ(st.passes, 2);
  expect_same_bins(got, reference(s, o));
}

TEST(LoadBinned, EstimateWithinTheSampleIsOnePass) {
  VectorSource s = make_source(400, 3, 4);
  s.estimate = 400;
  LoadOptions o = options(3, 1000);
  BinnedInput got;
  LoadStats st;
  load_binned(s, o, &got, &st);
  EXPECT_EQ(s.resets, 1);
  EXPECT_EQ(st.passes, 1);
  expect_same_bins(got, reference(s, o));
}

TEST(LoadBinned, SourceLargerThanItsEstimateFallsBackToPasses) {
  // Estimated 100 rows: one pass is tried with room for max(sample, 2 x
  // estimate) = 1000 rows, the 5000 rows overflow it, the passes follow.
  VectorSource s = make_source(5000, 3, 5);
  s.estimate = 100;
  s.batch = 256;
  LoadOptions o = options(3, 1000);
  BinnedInput got;
  LoadStats st;
  load_binned(s, o, &got, &st);
  EXPECT_EQ(s.resets, 4);  // the abandoned pass, then count, sample, bin
  EXPECT_EQ(st.passes, 3);
  expect_same_bins(got, reference(s, o));
}

TEST(LoadBinned, RoleColumnsReachTheirFields) {
  for (bool one_pass : {true, false}) {
    VectorSource s = make_source(3000, 2, 6);
    s.roles = {{Role::kQueryGroup, "qid", RoleKind::kCode},
               {Role::kWeight, "w", RoleKind::kFloat},
               {Role::kLabelUpper, "hi", RoleKind::kFloat}};
    s.rescan = !one_pass;
    LoadOptions o = options(2, 500);
    o.one_pass = false;
    o.roles = s.roles;
    BinnedInput got;
    load_binned(s, o, &got);
    EXPECT_EQ(got.weights, s.weights) << one_pass;
    EXPECT_EQ(got.labels_upper, s.upper) << one_pass;
    EXPECT_EQ(got.query_group, s.groups) << one_pass;
    expect_same_bins(got, reference(s, o));
  }
}

TEST(LoadBinned, NoRoleColumnsLeaveTheFieldsEmpty) {
  VectorSource s = make_source(100, 2, 7);
  BinnedInput got;
  load_binned(s, options(2, 0), &got);
  EXPECT_TRUE(got.weights.empty());
  EXPECT_TRUE(got.labels_upper.empty());
  EXPECT_TRUE(got.query_group.empty());
}

TEST(LoadBinned, CategoricalFeaturesGetCategoricalCuts) {
  VectorSource s = make_source(4000, 3, 8);  // feature 2: codes 0 .. 6
  LoadOptions o = options(3, 500);
  o.one_pass = false;
  o.category_counts = {0, 0, 7};
  BinnedInput got;
  load_binned(s, o, &got);
  std::vector<float> cat;
  categorical_cuts(7, &cat);
  ASSERT_EQ(got.cuts.nbins(2), (int)cat.size());
  for (int b = 0; b < got.cuts.nbins(2); b++)
    EXPECT_EQ(got.cuts.feature_cuts(2)[b], cat[(size_t)b]);
  for (size_t r = 0; r < 4000; r++) EXPECT_EQ(got.matrix.at(r, 2), (uint32_t)s.cols[2][r]);
}

TEST(LoadBinned, PassesThatDisagreeAreRefused) {
  for (size_t pass : {2u, 3u}) {
    VectorSource s = make_source(3000, 2, 9);
    s.drop_on_pass = pass;
    LoadOptions o = options(2, 500);
    o.one_pass = false;
    BinnedInput got;
    EXPECT_THROW(load_binned(s, o, &got), SourceChanged) << "pass " << pass;
  }
}

TEST(LoadBinned, NoRowsIsAnError) {
  VectorSource s = make_source(0, 2, 10);
  s.cols.assign(2, {});
  BinnedInput got;
  EXPECT_THROW(load_binned(s, options(2, 0), &got), InvalidInput);
  s.rescan = false;
  s.resets = 0;
  EXPECT_THROW(load_binned(s, options(2, 0), &got), InvalidInput);
}

TEST(LoadBinned, BatchOfTheWrongShapeIsRefused) {
  VectorSource s = make_source(100, 3, 11);
  BinnedInput got;
  EXPECT_THROW(load_binned(s, options(2, 0), &got), std::logic_error);
}

TEST(LoadBinned, CancelStopsThePasses) {
  VectorSource s = make_source(200000, 2, 12);
  s.batch = 1000;
  LoadOptions o = options(2, 1000);
  o.one_pass = false;
  int polls = 0;
  o.cancel = [&] { return ++polls > 1; };
  BinnedInput got;
  EXPECT_THROW(load_binned(s, o, &got), Cancelled);
}
