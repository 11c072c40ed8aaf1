// Low-cardinality features added to the histogram in groups (real
// columns often hold 2-10 distinct values).  Adding a row to the
// histogram is one 16-byte load-add-store per feature, and with few bins per
// feature consecutive rows keep hitting the same cells; that store traffic
// is the histogram's cost on such tables.  Features whose cell counts
// multiply to at most kJointMaxCells form a group: each row carries one code
// per group (the features' bins in mixed radix), the rows are added to a
// small joint histogram of the group (one store per group instead of one
// per feature), and each feature's cells are then the sums over the joint
// cells that hold its bin.  Integer sums, exact in any order: the same
// histogram, so the same model bytes, with fewer stores per row.
//
// Layout: per feature block (sparse_bins.h's SparseBlock, only blocks
// without elided features), row r's record at jrec[r * jstride]: one BinT
// entry per group, in group order (a code < kJointMaxCells; a lone feature
// is a group of one whose code is its bin).  Only blocks where grouping saves
// at least max(2, a tenth of the block's features) stores per row get
// records (flights with weather, 19 columns: 3 saved, 9% less engine CPU
// time); their memory is asked for first (`allow`).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../tree/split_math.h"

namespace gbdt {

constexpr uint32_t kJointMaxCells = 256;
constexpr size_t kJointMaxFeatures = 8;
// A group's code is stored as the bin matrix's entry type, one byte at least.
static_assert(kJointMaxCells <= 256, "group codes must fit a uint8_t bin entry");

// One group: features feat[0..k) with cells[i] cells each; a row's code is
// sum_i bin_i * radix[i] (radix[0] = 1), cells in all = product of cells.
struct JointGroup {
  std::vector<int> feat;
  std::vector<uint32_t> cells, radix;
  uint32_t total = 1;  // joint cells
  uint32_t at = 0;     // first joint cell in the block's scratch
};

struct JointBlock {
  std::vector<JointGroup> groups;  // empty: the block is added feature by feature
  uint32_t cells = 0;              // joint cells of all groups
  int saved = 0;                   // stores saved per row (features - groups)
  size_t stride = 0;               // bytes per row record
  std::vector<uint8_t> rec;
};

// Groups of features [f0, f1) by cell count (cells[f] includes the missing
// cell), as few as fit: first fit by decreasing cell count (each feature
// joins the first group whose product stays within kJointMaxCells, else
// starts one).  Lone features are groups of one.
inline std::vector<JointGroup> plan_joint_groups(int f0, int f1, const uint32_t* cells) {
  std::vector<int> order;
  for (int f = f0; f < f1; ++f) order.push_back(f);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cells[a] > cells[b]; });
  std::vector<JointGroup> out;
  for (int f : order) {
    const uint32_t c = std::max<uint32_t>(1, cells[f]);
    JointGroup* at = nullptr;
    for (JointGroup& g : out)
      if (g.feat.size() < kJointMaxFeatures && (uint64_t)g.total * c <= kJointMaxCells) {
        at = &g;
        break;
      }
    if (at == nullptr) {
      out.emplace_back();
      at = &out.back();
    }
    at->feat.push_back(f);
    at->cells.push_back(c);
    at->radix.push_back(at->total);
    at->total *= c;
  }
  return out;
}

// Runs fn(b, e) over [0, n) on the calling thread (build_joint_block's
// default; the backend passes its thread pool's).
struct SerialRows {
  template <typename Fn>
  void operator()(size_t n, Fn fn) const {
    if (n > 0) fn((size_t)0, n);
  }
};

// The joint records of block [f0, f1) of the row-major n x d bin matrix;
// an empty JointBlock when grouping does not save enough or `allow(bytes)`
// refuses the memory.  par(n, fn) runs fn(b, e) over row ranges covering
// [0, n) (any split, any threads: each row's record is its own).
template <typename BinT, typename Allow, typename ParRows = SerialRows>
JointBlock build_joint_block(const BinT* bins, size_t n, int d, int f0, int f1, const uint32_t* cells,
                             Allow& allow, double* bytes, ParRows par = ParRows()) {
  JointBlock jb;
  std::vector<JointGroup> groups = plan_joint_groups(f0, f1, cells);
  const int saved = (f1 - f0) - (int)groups.size();
  if (saved < std::max(2.0, 0.1 * (f1 - f0))) return jb;
  // Lone features keep their own cells: only groups of two or more are
  // added through the scratch.
  uint32_t at = 0;
  for (JointGroup& g : groups) {
    g.at = at;
    if (g.feat.size() > 1) at += g.total;
  }
  const size_t stride = groups.size() * sizeof(BinT);
  const double need = (double)n * (double)stride + 8.0;
  if (!allow(need)) return jb;
  *bytes += need;
  jb.rec.resize(n * stride + 8);
  // The groups' digits in one flat list (feature, largest bin, radix), group
  // j's at [first[j], first[j + 1]).
  struct Digit { int f; uint32_t top, radix; };
  std::vector<Digit> digits;
  std::vector<size_t> first(1, 0);
  for (const JointGroup& g : groups) {
    for (size_t i = 0; i < g.feat.size(); ++i) digits.push_back(Digit{g.feat[i], g.cells[i] - 1, g.radix[i]});
    first.push_back(digits.size());
  }
  const size_t ng = groups.size();
  uint8_t* rec = jb.rec.data();
  const Digit* dg = digits.data();
  const size_t* fi = first.data();
  par(n, [=](size_t b, size_t e) {
    // A row's codes are made in a local array and then copied (stores
    // through the byte pointer could alias the digit list and force
    // reloads).
    std::vector<BinT> buf(ng);
    BinT* codes = buf.data();
    for (size_t r = b; r < e; ++r) {
      const BinT* rb = bins + r * (size_t)d;
      for (size_t j = 0; j < ng; ++j) {
        uint32_t code = 0;
        for (size_t i = fi[j]; i < fi[j + 1]; ++i) code += std::min<uint32_t>(rb[dg[i].f], dg[i].top) * dg[i].radix;
        codes[j] = (BinT)code;
      }
      std::memcpy(rec + r * stride, codes, stride);  // stride = ng entries
    }
  });
  jb.groups = std::move(groups);
  jb.cells = at;
  jb.saved = saved;
  jb.stride = stride;
  return jb;
}

// Adds the joint histograms of the block's groups (scratch, from each
// group's `at`) to the features' cells of hst (feature f's cells at
// hist_offset[f]).
inline void add_joint_marginals(GradSum* hst, const JointBlock& jb, const GradSum* scratch,
                                const uint32_t* hist_offset) {
  for (const JointGroup& g : jb.groups) {
    if (g.feat.size() < 2) continue;
    const GradSum* s = scratch + g.at;
    const size_t k = g.feat.size();
    uint32_t digit[kJointMaxFeatures] = {};
    for (uint32_t c = 0; c < g.total; ++c) {
      const GradSum v = s[c];
      if (v.g != 0 || v.h != 0)
        for (size_t i = 0; i < k; ++i) {
          GradSum* cell = hst + hist_offset[g.feat[i]] + digit[i];
          *cell = gs_add(*cell, v);
        }
      for (size_t i = 0; i < k && ++digit[i] == g.cells[i]; ++i) digit[i] = 0;  // next code
    }
  }
}

}  // namespace gbdt
