#include "binned_matrix.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "thread_pool.h"

namespace gbdt {

namespace {

// Cuts of one feature padded to 256 entries with +inf, for a branch-free
// search that returns exactly Cuts::bin_of: the number of cuts <= v, clamped
// to nbins-1; NaN -> nbins (the missing bin).  The search looks at the
// first 2^levels - 1 entries only, levels = ceil(log2(nbins)): every entry
// past the nbins cuts is +inf, and a count of nbins-1 or more is clamped to
// nbins-1 anyway, so the result is that of the full 8-level search.
struct PaddedCuts {
  alignas(64) float c[256];
  int nb;
  int levels;  // 0 .. 8
  void init(const Cuts& cuts, int f) {
    nb = cuts.nbins(f);
    const float* src = cuts.feature_cuts(f);
    for (int i = 0; i < 256; ++i) c[i] = i < nb ? src[i] : INFINITY;
    levels = 0;
    while (levels < 8 && (1 << levels) < nb) ++levels;
  }
  template <int L>
  inline uint32_t bin_l(float v) const {
    if (v != v) return (uint32_t)nb;
    unsigned pos = 0;
    if (L >= 8) pos += (c[pos + 127] <= v) ? 128u : 0u;
    if (L >= 7) pos += (c[pos + 63] <= v) ? 64u : 0u;
    if (L >= 6) pos += (c[pos + 31] <= v) ? 32u : 0u;
    if (L >= 5) pos += (c[pos + 15] <= v) ? 16u : 0u;
    if (L >= 4) pos += (c[pos + 7] <= v) ? 8u : 0u;
    if (L >= 3) pos += (c[pos + 3] <= v) ? 4u : 0u;
    if (L >= 2) pos += (c[pos + 1] <= v) ? 2u : 0u;
    if (L >= 1) pos += (c[pos] <= v) ? 1u : 0u;
    const unsigned last = (unsigned)nb - 1;
    return pos < last ? pos : last;
  }
  inline uint8_t bin(float v) const { return (uint8_t)bin_l<8>(v); }
};

// Bin of v for any feature: PaddedCuts for features with at most 255 value
// bins, else a binary search of the cuts (Cuts::bin_of) for the wide ones.
struct FeatureBinner {
  PaddedCuts pc;
  const float* cuts = nullptr;  // wide feature: its cuts (else null)
  int nb = 0;
  void init(const Cuts& c, int f) {
    nb = c.nbins(f);
    if (nb > kMaxValueBins) cuts = c.feature_cuts(f);
    else pc.init(c, f);
  }
  inline uint32_t bin(float v) const {
    if (!cuts) return pc.bin(v);
    if (v != v) return (uint32_t)nb;
    int lo = 0, hi = nb;  // first cut > v
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (cuts[mid] <= v) lo = mid + 1; else hi = mid;
    }
    return (uint32_t)(lo < nb ? lo : nb - 1);
  }
};

// Bins n values of one feature, src[i * in_stride] -> dst[i * out_stride],
// with a search of L levels.
template <int L, class BinT>
void bin_run_l(const PaddedCuts& pc, const float* src, size_t in_stride, BinT* dst,
               size_t out_stride, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i * out_stride] = (BinT)pc.bin_l<L>(src[i * in_stride]);
}

// The same for any feature: one dispatch per run, not per value.
template <class BinT>
void bin_run(const FeatureBinner& fb, const float* src, size_t in_stride, BinT* dst,
             size_t out_stride, size_t n) {
  if (fb.cuts) {
    for (size_t i = 0; i < n; ++i) dst[i * out_stride] = (BinT)fb.bin(src[i * in_stride]);
    return;
  }
  const PaddedCuts& pc = fb.pc;
  switch (pc.levels) {
    case 0: bin_run_l<0>(pc, src, in_stride, dst, out_stride, n); break;
    case 1: bin_run_l<1>(pc, src, in_stride, dst, out_stride, n); break;
    case 2: bin_run_l<2>(pc, src, in_stride, dst, out_stride, n); break;
    case 3: bin_run_l<3>(pc, src, in_stride, dst, out_stride, n); break;
    case 4: bin_run_l<4>(pc, src, in_stride, dst, out_stride, n); break;
    case 5: bin_run_l<5>(pc, src, in_stride, dst, out_stride, n); break;
    case 6: bin_run_l<6>(pc, src, in_stride, dst, out_stride, n); break;
    case 7: bin_run_l<7>(pc, src, in_stride, dst, out_stride, n); break;
    default: bin_run_l<8>(pc, src, in_stride, dst, out_stride, n); break;
  }
}

}  // namespace

BinnedMatrix bin_matrix(const ColumnInput& in, const Cuts& cuts, int nthread,
                        const std::vector<uint32_t>* rows) {
  BinnedMatrix m;
  m.n_rows = rows ? rows->size() : in.n_rows;
  m.n_features = (int)in.columns.size();
  m.wide = cuts_need_wide_bins(cuts);
  m.resize_entries();
  const int d = m.n_features;
  std::vector<FeatureBinner> pc((size_t)d);
  for (int f = 0; f < d; ++f) pc[f].init(cuts, f);
  ThreadPool pool(nthread);
  const size_t block = 4096;
  size_t nblocks = (m.n_rows + block - 1) / block;
  m.visit_mut([&](auto* entries) {
    using BinT = std::remove_pointer_t<decltype(entries)>;
    pool.run(nblocks, [&](size_t b, int) {
      size_t begin = b * block, end = std::min(m.n_rows, begin + block);
      for (int f = 0; f < d; ++f) {
        const float* col = in.columns[f];
        const FeatureBinner& p = pc[f];
        BinT* out = entries + f;
        if (rows) {
          const uint32_t* ri = rows->data();
          for (size_t i = begin; i < end; ++i) out[i * d] = (BinT)p.bin(col[ri[i]]);
        } else {
          bin_run(p, col + begin, 1, out + begin * d, (size_t)d, end - begin);
        }
      }
    });
  });
  return m;
}

struct RowBinner::Impl {
  std::vector<FeatureBinner> pc;
  ThreadPool pool;
  std::vector<ValueRange> ranges;  // per thread
  Impl(const Cuts& cuts, int nthread) : pc((size_t)cuts.n_features()), pool(nthread) {
    for (int f = 0; f < cuts.n_features(); ++f) pc[f].init(cuts, f);
    ranges.assign((size_t)pool.size(), ValueRange(cuts.n_features()));
  }
};

RowBinner::RowBinner(const Cuts& cuts, size_t n_rows, int nthread)
    : impl_(new Impl(cuts, nthread)), d_(cuts.n_features()), n_rows_(n_rows) {
  // About 4 MiB of floats per chunk.
  chunk_rows_ = std::max<size_t>(256, (size_t)(1u << 20) / (size_t)std::max(d_, 1));
  chunk_.resize(chunk_rows_ * (size_t)d_);
  m_.n_rows = n_rows;
  m_.n_features = d_;
  m_.wide = cuts_need_wide_bins(cuts);
  m_.resize_entries();
}

RowBinner::~RowBinner() { delete impl_; }

void RowBinner::flush() {
  if (buffered_ == 0) return;
  if (done_ + buffered_ > n_rows_) throw std::logic_error("RowBinner: more rows than announced");
  const auto t0 = std::chrono::steady_clock::now();
  const int d = d_;
  const float* src = chunk_.data();
  const size_t block = 512;
  const size_t nblocks = (buffered_ + block - 1) / block;
  const size_t rows = buffered_;
  Impl* im = impl_;
  m_.visit_mut([&](auto* entries) {
    using BinT = std::remove_pointer_t<decltype(entries)>;
    BinT* dst = entries + done_ * (size_t)d;
    im->pool.run(nblocks, [&](size_t b, int t) {
      ValueRange& vr = im->ranges[t];
      const size_t begin = b * block, end = std::min(rows, begin + block);
      for (int f = 0; f < d; ++f) {
        const float* x = src + begin * d + f;
        bin_run(im->pc[f], x, (size_t)d, dst + begin * d + f, (size_t)d, end - begin);
        float lo = vr.lo[f], hi = vr.hi[f];
        for (size_t i = 0; i < end - begin; ++i) {
          const float v = x[i * d];
          lo = v < lo ? v : lo;
          hi = v > hi ? v : hi;
        }
        vr.lo[f] = lo;
        vr.hi[f] = hi;
      }
    });
  });
  done_ += buffered_;
  buffered_ = 0;
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

BinnedMatrix RowBinner::finish(ValueRange* range) {
  flush();
  if (done_ != n_rows_) throw std::logic_error("RowBinner: fewer rows than announced");
  ValueRange all(d_);
  for (const ValueRange& r : impl_->ranges) all.merge(r);
  *range = all;
  std::vector<float>().swap(chunk_);
  return std::move(m_);
}

}  // namespace gbdt
