#include "binned_matrix.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "thread_pool.h"

namespace gbdt {

namespace {

// Cuts of one feature padded to 256 entries with +inf, for a branch-free
// search that returns exactly Cuts::bin_of: the number of cuts <= v, clamped
// to nbins-1; NaN -> nbins (the missing bin).
struct PaddedCuts {
  alignas(64) float c[256];
  int nb;
  void init(const Cuts& cuts, int f) {
    nb = cuts.nbins(f);
    const float* src = cuts.feature_cuts(f);
    for (int i = 0; i < 256; ++i) c[i] = i < nb ? src[i] : INFINITY;
  }
  inline uint8_t bin(float v) const {
    if (v != v) return (uint8_t)nb;
    // Count of entries <= v (saturates at 255; every count >= nb is clamped).
    unsigned pos = 0;
    pos += (c[pos + 127] <= v) ? 128u : 0u;
    pos += (c[pos + 63] <= v) ? 64u : 0u;
    pos += (c[pos + 31] <= v) ? 32u : 0u;
    pos += (c[pos + 15] <= v) ? 16u : 0u;
    pos += (c[pos + 7] <= v) ? 8u : 0u;
    pos += (c[pos + 3] <= v) ? 4u : 0u;
    pos += (c[pos + 1] <= v) ? 2u : 0u;
    pos += (c[pos] <= v) ? 1u : 0u;
    unsigned last = (unsigned)nb - 1;
    return (uint8_t)(pos < last ? pos : last);
  }
};

}  // namespace

BinnedMatrix bin_matrix(const ColumnInput& in, const Cuts& cuts, int nthread,
                        const std::vector<uint32_t>* rows) {
  BinnedMatrix m;
  m.n_rows = rows ? rows->size() : in.n_rows;
  m.n_features = (int)in.columns.size();
  m.bins.resize(m.n_rows * (size_t)m.n_features);
  const int d = m.n_features;
  std::vector<PaddedCuts> pc((size_t)d);
  for (int f = 0; f < d; ++f) pc[f].init(cuts, f);
  ThreadPool pool(nthread);
  const size_t block = 4096;
  size_t nblocks = (m.n_rows + block - 1) / block;
  pool.run(nblocks, [&](size_t b, int) {
    size_t begin = b * block, end = std::min(m.n_rows, begin + block);
    for (int f = 0; f < d; ++f) {
      const float* col = in.columns[f];
      const PaddedCuts& p = pc[f];
      uint8_t* out = m.bins.data() + f;
      if (rows) {
        const uint32_t* ri = rows->data();
        for (size_t i = begin; i < end; ++i) out[i * d] = p.bin(col[ri[i]]);
      } else {
        for (size_t i = begin; i < end; ++i) out[i * d] = p.bin(col[i]);
      }
    }
  });
  return m;
}

struct RowBinner::Impl {
  std::vector<PaddedCuts> pc;
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
  m_.bins.resize(n_rows * (size_t)d_);
}

RowBinner::~RowBinner() { delete impl_; }

void RowBinner::flush() {
  if (buffered_ == 0) return;
  if (done_ + buffered_ > n_rows_) throw std::logic_error("RowBinner: more rows than announced");
  const auto t0 = std::chrono::steady_clock::now();
  const int d = d_;
  const float* src = chunk_.data();
  uint8_t* dst = m_.bins.data() + done_ * (size_t)d;
  const size_t block = 512;
  const size_t nblocks = (buffered_ + block - 1) / block;
  const size_t rows = buffered_;
  Impl* im = impl_;
  im->pool.run(nblocks, [&](size_t b, int t) {
    ValueRange& vr = im->ranges[t];
    const size_t begin = b * block, end = std::min(rows, begin + block);
    for (size_t i = begin; i < end; ++i) {
      const float* x = src + i * d;
      uint8_t* o = dst + i * d;
      for (int f = 0; f < d; ++f) {
        o[f] = im->pc[f].bin(x[f]);
        vr.add(f, x[f]);
      }
    }
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
