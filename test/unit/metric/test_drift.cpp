// The training distribution a trained model stores (format version 4) and
// the drift report of live rows against it (metric/drift.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "metric/drift.h"
#include "model/format.h"
#include "model/model.h"
#include "predictor/predict.h"
#include "test_util.h"

using namespace gbdt;
using gbdt_test::Task;

namespace {

const gbdt_test::Data& data() {
  static const gbdt_test::Data D = gbdt_test::make_data(2000, 3, Task::kBinary, 0.1, 3);
  return D;
}

const Model& trained() {
  static const Model m = gbdt_test::train(data(), gbdt_test::params_for(Task::kBinary, 5));
  return m;
}

// The rows of D as scoring gives them (row-major) and their predictions.
struct Live {
  std::vector<float> x;
  std::vector<double> out;
};

Live live_rows(const Model& m, const gbdt_test::Data& D, int shift_feature = -1) {
  Live l;
  const int d = m.n_features();
  l.x.resize(D.n * (size_t)d);
  for (size_t r = 0; r < D.n; ++r)
    for (int f = 0; f < d; ++f)
      l.x[r * d + f] = D.cols[f][r] + (f == shift_feature ? 3.0f : 0.0f);
  l.out.resize(D.n * (size_t)m.num_output_group);
  predict_batch(m, l.x.data(), D.n, l.out.data(), 2);
  return l;
}

std::vector<DriftRow> report(const Model& m, const Live& l, int nthread) {
  std::vector<uint64_t> bins(m.cuts.total_hist_bins()), unseen((size_t)m.n_features()),
      pred(m.training_dist.pred_counts.size());
  DriftCounts c;
  c.bin_counts = bins.data();
  c.unseen = unseen.data();
  c.pred_counts = pred.data();
  const size_t n = l.x.size() / (size_t)m.n_features();
  const size_t half = n / 2;  // two batches
  add_drift_rows(m, l.x.data(), l.out.data(), half, nthread, &c);
  add_drift_rows(m, l.x.data() + half * m.n_features(), l.out.data() + half * m.num_output_group,
                 n - half, nthread, &c);
  return drift_report(m, c);
}

}  // namespace

TEST(Drift, TrainedModelStoresItsRowsPerBin) {
  const Model& m = trained();
  const TrainingDistribution& td = m.training_dist;
  ASSERT_FALSE(td.empty());
  EXPECT_EQ(td.rows, data().n);
  ASSERT_EQ(td.bin_counts.size(), (size_t)m.cuts.total_hist_bins());
  for (int f = 0; f < m.n_features(); ++f) {
    std::vector<uint64_t> expect((size_t)m.cuts.nbins(f) + 1, 0);
    for (size_t r = 0; r < data().n; ++r) ++expect[m.cuts.bin_of(f, data().cols[f][r])];
    for (size_t b = 0; b < expect.size(); ++b)
      EXPECT_EQ(td.bin_counts[m.cuts.hist_offset(f) + b], expect[b]) << "feature " << f << " bin " << b;
  }
  ASSERT_EQ(td.pred_counts.size(), td.pred_edges.size() + 1);
  EXPECT_GT(td.pred_edges.size(), 5u);
  uint64_t sum = 0;
  for (uint64_t v : td.pred_counts) sum += v;
  EXPECT_EQ(sum, td.rows);
}

TEST(Drift, SameBytesWhateverTheThreads) {
  TrainParams p = gbdt_test::params_for(Task::kBinary, 5);
  p.nthread = 1;
  const Model a = gbdt_test::train(data(), p);
  p.nthread = 4;
  const Model b = gbdt_test::train(data(), p);
  EXPECT_EQ(serialize_model(a), serialize_model(b));
}

TEST(Drift, TrainingRowsHaveNoDriftAndAShiftedFeatureComesFirst) {
  const Model& m = trained();
  const std::vector<DriftRow> same = report(m, live_rows(m, data()), 3);
  ASSERT_EQ(same.size(), (size_t)m.n_features() + 1);
  for (const DriftRow& r : same) {
    EXPECT_LT(r.psi, 0.01) << r.feature;
    EXPECT_LT(r.ks, 0.01) << r.feature;
  }
  EXPECT_NEAR(same[0].missing_rate_train, 0.1, 0.03);
  EXPECT_EQ(same[0].missing_rate_train, same[0].missing_rate_now);
  const std::vector<DriftRow> shifted = report(m, live_rows(m, data(), 1), 1);
  EXPECT_EQ(shifted[0].feature, m.feature_names[1]);
  EXPECT_GT(shifted[0].psi, 1.0);
  for (size_t i = 1; i < shifted.size(); ++i) EXPECT_LE(shifted[i].psi, shifted[i - 1].psi);
}

TEST(Drift, PsiAndKsOnKnownCounts) {
  // One feature with two bins (cut 1, 2): training 50/50, live 75/25.
  Model m;
  m.objective = Objective::kSquaredError;
  m.feature_names = {"x"};
  m.feature_types = {FeatureType::kFloat};
  m.cuts.ptr = {0, 2};
  m.cuts.values = {1.0f, 2.0f};
  m.cuts.min_values = {0.0f};
  m.training_dist.rows = 4;
  m.training_dist.bin_counts = {2, 2, 0};
  m.training_dist.pred_counts = {4};
  const float x[4] = {0.5f, 0.5f, 0.5f, 1.5f};
  const double out[4] = {0, 0, 0, 0};
  uint64_t bins[3] = {0, 0, 0}, unseen[1] = {0}, pred[1] = {0};
  DriftCounts c{0, bins, unseen, pred};
  add_drift_rows(m, x, out, 4, 1, &c);
  const std::vector<DriftRow> r = drift_report(m, c);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].feature, "x");
  const double expect = (0.75 - 0.5) * std::log(0.75 / 0.5) + (0.25 - 0.5) * std::log(0.25 / 0.5);
  EXPECT_NEAR(r[0].psi, expect, 1e-12);
  EXPECT_NEAR(r[0].ks, 0.25, 1e-12);
  EXPECT_EQ(r[1].feature, "prediction");
  EXPECT_EQ(r[1].psi, 0.0);
}

TEST(Drift, FormatVersion4RoundTripsAndOlderVersionsLoad) {
  const Model& m = trained();
  const std::vector<uint8_t> b = serialize_model(m);
  EXPECT_EQ(b[8], 4);
  const Model back = deserialize_model(b.data(), b.size());
  EXPECT_EQ(back.training_dist.bin_counts, m.training_dist.bin_counts);
  EXPECT_EQ(back.training_dist.pred_edges, m.training_dist.pred_edges);
  EXPECT_EQ(back.training_dist.pred_counts, m.training_dist.pred_counts);
  EXPECT_EQ(serialize_model(back), b);
  // Without the distribution: version 1 as before, and it still scores
  // the same (the trees are the same).
  Model old = m;
  old.training_dist = TrainingDistribution();
  const std::vector<uint8_t> ob = serialize_model(old);
  EXPECT_EQ(ob[8], 1);
  const Model old_back = deserialize_model(ob.data(), ob.size());
  EXPECT_TRUE(old_back.training_dist.empty());
  const Live a = live_rows(m, data()), o = live_rows(old_back, data());
  EXPECT_EQ(a.out, o.out);
  EXPECT_THROW(drift_report(old_back, DriftCounts{1, nullptr, nullptr, nullptr}), InvalidInput);
}

TEST(Drift, HostileSectionsAreRefused) {
  const Model& m = trained();
  std::vector<uint8_t> b = serialize_model(m);
  // The section under an earlier version number.
  std::vector<uint8_t> v3 = b;
  v3[8] = 3;
  reseal_model_bytes(v3.data(), v3.size());
  EXPECT_THROW(deserialize_model(v3.data(), v3.size()), CorruptModel);
  // Counts not adding up, a count over the rows, a wrong slot count,
  // edges out of order, a distribution without rows.
  Model bad = m;
  bad.training_dist.bin_counts[0] += 1;
  EXPECT_THROW(validate_model(bad), CorruptModel);
  bad = m;
  bad.training_dist.pred_counts.back() = ~0ull;
  EXPECT_THROW(validate_model(bad), CorruptModel);
  bad = m;
  bad.training_dist.bin_counts.pop_back();
  EXPECT_THROW(validate_model(bad), CorruptModel);
  bad = m;
  std::swap(bad.training_dist.pred_edges[0], bad.training_dist.pred_edges[1]);
  EXPECT_THROW(validate_model(bad), CorruptModel);
  bad = m;
  bad.training_dist.rows = 0;
  EXPECT_THROW(validate_model(bad), CorruptModel);
  // Every truncation of the section is an error, not a crash.
  for (size_t cut = 1; cut < 64; ++cut) {
    std::vector<uint8_t> t(b.begin(), b.end() - 8 - cut);
    t.resize(t.size() + 8);
    reseal_model_bytes(t.data(), t.size());
    EXPECT_THROW(deserialize_model(t.data(), t.size()), CorruptModel) << cut;
  }
}
