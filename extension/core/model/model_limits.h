// Limits on what a model may hold, shared by decoding, XGBoost import and
// training, so that a few KB of hostile input can never become a huge model
// or a huge scoring allocation (scoring memory grows with rows x classes,
// the model with features x bins).  Real models stay far below them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace gbdt {

// Output groups (classes of multi:softprob).  XGBoost users rarely exceed a
// few hundred; 10000 classes x a 1024-row scoring batch is 80 MB of doubles.
constexpr int kMaxClasses = 10000;
// Features (columns) of a model.  PostgreSQL tables have at most 1600 columns.
constexpr int kMaxFeatures = 100000;
// Bytes of any one string in a model (feature names, parameter keys and
// values, the metric name).  PostgreSQL identifiers have at most 63.
constexpr size_t kMaxStringBytes = 4096;
// Parameters recorded in a model.
constexpr size_t kMaxModelParams = 256;
// Trees of a model and nodes of one tree.  num_round <= 100000 and depth <=
// 16 (2^17 - 1 nodes) for trained models; imported ones may be deeper.
// Categories per categorical feature (codes 0 .. kMaxCategories - 1).
constexpr int kMaxCategories = 1 << 16;
constexpr size_t kMaxTrees = 10000000;
// num_parallel_tree (trees per round and output group).
constexpr int kMaxParallelTrees = 1000;
// quantiles of one reg:quantileerror model (one output each).
constexpr int kMaxQuantiles = 256;
// Bins of a model's training-prediction histogram (TrainingDistribution):
// one per class of a multiclass model at most.
constexpr size_t kMaxPredictionBins = (size_t)kMaxClasses;
constexpr size_t kMaxTreeNodes = (size_t)1 << 24;
// Nodes of all trees together (about 40 bytes each once decoded).
constexpr size_t kMaxTotalNodes = (size_t)1 << 26;

}  // namespace gbdt
