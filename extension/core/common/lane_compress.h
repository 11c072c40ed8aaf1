// Lane permutations that compress 8 32-bit vector lanes by a mask, for the
// AVX2 paths (AVX2 has no compress instruction; AVX-512 has): for an 8-bit
// mask m, left[m] lists the lanes whose bit is set, in order, then zeros;
// right[m] lists the lanes whose bit is clear, in order, ending at lane 7
// (zeros before them).  Used as the index vector of vpermd.  The 64-bit
// lanes of a 256-bit vector compress with left[m] of the mask taken per
// 32-bit half (movemask_ps of a 64-bit compare), and 4 lanes of a 128-bit
// vector with the first four entries of left[m], m < 16.
#pragma once
#include <cstdint>

namespace gbdt {

struct LaneCompressTable {
  alignas(32) uint32_t left[256][8];
  alignas(32) uint32_t right[256][8];
};

// Built once, on first use (thread-safe static).
const LaneCompressTable& lane_compress_table();

}  // namespace gbdt
