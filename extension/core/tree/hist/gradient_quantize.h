// The gradients of a round as the CPU builders use them: pass 1 computes
// every row's (g, h) per output group and the groups' maxima, pass 2
// quantizes them with the quantizer of those maxima (gradients.h) into the
// integer pairs the histograms sum.  The CPU backend runs both passes back
// to back; a shard of a distributed training (distributed/shard_worker.cpp)
// runs pass 1, sends its maxima to the coordinator, and runs pass 2 with
// the quantizers of every shard's maxima, so each row gets the integers it
// would get on one server.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../../common/thread_pool.h"
#include "../../gbm/params.h"
#include "../../objective/elementwise_grad.h"
#include "../split_math.h"

namespace gbdt {

struct GradientJob {
  Objective objective = Objective::kSquaredError;
  GradParams grad{};
  const float* labels = nullptr;   // n
  const float* weights = nullptr;  // n, or null (unweighted)
  const float* margins = nullptr;  // n x K, row-major
  size_t n = 0;
  int K = 1;
};

// Pass 1: the double (g, h) of row r, group k in the 16 bytes of
// gpair[k * n + r]; (*max_g)[k], (*max_h)[k]: the largest |g| and h of
// group k.
void gradient_pairs(const GradientJob& j, ThreadPool* pool, GradSum* gpair,
                    std::vector<double>* max_g, std::vector<double>* max_h);

// Pass 2: every slot quantized in place with q[k] (times mult[r] when mult
// is set: row_dedup.h); returns the sum of all rows' pairs per group.
std::vector<GradSum> quantize_pairs(GradSum* gpair, size_t n, int K, const std::vector<Quantizer>& q,
                                    const int32_t* mult, ThreadPool* pool);

}  // namespace gbdt
