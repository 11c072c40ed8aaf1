// partition_column (row_partitioner.h): the vector path gives the row lists of
// the scalar loop, bit for bit, for uint8 and uint16 columns, every length
// and block start (tails), the missing bin with default left and right, a
// split at the last bin, categorical splits (right sets of no bin, one
// bin, every other bin, every bin, and sets of fewer words than the bins
// need), rows in increasing, decreasing and random order (the partition
// reads both), and rows at the end of the column (the padding its gather
// reads).  The scalar loop itself is checked against the routing written
// out (RowRoute's definition).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "tree/hist/row_partitioner.h"

using namespace gbdt;

namespace {

// Every path; one the CPU lacks runs the scalar loop (RowPartition.Paths
// says which ran).
const RowIsa kIsas[] = {RowIsa::kBest, RowIsa::kScalar, RowIsa::kAvx2, RowIsa::kAvx512};

// The routes tried on a column of nb value bins: numeric splits at the
// first, second, middle and last bins and past them; categorical ones with
// the sets `sets` keeps (words per set: cat_set_words(nb), or fewer).
std::vector<RowRoute> routes_for(unsigned nb, std::vector<std::vector<uint32_t>>* sets) {
  std::vector<RowRoute> out;
  for (unsigned split : {0u, 1u, nb / 2, nb - 1, nb})
    for (bool dl : {false, true}) {
      RowRoute r;
      r.split_bin = split;
      r.nb = nb;
      r.default_left = dl;
      out.push_back(r);
    }
  const int nw = (int)((nb + 31) / 32);
  sets->clear();
  sets->reserve(5);
  // No bin, bin 1 alone, every other bin, every bin, and every bin of a
  // set one word short (the last bins are then not in it).
  for (int kind = 0; kind < 5; ++kind) {
    std::vector<uint32_t> w((size_t)nw, 0u);
    for (unsigned bin = 0; bin < nb; ++bin) {
      const bool in = kind == 1 ? bin == 1 : kind == 2 ? bin % 2 == 0 : kind >= 3;
      if (in) w[bin >> 5] |= 1u << (bin & 31);
    }
    if (kind == 4) w.resize(nw > 1 ? (size_t)nw - 1 : 0);
    sets->push_back(w);
  }
  for (const auto& w : *sets)
    for (bool dl : {false, true}) {
      RowRoute r;
      r.nb = nb;
      r.default_left = dl;
      r.words = w.data();
      r.nwords = (int)w.size();
      if (r.words == nullptr) {  // an empty set of no words: a set still
        static const uint32_t kNone[1] = {0};
        r.words = kNone;
      }
      out.push_back(r);
    }
  return out;
}

// RowRoute's definition, written out.
bool route_left(const RowRoute& r, unsigned bin) {
  if (bin == r.nb) return r.default_left;
  if (r.words == nullptr) return bin <= r.split_bin;
  const bool in_set = bin < 32u * (unsigned)r.nwords && ((r.words[bin / 32] >> (bin % 32)) & 1u) != 0;
  return !in_set;
}

template <typename BinT>
void check_all(unsigned nb, unsigned seed) {
  std::mt19937 rng(seed);
  const size_t n = 700;
  std::vector<BinT> col(n + kColumnPadding / sizeof(BinT), (BinT)0xAB);
  for (size_t i = 0; i < n; ++i) col[i] = (BinT)(rng() % (nb + 1));  // nb: missing
  std::vector<uint32_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0u);
  std::vector<std::vector<uint32_t>> sets;
  const std::vector<RowRoute> routes = routes_for(nb, &sets);
  for (int order = 0; order < 3; ++order) {
    if (order == 1) std::reverse(rows.begin(), rows.end());
    if (order == 2) std::shuffle(rows.begin(), rows.end(), rng);
    for (size_t ri = 0; ri < routes.size(); ++ri) {
      const RowRoute& route = routes[ri];
      for (size_t b : {(size_t)0, (size_t)3, (size_t)17})
        for (size_t len : {(size_t)0, (size_t)1, (size_t)15, (size_t)16, (size_t)17, (size_t)33, (size_t)500,
                           n - 17}) {
          if (b + len > n) continue;
          const size_t e = b + len;
          std::vector<uint32_t> want(n, 0xFFFFFFFFu);
          const size_t wl = partition_rows_scalar(col.data(), 1, route, rows.data(), want.data(), b, e);
          // The scalar loop: the left rows in order, the right rows reversed.
          std::vector<uint32_t> left, right;
          for (size_t i = b; i < e; ++i) (route_left(route, col[rows[i]]) ? left : right).push_back(rows[i]);
          ASSERT_EQ(left.size(), wl) << "route " << ri;
          ASSERT_TRUE(std::equal(left.begin(), left.end(), want.begin() + b)) << "route " << ri;
          ASSERT_TRUE(std::equal(right.begin(), right.end(), want.rbegin() + (n - e))) << "route " << ri;
          for (RowIsa isa : kIsas) {
            std::vector<uint32_t> got(n, 0xFFFFFFFFu);
            const size_t gl = partition_column(col.data(), route, rows.data(), got.data(), b, e, isa);
            ASSERT_EQ(wl, gl) << "isa " << (int)isa << " nb " << nb << " route " << ri << " b " << b
                              << " len " << len;
            ASSERT_EQ(want, got) << "isa " << (int)isa << " nb " << nb << " route " << ri << " b " << b
                                 << " len " << len << " order " << order;
          }
        }
    }
  }
}

}  // namespace

TEST(RowPartition, VectorPathIsTheScalarLoopU8) {
  for (unsigned nb : {1u, 2u, 7u, 255u}) check_all<uint8_t>(nb, 3 + nb);
}

TEST(RowPartition, VectorPathIsTheScalarLoopU16) {
  for (unsigned nb : {2u, 300u, 1000u, 2972u, 8192u, 65535u}) check_all<uint16_t>(nb, 5 + nb);
}

// The last rows of the column: the gather reads 4 bytes at each bin.
TEST(RowPartition, LastRowsOfTheColumn) {
  const size_t n = 40;
  std::vector<uint16_t> col(n + kColumnPadding / 2, 0xFFFF);
  for (size_t i = 0; i < n; ++i) col[i] = (uint16_t)(i % 5);
  std::vector<uint32_t> rows(16);
  for (size_t i = 0; i < 16; ++i) rows[i] = (uint32_t)(n - 16 + i);
  const uint32_t set[1] = {0x5u};  // bins 0 and 2 right
  RowRoute numeric, categorical;
  numeric.split_bin = 2;
  numeric.nb = categorical.nb = 4;
  numeric.default_left = categorical.default_left = true;
  categorical.words = set;
  categorical.nwords = 1;
  for (const RowRoute& route : {numeric, categorical}) {
    std::vector<uint32_t> want(16);
    const size_t wl = partition_rows_scalar(col.data(), 1, route, rows.data(), want.data(), 0, 16);
    for (RowIsa isa : kIsas) {
      std::vector<uint32_t> got(16);
      const size_t gl = partition_column(col.data(), route, rows.data(), got.data(), 0, 16, isa);
      EXPECT_EQ(wl, gl);
      EXPECT_EQ(want, got);
    }
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
// the same kinds of columns, routes and lengths as the partition; the
// scalar loop adds each row's leaf value as the route sends it.
template <typename BinT>
void check_leaf_values(unsigned nb, unsigned seed) {
  std::mt19937 rng(seed);
  const size_t n = 600;
  std::vector<BinT> col(n + kColumnPadding / sizeof(BinT), (BinT)0xAB);
  for (size_t i = 0; i < n; ++i) col[i] = (BinT)(rng() % (nb + 1));
  std::vector<uint32_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0u);
  std::shuffle(rows.begin(), rows.end(), rng);
  std::vector<float> base(n);
  for (float& v : base) v = (float)((int)(rng() % 2001) - 1000) * 0.001953125f + 1e-3f;
  std::vector<std::vector<uint32_t>> sets;
  const std::vector<RowRoute> routes = routes_for(nb, &sets);
  const float vl = 0.3f, vr = -1.7e-3f;
  for (size_t ri = 0; ri < routes.size(); ++ri)
    for (size_t b : {(size_t)0, (size_t)5})
      for (size_t len : {(size_t)0, (size_t)15, (size_t)16, (size_t)31, n - 5}) {
        std::vector<float> written = base, want = base, got = base;
        for (size_t i = b; i < b + len; ++i)
          written[rows[i]] += route_left(routes[ri], col[rows[i]]) ? vl : vr;
        add_leaf_values_rows(col.data(), 1, routes[ri], rows.data(), b, b + len, vl, vr, want.data(), 1, 0);
        add_leaf_values_column(col.data(), routes[ri], rows.data(), b, b + len, vl, vr, got.data());
        ASSERT_EQ(0, std::memcmp(written.data(), want.data(), n * sizeof(float))) << "nb " << nb << " route " << ri;
        ASSERT_EQ(0, std::memcmp(want.data(), got.data(), n * sizeof(float)))
            << "nb " << nb << " route " << ri << " b " << b << " len " << len;
      }
}

TEST(RowPartition, LeafValuesAreTheScalarLoop) {
  for (unsigned nb : {1u, 5u, 255u}) check_leaf_values<uint8_t>(nb, 9 + nb);
  for (unsigned nb : {300u, 2972u}) check_leaf_values<uint16_t>(nb, 11 + nb);
}
