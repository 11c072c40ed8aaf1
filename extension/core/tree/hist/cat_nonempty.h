// The non-empty bins of a categorical feature's histogram, the first step
// of every categorical split scan (categorical_split_cpu.h): a node deep in
// the tree has a few hundred of a feature's thousands of categories, and
// every node of every tree scans all of them (insteval, 2972 categories:
// 9% of the training as a scalar loop).
#pragma once
#include <cstdint>

#include "../split_math.h"

namespace gbdt {

// Extra entries cat_nonempty_bins may write past the bins it returns.
constexpr int kCatNonemptySlack = 16;

// The bins b < nb whose sums h[b] are not all zero (g or h non-zero), in
// ascending order, into out[0 .. return value); out has room for nb +
// kCatNonemptySlack entries.  16 bins a time with AVX-512F; scalar: true
// forces the scalar loop (tests), which gives the same bins.
int cat_nonempty_bins(const GradSum* h, int nb, int32_t* out, bool scalar = false);

}  // namespace gbdt
