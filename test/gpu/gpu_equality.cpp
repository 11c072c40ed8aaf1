// CPU-vs-CUDA equality test of the gbdt engine (no PostgreSQL).
//
//   build/gpu_test [--quick] [--filter SUBSTR] [--max-rows N] [--no-files] [--list] [--data DIR]
//
// build/gpu_test_emu is the same program linked with the CPU emulation of the
// CUDA backend (test/gpu/emu: kernels run as fibers on the CPU), for checking
// the backend's logic on a machine without a GPU (`make gpuemu`).
//
// Trains every case twice through train_model(), once with device "cpu" and
// once with device "cuda", and asserts that the serialized models
// (model_format) are byte-identical (timings and the backend name are not
// serialized).  The training-metric history is part of the serialized report, so
// the backends' final training margins are compared too.  On a mismatch it
// prints where the trees first differ and the largest prediction difference.
//
// Cases: the shared Higgs and multiclass samples (DIR/higgs_7k.train.tsv,
// DIR/multiclass_7k.train.tsv; DIR defaults to $GBDT_SHARED/data or
// ../shared/data) and synthetic sets generated here: 1 row .. 2M rows,
// 1 .. 500 features, 0 / 2 / 50 % missing, every objective, depth 1 .. 16,
// max_bin 2 .. 256, sampling and regularization variants, and the backend's
// chunked-histogram mode (GBDT_CUDA_MAX_HIST_NODES).
//
// Exit status: 0 all cases equal; 1 a case differs or failed; 2 usage or
// setup error; 77 no usable CUDA device (or a build without CUDA): the test
// was SKIPPED, after checking the CPU-side behaviour of such a host (device
// 'auto' trains on the CPU, device 'cuda' fails with a clear error).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../bench/data_file.h"
#include "../unit/test_util.h"
#include "tree/tree_backend.h"
#include "data/binned_matrix.h"
#include "objective/gradients.h"
#include "model/model.h"
#include "gbm/params.h"
#include "data/quantile.h"
#include "objective/lambdarank.h"
#include "objective/objective.h"
#include "gbm/trainer.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

constexpr int kExitSkip = 77;

using gbdt_test::unif;
using Dataset = gbdt_test::Data;  // column-major data + labels (test/unit/test_util.h)

// Synthetic data: feature kinds rotate (continuous uniform, integer-valued
// with few distinct values, heavy ties, wide-range), `missing` fraction NaN;
// labels from a fixed nonlinear score of the first features plus noise.
Dataset make_synth(size_t n, int d, double missing, gbdt::Objective obj, int K, uint64_t seed) {
  Dataset D;
  D.n = n;
  D.d = d;
  D.cols.assign((size_t)d, std::vector<float>(n));
  D.names.resize((size_t)d);
  for (int f = 0; f < d; ++f) {
    D.names[f] = "f" + std::to_string(f);
    const uint64_t fs = seed * 1000003ULL + (uint64_t)f * 7919ULL;
    for (size_t r = 0; r < n; ++r) {
      double u = unif(fs, r);
      float v;
      switch (f % 4) {
        case 0: v = (float)(2.0 * u - 1.0); break;
        case 1: v = (float)std::floor(u * 7.0); break;             // 7 distinct values
        case 2: v = u < 0.6 ? 0.0f : (float)(u * 100.0); break;   // mass at 0
        default: v = (float)((u - 0.5) * 1e4); break;
      }
      if (missing > 0 && unif(fs ^ 0xABCDEFULL, r) < missing) v = NAN;
      D.cols[f][r] = v;
    }
  }
  auto val = [&](int f, size_t r) -> double {
    if (f >= d) return 0.0;
    float v = D.cols[f][r];
    return v != v ? 0.0 : (double)v;
  };
  D.y.resize(n);
  for (size_t r = 0; r < n; ++r) {
    double s = std::sin(3.0 * val(0, r)) + 0.3 * val(1, r) - 0.02 * val(2, r) +
               (val(3, r) > 0 ? 0.7 : -0.2) + 0.5 * val(0, r) * (val(5, r) - 3.0) / 3.0 +
               (d > 4 && D.cols[4][r] != D.cols[4][r] ? 0.8 : 0.0);
    double noise = unif(seed ^ 0x5EEDULL, r) - 0.5;
    switch (obj) {
      case gbdt::Objective::kRankMap:  // binary relevance
      case gbdt::Objective::kLogistic:
        D.y[r] = s + noise > 0.3 ? 1.0f : 0.0f;
        break;
      case gbdt::Objective::kRankNDCG:  // relevance degrees 0 .. K-1
      case gbdt::Objective::kRankPairwise:
      case gbdt::Objective::kSoftprob: {
        double t = (std::tanh(0.7 * (s + noise)) + 1.0) * 0.5 * K;
        int c = (int)t;
        if (c >= K) c = K - 1;
        if (c < 0) c = 0;
        D.y[r] = (float)c;
        break;
      }
      case gbdt::Objective::kPoisson:
        D.y[r] = (float)std::floor(std::exp(0.6 * s) * 2.0 * (0.5 + unif(seed ^ 0x9015ULL, r)));
        break;
      case gbdt::Objective::kSurvivalCox:  // times, every 3rd row censored (negative)
        D.y[r] = (float)((r % 3 == 0 ? -1.0 : 1.0) * (0.01 + std::exp(-0.5 * s + noise)));
        break;
      case gbdt::Objective::kSurvivalAft:  // the lower bounds (upper: train_on)
        D.y[r] = r % 11 == 0 ? 0.0f : (float)(0.01 + std::exp(-0.5 * s + noise));
        break;
      default:
        D.y[r] = (float)(s + 0.3 * noise);
        break;
    }
  }
  return D;
}

// two mirrored halves (feature 0 = 0 / 1) whose labels are each other's
// negation, with the same feature 1 values: under squared error (base score
// 0) the two children of the root split have equal best gains below them,
// so loss-guided growth must break the tie (the lower node id first).
Dataset make_mirror(size_t n) {
  Dataset D;
  D.n = n;
  D.d = 2;
  D.cols.assign(2, std::vector<float>(n));
  D.names = {"f0", "f1"};
  D.y.resize(n);
  for (size_t r = 0; r < n; ++r) {
    const bool upper = r >= n / 2;
    const int v = (int)(r % 50);
    D.cols[0][r] = upper ? 1.0f : 0.0f;
    D.cols[1][r] = (float)v;
    const float y = 1.0f + (v < 20 ? 0.5f : 0.0f) + (v % 7 == 0 ? 0.25f : 0.0f);
    D.y[r] = upper ? -y : y;
  }
  return D;
}

struct Case {
  std::string name;
  std::string file;  // empty: synthetic
  size_t n = 0;
  int d = 0;
  double missing = 0;
  gbdt::Objective obj = gbdt::Objective::kSquaredError;
  int K = 1;
  std::vector<std::pair<std::string, std::string>> params;
  int max_hist_nodes = 0;  // > 0: GBDT_CUDA_MAX_HIST_NODES for the CUDA run
  int cat_levels = 0;      // > 0: features 0 and 1 categorical (make_categorical)
  bool mirror = false;     // make_mirror's data instead of make_synth's
  bool quick = false;      // part of --quick (compute-sanitizer) runs
};

// The objective's name from the registry (objective.h), ranking included.
const char* obj_str(gbdt::Objective o) { return gbdt::objective_name(o); }

std::vector<Case> all_cases() {
  using O = gbdt::Objective;
  std::vector<Case> cs;
  auto add = [&](std::string name, size_t n, int d, double miss, O obj, int K, int depth,
                 int max_bin, int rounds, std::vector<std::pair<std::string, std::string>> extra = {},
                 bool quick = false) {
    Case c;
    c.name = name;
    c.n = n;
    c.d = d;
    c.missing = miss;
    c.obj = obj;
    c.K = K;
    c.params = {{"objective", obj_str(obj)},
                {"max_depth", std::to_string(depth)},
                {"max_bin", std::to_string(max_bin)},
                {"num_round", std::to_string(rounds)}};
    if (obj == O::kSoftprob) c.params.push_back({"num_class", std::to_string(K)});
    for (auto& kv : extra) c.params.push_back(kv);
    c.quick = quick;
    cs.push_back(c);
    return cs.size() - 1;
  };
  const O objs[] = {O::kSquaredError, O::kLogistic, O::kSoftprob, O::kPoisson};
  // Tiny shapes.
  add("n1_d3_reg", 1, 3, 0, O::kSquaredError, 1, 3, 256, 3, {{"min_child_weight", "0"}}, true);
  add("n2_d1_bin", 2, 1, 0, O::kLogistic, 1, 2, 256, 3, {{"min_child_weight", "0"}}, true);
  add("n7_d2_reg_depth12", 7, 2, 0, O::kSquaredError, 1, 12, 256, 4, {{"min_child_weight", "0"}}, true);
  for (O o : objs) {
    int K = o == O::kSoftprob ? 3 : 1;
    std::string on = obj_str(o);
    add("n100_d1_" + on, 100, 1, 0, o, K, 3, 256, 5, {}, true);
    add("n1000_d10_miss50_bin2_" + on, 1000, 10, 0.5, o, K, 6, 2, 5, {}, true);
    add("n10k_d28_miss2_depth1_" + on, 10000, 28, 0.02, o, K, 1, 256, 10);
    add("n10k_d28_miss2_depth6_bin16_" + on, 10000, 28, 0.02, o, K, 6, 16, 10);
    add("n10k_d28_miss0_depth12_" + on, 10000, 28, 0.0, o, K, 12, 256, 5);
    add("n50k_d40_miss50_depth8_bin64_" + on, 50000, 40, 0.5, o, K, 8, 64, 5);
  }
  add("n5000_d500_miss2_bin", 5000, 500, 0.02, O::kLogistic, 1, 6, 256, 3, {}, true);
  add("n20k_d500_miss2_bin64_bin", 20000, 500, 0.02, O::kLogistic, 1, 6, 64, 3);
  add("n20k_d100_softprob7", 20000, 100, 0.0, O::kSoftprob, 7, 6, 128, 4);
  add("n100k_d50_softprob5_depth8", 100000, 50, 0.0, O::kSoftprob, 5, 8, 256, 3);
  add("n1M_d28_bin_depth8", 1000000, 28, 0.0, O::kLogistic, 1, 8, 256, 5);
  add("n2M_d10_miss2_reg_depth10", 2000000, 10, 0.02, O::kSquaredError, 1, 10, 256, 3);
  add("n2M_d28_miss50_poisson_depth6_bin32", 2000000, 28, 0.5, O::kPoisson, 1, 6, 32, 2);
  add("n50k_d8_reg_depth16", 50000, 8, 0.0, O::kSquaredError, 1, 16, 256, 3,
      {{"min_child_weight", "0"}});
  // Sampling and regularization variants.
  add("n20k_d20_subsample", 20000, 20, 0.02, O::kLogistic, 1, 6, 256, 8,
      {{"subsample", "0.7"}, {"seed", "7"}}, true);
  add("n20k_d20_colsample", 20000, 20, 0.02, O::kSquaredError, 1, 6, 256, 8,
      {{"colsample_bytree", "0.5"}, {"seed", "3"}});
  add("n20k_d20_subsample_softprob", 20000, 20, 0.0, O::kSoftprob, 4, 5, 256, 4,
      {{"subsample", "0.5"}, {"colsample_bytree", "0.6"}});
  add("n20k_d20_alpha_lambda0", 20000, 20, 0.02, O::kSquaredError, 1, 6, 256, 8,
      {{"alpha", "0.5"}, {"lambda", "0"}});
  add("n20k_d20_gamma_mcw", 20000, 20, 0.02, O::kLogistic, 1, 8, 256, 8,
      {{"gamma", "1"}, {"min_child_weight", "5"}});
  add("n20k_d20_max_delta_step", 20000, 20, 0.0, O::kLogistic, 1, 6, 256, 8,
      {{"max_delta_step", "0.5"}, {"eta", "1"}});
  // min_data_in_leaf: rows estimated from the hessian (exact with squared
  // error, an estimate with logistic), per node row counts on both sides.
  add("n20k_d12_min_data_in_leaf_reg", 20000, 12, 0.02, O::kSquaredError, 1, 8, 256, 4,
      {{"min_data_in_leaf", "150"}, {"subsample", "0.8"}, {"seed", "3"}}, true);
  add("n20k_d12_min_data_in_leaf_bin", 20000, 12, 0.02, O::kLogistic, 1, 7, 64, 4,
      {{"min_child_samples", "60"}, {"max_delta_step", "0.7"}}, true);
  // Tree parameters on CUDA: per-node feature masks and max_leaves.
  add("n20k_d20_colsample_bylevel", 20000, 20, 0.02, O::kSquaredError, 1, 6, 256, 6,
      {{"colsample_bylevel", "0.5"}, {"colsample_bytree", "0.8"}, {"seed", "5"}}, true);
  add("n20k_d20_colsample_bynode_softprob", 20000, 20, 0.02, O::kSoftprob, 3, 5, 256, 4,
      {{"colsample_bynode", "0.3"}, {"seed", "9"}}, true);
  add("n20k_d12_interaction", 20000, 12, 0.02, O::kLogistic, 1, 6, 256, 6,
      {{"interaction_constraints", "[[0,1,2],[3,4],[5,6,7,8]]"}}, true);
  add("n20k_d10_monotone", 20000, 10, 0.02, O::kSquaredError, 1, 6, 256, 6,
      {{"monotone_constraints", "(1,-1,0,1)"}, {"alpha", "0.3"}}, true);
  add("n20k_d10_monotone_mds_bin", 20000, 10, 0.02, O::kLogistic, 1, 5, 128, 5,
      {{"monotone_constraints", "(0,1,-1)"}, {"max_delta_step", "0.7"}, {"max_leaves", "9"},
       {"interaction_constraints", "[[0,1,2,3],[3,4,5,6,7]]"}}, true);
  add("n20k_d20_max_leaves_all", 20000, 20, 0.02, O::kSquaredError, 1, 7, 64, 6,
      {{"max_leaves", "11"}, {"colsample_bynode", "0.6"}, {"colsample_bylevel", "0.7"},
       {"interaction_constraints", "[[0,1,2,3,4,5],[4,5,6,7,8,9,10]]"}, {"subsample", "0.8"}}, true);
  add("n20k_d20_validation_early_stop", 20000, 20, 0.02, O::kLogistic, 1, 6, 256, 30,
      {{"validation_fraction", "0.2"}, {"early_stopping_rounds", "3"}, {"eta", "0.8"}});
  // ranking (host gradients uploaded to the device).
  add("n5000_d10_rank_ndcg", 5000, 10, 0.02, O::kRankNDCG, 5, 6, 256, 5,
      {{"group_column", "qid"}}, true);
  add("n5000_d10_rank_pairwise_mean", 5000, 10, 0.0, O::kRankPairwise, 3, 6, 64, 5,
      {{"group_column", "qid"}, {"lambdarank_pair_method", "mean"},
       {"lambdarank_num_pair_per_sample", "3"}}, true);
  add("n5000_d10_rank_map_valid", 5000, 10, 0.02, O::kRankMap, 2, 6, 256, 8,
      {{"group_column", "qid"}, {"validation_fraction", "0.2"}}, true);
  // several quantiles (one single-output CUDA backend per alpha) and
  // num_parallel_tree (trees per round on the same gradients).
  add("n5000_d10_quantile_list", 5000, 10, 0.02, O::kQuantile, 1, 6, 256, 5,
      {{"quantile_alpha", "[0.1, 0.5, 0.9]"}, {"subsample", "0.8"}, {"seed", "2"}}, true);
  add("n5000_d10_parallel_tree_forest", 5000, 10, 0.02, O::kSquaredError, 1, 6, 256, 3,
      {{"num_parallel_tree", "4"}, {"eta", "1"}, {"subsample", "0.7"}, {"colsample_bynode", "0.5"},
       {"seed", "4"}}, true);
  add("n5000_d10_parallel_tree_softprob", 5000, 10, 0.0, O::kSoftprob, 3, 5, 256, 3,
      {{"num_parallel_tree", "2"}, {"subsample", "0.8"}}, true);
  // survival (host gradients uploaded to the device).
  add("n5000_d10_survival_cox", 5000, 10, 0.02, O::kSurvivalCox, 1, 6, 256, 5, {}, true);
  add("n20k_d20_survival_cox_subsample_valid", 20000, 20, 0.0, O::kSurvivalCox, 1, 6, 64, 8,
      {{"subsample", "0.8"}, {"validation_fraction", "0.2"}, {"seed", "5"}});
  add("n5000_d10_survival_aft_normal", 5000, 10, 0.02, O::kSurvivalAft, 1, 6, 256, 5,
      {{"label_upper_bound_column", "hi"}, {"validation_fraction", "0.2"},
       {"eval_metric", "interval-regression-accuracy,aft-nloglik"}}, true);
  add("n5000_d10_survival_aft_extreme", 5000, 10, 0.0, O::kSurvivalAft, 1, 6, 64, 5,
      {{"label_upper_bound_column", "hi"}, {"aft_loss_distribution", "extreme"},
       {"aft_loss_distribution_scale", "0.7"}, {"eta", "0.5"}});
  add("n20k_d20_base_score", 20000, 20, 0.0, O::kPoisson, 1, 6, 256, 5, {{"base_score", "2.5"}});
  // Chunked histogram mode (direct builds, a few nodes at a time).
  {
    size_t i = add("n30k_d12_chunked_hist_depth10", 30000, 12, 0.02, O::kLogistic, 1, 10, 256, 4,
                   {}, true);
    cs[i].max_hist_nodes = 3;
    i = add("n30k_d12_chunked_hist1_softprob", 30000, 12, 0.0, O::kSoftprob, 3, 7, 64, 3);
    cs[i].max_hist_nodes = 1;
  }
  // Categorical features (features 0 and 1; see make_categorical).
  {
    size_t i = add("cat30_n5000_d6_miss2_reg", 5000, 6, 0.02, O::kSquaredError, 1, 6, 256, 5, {}, true);
    cs[i].cat_levels = 30;
    i = add("cat400_n20k_d6_miss2_bin_subsample", 20000, 6, 0.02, O::kLogistic, 1, 6, 256, 5,
            {{"subsample", "0.7"}, {"max_cat_threshold", "16"}}, true);
    cs[i].cat_levels = 400;
    i = add("cat12_n5000_d6_softprob_onehot", 5000, 6, 0.1, O::kSoftprob, 3, 5, 64, 4,
            {{"max_cat_to_onehot", "16"}, {"colsample_bytree", "0.7"}}, true);
    cs[i].cat_levels = 12;
    i = add("cat50_n10k_d8_chunked_hist", 10000, 8, 0.02, O::kLogistic, 1, 7, 256, 3, {}, true);
    cs[i].cat_levels = 50;
    cs[i].max_hist_nodes = 3;
    // Categorical splits under the tree parameters (node masks,
    // max_leaves, monotone bounds on the numeric features).
    i = add("cat30_n5000_d8_tree_params", 5000, 8, 0.02, O::kSquaredError, 1, 6, 256, 5,
            {{"monotone_constraints", "(0,0,1,-1)"}, {"colsample_bynode", "0.7"},
             {"max_leaves", "20"}, {"interaction_constraints", "[[0,2,3,4],[1,5,6,7]]"}},
            true);
    cs[i].cat_levels = 30;
    i = add("cat400_n5000_d6_bin_bylevel_monotone", 5000, 6, 0.02, O::kLogistic, 1, 5, 256, 4,
            {{"colsample_bylevel", "0.6"}, {"monotone_constraints", "(0,0,-1,1)"},
             {"subsample", "0.8"}, {"max_cat_threshold", "16"}},
            true);
    cs[i].cat_levels = 400;
    // more than 255 categories, one bin each (2-byte bin matrix, bin
    // sets wider than 256 bits, the merge-sorted partition search).
    i = add("cat1000_n20k_d6_miss2_wide_subsample", 20000, 6, 0.02, O::kSquaredError, 1, 6, 256, 4,
            {{"subsample", "0.8"}, {"max_cat_threshold", "64"}}, true);
    cs[i].cat_levels = 1000;
    // Global-memory histograms: a feature of 15,000 categories needs 240 KB
    // of histogram slots, more than a block's shared memory (227 KB opt-in
    // on H100/H200), so its histogram tasks add into global memory.
    i = add("cat15000_n40k_d4_global_hist", 40000, 4, 0.02, O::kLogistic, 1, 5, 256, 3,
            {{"max_cat_threshold", "64"}}, true);
    cs[i].cat_levels = 15000;
    i = add("cat3000_n30k_d6_wide_binary_chunked", 30000, 6, 0.02, O::kLogistic, 1, 6, 256, 3,
            {{"max_cat_threshold", "300"}}, true);
    cs[i].cat_levels = 3000;
    cs[i].max_hist_nodes = 3;
    i = add("cat30_n5000_d6_min_data_in_leaf", 5000, 6, 0.02, O::kSquaredError, 1, 6, 256, 4,
            {{"min_data_in_leaf", "80"}}, true);
    cs[i].cat_levels = 30;
    // LightGBM's categorical regularization (the nodes' row counts without
    // min_data_in_leaf; the smoothed order, cat_l2, the group gate).
    i = add("cat400_n20k_d6_miss2_cat_regularization", 20000, 6, 0.02, O::kLogistic, 1, 6, 256, 4,
            {{"cat_smooth", "10"}, {"cat_l2", "10"}, {"min_data_per_group", "100"}}, true);
    cs[i].cat_levels = 400;
    i = add("cat3000_n30k_d6_cat_smooth_group_reg", 30000, 6, 0.02, O::kSquaredError, 1, 6, 256, 3,
            {{"cat_smooth", "5"}, {"min_data_per_group", "30"}, {"max_cat_threshold", "300"}}, true);
    cs[i].cat_levels = 3000;
  }
  // grow_policy lossguide (best first, max_leaves, max_depth 0 = no
  // limit), with categorical features, constraints, sampling, multiclass and
  // the histogram pool's eviction (GBDT_CUDA_MAX_HIST_NODES).
  {
    auto lg = [](const char* leaves, std::vector<std::pair<std::string, std::string>> extra) {
      std::vector<std::pair<std::string, std::string>> kv = {{"grow_policy", "lossguide"},
                                                             {"max_leaves", leaves}};
      kv.insert(kv.end(), extra.begin(), extra.end());
      return kv;
    };
    add("lg_n7_d2_leaves8_depth0", 7, 2, 0, O::kSquaredError, 1, 0, 256, 3,
        lg("8", {{"min_child_weight", "0"}}), true);
    add("lg_n20k_d12_leaves8_depth0_reg", 20000, 12, 0.02, O::kSquaredError, 1, 0, 256, 6,
        lg("8", {}), true);
    add("lg_n20k_d12_leaves31_depth0_min_data_in_leaf", 20000, 12, 0.02, O::kSquaredError, 1, 0, 256, 4,
        lg("31", {{"min_data_in_leaf", "200"}}), true);
    add("lg_n20k_d12_leaves8_depth4_bin", 20000, 12, 0.02, O::kLogistic, 1, 4, 64, 6,
        lg("8", {{"subsample", "0.8"}, {"seed", "4"}}), true);
    add("lg_n20k_d12_leaves31_depth0_reg_gamma", 20000, 12, 0.02, O::kSquaredError, 1, 0, 256, 5,
        lg("31", {{"gamma", "0.5"}, {"alpha", "0.2"}}), true);
    add("lg_n20k_d12_leaves31_depth4_poisson", 20000, 12, 0.5, O::kPoisson, 1, 4, 32, 5,
        lg("31", {}), true);
    add("lg_n10k_d20_leaves31_depth0_softprob3", 10000, 20, 0.02, O::kSoftprob, 3, 0, 128, 4,
        lg("31", {{"colsample_bynode", "0.6"}, {"colsample_bylevel", "0.8"}, {"seed", "6"}}),
        true);
    add("lg_n10k_d10_leaves8_depth4_softprob4", 10000, 10, 0.0, O::kSoftprob, 4, 4, 256, 4,
        lg("8", {{"subsample", "0.7"}}), true);
    add("lg_n20k_d10_monotone_leaves31_depth0", 20000, 10, 0.02, O::kSquaredError, 1, 0, 256, 6,
        lg("31", {{"monotone_constraints", "(1,-1,0,1)"}, {"alpha", "0.3"}}), true);
    add("lg_n20k_d10_monotone_interaction_leaves8_depth4_bin", 20000, 10, 0.02, O::kLogistic, 1, 4,
        128, 5,
        lg("8", {{"monotone_constraints", "(0,1,-1)"}, {"max_delta_step", "0.7"},
                 {"interaction_constraints", "[[0,1,2,3],[3,4,5,6,7]]"}}),
        true);
    add("lg_n5000_d8_no_leaf_limit_depth5", 5000, 8, 0.02, O::kSquaredError, 1, 5, 256, 4,
        lg("0", {}), true);
    size_t i = add("lg_n30k_d12_leaves31_depth0_evict", 30000, 12, 0.02, O::kLogistic, 1, 0, 256, 4,
                   lg("31", {}), true);
    cs[i].max_hist_nodes = 1;  // a pool of 2 histogram slots: open nodes give theirs up
    i = add("lg_n20k_d10_leaves31_depth4_evict_softprob3", 20000, 10, 0.0, O::kSoftprob, 3, 4, 64, 3,
            lg("31", {{"subsample", "0.8"}}), true);
    cs[i].max_hist_nodes = 2;
    i = add("lg_cat30_n5000_d8_leaves8_depth4", 5000, 8, 0.02, O::kSquaredError, 1, 4, 256, 5,
            lg("8", {}), true);
    cs[i].cat_levels = 30;
    i = add("lg_cat30_n5000_d8_leaves31_depth0_monotone_bynode", 5000, 8, 0.02, O::kSquaredError, 1, 0,
            256, 5,
            lg("31", {{"monotone_constraints", "(0,0,1,-1)"}, {"colsample_bynode", "0.7"},
                      {"interaction_constraints", "[[0,2,3,4],[1,5,6,7]]"}}),
            true);
    cs[i].cat_levels = 30;
    i = add("lg_cat400_n20k_d6_leaves31_depth0_bin_subsample", 20000, 6, 0.02, O::kLogistic, 1, 0, 256,
            4, lg("31", {{"subsample", "0.7"}, {"max_cat_threshold", "16"}}), true);
    cs[i].cat_levels = 400;
    i = add("lg_cat12_n5000_d6_leaves8_depth0_softprob3_onehot", 5000, 6, 0.1, O::kSoftprob, 3, 0, 64,
            4, lg("8", {{"max_cat_to_onehot", "16"}}), true);
    cs[i].cat_levels = 12;
    // Tied gains (make_mirror): which open node splits first is the
    // tie-break's (max_leaves 3: only one of the tied children splits).
    for (const char* leaves : {"3", "6"}) {
      i = add(std::string("lg_mirror_ties_leaves") + leaves, 4000, 2, 0, O::kSquaredError, 1, 0, 256, 3,
              lg(leaves, {{"base_score", "0"}}), true);
      cs[i].mirror = true;
    }
  }
  // cross-feature combinations that reach the CUDA backend together
  // (test/unit/test_feature_combinations.cpp sweeps them on the CPU): wide
  // bins (> 255 categories, 2-byte bin matrix) x lossguide x
  // num_parallel_tree x several quantiles x weights.
  {
    auto lg = [](const char* leaves, std::vector<std::pair<std::string, std::string>> extra) {
      std::vector<std::pair<std::string, std::string>> kv = {{"grow_policy", "lossguide"},
                                                             {"max_leaves", leaves}};
      kv.insert(kv.end(), extra.begin(), extra.end());
      return kv;
    };
    size_t i = add("cmb_cat400_lg_npt3_quantiles_weighted", 5000, 6, 0.02, O::kQuantile, 1, 0, 256, 3,
                   lg("16", {{"num_parallel_tree", "3"}, {"quantile_alpha", "[0.1, 0.5, 0.9]"},
                             {"weight_column", "w"}, {"subsample", "0.8"}, {"seed", "3"}}),
                   true);
    cs[i].cat_levels = 400;
    i = add("cmb_cat400_npt3_bin_weighted_colsample", 5000, 6, 0.02, O::kLogistic, 1, 5, 256, 3,
            {{"num_parallel_tree", "3"}, {"weight_column", "w"}, {"colsample_bynode", "0.7"},
             {"subsample", "0.7"}, {"seed", "5"}},
            true);
    cs[i].cat_levels = 400;
    i = add("cmb_cat600_lg_npt2_softprob3_weighted_valid", 5000, 6, 0.02, O::kSoftprob, 3, 4, 256, 3,
            lg("8", {{"num_parallel_tree", "2"}, {"weight_column", "w"},
                     {"validation_fraction", "0.2"}, {"seed", "6"}}),
            true);
    cs[i].cat_levels = 600;
    i = add("cmb_cat300_lg_npt2_rank_ndcg_weighted", 5000, 6, 0.02, O::kRankNDCG, 5, 0, 256, 3,
            lg("16", {{"group_column", "qid"}, {"num_parallel_tree", "2"}, {"weight_column", "w"}}),
            true);
    cs[i].cat_levels = 300;
    i = add("cmb_cat400_lg_aft_weighted_monotone", 5000, 6, 0.02, O::kSurvivalAft, 1, 0, 256, 3,
            lg("16", {{"label_upper_bound_column", "hi"}, {"weight_column", "w"},
                      {"monotone_constraints", "(0,0,1,-1)"}, {"num_parallel_tree", "2"}}),
            true);
    cs[i].cat_levels = 400;
    i = add("cmb_cat400_lg_quantiles_interaction_weighted", 5000, 8, 0.02, O::kQuantile, 1, 4, 64, 3,
            lg("8", {{"quantile_alpha", "[0.25, 0.75]"}, {"weight_column", "w"},
                     {"interaction_constraints", "[[0,2,3],[1,4,5,6,7]]"}, {"colsample_bylevel", "0.8"}}),
            true);
    cs[i].cat_levels = 400;
  }
  // Shared data files.
  {
    Case c;
    c.name = "higgs_7k_depth6";
    c.file = "higgs_7k.train.tsv";
    c.params = {{"objective", "binary:logistic"}, {"num_round", "50"}};
    cs.push_back(c);
    c.name = "higgs_7k_depth10_bin64_sub";
    c.params = {{"objective", "binary:logistic"}, {"num_round", "20"}, {"max_depth", "10"},
                {"max_bin", "64"}, {"subsample", "0.8"}, {"colsample_bytree", "0.8"}};
    cs.push_back(c);
    c.name = "higgs_7k_reg";
    c.params = {{"objective", "reg:squarederror"}, {"num_round", "20"}};
    cs.push_back(c);
    c.name = "multiclass_7k_depth6";
    c.file = "multiclass_7k.train.tsv";
    c.params = {{"objective", "multi:softprob"}, {"num_round", "30"}};
    c.quick = true;
    cs.push_back(c);
  }
  return cs;
}

// Features 0 (uniform) and 1 (7 distinct values) of a synthetic set as
// categorical codes: feature 0 bucketed into `levels` buckets whose codes
// are scrambled (so the codes are not in the value's order), feature 1's
// values 0..6 as codes.  Returns the category names per feature.
std::vector<std::vector<std::string>> make_categorical(Dataset* D, int levels) {
  std::vector<std::vector<std::string>> cats((size_t)D->d);
  for (int f = 0; f < std::min(D->d, 2); ++f) {
    const int n = f == 0 ? levels : 7;
    for (int k = 0; k < n; ++k) cats[f].push_back("v" + std::to_string(k));
    for (size_t r = 0; r < D->n; ++r) {
      float& v = D->cols[f][r];
      if (v != v) continue;
      if (f == 0) {
        int b = std::min(levels - 1, (int)((v + 1.0f) * 0.5f * (float)levels));
        v = (float)((int)(((long long)b * 7919) % levels));
      }
    }
  }
  return cats;
}

// First difference between two models' trees, for the failure message.
std::string tree_diff(const gbdt::Model& a, const gbdt::Model& b) {
  std::ostringstream o;
  if (a.trees.size() != b.trees.size()) {
    o << "tree count " << a.trees.size() << " vs " << b.trees.size();
    return o.str();
  }
  for (size_t t = 0; t < a.trees.size(); ++t) {
    const gbdt::Tree& x = a.trees[t];
    const gbdt::Tree& y = b.trees[t];
    if (x.num_nodes() != y.num_nodes()) {
      o << "tree " << t << ": " << x.num_nodes() << " vs " << y.num_nodes() << " nodes";
      return o.str();
    }
    for (int32_t i = 0; i < x.num_nodes(); ++i) {
      if (x.left[i] != y.left[i] || x.right[i] != y.right[i] || x.feature[i] != y.feature[i] ||
          x.split_bin[i] != y.split_bin[i] || x.default_left[i] != y.default_left[i]) {
        o << "tree " << t << " node " << i << ": split f" << x.feature[i] << "/bin " << x.split_bin[i]
          << "/dl " << (int)x.default_left[i] << " vs f" << y.feature[i] << "/bin " << y.split_bin[i]
          << "/dl " << (int)y.default_left[i] << " (gain " << x.gain[i] << " vs " << y.gain[i] << ")";
        return o.str();
      }
      if (std::memcmp(&x.value[i], &y.value[i], 4) || std::memcmp(&x.gain[i], &y.gain[i], 4) ||
          std::memcmp(&x.cover[i], &y.cover[i], 8)) {
        o.precision(17);
        o << "tree " << t << " node " << i << ": value " << x.value[i] << " vs " << y.value[i]
          << ", gain " << x.gain[i] << " vs " << y.gain[i] << ", cover " << x.cover[i] << " vs "
          << y.cover[i];
        return o.str();
      }
    }
  }
  if (a.report.train_metric != b.report.train_metric) {
    o.precision(17);
    o << "training metric (from the backend's final margins) "
      << (a.report.train_metric.empty() ? NAN : a.report.train_metric[0]) << " vs "
      << (b.report.train_metric.empty() ? NAN : b.report.train_metric[0]);
    return o.str();
  }
  return "trees equal; other serialized fields differ";
}

// a lossguide case's trees have at most max_leaves leaves, and with no
// depth limit (and enough rows) some tree has exactly max_leaves, so the
// best-first order decided which nodes split.
void check_lossguide_leaves(const Case& c, const gbdt::Model& m) {
  std::string policy, max_depth;
  int max_leaves = 0;
  for (const auto& kv : c.params) {
    if (kv.first == "grow_policy") policy = kv.second;
    if (kv.first == "max_leaves") max_leaves = std::stoi(kv.second);
    if (kv.first == "max_depth") max_depth = kv.second;
  }
  if (policy != "lossguide" || max_leaves <= 0) return;
  int most = 0;
  for (const gbdt::Tree& t : m.trees) {
    int leaves = 0;
    for (int32_t i = 0; i < t.num_nodes(); ++i) leaves += t.is_leaf(i) ? 1 : 0;
    most = std::max(most, leaves);
  }
  if (most > max_leaves)
    throw std::runtime_error("a tree has " + std::to_string(most) + " leaves, max_leaves is " +
                             std::to_string(max_leaves));
  if (max_depth == "0" && c.n >= 1000 && most != max_leaves)
    throw std::runtime_error("no tree reached max_leaves = " + std::to_string(max_leaves) +
                             " (at most " + std::to_string(most) + " leaves)");
}

double max_pred_diff(const gbdt::Model& a, const gbdt::Model& b, const Dataset& D) {
  const size_t n = std::min<size_t>(D.n, 20000);
  std::vector<float> x(n * (size_t)D.d);
  for (size_t r = 0; r < n; ++r)
    for (int f = 0; f < D.d; ++f) x[r * D.d + f] = D.cols[f][r];
  const int K = a.num_output_group;
  std::vector<double> pa(n * K), pb(n * K);
  gbdt::predict_batch(a, x.data(), n, pa.data(), gbdt::default_nthread());
  gbdt::predict_batch(b, x.data(), n, pb.data(), gbdt::default_nthread());
  double m = 0;
  for (size_t i = 0; i < pa.size(); ++i) m = std::max(m, std::fabs(pa[i] - pb[i]));
  return m;
}

gbdt::Model train_on(const Dataset& D, const std::vector<std::pair<std::string, std::string>>& kv,
                     const std::string& device, std::string* notice,
                     const std::vector<std::vector<std::string>>* cats = nullptr) {
  std::vector<gbdt::ParamKV> kvs;
  for (auto& p : kv)
    kvs.push_back({p.first, p.second,
                   p.first == "objective" || p.first == "label_upper_bound_column" ||
                       p.first == "weight_column"});
  gbdt::TrainParams p;
  gbdt::apply_params(kvs, &p);
  p.device = device;
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  hooks.notice = [notice](const std::string& s) {
    if (notice) *notice += s;
  };
  // ranking cases: query groups of about 25 rows, not contiguous.
  std::vector<uint32_t> groups;
  gbdt::TrainInput in = D.n ? D.input() : gbdt::TrainInput{};
  if (cats) {
    in.categories = *cats;
    for (size_t f = 0; f < cats->size(); ++f)
      if (!(*cats)[f].empty()) in.feature_types[f] = gbdt::FeatureType::kCategorical;
  }
  if (!p.group_column.empty()) {
    const size_t G = std::max<size_t>(1, D.n / 25);
    groups.resize(D.n);
    for (size_t r = 0; r < D.n; ++r) groups[r] = (uint32_t)((r * 7919) % G);
    in.query_group = groups.data();
  }
  // row weights (weight_column): in [0.2, 2.2), one per query group for
  // the ranking objectives (XGBoost's rule).
  std::vector<float> weights;
  if (!p.weight_column.empty()) {
    weights.resize(D.n);
    for (size_t r = 0; r < D.n; ++r)
      weights[r] = groups.empty() ? 0.2f + 2.0f * (float)((r * 2654435761u) % 1000) / 1000.0f
                                  : 0.5f + 0.5f * (float)(groups[r] % 3);
    in.weights = weights.data();
  }
  // survival:aft's upper bounds: every 3rd row right-censored (+inf),
  // every 5th interval-censored, the rest uncensored (left-censored: the
  // lower bounds of 0 from make_synth).
  std::vector<float> upper;
  if (gbdt::objective_info(p.objective).interval_labels) {
    upper.resize(D.n);
    for (size_t r = 0; r < D.n; ++r)
      upper[r] = D.y[r] == 0.0f ? 1.0f
                 : r % 3 == 0   ? std::numeric_limits<float>::infinity()
                 : r % 5 == 0   ? 1.5f * D.y[r]
                                : D.y[r];
    in.labels_upper = upper.data();
  }
  return gbdt::train_model(in, p, hooks);
}

Dataset load_file(const std::string& path) {
  DataFile df = read_data_file(path);
  Dataset D;
  D.n = df.rows();
  D.d = (int)df.cols.size();
  D.cols = std::move(df.cols);
  D.y = std::move(df.labels);
  D.names = df.names;
  return D;
}

// Host without a usable device: the CPU-side contract.
int no_device_checks() {
  int bad = 0;
  Dataset D = make_synth(500, 5, 0.02, gbdt::Objective::kLogistic, 1, 11);
  std::vector<std::pair<std::string, std::string>> kv = {{"objective", "binary:logistic"},
                                                         {"num_round", "3"}};
  try {
    std::string notice;
    gbdt::Model m = train_on(D, kv, "auto", &notice);
    std::cout << "  device 'auto' trained on: " << m.report.backend << "\n";
    if (m.report.backend != "cpu") ++bad;
  } catch (const std::exception& e) {
    std::cout << "  FAIL device 'auto' threw: " << e.what() << "\n";
    ++bad;
  }
  try {
    train_on(D, kv, "cuda", nullptr);
    std::cout << "  FAIL device 'cuda' trained without a device\n";
    ++bad;
  } catch (const std::exception& e) {
    std::string msg = e.what();
    std::cout << "  device 'cuda' error: " << msg << "\n";
    if (msg.find("cuda") == std::string::npos && msg.find("CUDA") == std::string::npos) ++bad;
  }
  if (gbdt::cuda_compiled()) {
    // The backend's own error (what the trainer reports for device 'auto').
    gbdt::ColumnInput ci;
    ci.n_rows = D.n;
    for (auto& c : D.cols) ci.columns.push_back(c.data());
    gbdt::Cuts cuts = gbdt::compute_cuts(ci, 256, 1);
    gbdt::BinnedMatrix bm = gbdt::bin_matrix(ci, cuts, 1);
    gbdt::BoostData bd;
    bd.matrix = &bm;
    bd.cuts = &cuts;
    bd.labels = D.y.data();
    bd.n_rows = D.n;
    bd.split = gbdt::SplitParams{1, 0, 0, 1, 0, 0.3};
    try {
      gbdt::make_cuda_backend(bd);
      std::cout << "  FAIL make_cuda_backend succeeded without a device\n";
      ++bad;
    } catch (const gbdt::ResourceError& e) {
      std::cout << "  make_cuda_backend: " << e.what() << "\n";
    } catch (const std::exception& e) {
      std::cout << "  FAIL make_cuda_backend threw a non-ResourceError: " << e.what() << "\n";
      ++bad;
    }
  }
  return bad;
}

std::string default_data_dir() {
  const char* s = std::getenv("GBDT_SHARED");
  if (s && *s) return std::string(s) + "/data";
  return "../shared/data";
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, not_quick = false, list = false, no_files = false;
  size_t max_rows = 0;
  std::string filter, data_dir = default_data_dir();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--not-quick") not_quick = true;
    else if (a == "--list") list = true;
    else if (a == "--filter" && i + 1 < argc) filter = argv[++i];
    else if (a == "--data" && i + 1 < argc) data_dir = argv[++i];
    else if (a == "--max-rows" && i + 1 < argc) max_rows = (size_t)std::stoull(argv[++i]);
    else if (a == "--no-files") no_files = true;
    else {
      std::cerr << "usage: gpu_test [--quick | --not-quick] [--filter SUBSTR[,SUBSTR...]] [--max-rows N]"
                   " [--no-files] [--list] [--data DIR]\n";
      return 2;
    }
  }
  // --filter: a case runs when its name contains one of the comma-separated
  // substrings; each substring must match some case (a misspelt filter in
  // a device script must not silently test nothing).
  std::vector<std::string> filters;
  for (size_t p = 0; !filter.empty() && p <= filter.size();) {
    size_t q = filter.find(',', p);
    if (q == std::string::npos) q = filter.size();
    if (q > p) filters.push_back(filter.substr(p, q - p));
    p = q + 1;
  }
  auto matches = [&](const std::string& name) {
    if (filters.empty()) return true;
    for (const std::string& f : filters)
      if (name.find(f) != std::string::npos) return true;
    return false;
  };
  for (const std::string& f : filters) {
    bool any = false;
    for (const Case& c : all_cases()) any |= c.name.find(f) != std::string::npos;
    if (!any) {
      std::cerr << "gpu_test: --filter " << f << " matches no case\n";
      return 2;
    }
  }
  std::vector<Case> cases;
  for (const Case& c : all_cases())
    if ((!quick || c.quick) && (!not_quick || !c.quick) && matches(c.name) &&
        (max_rows == 0 || (c.file.empty() ? c.n : 7000) <= max_rows) &&
        (!no_files || c.file.empty()))
      cases.push_back(c);
  if (cases.empty() && !list) {
    std::cerr << "gpu_test: the options select no case\n";
    return 2;
  }
  if (list) {
    for (const Case& c : cases) std::cout << c.name << "\n";
    return 0;
  }

  std::cout << "gpu_test: cuda build info: " << gbdt::cuda_build_info_json() << "\n";
#if defined(GBDT_CUDA_EMULATION)
  std::cout << "gpu_test: CPU EMULATION of the CUDA backend (test/gpu/emu), not a GPU run\n";
#endif
  if (!gbdt::cuda_compiled() || gbdt::cuda_device_count() == 0) {
    std::cout << "gpu_test: " << (gbdt::cuda_compiled() ? "no usable CUDA device on this host"
                                                       : "this build has no CUDA backend")
              << "; checking the CPU-side behaviour only\n";
    int bad = no_device_checks();
    if (bad) {
      std::cout << "gpu_test: FAILED: " << bad << " CPU-side check(s) failed\n";
      return 1;
    }
    std::cout << "gpu_test: SKIPPED (exit " << kExitSkip << "): CPU-vs-GPU equality was NOT tested\n";
    return kExitSkip;
  }

  int pass = 0, fail = 0;
  std::vector<std::string> failed;
  const auto t_all = Clock::now();
  for (const Case& c : cases) {
    std::ostringstream line;
    try {
      Dataset D;
      if (!c.file.empty()) {
        D = load_file(data_dir + "/" + c.file);
      } else {
        D = c.mirror ? make_mirror(c.n)
                     : make_synth(c.n, c.d, c.missing, c.obj, c.K,
                                  std::hash<std::string>()(c.name) & 0xFFFF);
      }
      std::vector<std::vector<std::string>> cats;
      if (c.cat_levels > 0) cats = make_categorical(&D, c.cat_levels);
      const auto* cp = c.cat_levels > 0 ? &cats : nullptr;
      auto t0 = Clock::now();
      gbdt::Model mc = train_on(D, c.params, "cpu", nullptr, cp);
      double tc = since(t0);
      if (c.max_hist_nodes > 0) setenv("GBDT_CUDA_MAX_HIST_NODES", std::to_string(c.max_hist_nodes).c_str(), 1);
      auto t1 = Clock::now();
      gbdt::Model mg;
      try {
        mg = train_on(D, c.params, "cuda", nullptr, cp);
      } catch (...) {
        unsetenv("GBDT_CUDA_MAX_HIST_NODES");
        throw;
      }
      unsetenv("GBDT_CUDA_MAX_HIST_NODES");
      double tg = since(t1);
      if (mg.report.backend != "cuda") throw std::runtime_error("the CUDA run used backend " + mg.report.backend);
      if (c.cat_levels > 0) {  // the case must exercise categorical splits
        bool any = false;
        for (const auto& t : mc.trees) any |= t.has_categorical();
        if (!any) throw std::runtime_error("no categorical split in the CPU model");
      }
      check_lossguide_leaves(c, mc);
      std::vector<uint8_t> bc = gbdt::serialize_model(mc), bg = gbdt::serialize_model(mg);
      size_t nodes = 0;
      for (const auto& t : mc.trees) nodes += (size_t)t.num_nodes();
      line.setf(std::ios::fixed);
      line.precision(2);
      if (bc == bg) {
        ++pass;
        line << "PASS " << c.name << " (" << D.n << " x " << D.d << ", " << mc.trees.size()
             << " trees, " << nodes << " nodes, " << bc.size() << " bytes; cpu " << tc << " s, cuda "
             << tg << " s)";
      } else {
        ++fail;
        failed.push_back(c.name);
        line << "FAIL " << c.name << ": serialized models differ (" << bc.size() << " vs "
             << bg.size() << " bytes): " << tree_diff(mc, mg);
        line.precision(3);
        line << std::scientific << "; max |prediction difference| " << max_pred_diff(mc, mg, D);
      }
    } catch (const std::exception& e) {
      ++fail;
      failed.push_back(c.name);
      line << "FAIL " << c.name << ": error: " << e.what();
    }
    std::cout << line.str() << std::endl;
  }
  std::cout << "\ngpu_test summary: " << pass << " passed, " << fail << " failed of " << cases.size()
            << " cases in " << (int)since(t_all) << " s\n";
  for (const std::string& f : failed) std::cout << "  failed: " << f << "\n";
  return fail ? 1 : 0;
}
