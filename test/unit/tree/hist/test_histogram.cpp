// HistogramBuilder (tree/hist/histogram.h) against a brute-force reference:
// a node's histogram is, per feature f and bin b, the sum of the gradient
// pairs of the node's rows whose bin of f is b.  Small random data sets
// exercise every strategy of the builder: features mostly in one bin (their
// dominant cell filled from the node's sum), low-cardinality features in
// joint groups, several nodes at once, row ranges merged, wide data built by
// feature blocks, 1 and 4 threads, 1- and 2-byte bins, and the subtraction
// trick (parent - smaller child = the other child).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "common/thread_pool.h"
#include "data/binned_matrix.h"
#include "tree/hist/histogram.h"

using namespace gbdt;

namespace {

struct Problem {
  Cuts cuts;
  BinnedMatrix m;
  std::vector<GradSum> gp;
};

// n rows x d features; feature f has 2..maxb value bins (some features
// mostly in one bin, some with missing values); gradient pairs random.
Problem make_problem(size_t n, int d, int maxb, uint64_t seed, bool wide) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Problem p;
  p.cuts.ptr.push_back(0);
  for (int f = 0; f < d; ++f) {
    const int nb = wide && f == 0 ? 300 : 2 + (int)(u(rng) * (maxb - 1));
    for (int b = 0; b < nb; ++b) p.cuts.values.push_back((float)b);
    p.cuts.ptr.push_back((uint32_t)p.cuts.values.size());
    p.cuts.min_values.push_back(0.0f);
  }
  p.m.n_rows = n;
  p.m.n_features = d;
  p.m.wide = cuts_need_wide_bins(p.cuts);
  p.m.resize_entries();
  for (int f = 0; f < d; ++f) {
    const int nb = p.cuts.nbins(f);
    const double skew = f % 3 != 1 ? 0.95 : 0.0;  // mostly bin 0: elided (sparse_bins.h)
    const double miss = f % 4 == 1 ? 0.2 : 0.0;
    for (size_t r = 0; r < n; ++r) {
      uint32_t b;
      if (u(rng) < miss)
        b = (uint32_t)nb;
      else if (u(rng) < skew)
        b = 0;
      else
        b = (uint32_t)(u(rng) * nb);
      p.m.set(r, f, b);
    }
  }
  p.gp.resize(n);
  for (size_t r = 0; r < n; ++r)
    p.gp[r] = GradSum{(int64_t)((u(rng) - 0.5) * 1e12), (int64_t)(u(rng) * 1e12)};
  return p;
}

std::vector<GradSum> reference(const Problem& p, const uint32_t* rows, size_t b, size_t e) {
  std::vector<GradSum> h(p.cuts.total_hist_bins(), GradSum{0, 0});
  for (size_t i = b; i < e; ++i)
    for (int f = 0; f < p.m.n_features; ++f) {
      GradSum& c = h[p.cuts.hist_offset(f) + p.m.at(rows[i], f)];
      c = gs_add(c, p.gp[rows[i]]);
    }
  return h;
}

GradSum sum_of(const Problem& p, const uint32_t* rows, size_t b, size_t e) {
  GradSum s{0, 0};
  for (size_t i = b; i < e; ++i) s = gs_add(s, p.gp[rows[i]]);
  return s;
}

void expect_equal(const std::vector<GradSum>& ref, const GradSum* h, const std::string& what) {
  size_t bad = 0;
  for (size_t x = 0; x < ref.size(); ++x)
    if (ref[x].g != h[x].g || ref[x].h != h[x].h) {
      if (bad++ < 3) ADD_FAILURE() << what << ": cell " << x << " is (" << h[x].g << ", " << h[x].h
                                   << "), expected (" << ref[x].g << ", " << ref[x].h << ")";
    }
  EXPECT_EQ(bad, 0u) << what;
}

// Builds the histograms of `parts` nodes (a random split of a random row
// subset into consecutive segments) and compares each with the reference.
void check(size_t n, int d, int maxb, uint64_t seed, int nthread, bool copies, int parts, bool wide = false) {
  const Problem p = make_problem(n, d, maxb, seed, wide);
  ThreadPool pool(nthread);
  HistogramBuilder hb;
  hb.init(&p.m, n, p.cuts, &pool, nullptr, 6, copies, false);
  std::mt19937_64 rng(seed + 1);
  std::vector<uint32_t> rows;
  for (uint32_t r = 0; r < n; ++r)
    if (rng() % 4 != 0) rows.push_back(r);
  // node segments of unequal sizes; the rows of every other one reversed
  // (a partition leaves a right child's rows in decreasing order).
  std::vector<LevelNode> nodes((size_t)parts);
  std::vector<LevelNode*> ptrs;
  size_t at = 0;
  for (int i = 0; i < parts; ++i) {
    const size_t len = i + 1 == parts ? rows.size() - at : (rows.size() - at) * (1 + rng() % 3) / 5;
    if (i % 2 == 1) std::reverse(rows.begin() + (ptrdiff_t)at, rows.begin() + (ptrdiff_t)(at + len));
    nodes[i] = LevelNode{i, at, at + len, GradSum{0, 0}, nullptr};
    nodes[i].rows = rows.data();
    at += len;
  }
  for (LevelNode& ln : nodes) {
    ln.sum = sum_of(p, rows.data(), ln.begin, ln.end);
    ln.hist = hb.get();
    ptrs.push_back(&ln);
  }
  hb.build(ptrs, p.gp.data());
  const std::string what = "n " + std::to_string(n) + " d " + std::to_string(d) + " threads " +
                           std::to_string(nthread) + (copies ? " copies" : "") + " parts " + std::to_string(parts);
  for (const LevelNode& ln : nodes) expect_equal(reference(p, rows.data(), ln.begin, ln.end), ln.hist, what);
  for (LevelNode& ln : nodes) hb.put(ln.hist);
}

}  // namespace

TEST(HistogramBuilder, OneNodeMatchesBruteForce) {
  for (int nt : {1, 4})
    for (bool copies : {false, true}) check(3000, 7, 12, 11, nt, copies, 1);
}

TEST(HistogramBuilder, SeveralNodesMatchBruteForce) {
  for (int nt : {1, 4})
    for (bool copies : {false, true}) check(5000, 9, 30, 12, nt, copies, 5);
}

TEST(HistogramBuilder, LargeNodeInRowRangesMatchesBruteForce) {
  // a node with most of the rows: built in row ranges on 4 threads, merged.
  check(60000, 5, 40, 13, 4, true, 2);
}

TEST(HistogramBuilder, WideDataByFeatureBlocksMatchesBruteForce) {
  for (int nt : {1, 2}) check(800, 200, 8, 14, nt, true, 3);
}

TEST(HistogramBuilder, TwoByteBinsMatchBruteForce) {
  for (bool copies : {false, true}) check(2000, 6, 10, 15, 2, copies, 2, /*wide=*/true);
}

TEST(HistogramBuilder, SubtractionGivesTheSibling) {
  const size_t n = 4000;
  const Problem p = make_problem(n, 6, 20, 16, false);
  ThreadPool pool(2);
  HistogramBuilder hb;
  hb.init(&p.m, n, p.cuts, &pool, nullptr, 6, true, false);
  std::vector<uint32_t> rows(n);
  for (uint32_t r = 0; r < n; ++r) rows[r] = r;
  LevelNode parent{0, 0, n, sum_of(p, rows.data(), 0, n), hb.get()};
  parent.rows = rows.data();
  LevelNode small{1, 0, 1300, sum_of(p, rows.data(), 0, 1300), hb.get()};
  small.rows = rows.data();
  hb.build({&parent, &small}, p.gp.data());
  hb.subtract(parent.hist, small.hist);
  expect_equal(reference(p, rows.data(), 1300, n), parent.hist, "parent - small");
  // one feature at a time (the split scan's pending subtraction)
  LevelNode again{0, 0, n, parent.sum, parent.hist};
  again.rows = rows.data();
  hb.build({&again}, p.gp.data());
  for (int f = 0; f < 6; ++f)
    subtract_cells(again.hist, small.hist, p.cuts.hist_offset(f),
                   f + 1 < 6 ? p.cuts.hist_offset(f + 1) : p.cuts.total_hist_bins());
  expect_equal(reference(p, rows.data(), 1300, n), again.hist, "parent - small by feature");
}
