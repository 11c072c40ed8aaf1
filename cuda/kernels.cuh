// Device kernels of the CUDA tree builder (cuda_backend.cu).  Everything that
// decides a value (gradients, quantization, gains, tie-breaks, sampling) comes
// from the engine's shared __host__ __device__ headers, so the GPU computes the
// same bits as the CPU backend (device code is built with -fmad=false, host
// code with -ffp-contract=off).
//
// Per level the host uploads small tables (histogram tasks, node splits) and
// launches a fixed number of kernels whatever the number of nodes:
//   k_histogram   all nodes of the level to build (two-stage: shared-memory
//                 partial histogram with 64-bit integer atomics, then a merge
//                 into global memory with integer atomics; integer sums do not
//                 depend on the order of the atomics)
//   k_subtract    sibling = parent - built child, for every split of the level
//   k_eval_splits best split per (node, block of features) with split_math.h
//   k_reduce_splits  best per node (better_split is a strict total order, so
//                 the result does not depend on the reduction order)
//   k_part_flags + cub::DeviceScan + k_part_scatter: stable partition by node
// The kernels are named after the CPU driver's parts (tree/hist/): histogram.cuh,
// evaluate_splits.cuh, row_partitioner.cuh (with the loss-guided grower's
// one-segment kernels), leaf_update.cuh; kernels_common.cuh holds the launch
// macro, the tables, the gradients, the row sampling and the root sum.
//
// With -DGBDT_CUDA_EMULATION (test/gpu/emu, `make build/gpu_test_emu`) the
// same source compiles as plain C++ against a CPU emulation of the runtime,
// so the kernels and the host logic can be exercised without a GPU.
#pragma once

#include "kernels_common.cuh"
#include "histogram.cuh"
#include "evaluate_splits.cuh"
#include "row_partitioner.cuh"
#include "leaf_update.cuh"

namespace gbdt {
namespace cuda {

#if defined(GBDT_CUDA_EMULATION)
// Kernels that synchronize run as fibers in the emulation.
inline bool emu_register_fiber_kernels() {
  ::gbdt_emu::fiber_kernels() = {(const void*)&k_grad_max<256>, (const void*)&k_root_sum<256>,
                                 (const void*)&k_histogram<uint8_t>, (const void*)&k_histogram<uint16_t>,
                                 (const void*)&k_eval_splits};
  return true;
}
static const bool emu_fiber_kernels_registered = emu_register_fiber_kernels();
#endif

}  // namespace cuda
}  // namespace gbdt
