// The left sums a numeric split scan evaluates: for one feature's histogram
// cells h[0..nb), the running sums (g, h) after each bin that holds rows, and
// that bin.  An empty bin b > 0 repeats bin b-1's sums, hence its gains, and
// the lower bin wins ties, so its candidates can never be chosen: only bin 0
// and the non-empty bins are kept.  Integer sums, so the vector versions give
// exactly the scalar loop's arrays.
#pragma once
#include <cstdint>

#include "../split_math.h"

namespace gbdt {

// Writes lg[i], lh[i], bn[i] for i < return value (at most nb); the arrays
// need room for nb entries.  The AVX2 version where the CPU has it.
int nonempty_prefix(const GradSum* h, int nb, int64_t* lg, int64_t* lh, int32_t* bn);

// The plain loop, and the vector version (tests compare them; it returns -1
// where the CPU or the build lacks AVX2).
int nonempty_prefix_scalar(const GradSum* h, int nb, int64_t* lg, int64_t* lh, int32_t* bn);
int nonempty_prefix_avx2(const GradSum* h, int nb, int64_t* lg, int64_t* lh, int32_t* bn);

}  // namespace gbdt
