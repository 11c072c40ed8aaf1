// partition_column (row_partition.h): the vector path gives the row lists of
// the scalar loop, bit for bit, for uint8 and uint16 columns, every length
// and block start (tails), the missing bin with default left and right, a
// split at the last bin, rows in increasing, decreasing and random order
// (the partition reads both), and rows at the end of the column (the
// padding its gather reads).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "row_partition.h"

using namespace gbdt;

namespace {

// Every path; one the CPU lacks runs the scalar loop (RowPartition.Paths
// says which ran).
const RowIsa kIsas[] = {RowIsa::kBest, RowIsa::kScalar, RowIsa::kAvx2, RowIsa::kAvx512};

template <typename BinT>
void check_all(unsigned nb, unsigned seed) {
  std::mt19937 rng(seed);
  const size_t n = 700;
  std::vector<BinT> col(n + kColumnPadding / sizeof(BinT), (BinT)0xAB);
  for (size_t i = 0; i < n; ++i) col[i] = (BinT)(rng() % (nb + 1));  // nb: missing
  std::vector<uint32_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0u);
  for (int order = 0; order < 3; ++order) {
    if (order == 1) std::reverse(rows.begin(), rows.end());
    if (order == 2) std::shuffle(rows.begin(), rows.end(), rng);
    for (unsigned split : {0u, 1u, nb / 2, nb - 1, nb})
      for (bool dl : {false, true})
        for (size_t b : {(size_t)0, (size_t)3, (size_t)17})
          for (size_t len : {(size_t)0, (size_t)1, (size_t)15, (size_t)16, (size_t)17, (size_t)33, (size_t)500,
                             n - 17}) {
            if (b + len > n) continue;
            const size_t e = b + len;
            std::vector<uint32_t> want(n, 0xFFFFFFFFu);
            const size_t wl = partition_rows_scalar(col.data(), 1, split, nb, dl, rows.data(), want.data(), b, e);
            for (RowIsa isa : kIsas) {
              std::vector<uint32_t> got(n, 0xFFFFFFFFu);
              const size_t gl = partition_column(col.data(), split, nb, dl, rows.data(), got.data(), b, e, isa);
              ASSERT_EQ(wl, gl) << "isa " << (int)isa << " nb " << nb << " split " << split << " dl " << dl
                                << " b " << b << " len " << len;
              ASSERT_EQ(want, got) << "isa " << (int)isa << " nb " << nb << " split " << split << " dl " << dl
                                   << " b " << b << " len " << len << " order " << order;
            }
          }
  }
}

}  // namespace

TEST(RowPartition, VectorPathIsTheScalarLoopU8) {
  for (unsigned nb : {1u, 2u, 7u, 255u}) check_all<uint8_t>(nb, 3 + nb);
}

TEST(RowPartition, VectorPathIsTheScalarLoopU16) {
  for (unsigned nb : {2u, 300u, 65535u}) check_all<uint16_t>(nb, 5 + nb);
}

// The last rows of the column: the gather reads 4 bytes at each bin.
TEST(RowPartition, LastRowsOfTheColumn) {
  const size_t n = 40;
  std::vector<uint16_t> col(n + kColumnPadding / 2, 0xFFFF);
  for (size_t i = 0; i < n; ++i) col[i] = (uint16_t)(i % 5);
  std::vector<uint32_t> rows(16);
  for (size_t i = 0; i < 16; ++i) rows[i] = (uint32_t)(n - 16 + i);
  std::vector<uint32_t> want(16);
  const size_t wl = partition_rows_scalar(col.data(), 1, 2u, 4u, true, rows.data(), want.data(), 0, 16);
  for (RowIsa isa : kIsas) {
    std::vector<uint32_t> got(16);
    const size_t gl = partition_column(col.data(), 2u, 4u, true, rows.data(), got.data(), 0, 16, isa);
    EXPECT_EQ(wl, gl);
    EXPECT_EQ(want, got);
  }
}

// Which vector paths the tests above ran on this CPU (a lacking one ran the
// scalar loop).
TEST(RowPartition, Paths) {
  std::printf("row routing paths: avx2 %s, avx512 %s\n", row_isa_available(RowIsa::kAvx2) ? "yes" : "no",
              row_isa_available(RowIsa::kAvx512) ? "yes" : "no");
  EXPECT_TRUE(row_isa_available(RowIsa::kScalar));
}

// add_leaf_values_column: the margins of the scalar loop, bit for bit, over
// the same columns, orders, splits and lengths as the partition.
TEST(RowPartition, LeafValuesAreTheScalarLoop) {
  std::mt19937 rng(9);
  const size_t n = 600;
  for (unsigned nb : {1u, 5u, 255u}) {
    std::vector<uint8_t> col(n + kColumnPadding, 0xAB);
    for (size_t i = 0; i < n; ++i) col[i] = (uint8_t)(rng() % (nb + 1));
    std::vector<uint32_t> rows(n);
    std::iota(rows.begin(), rows.end(), 0u);
    std::shuffle(rows.begin(), rows.end(), rng);
    std::vector<float> base(n);
    for (float& v : base) v = (float)((int)(rng() % 2001) - 1000) * 0.001953125f + 1e-3f;
    for (unsigned split : {0u, nb / 2, nb})
      for (bool dl : {false, true})
        for (size_t b : {(size_t)0, (size_t)5})
          for (size_t len : {(size_t)0, (size_t)15, (size_t)16, (size_t)31, n - 5}) {
            std::vector<float> want = base, got = base;
            add_leaf_values_rows(col.data(), 1, split, nb, dl, rows.data(), b, b + len, 0.3f, -1.7e-3f,
                                 want.data(), 1, 0);
            add_leaf_values_column(col.data(), split, nb, dl, rows.data(), b, b + len, 0.3f, -1.7e-3f, got.data());
            ASSERT_EQ(0, std::memcmp(want.data(), got.data(), n * sizeof(float)))
                << "nb " << nb << " split " << split << " dl " << dl << " b " << b << " len " << len;
          }
  }
}
