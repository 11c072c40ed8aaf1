// The requests of a distributed training and their replies, in the order
// the coordinator sends them (remote_backend.cpp, train_distributed.cpp)
// and a shard answers them (shard_worker.cpp):
//   open      -> Describe            rows, per-feature value ranges
//   labels    -> Labels              every row's label (and weight)
//   sample    -> Sample              the rows of the global cut sample
//   bin       -> ValidationBins      bins with the global cuts; the rows of
//                                    the validation split go back
//   setup                            objective, base margins, sampling
//   per round:
//     grad      -> GradMaxima        per output group max |g|, max h
//     quantize  -> RootSums          the global quantizers; the row sample
//     per tree: root -> one histogram; split -> child counts and
//               histograms, per level; finish (the tree: margins updated)
//   margins   -> every training row's margins (the train metric)
//   bin_counts-> per-bin row counts (the model's training distribution)
// Each struct below is one message; encode/decode are the one
// implementation of its bytes for both sides.  decode throws InvalidInput
// on anything malformed (a message may come from any role).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../data/quantile.h"
#include "../objective/elementwise_grad.h"
#include "../tree/split_math.h"
#include "../tree/tree.h"

namespace gbdt {

// Bounds on what a message may hold (checked before anything is
// allocated).
constexpr size_t kMaxShardFeatures = 100000;
constexpr size_t kMaxShardGroups = 10000;
constexpr size_t kMaxShardBins = 256;  // value bins per feature

struct Describe {
  uint64_t n_rows = 0;
  int32_t n_features = 0;
  uint8_t has_weight = 0;
  uint64_t rows_skipped = 0;  // left out for a NULL target
  std::vector<float> lo, hi;  // per feature, over every row (NaN ignored)
};
std::string encode(const Describe& m);
Describe decode_describe(const std::string& b);

struct Labels {
  std::vector<float> labels;   // per row, shard order
  std::vector<float> weights;  // per row, or empty
};
std::string encode(const Labels& m);
Labels decode_labels(const std::string& b);

struct SampleRequest {
  uint64_t offset = 0;   // global id of the shard's first row
  uint64_t n_total = 0;  // rows of every shard
  uint64_t take = 0;     // rows of the cut sample (cut_sample_row)
};
std::string encode(const SampleRequest& m);
SampleRequest decode_sample_request(const std::string& b);

struct Sample {
  uint64_t rows = 0;
  std::vector<float> values;  // rows x n_features, row-major, NaN = missing
};
std::string encode(const Sample& m);
Sample decode_sample(const std::string& b);

struct BinRequest {
  Cuts cuts;
  uint64_t offset = 0;             // global id of the shard's first row
  double validation_fraction = 0;  // hashed_validation_row(seed, id, fraction)
  uint64_t seed = 0;
  int32_t nthread = 0;
};
std::string encode(const BinRequest& m);
BinRequest decode_bin_request(const std::string& b);

struct ValidationBins {
  uint64_t rows = 0;
  std::vector<uint8_t> bins;  // rows x n_features, row-major
};
std::string encode(const ValidationBins& m);
ValidationBins decode_validation_bins(const std::string& b);

struct SetupRequest {
  int32_t objective = 0;
  int32_t num_group = 1;
  GradParams grad{};
  double scale_pos_weight = 1.0;
  std::vector<float> base_margins;  // num_group
  double subsample = 1.0;
  uint64_t seed = 0;
  uint64_t train_offset = 0;  // global training-row id of the shard's first one
  int32_t max_depth = 6;
  uint8_t cpu_bin_copies = 1;
  int32_t nthread = 0;
};
std::string encode(const SetupRequest& m);
SetupRequest decode_setup_request(const std::string& b);

struct GradMaxima {
  std::vector<double> max_g, max_h;  // per output group
};
std::string encode(const GradMaxima& m);
GradMaxima decode_grad_maxima(const std::string& b);

struct QuantizeRequest {
  int32_t round = 0;
  GradMaxima maxima;      // over every shard
  uint64_t n_total = 0;   // training rows of every shard (make_quantizer)
};
std::string encode(const QuantizeRequest& m);
QuantizeRequest decode_quantize_request(const std::string& b);

struct RootSums {
  uint64_t n_sampled = 0;
  std::vector<GradSum> sums;  // per output group, over the sampled rows
};
std::string encode(const RootSums& m);
RootSums decode_root_sums(const std::string& b);

// One node's split as the shard routes its rows, and which child's
// histogram it builds.
struct SplitOrder {
  int32_t node = 0, feature = 0, bin = 0;
  uint8_t default_left = 0;
  int32_t left = 0, right = 0;
  uint8_t build = 0;  // 0: no histogram, 1: the left child's, 2: the right child's
};

struct SplitRequest {
  int32_t group = 0;
  std::vector<SplitOrder> splits;
};
std::string encode(const SplitRequest& m);
SplitRequest decode_split_request(const std::string& b);

// The histograms of a node or of a level's children (cells in the
// Cuts::hist_offset layout), each sent as a bitmap of its non-empty cells
// and those cells: deep nodes have few rows and mostly empty bins.
// n_left: for a split reply, the shard's left rows per split (else empty).
std::string encode_histograms(const std::vector<uint64_t>& n_left, const std::vector<const GradSum*>& hists,
                              size_t cells);
// Adds the message's histograms into acc (histograms x cells, the count the
// caller expects) and its n_left into *n_left (resized to `splits`).
void add_histograms(const std::string& b, size_t cells, size_t histograms, size_t splits,
                    GradSum* acc, std::vector<uint64_t>* n_left);

struct FinishRequest {
  int32_t group = 0;
  Tree tree;  // split_bin, default_left, feature, children and values
};
std::string encode(const FinishRequest& m);
// Checks the tree's shape: children after their parents, features and bins
// within the cuts' (so no walk can loop or read out of bounds).
FinishRequest decode_finish_request(const std::string& b, const Cuts& cuts);

std::string encode_u64(uint64_t v);
uint64_t decode_u64(const std::string& b, const char* what);
std::string encode_floats(const std::vector<float>& v);
std::vector<float> decode_floats(const std::string& b, size_t expect, const char* what);
std::string encode_counts(const std::vector<uint64_t>& v);
std::vector<uint64_t> decode_counts(const std::string& b, size_t expect, const char* what);

// Cuts as the wire carries them; decode checks them as the model loader
// does (offsets increasing, values ascending, at most kMaxShardBins - 1
// value bins per feature).
void put_cuts(const Cuts& c, class ByteWriter* w);
Cuts get_cuts(class ByteReader* r);

}  // namespace gbdt
