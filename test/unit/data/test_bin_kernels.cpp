// The binning kernels (binned_matrix.cpp): bin_matrix (column-major input)
// and RowBinner (row-major chunks) search each feature's cuts with as many
// levels as its bin count needs, in AVX-512 lanes (cuts picked from
// registers), AVX2 lanes (gathered) or one value at a time
// (set_bin_kernel_for_tests 0, 1, 2; a CPU without the instructions runs
// the next); every value must get exactly Cuts::bin_of's bin, for every bin count 1 .. 255 (numeric) and above
// (wide categorical), at any nthread, values on the cuts, between them,
// below the first, above the last (clamped), +-inf and NaN included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "data/binned_matrix.h"
#include "data/quantile.h"

using namespace gbdt;

namespace {

// Feature f has counts[f] cuts 0.5, 1.5, ... (nb - 0.5).
Cuts cuts_with_bins(const std::vector<int>& counts) {
  Cuts c;
  c.ptr.push_back(0);
  for (int nb : counts) {
    for (int i = 0; i < nb; ++i) c.values.push_back((float)i + 0.5f);
    c.ptr.push_back((uint32_t)c.values.size());
  }
  c.min_values.assign(counts.size(), 0.0f);
  return c;
}

// Values that probe every cut of a feature with nb bins.
std::vector<float> probe_values(int nb, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v;
  for (int i = 0; i <= nb + 1; ++i) {
    const float cut = (float)i + 0.5f;
    v.push_back(cut);
    v.push_back(std::nextafter(cut, -INFINITY));
    v.push_back(std::nextafter(cut, INFINITY));
    v.push_back((float)i);
  }
  v.push_back(-1e30f);
  v.push_back(1e30f);
  v.push_back(-INFINITY);
  v.push_back(INFINITY);
  v.push_back(NAN);
  v.push_back(-0.0f);
  std::uniform_real_distribution<float> u(-2.0f, (float)nb + 2.0f);
  while (v.size() < n) v.push_back(rng() % 11 == 0 ? NAN : u(rng));
  v.resize(n);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// Restores the default binning kernel when a test ends.
struct BinKernel {
  explicit BinKernel(int k) { set_bin_kernel_for_tests(k); }
  ~BinKernel() { set_bin_kernel_for_tests(0); }
};

}  // namespace

TEST(BinKernels, EveryBinCountMatchesBinOf) {
  std::vector<int> counts;
  for (int nb = 1; nb <= 256; ++nb) counts.push_back(nb);  // 256: a wide (2-byte) feature
  counts.push_back(300);
  counts.push_back(1000);
  const Cuts c = cuts_with_bins(counts);
  const size_t n = 5000;  // more than one row block of RowBinner and bin_matrix
  const int d = (int)counts.size();
  std::vector<std::vector<float>> cols((size_t)d);
  ColumnInput in;
  in.n_rows = n;
  for (int f = 0; f < d; ++f) {
    cols[(size_t)f] = probe_values(counts[(size_t)f], n, (uint32_t)f + 1);
    in.columns.push_back(cols[(size_t)f].data());
  }
  ASSERT_TRUE(cuts_need_wide_bins(c));
  for (int kern : {0, 1, 2})
  for (int nt : {1, 2, 3}) {
    BinKernel use(kern);
    SCOPED_TRACE("binning kernel " + std::to_string(kern));
    const BinnedMatrix m = bin_matrix(in, c, nt);
    RowBinner rb(c, n, nt);
    for (size_t r = 0; r < n; ++r) {
      float* x = rb.next_row();
      for (int f = 0; f < d; ++f) x[f] = cols[(size_t)f][r];
    }
    ValueRange range;
    const BinnedMatrix s = rb.finish(&range);
    for (int f = 0; f < d; ++f) {
      float lo = INFINITY, hi = -INFINITY;
      for (size_t r = 0; r < n; ++r) {
        const float v = cols[(size_t)f][r];
        const uint32_t want = c.bin_of(f, v);
        ASSERT_EQ(m.at(r, f), want) << "bin_matrix nthread " << nt << " feature " << f << " (" << counts[(size_t)f]
                                    << " bins) value " << v;
        ASSERT_EQ(s.at(r, f), want) << "RowBinner nthread " << nt << " feature " << f << " value " << v;
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      EXPECT_EQ(range.lo[(size_t)f], lo) << "feature " << f;
      EXPECT_EQ(range.hi[(size_t)f], hi) << "feature " << f;
    }
  }
}

TEST(BinKernels, NarrowMatrixMatchesBinOf) {
  // Only numeric-size features: the 1-byte matrix.
  std::vector<int> counts = {1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 64, 65, 127, 128, 129, 254, 255};
  const Cuts c = cuts_with_bins(counts);
  ASSERT_FALSE(cuts_need_wide_bins(c));
  const size_t n = 9000;
  const int d = (int)counts.size();
  std::vector<std::vector<float>> cols((size_t)d);
  ColumnInput in;
  in.n_rows = n;
  for (int f = 0; f < d; ++f) {
    cols[(size_t)f] = probe_values(counts[(size_t)f], n, 100u + (uint32_t)f);
    in.columns.push_back(cols[(size_t)f].data());
  }
  for (int kern : {0, 1, 2})
  for (int nt : {1, 2}) {
    BinKernel use(kern);
    SCOPED_TRACE("binning kernel " + std::to_string(kern));
    const BinnedMatrix m = bin_matrix(in, c, nt);
    ASSERT_FALSE(m.wide);
    for (int f = 0; f < d; ++f)
      for (size_t r = 0; r < n; ++r)
        ASSERT_EQ(m.at(r, f), c.bin_of(f, cols[(size_t)f][r]))
            << "feature " << f << " (" << counts[(size_t)f] << " bins) value " << cols[(size_t)f][r];
  }
}

// release_binned (the loader's float columns, freed after binning): the same
// bins, at any nthread, and the columns' pages given back as their rows are
// binned (on Linux they read as zero afterwards: every value here is
// nonzero, so zeros are released pages).
TEST(BinKernels, ReleaseBinnedGivesTheSameBinsAndFreesTheFloats) {
  const std::vector<int> counts = {2, 7, 31, 255};
  const Cuts c = cuts_with_bins(counts);
  const size_t n = 200000;  // several 64Ki-row release spans
  const int d = (int)counts.size();
  auto fill = [&](std::vector<std::vector<float>>* cols, ColumnInput* in) {
    cols->assign((size_t)d, {});
    in->n_rows = n;
    in->columns.clear();
    for (int f = 0; f < d; ++f) {
      std::vector<float>& v = (*cols)[(size_t)f];
      v.resize(n);
      for (size_t r = 0; r < n; ++r) v[r] = 1.0f + (float)((r * 7919 + (size_t)f * 31) % (size_t)(counts[(size_t)f] + 1));
      in->columns.push_back(v.data());
    }
  };
  std::vector<std::vector<float>> keep;
  ColumnInput ref;
  fill(&keep, &ref);
  for (int nt : {1, 2, 3}) {
    const BinnedMatrix want = bin_matrix(ref, c, nt);
    std::vector<std::vector<float>> scratch;
    ColumnInput in;
    fill(&scratch, &in);
    in.release_binned = true;
    const BinnedMatrix got = bin_matrix(in, c, nt);
    ASSERT_EQ(got.bins, want.bins) << "nthread " << nt;
#if defined(__linux__)
    for (int f = 0; f < d; ++f) {
      const size_t zeros = (size_t)std::count(scratch[(size_t)f].begin(), scratch[(size_t)f].end(), 0.0f);
      EXPECT_GE(zeros, n - 2048) << "feature " << f << ": its float pages were not given back (nthread " << nt << ")";
    }
#endif
  }
  // Without the flag the caller's columns are left as they were.
  for (int f = 0; f < d; ++f)
    for (size_t r = 0; r < n; ++r)
      ASSERT_NE(keep[(size_t)f][r], 0.0f) << "bin_matrix changed a column it may not release";
}
