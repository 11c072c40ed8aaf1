// exact duplicate-row compression of the training rows.
//
// Two training rows with the same bins, label, gradient weight and initial
// margins reach the same leaf of every tree, so they keep the same margins
// and the same gradient pair in every round.  Histogram sums are integers
// (gradients.h): the sum over k copies of a row is exactly k times its
// quantized pair, provided the quantizer's scale is chosen from the same
// maxima (the distinct rows hold every value) and the number of rows the
// table stands for (BoostData::rows_represented).  Training on the distinct
// rows with their multiplicity therefore grows the very same trees.
//
// Only where every gradient depends on its own row alone and nothing
// samples or counts rows: row_dedup_possible() says when.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "binned_matrix.h"

namespace gbdt {

struct BoostData;
struct ObjectiveInfo;
struct TrainParams;

// The distinct rows of a training set.
struct RowDedup {
  BinnedMatrix matrix;               // the distinct rows, in order of first occurrence
  std::vector<float> labels;         // per distinct row
  std::vector<float> weights;        // per distinct row (empty: unweighted)
  std::vector<float> margins;        // K per distinct row (the initial margins)
  std::vector<int32_t> multiplicity; // training rows each distinct row stands for
  std::vector<uint32_t> row_of;      // per training row: its distinct row
  size_t n_rows = 0;                 // training rows (the sum of multiplicity)
};

// The rows to compress: the binned matrix, the labels, the gradient weights
// (null: unweighted) and K initial margins per row.
struct DedupInput {
  const BinnedMatrix* matrix = nullptr;
  const float* labels = nullptr;
  const float* weights = nullptr;
  const float* margins = nullptr;
  size_t K = 1;
};

// Share of distinct rows above which compression is not worth it.
constexpr double kDedupMaxDistinct = 0.5;

// Fills *out and returns true when the rows have at most
// max_distinct * n_rows distinct (bins, label, weight, margins) keys;
// returns false (out cleared) otherwise, after a sample of the rows
// (large tables) or as soon as the distinct rows pass that bound.  With
// nthread > 1 and enough rows, contiguous row ranges are hashed on their
// own threads and merged in range order: the same result.
bool dedup_rows(const DedupInput& in, double max_distinct, RowDedup* out, int nthread = 1);

// Whether training on the distinct rows builds the same model: parameter
// row_dedup on, the CPU backend (the CUDA one does not read multiplicities),
// no row sampling, gradients per row (no ranking, no survival objective
// computed on the host, no external gradients) and no leaves refit from
// per-row residuals (adaptive leaves, several quantiles).
bool row_dedup_possible(const TrainParams& p, const ObjectiveInfo& oi, const BoostData& bd,
                        bool cpu_backend);

}  // namespace gbdt
