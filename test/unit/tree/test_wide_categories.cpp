// Categorical features with more than 255 categories: one bin per
// category (a 2-byte bin matrix only when some feature needs more than 255
// value bins), wide bin sets in the split search, the CPU backend's and the
// general grower's loops on uint16_t entries, and XGBoost JSON round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "data/binned_matrix.h"
#include "tree/categorical_split.h"
#include "gbm/continue_training.h"
#include "predictor/predict.h"
#include "test_util.h"
#include "gbm/trainer.h"
#include "tree/apply_split.h"
#include "model/xgb_json.h"

using namespace gbdt;
using gbdt_test::unif;

namespace {

// n_cat equally frequent categories in column 0 (some rows NaN when
// `missing`) and a numeric noise column; y = +3 for code `plus`, -3 for
// code `minus`, 0 otherwise (+ 0.1 * the numeric column).
struct WideData {
  gbdt_test::Data D;
  std::vector<std::vector<std::string>> cats;
  TrainInput input() const {
    TrainInput in = D.input();
    in.feature_types[0] = FeatureType::kCategorical;
    in.categories = cats;
    return in;
  }
};

WideData make_wide(size_t n, int n_cat, int plus, int minus, double missing = 0.0) {
  WideData w;
  gbdt_test::Data& D = w.D;
  D.n = n;
  D.d = 2;
  D.cols.assign(2, std::vector<float>(n));
  D.y.resize(n);
  D.names = {"cat", "num"};
  for (size_t r = 0; r < n; ++r) {
    const int code = std::min(n_cat - 1, (int)(unif(11, r) * n_cat));
    const float num = (float)(unif(12, r) * 2 - 1);
    const bool miss = missing > 0 && unif(13, r) < missing;
    D.cols[0][r] = miss ? NAN : (float)code;
    D.cols[1][r] = num;
    const double base = miss ? 0.0 : code == plus ? 3.0 : code == minus ? -3.0 : 0.0;
    D.y[r] = (float)(base + 0.1 * num);
  }
  w.cats.assign(2, {});
  for (int k = 0; k < n_cat; ++k) w.cats[0].push_back("v" + std::to_string(k));
  return w;
}

Model train_cpu(const TrainInput& in, const TrainParams& p) {
  TrainHooks hooks;
  hooks.default_device = "cpu";
  return train_model(in, p, hooks, "label");
}

TrainParams reg(int rounds, int depth) {
  TrainParams p = gbdt_test::params_for(gbdt_test::Task::kRegression, rounds);
  p.max_depth = depth;
  return p;
}

bool node_has_code(const Tree& t, int32_t n, int code) {
  const uint32_t w = t.cat_offset[n] + (uint32_t)code / 32;
  return w < t.cat_offset[n + 1] && ((t.cat_bits[w] >> (code % 32)) & 1u) != 0;
}

// Categorical nodes whose set holds exactly one of the codes a and b.
int nodes_separating(const Model& m, int a, int b) {
  int count = 0;
  for (const Tree& t : m.trees)
    for (int32_t n = 0; n < t.num_nodes(); ++n)
      if (!t.is_leaf(n) && t.is_categorical(n) && node_has_code(t, n, a) != node_has_code(t, n, b))
        ++count;
  return count;
}

double rmse(const Model& m, const gbdt_test::Data& D) {
  const std::vector<double> pred = gbdt_test::predict_all(m, D);
  double s = 0;
  for (size_t r = 0; r < D.n; ++r) s += (pred[r] - D.y[r]) * (pred[r] - D.y[r]);
  return std::sqrt(s / (double)D.n);
}

std::vector<uint8_t> bytes_of(Model m) {
  m.report.seconds_load = m.report.seconds_bin = m.report.seconds_train = 0;
  return serialize_model(m);
}

}  // namespace

TEST(WideCategories, MatrixIsWideOnlyPast255Bins) {
  for (int n_cat : {255, 256, 600}) {
    WideData w = make_wide(3000, n_cat, 1, 2, 0.05);
    BinnedInput b = bin_input(w.input(), 256, 0, 2);
    EXPECT_EQ(b.cuts.nbins(0), n_cat);
    EXPECT_EQ(b.matrix.wide, n_cat > 255) << n_cat;
    EXPECT_EQ(b.matrix.wide ? b.matrix.bins.size() : b.matrix.bins16.size(), 0u);
    for (size_t r = 0; r < w.D.n; ++r) {
      const float v = w.D.cols[0][r];
      ASSERT_EQ(b.matrix.at(r, 0), std::isnan(v) ? (uint32_t)n_cat : (uint32_t)v) << r;
    }
    // The streaming binner writes the same entries.
    RowBinner rb(b.cuts, w.D.n, 2);
    for (size_t r = 0; r < w.D.n; ++r) {
      float* x = rb.next_row();
      x[0] = w.D.cols[0][r];
      x[1] = w.D.cols[1][r];
    }
    ValueRange range;
    BinnedMatrix m = rb.finish(&range);
    EXPECT_EQ(m.wide, b.matrix.wide);
    EXPECT_EQ(m.bins, b.matrix.bins);
    EXPECT_EQ(m.bins16, b.matrix.bins16);
  }
}

// Codes 300 and 301 (of 600, equally rare) carry +3 and -3: the old binning
// put both into the "other" bin 254 (mean ~0), where no split could tell
// them apart; with one bin per code the split search finds them.
TEST(WideCategories, SeparatesRareCategoriesTheOtherBinMerged) {
  WideData w = make_wide(30000, 600, 300, 301);
  for (bool general : {false, true}) {
    TrainParams p = reg(6, 3);
    if (general) {  // the general grower (tree_grower.cpp)
      p.lossguide = true;
      p.max_leaves = 8;
    }
    Model m = train_cpu(w.input(), p);
    EXPECT_GT(nodes_separating(m, 300, 301), 0) << general;
    // Predictions follow the two codes: above 1 for 300, below -1 for 301.
    std::vector<double> pred = gbdt_test::predict_all(m, w.D);
    for (size_t r = 0; r < w.D.n; ++r) {
      if (w.D.cols[0][r] == 300.0f) {
        ASSERT_GT(pred[r], 1.0) << r;
      } else if (w.D.cols[0][r] == 301.0f) {
        ASSERT_LT(pred[r], -1.0) << r;
      }
    }
    EXPECT_LT(rmse(m, w.D), 0.2) << general;
  }
}

// num_parallel_tree > 1 adds every tree's leaf to the round's margins from
// the bin matrix: on a wide (2-byte) matrix that walk must read bins16.
// Margins are checked against the predictor on every training row.
TEST(WideCategories, ParallelTreesWalkTheWideMatrix) {
  WideData w = make_wide(6000, 600, 300, 301);
  TrainParams p = reg(4, 3);
  p.num_parallel_tree = 3;
  p.subsample = 0.8;
  Model m = train_cpu(w.input(), p);
  ASSERT_EQ(m.trees.size(), 12u);
  EXPECT_GT(nodes_separating(m, 300, 301), 0);
  // A model grown on wrong margins would not fit the two codes this well.
  EXPECT_LT(rmse(m, w.D), 0.6);
  Model again = train_cpu(w.input(), p);
  EXPECT_EQ(gbdt_test::predict_all(m, w.D), gbdt_test::predict_all(again, w.D));
}

TEST(WideCategories, ThreadsSubsampleValidationAreDeterministic) {
  WideData w = make_wide(8000, 3000, 2500, 2999, 0.1);
  TrainParams p = reg(5, 4);
  p.subsample = 0.7;           // unsampled rows walk the wide bins
  p.validation_fraction = 0.2; // validation rows are copied and walked
  Model a = train_cpu(w.input(), p);
  p.nthread = 2;
  Model b = train_cpu(w.input(), p);
  EXPECT_EQ(bytes_of(a), bytes_of(b));
  // The backend's training margins (its partition on the wide bins) agree
  // with scoring the raw codes.
  p.subsample = 1.0;
  p.validation_fraction = 0.0;
  Model c = train_cpu(w.input(), p);
  ASSERT_FALSE(c.report.train_metric.empty());
  EXPECT_NEAR(c.report.train_metric.back(), rmse(c, w.D), 1e-6);
  // Serialization keeps the 3000 bins of the categorical feature.
  const std::vector<uint8_t> s = serialize_model(c);
  Model back = deserialize_model(s.data(), s.size());
  EXPECT_EQ(back.cuts.nbins(0), 3000);
  EXPECT_EQ(gbdt_test::predict_all(back, w.D), gbdt_test::predict_all(c, w.D));
}

TEST(WideCategories, XgboostJsonRoundTrip) {
  WideData w = make_wide(20000, 1000, 700, 900, 0.05);
  Model m = train_cpu(w.input(), reg(4, 3));
  ASSERT_GT(nodes_separating(m, 700, 900), 0);
  Model back = import_xgboost_json(export_xgboost_json(m));
  EXPECT_EQ(back.categories, m.categories);
  ASSERT_EQ(back.trees.size(), m.trees.size());
  // The same codes in every set; the import stores a set of a few codes
  // past code 700 as its code list (tree.h), not a 22-word bit field.
  auto codes = [](const Tree& tr, int32_t n) {
    std::vector<uint32_t> c;
    if (tr.is_categorical(n)) tr.for_each_cat_code(n, [&c](uint32_t v) { c.push_back(v); });
    return c;
  };
  for (size_t t = 0; t < m.trees.size(); ++t) {
    ASSERT_EQ(back.trees[t].num_nodes(), m.trees[t].num_nodes()) << t;
    for (int32_t n = 0; n < m.trees[t].num_nodes(); ++n) {
      EXPECT_EQ(back.trees[t].is_categorical(n), m.trees[t].is_categorical(n)) << t << " " << n;
      EXPECT_EQ(codes(back.trees[t], n), codes(m.trees[t], n)) << t << " " << n;
    }
    EXPECT_LE(back.trees[t].cat_bits.size(), m.trees[t].cat_bits.size()) << t;
  }
  EXPECT_EQ(gbdt_test::predict_all(back, w.D), gbdt_test::predict_all(m, w.D));
}

// The partition search over more than 256 categories (merge sort, or the
// selection of the first and last max_cat_threshold when the sets take fewer
// than half) orders them as the insertion sort would: the chosen right set
// is a prefix or a suffix of the categories ordered by weight (ties by bin),
// of at most max_cat_threshold, with the best gain of all of them.
TEST(WideCategories, PartitionSetIsAWeightPrefixOrSuffix) {
  const int nb = 700;
  for (int shape = 0; shape < 3; ++shape)
    for (int threshold : {1000, 16, 1}) {
      std::vector<GradSum> h((size_t)nb + 1, GradSum{0, 0});
      GradSum parent{0, 0};
      for (int b = 0; b < nb; ++b) {
        if (b % 7 == 3) continue;  // empty categories never enter a set
        // Weights from a few values (many ties), rising or falling with the
        // bin (worst cases of the selection) or scrambled; hessian 4.
        const int64_t g = shape == 0 ? -(int64_t)((b * 37) % 11) + 5
                          : shape == 1 ? (int64_t)(b / 9) - 40
                                       : 40 - (int64_t)(b / 9);
        h[(size_t)b] = GradSum{g, 4};
        parent = gs_add(parent, h[(size_t)b]);
      }
      SplitParams sp{1.0, 0.0, 0.0, 0.0, 0.0, 1.0};
      Quantizer q{1.0, 1.0, 1.0, 1.0};
      std::vector<uint32_t> set((size_t)cat_set_words(nb));
      std::vector<int> order((size_t)nb), order_tmp((size_t)nb);
      std::vector<double> wt((size_t)nb), wt_tmp((size_t)nb);
      SplitCandidate s = best_categorical_split_words(
          h.data(), nb, 0, parent, sp, q, CatSplitParams{4, threshold}, set.data(), (int)set.size(),
          order.data(), wt.data(), order_tmp.data(), wt_tmp.data());
      ASSERT_EQ(s.feature, 0) << shape << " " << threshold;
      // Reference order: stable sort by weight.
      std::vector<int> ref;
      for (int b = 0; b < nb; ++b)
        if (h[(size_t)b].g != 0 || h[(size_t)b].h != 0) ref.push_back(b);
      auto weight = [&](int b) { return calc_weight(sp, (double)h[(size_t)b].g, (double)h[(size_t)b].h); };
      std::stable_sort(ref.begin(), ref.end(), [&](int a, int b) { return weight(a) < weight(b); });
      std::vector<int> in_set;
      for (int b = 0; b < nb; ++b)
        if (cat_words_has(set.data(), (int)set.size(), (unsigned)b)) in_set.push_back(b);
      ASSERT_FALSE(in_set.empty());
      const size_t k = in_set.size();
      ASSERT_LE(k, (size_t)threshold);
      std::vector<int> prefix(ref.begin(), ref.begin() + (long)k), suffix(ref.end() - (long)k, ref.end());
      std::sort(prefix.begin(), prefix.end());
      std::sort(suffix.begin(), suffix.end());
      EXPECT_TRUE(in_set == prefix || in_set == suffix) << shape << " " << threshold;
      // Its gain is the best over every allowed prefix and suffix.
      double best = -HUGE_VAL;
      const double pg = parent_gain(sp, q, parent);
      const size_t lim = std::min(ref.size() - 1, (size_t)threshold);
      for (int dir = 0; dir < 2; ++dir) {
        GradSum acc{0, 0};
        for (size_t i = 0; i < lim; ++i) {
          acc = gs_add(acc, h[(size_t)ref[dir == 0 ? i : ref.size() - 1 - i]]);
          best = std::max(best, split_gain_given_parent(sp, q, parent, gs_sub(parent, acc), pg));
        }
      }
      EXPECT_EQ(s.gain, best) << shape << " " << threshold;
    }
}

TEST(WideCategories, CodeSetOfTheLastBinPastTheLimit) {
  // A feature with more categories than bins: its last bin stands for the
  // rest (65536 categories in 65535 bins; 300 in 255 for earlier models).
  std::vector<uint32_t> words((size_t)cat_set_words(65535), 0);
  words[65534 / 32] |= 1u << (65534 % 32);
  words[0] |= 1u << 5;
  std::vector<uint32_t> codes = cat_codes_of_bin_words(words.data(), (int)words.size(), 65536, 65535);
  ASSERT_EQ(codes.size(), 2048u);
  EXPECT_EQ(codes[0], 1u << 5);
  EXPECT_EQ(codes[2047], 0xC0000000u);  // 65534 and 65535
  // Without more categories than bins, bin b is code b only.
  codes = cat_codes_of_bin_words(words.data(), (int)words.size(), 65535, 65535);
  EXPECT_EQ(codes[2047], 0x40000000u);
}

// The code set word by word is the code set bit by bit (the definition:
// bin b is code b, the "other" bin nb - 1 every code from nb - 1 on when
// there are more codes than bins; trailing zero words left out), for random
// sets, empty ones, the other bin alone and sets of fewer words than bins.
TEST(WideCategories, CodeSetIsTheBitByBitDefinition) {
  std::mt19937 rng(17);
  auto reference = [](const std::vector<uint32_t>& words, uint32_t n_codes, uint32_t nb) {
    std::vector<uint32_t> w;
    for (uint32_t b = 0; b < 32u * (uint32_t)words.size(); ++b) {
      if (!((words[b >> 5] >> (b & 31)) & 1u)) continue;
      const uint32_t hi = (n_codes > nb && b + 1 == nb) ? n_codes : b + 1;
      for (uint32_t c = b; c < hi; ++c) {
        if (w.size() <= (c >> 5)) w.resize((c >> 5) + 1, 0);
        w[c >> 5] |= 1u << (c & 31);
      }
    }
    return w;
  };
  for (uint32_t nb : {1u, 31u, 32u, 33u, 255u, 300u, 2972u, 65535u})
    for (uint32_t extra : {0u, 1u, 45u})
      for (int kind = 0; kind < 5; ++kind) {
        const uint32_t n_codes = nb + extra;
        std::vector<uint32_t> words((size_t)cat_set_words((int)nb), 0u);
        for (uint32_t b = 0; b < nb; ++b) {
          const bool in = kind == 0 ? false : kind == 1 ? b + 1 == nb : kind == 2 ? rng() % 7 == 0 : rng() % 2 == 0;
          if (in) words[b >> 5] |= 1u << (b & 31);
        }
        if (kind == 4 && words.size() > 1) words.resize(words.size() / 2);
        EXPECT_EQ(reference(words, n_codes, nb), cat_codes_of_bin_words(words.data(), (int)words.size(), n_codes, nb))
            << "nb " << nb << " extra " << extra << " kind " << kind;
      }
}

// A model of an earlier build: 300 categories in 255 bins (codes >= 254 in
// the "other" bin 254).  Continued training keeps its cuts (1-byte bins) and
// every new split holds the codes 254 .. 299 all or none.
TEST(WideCategories, ContinuesAModelWithTheEarlierOtherBin) {
  WideData w = make_wide(6000, 300, 100, 280);
  for (size_t r = 0; r < w.D.n; ++r)  // codes >= 254 carry +2 together
    if (w.D.cols[0][r] >= 254.0f) w.D.y[r] += 2.0f;
  TrainParams p = reg(3, 3);
  Model first = train_cpu(w.input(), p);
  // Its cuts as an earlier build made them; its trees keep their code sets.
  std::vector<float> legacy;
  for (int c = 1; c < 255; ++c) legacy.push_back((float)c);
  legacy.push_back(300.0f);
  Cuts& c = first.cuts;
  std::vector<float> values(legacy);
  values.insert(values.end(), c.values.begin() + c.ptr[1], c.values.end());
  const uint32_t n1 = c.ptr[2] - c.ptr[1];
  c.values = values;
  c.ptr = {0, 255, 255 + n1};
  first.training_dist = TrainingDistribution();  // earlier builds stored none
  const std::vector<uint8_t> bytes = serialize_model(first);
  Model old = deserialize_model(bytes.data(), bytes.size());  // loads as before
  ASSERT_EQ(old.cuts.nbins(0), 255);
  TrainHooks hooks;
  hooks.default_device = "cpu";
  Model cont = continue_training(w.input(), old, p, hooks);
  ASSERT_EQ(cont.num_rounds(), 6);
  EXPECT_EQ(cont.cuts.nbins(0), 255);
  int cat_nodes = 0;
  for (size_t t = 3; t < cont.trees.size(); ++t)
    for (int32_t n = 0; n < cont.trees[t].num_nodes(); ++n) {
      const Tree& tr = cont.trees[t];
      if (tr.is_leaf(n) || !tr.is_categorical(n)) continue;
      ++cat_nodes;
      int rare = 0;
      for (int code = 254; code < 300; ++code) rare += node_has_code(tr, n, code);
      EXPECT_TRUE(rare == 0 || rare == 46) << "tree " << t << " node " << n << ": " << rare;
    }
  EXPECT_GT(cat_nodes, 0);
}
