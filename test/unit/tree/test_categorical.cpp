// Native categorical splits (categorical_split.h): binning, one-hot and
// partition splits, the decision rule (unseen codes left, missing by
// default_left), one bin per category past 255 categories,
// serialization, binned vs raw walks, batch prediction and TreeSHAP.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "tree/tree_backend.h"
#include "data/categorical_input.h"
#include "tree/categorical_split.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "tree/apply_split.h"
#include "predictor/treeshap.h"

using namespace gbdt;
using gbdt_test::unif;

namespace {

// n_cat categories in column 0 (codes as floats, `missing` fraction NaN) and
// one numeric noise column; y = 3 when the code is in `member` (else 0),
// + 0.2 * the numeric column.  Codes are drawn with frequencies falling
// with the code (the glue's order) when `skewed`.
struct CatData {
  gbdt_test::Data D;
  std::vector<std::vector<std::string>> cats;
  TrainInput input(bool categorical = true) const {
    TrainInput in = D.input();
    if (categorical) {
      in.feature_types[0] = FeatureType::kCategorical;
      in.categories = cats;
    }
    return in;
  }
};

CatData make_cat(size_t n, int n_cat, const std::set<int>& member, double missing = 0.0,
                 bool skewed = false, uint64_t seed = 3) {
  CatData c;
  gbdt_test::Data& D = c.D;
  D.n = n;
  D.d = 2;
  D.cols.assign(2, std::vector<float>(n));
  D.y.resize(n);
  D.names = {"cat", "num"};
  for (size_t r = 0; r < n; ++r) {
    double u = unif(seed, r);
    if (skewed) u = u * u;  // smaller codes more frequent
    int code = std::min(n_cat - 1, (int)(u * n_cat));
    const float num = (float)(unif(seed + 1, r) * 2 - 1);
    const bool miss = missing > 0 && unif(seed + 2, r) < missing;
    D.cols[0][r] = miss ? NAN : (float)code;
    D.cols[1][r] = num;
    const double base = miss ? 1.5 : (member.count(code) ? 3.0 : 0.0);
    D.y[r] = (float)(base + 0.2 * num);
  }
  c.cats.assign(2, {});
  for (int k = 0; k < n_cat; ++k) c.cats[0].push_back("c" + std::to_string(k));
  return c;
}

Model train_in(const TrainInput& in, const TrainParams& p) {
  TrainHooks hooks;
  hooks.default_device = "cpu";
  return train_model(in, p, hooks, "label");
}

double rmse(const Model& m, const gbdt_test::Data& D) {
  std::vector<double> pred = gbdt_test::predict_all(m, D);
  double s = 0;
  for (size_t r = 0; r < D.n; ++r) s += (pred[r] - D.y[r]) * (pred[r] - D.y[r]);
  return std::sqrt(s / (double)D.n);
}

std::vector<int> codes_of(const Tree& t, int32_t n) {
  std::vector<int> out;
  for (uint32_t w = t.cat_offset[n]; w < t.cat_offset[n + 1]; ++w)
    for (int b = 0; b < 32; ++b)
      if ((t.cat_bits[w] >> b) & 1u) out.push_back((int)((w - t.cat_offset[n]) * 32 + b));
  return out;
}

// Every categorical node of the model: f(tree, node).
template <class F>
int for_cat_nodes(const Model& m, F f) {
  int count = 0;
  for (const Tree& t : m.trees)
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (!t.is_leaf(n) && t.is_categorical(n)) {
        f(t, n);
        ++count;
      }
  return count;
}

const std::set<int> kMember = {1, 4, 7, 9, 12, 15, 20, 22, 26, 29};

TrainParams reg_params(int rounds, int depth) {
  TrainParams p = gbdt_test::params_for(gbdt_test::Task::kRegression, rounds);
  p.max_depth = depth;
  return p;
}

}  // namespace

TEST(Categorical, CutsOneBinPerCode) {
  std::vector<float> c;
  categorical_cuts(30, &c);
  ASSERT_EQ(c.size(), 30u);
  Cuts cuts;
  cuts.ptr = {0, 30};
  cuts.values = c;
  for (int code = 0; code < 30; ++code) EXPECT_EQ(cuts.bin_of(0, (float)code), code);
  EXPECT_EQ(cuts.bin_of(0, NAN), 30);
  // one bin per code past 255 categories (2-byte bin matrix) ...
  categorical_cuts(400, &c);
  ASSERT_EQ(c.size(), 400u);
  cuts.ptr = {0, 400};
  cuts.values = c;
  EXPECT_EQ(cuts.bin_of(0, 253.0f), 253u);
  EXPECT_EQ(cuts.bin_of(0, 254.0f), 254u);
  EXPECT_EQ(cuts.bin_of(0, 399.0f), 399u);
  EXPECT_EQ(cuts.bin_of(0, NAN), 400u);
  // ... up to 65535; past it (max_categories' 65536) the last bin is shared.
  categorical_cuts(65536, &c);
  ASSERT_EQ(c.size(), 65535u);
  cuts.ptr = {0, 65535};
  cuts.values = c;
  EXPECT_EQ(cuts.bin_of(0, 65533.0f), 65533u);
  EXPECT_EQ(cuts.bin_of(0, 65534.0f), 65534u);
  EXPECT_EQ(cuts.bin_of(0, 65535.0f), 65534u);
  EXPECT_EQ(cuts.bin_of(0, NAN), 65535u);
}

TEST(Categorical, LearnsSetMembershipBetterThanCodesAsNumbers) {
  CatData c = make_cat(4000, 30, kMember);
  TrainParams p = reg_params(10, 2);
  Model mc = train_in(c.input(true), p);
  Model mn = train_in(c.input(false), p);
  ASSERT_EQ(mc.categories.size(), 2u);
  EXPECT_EQ(mc.categories[0].size(), 30u);
  EXPECT_GT(for_cat_nodes(mc, [](const Tree&, int32_t) {}), 0);
  EXPECT_EQ(for_cat_nodes(mn, [](const Tree&, int32_t) {}), 0);
  const double ec = rmse(mc, c.D), en = rmse(mn, c.D);
  EXPECT_LT(ec, 0.3 * en) << "categorical " << ec << " numeric " << en;
  // The root split separates the member codes exactly (one side holds
  // exactly the members or exactly the non-members).
  const Tree& t0 = mc.trees[0];
  ASSERT_TRUE(t0.is_categorical(0));
  std::vector<int> s = codes_of(t0, 0);
  std::set<int> ss(s.begin(), s.end());
  std::set<int> others;
  for (int k = 0; k < 30; ++k)
    if (!kMember.count(k)) others.insert(k);
  EXPECT_TRUE(ss == kMember || ss == others);
}

TEST(Categorical, OneHotBelowMaxCatToOnehot) {
  // 3 categories < default max_cat_to_onehot 4: one category per set.
  CatData c3 = make_cat(2000, 3, {1});
  Model m3 = train_in(c3.input(), reg_params(5, 3));
  EXPECT_GT(for_cat_nodes(m3, [](const Tree& t, int32_t n) { EXPECT_EQ(codes_of(t, n).size(), 1u); }), 0);
  // 30 categories with max_cat_to_onehot 31: one-hot as well.
  CatData c = make_cat(3000, 30, kMember);
  TrainParams p = reg_params(5, 3);
  p.max_cat_to_onehot = 31;
  Model m = train_in(c.input(), p);
  EXPECT_GT(for_cat_nodes(m, [](const Tree& t, int32_t n) { EXPECT_EQ(codes_of(t, n).size(), 1u); }), 0);
  // Default (partition): some set holds several categories.
  Model mp = train_in(c.input(), reg_params(5, 3));
  size_t biggest = 0;
  for_cat_nodes(mp, [&](const Tree& t, int32_t n) { biggest = std::max(biggest, codes_of(t, n).size()); });
  EXPECT_GT(biggest, 1u);
  EXPECT_NE(serialize_model(m), serialize_model(mp));
  EXPECT_EQ(m.params.back().first, "max_cat_to_onehot");
}

TEST(Categorical, MaxCatThresholdBoundsTheSet) {
  CatData c = make_cat(3000, 30, kMember);
  TrainParams p = reg_params(5, 3);
  size_t biggest = 0;
  Model md = train_in(c.input(), p);
  for_cat_nodes(md, [&](const Tree& t, int32_t n) { biggest = std::max(biggest, codes_of(t, n).size()); });
  EXPECT_GT(biggest, 3u);
  p.max_cat_threshold = 3;
  Model m = train_in(c.input(), p);
  EXPECT_GT(for_cat_nodes(m, [](const Tree& t, int32_t n) { EXPECT_LE(codes_of(t, n).size(), 3u); }), 0);
}

TEST(Categorical, UnseenCodesLeftMissingByDefault) {
  CatData c = make_cat(3000, 30, kMember, 0.2);
  Model m = train_in(c.input(), reg_params(5, 3));
  int dl_seen[2] = {0, 0};
  EXPECT_GT(for_cat_nodes(m, [&](const Tree& t, int32_t n) {
              for (float v : {30.0f, 31.0f, 1e9f, INFINITY, -1.0f, -0.5f, -INFINITY})
                EXPECT_TRUE(t.goes_left(n, v)) << v;
              EXPECT_EQ(t.goes_left(n, NAN), t.default_left[n] != 0);
              ++dl_seen[t.default_left[n] ? 1 : 0];
              // Codes in the set go right, the others left; 2.5 is code 2.
              std::vector<int> s = codes_of(t, n);
              for (int k = 0; k < 30; ++k)
                EXPECT_EQ(t.goes_left(n, (float)k), std::find(s.begin(), s.end(), k) == s.end());
              EXPECT_EQ(t.goes_left(n, 2.5f), t.goes_left(n, 2.0f));
            }),
            0);
  // A hand-built stump: {3} right, missing left; scored row by row and in batch.
  Model h = m;
  h.trees.assign(1, Tree());
  h.tree_group = {0};
  Tree& t = h.trees[0];
  t.add_node(-1, 0.0f, 2.0);
  t.add_node(0, -1.0f, 1.0);
  t.add_node(0, 1.0f, 1.0);
  t.left[0] = 1;
  t.right[0] = 2;
  t.feature[0] = 0;
  t.default_left[0] = 1;
  t.threshold[0] = 1.0f;
  const uint32_t w = 1u << 3;
  t.set_categorical(0, &w, 1);
  validate_model(h);
  std::vector<float> xs = {3, 0, 2, 4, 31, 40, -1, NAN, 3.9f, 0};
  std::vector<double> out(5);
  predict_batch(h, xs.data(), 5, out.data(), 1);
  for (size_t i = 0; i < 5; ++i) {
    double mr;
    predict_margin_row(h, &xs[2 * i], &mr);
    const double want = h.base_margin[0] + (float)(xs[2 * i] == 3.0f || xs[2 * i] == 3.9f ? 1.0 : -1.0);
    EXPECT_FLOAT_EQ((float)mr, (float)want) << i;
    EXPECT_EQ(out[i], mr) << i;
  }
  EXPECT_GE(dl_seen[0] + dl_seen[1], 1);
}

TEST(Categorical, OneBinPerCategoryPast255Categories) {
  // 400 categories; members: a few frequent codes and every code >= 254
  // (one bin each, in a 2-byte bin matrix; no shared "other" bin 254).
  std::set<int> member = {0, 3, 5};
  for (int k = 254; k < 400; ++k) member.insert(k);
  CatData c = make_cat(20000, 400, member, 0.0, /*skewed=*/false);
  TrainParams p = reg_params(10, 3);
  Model m = train_in(c.input(), p);
  EXPECT_EQ(m.cuts.nbins(0), 400);
  bool rare_in_set = false;
  EXPECT_GT(for_cat_nodes(m, [&](const Tree& t, int32_t n) {
              std::vector<int> s = codes_of(t, n);
              for (int k : s) rare_in_set |= k >= 254;
              for (int k : s) EXPECT_LT(k, 400);
            }),
            0);
  EXPECT_TRUE(rare_in_set);
  EXPECT_LT(rmse(m, c.D), 0.5);
  // A code past the categories is bad input naming the column.
  CatData bad = c;
  bad.D.cols[0][17] = 400.0f;
  try {
    train_in(bad.input(), p);
    FAIL() << "no error";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("\"cat\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("400"), std::string::npos) << e.what();
  }
  bad.D.cols[0][17] = 2.5f;
  EXPECT_THROW(train_in(bad.input(), p), InvalidInput);
}

TEST(Categorical, BadCategoricalInput) {
  CatData c = make_cat(500, 5, {1});
  TrainInput in = c.input();
  in.feature_types[0] = FeatureType::kFloat;  // names but not categorical
  EXPECT_THROW(train_in(in, reg_params(2, 2)), InvalidInput);
  in = c.input();
  in.categories.resize(1);  // not one entry per feature
  EXPECT_THROW(train_in(in, reg_params(2, 2)), InvalidInput);
  std::vector<ParamKV> kv = {{"max_cat_to_onehot", "0", false}};
  TrainParams p;
  EXPECT_THROW(apply_params(kv, &p), InvalidInput);
  kv = {{"max_cat_threshold", "0", false}};
  EXPECT_THROW(apply_params(kv, &p), InvalidInput);
  kv = {{"max_cat_threshold", "7", false}, {"max_cat_to_onehot", "9", false}};
  apply_params(kv, &p);
  EXPECT_EQ(p.max_cat_threshold, 7);
  EXPECT_EQ(p.max_cat_to_onehot, 9);
  // Default values leave params_to_kv as before.
  TrainParams d;
  for (const auto& e : params_to_kv(d)) EXPECT_EQ(e.first.find("max_cat"), std::string::npos);
  // Binned input whose categorical cuts were sketched: refused.
  BinnedInput b = bin_input(c.input(false), 256, 0, 1);
  b.feature_types[0] = FeatureType::kCategorical;
  b.categories = c.cats;
  b.cuts.values[b.cuts.ptr[1] - 1] = 100.0f;
  TrainHooks hooks;
  hooks.default_device = "cpu";
  EXPECT_THROW(train_binned(std::move(b), reg_params(2, 2), hooks), std::logic_error);
}

TEST(Categorical, SerializeRoundTripAndThreads) {
  CatData c = make_cat(3000, 30, kMember, 0.1);
  TrainParams p = reg_params(8, 4);
  Model m = train_in(c.input(), p);
  const std::vector<uint8_t> bytes = serialize_model(m);
  Model r = deserialize_model(bytes.data(), bytes.size());
  EXPECT_EQ(serialize_model(r), bytes);
  EXPECT_EQ(r.categories, m.categories);
  // The backend's training margins (its row partition) agree with scoring.
  ASSERT_EQ(m.report.train_metric.size(), 1u);
  EXPECT_NEAR(m.report.train_metric[0], rmse(m, c.D), 1e-6);
  EXPECT_EQ(gbdt_test::predict_all(r, c.D), gbdt_test::predict_all(m, c.D));
  p.nthread = 2;
  EXPECT_EQ(serialize_model(train_in(c.input(), p)), bytes);
  // With row subsampling (the unsampled rows' margins walk the bins).
  p.subsample = 0.7;
  Model ms = train_in(c.input(), p);
  p.nthread = 1;
  EXPECT_EQ(serialize_model(train_in(c.input(), p)), serialize_model(ms));
}

TEST(Categorical, BinnedWalkEqualsRawWalkAndBatchEqualsRow) {
  std::set<int> member = {0, 3, 5, 300, 301};
  CatData c = make_cat(6000, 320, member, 0.1, /*skewed=*/true);
  EXPECT_TRUE(bin_input(c.input(), 256, 0, 1).matrix.wide);  // 320 bins
  TrainParams p = reg_params(6, 4);
  p.validation_fraction = 0.2;  // validation margins walk the bins
  Model m = train_in(c.input(), p);
  EXPECT_GT(for_cat_nodes(m, [](const Tree&, int32_t) {}), 0);
  BinnedInput b = bin_input(c.input(), 256, 0, 1);
  std::vector<int> missing_bin(2);
  for (int f = 0; f < 2; ++f) missing_bin[f] = b.cuts.nbins(f);
  for (size_t r = 0; r < c.D.n; ++r) {
    std::vector<float> x = c.D.row(r);
    for (const Tree& t : m.trees)
      ASSERT_EQ(b.matrix.leaf_of_row(t, r, missing_bin.data()), t.leaf_of(x.data())) << r;
  }
  std::vector<double> batch = gbdt_test::predict_all(m, c.D, 2);
  for (size_t r = 0; r < c.D.n; ++r) {
    std::vector<float> x = c.D.row(r);
    double v;
    predict_margin_row(m, x.data(), &v);
    ASSERT_EQ(batch[r], v) << r;
  }
}

TEST(Categorical, TreeShapSumsToMargin) {
  CatData c = make_cat(2000, 30, kMember, 0.1);
  Model m = train_in(c.input(), reg_params(6, 4));
  TreeShap shap(m);
  TreeShap::Scratch s;
  std::vector<double> phi((size_t)shap.width());
  for (size_t r = 0; r < 200; ++r) {
    std::vector<float> x = c.D.row(r);
    shap.contributions(x.data(), phi.data(), s);
    double sum = 0;
    for (double v : phi) sum += v;
    double margin;
    predict_margin_row(m, x.data(), &margin);
    EXPECT_NEAR(sum, margin, 1e-5) << r;
  }
}

TEST(Categorical, SplitSearchSkipsEmptyCategories) {
  // Bins 0..5; bins 1 and 4 empty; one-hot threshold 1 (partition).
  SplitParams sp{1.0, 0.0, 0.0, 0.0, 0.0, 1.0};
  Quantizer q{1.0, 1.0, 1.0, 1.0};
  // Weights 0.5, 2, 0.67, 2.2: the empty bins (weight 0) would sort first.
  GradSum h[7] = {{-3, 5}, {0, 0}, {-10, 4}, {-4, 5}, {0, 0}, {-11, 4}, {0, 0}};
  GradSum parent{0, 0};
  for (const GradSum& x : h) parent = gs_add(parent, x);
  CatBinSet set;
  SplitCandidate s = best_categorical_split(h, 6, 0, parent, sp, q, CatSplitParams{1, 64}, &set);
  ASSERT_EQ(s.feature, 0);
  EXPECT_FALSE(cat_set_has(set, 1));
  EXPECT_FALSE(cat_set_has(set, 4));
  // The split puts {0, 3} against {2, 5}.
  EXPECT_EQ(cat_set_has(set, 0), cat_set_has(set, 3));
  EXPECT_EQ(cat_set_has(set, 2), cat_set_has(set, 5));
  EXPECT_NE(cat_set_has(set, 0), cat_set_has(set, 2));
  // The other bin expands to every rare code.
  cat_set_clear(&set);
  cat_set_add(&set, kCatOtherBin);
  cat_set_add(&set, 2);
  std::vector<uint32_t> w = cat_codes_of_bins(set, 300);
  ASSERT_EQ(w.size(), 10u);  // codes up to 299
  EXPECT_EQ(w[0], 1u << 2);
  EXPECT_EQ(w[9] & (1u << (299 - 288)), 1u << (299 - 288));
  EXPECT_EQ(w[7], 0xC0000000u);  // 254, 255
}

// Row weights and adaptive-leaf objectives (reg:absoluteerror) with a
// categorical feature: 30% of the rows get a flipped label (-20 for members,
// +20 for the others) and weight 0.  The weighted trainings ignore them (the
// root split still separates the member codes; the clean rows are fitted),
// the unweighted squared-error training does not.
TEST(Categorical, WeightsAndAbsoluteErrorWithCategoricalFeature) {
  CatData c = make_cat(4000, 30, kMember);
  std::vector<float> w(c.D.n, 1.0f);
  std::vector<char> clean(c.D.n, 1);
  for (size_t r = 0; r < c.D.n; ++r)
    if (unif(99, r) < 0.3) {
      const bool member = kMember.count((int)c.D.cols[0][r]) > 0;
      c.D.y[r] = member ? -20.0f : 20.0f;
      w[r] = 0.0f;
      clean[r] = 0;
    }
  auto clean_mae = [&](const Model& m) {
    std::vector<double> pred = gbdt_test::predict_all(m, c.D);
    double s = 0;
    size_t k = 0;
    for (size_t r = 0; r < c.D.n; ++r)
      if (clean[r]) {
        s += std::fabs(pred[r] - c.D.y[r]);
        ++k;
      }
    return s / (double)k;
  };
  auto root_separates_members = [&](const Model& m) {
    const Tree& t0 = m.trees[0];
    if (!t0.is_categorical(0)) return false;
    std::vector<int> s = codes_of(t0, 0);
    std::set<int> ss(s.begin(), s.end()), others;
    for (int k = 0; k < 30; ++k)
      if (!kMember.count(k)) others.insert(k);
    return ss == kMember || ss == others;
  };
  TrainInput weighted = c.input(true);
  weighted.weights = w.data();
  for (Objective o : {Objective::kSquaredError, Objective::kAbsoluteError}) {
    TrainParams p = reg_params(30, 2);
    p.objective = o;
    Model m = train_in(weighted, p);
    EXPECT_GT(for_cat_nodes(m, [](const Tree&, int32_t) {}), 0) << objective_name(o);
    EXPECT_TRUE(root_separates_members(m)) << objective_name(o);
    EXPECT_LT(clean_mae(m), 0.25) << objective_name(o);
    // The categorical sets and refit leaves survive serialization.
    const std::vector<uint8_t> bytes = serialize_model(m);
    Model back = deserialize_model(bytes.data(), bytes.size());
    EXPECT_EQ(gbdt_test::predict_all(back, c.D), gbdt_test::predict_all(m, c.D));
  }
  Model unweighted = train_in(c.input(true), reg_params(30, 2));
  EXPECT_GT(clean_mae(unweighted), 1.0);
}

// Codes of categorical columns: NaN or integers 0 .. n-1.  A bad one (-1,
// n, 1.5, infinity) is an error naming its column, value and row: the
// first bad column in feature order, on 1 thread or several (columns are
// checked in parallel tasks).
TEST(Categorical, BadCodesNamedWhateverTheThreads) {
  const size_t n = 100000;
  std::vector<float> num(n, 3.7f), a(n), b(n);
  for (size_t r = 0; r < n; ++r) {
    a[r] = r % 9 == 0 ? NAN : (float)(r % 4);
    b[r] = (float)(r % 3);
  }
  ColumnInput in;
  in.n_rows = n;
  in.columns = {num.data(), a.data(), b.data()};
  const std::vector<std::string> names = {"x", "colour", "size"};
  const std::vector<uint32_t> counts = {0, 4, 3};
  for (int nt : {1, 2, 4}) {
    EXPECT_NO_THROW(check_category_codes(in, names, counts, nt)) << nt;
    struct Case {
      float* col;
      size_t row;
      float v;
      const char* want;
    };
    const Case cases[] = {{b.data(), 70000, 3.0f, "\"size\" has code 3 in row 70001"},
                          {b.data(), 5, -1.0f, "\"size\" has code -1 in row 6"},
                          {a.data(), 99999, 1.5f, "\"colour\" has code 1.5 in row 100000"},
                          {a.data(), 0, INFINITY, "\"colour\" has code inf in row 1"}};
    for (const Case& c : cases) {
      const float keep = c.col[c.row];
      c.col[c.row] = c.v;
      // A later bad value in "size" never hides one in "colour".
      const float keep_b = b[n - 1];
      if (c.col == a.data()) b[n - 1] = 7.0f;
      try {
        check_category_codes(in, names, counts, nt);
        ADD_FAILURE() << "no error for " << c.want << " nthread " << nt;
      } catch (const InvalidInput& e) {
        EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what() << " nthread " << nt;
      }
      c.col[c.row] = keep;
      b[n - 1] = keep_b;
    }
  }
}
