#include "binned_matrix.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "../common/cpu_features.h"
#include "../common/page_release.h"
#include "../common/thread_pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_BIN_SIMD 1
#endif

namespace gbdt {

namespace {

std::atomic<int> g_bin_kernel{0};  // set_bin_kernel_for_tests

// Cuts of one feature padded to 256 entries with +inf, for a branch-free
// search that returns exactly Cuts::bin_of: the number of cuts <= v, clamped
// to nbins-1; NaN -> nbins (the missing bin).  The search looks at the
// first 2^levels - 1 entries only, levels = ceil(log2(nbins)): every entry
// past the nbins cuts is +inf, and a count of nbins-1 or more is clamped to
// nbins-1 anyway, so the result is that of the full 8-level search.
// by_level: the cuts each level of the search compares with, level by level
// (bin_run_avx512 picks them from registers): the level that adds 2^lv
// compares v with c[pos + 2^lv - 1], pos a multiple of 2^(lv+1) below
// 2^levels; its m = 2^(levels-1-lv) candidates, k = pos >> (lv+1), sit at
// by_level[m - 1 + k].
struct PaddedCuts {
  alignas(64) float c[256];
  alignas(64) float by_level[256];
  int nb;
  int levels;  // 0 .. 8
  void init(const Cuts& cuts, int f) {
    nb = cuts.nbins(f);
    const float* src = cuts.feature_cuts(f);
    for (int i = 0; i < 256; ++i) c[i] = i < nb ? src[i] : INFINITY;
    levels = 0;
    while (levels < 8 && (1 << levels) < nb) ++levels;
    for (int i = 0; i < 256; ++i) by_level[i] = INFINITY;
    for (int lv = levels - 1; lv >= 0; --lv) {
      const int m = 1 << (levels - 1 - lv);
      for (int k = 0; k < m; ++k) by_level[m - 1 + k] = c[k * (2 << lv) + (1 << lv) - 1];
    }
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

#if defined(GBDT_BIN_SIMD)
// bin_l<L> in AVX2 lanes, 16 values a step (two independent searches in
// flight): the same compares (cut <= v, false for NaN), the same clamp to
// nb - 1, NaN to nb.  Each level gathers the lanes' cuts from the padded
// table (1 KiB, in cache); the scalar search waits on each level's load.
// Returns how many values it binned (a multiple of 16).
template <int L, class BinT>
__attribute__((target("avx2"))) size_t bin_run_avx2(const PaddedCuts& pc, const float* src, size_t in_stride,
                                                    BinT* dst, size_t out_stride, size_t n) {
  const __m256i last = _mm256_set1_epi32(pc.nb - 1);  // compared unsigned: nb 0 clamps nothing
  const __m256i nbv = _mm256_set1_epi32(pc.nb);
  const __m256i lanes = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm256_set1_epi32((int)in_stride));
  alignas(32) int32_t out[16];
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 v0, v1;
    if (in_stride == 1) {
      v0 = _mm256_loadu_ps(src + i);
      v1 = _mm256_loadu_ps(src + i + 8);
    } else {
      v0 = _mm256_i32gather_ps(src + i * in_stride, lanes, 4);
      v1 = _mm256_i32gather_ps(src + (i + 8) * in_stride, lanes, 4);
    }
    __m256i p0 = _mm256_setzero_si256(), p1 = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int lv = L - 1; lv >= 0; --lv) {
      const __m256i step = _mm256_set1_epi32(1 << lv);
      const __m256i off = _mm256_set1_epi32((1 << lv) - 1);
      const __m256 c0 = _mm256_i32gather_ps(pc.c, _mm256_add_epi32(p0, off), 4);
      const __m256 c1 = _mm256_i32gather_ps(pc.c, _mm256_add_epi32(p1, off), 4);
      p0 = _mm256_add_epi32(p0, _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(c0, v0, _CMP_LE_OQ)), step));
      p1 = _mm256_add_epi32(p1, _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(c1, v1, _CMP_LE_OQ)), step));
    }
    p0 = _mm256_blendv_epi8(_mm256_min_epu32(p0, last), nbv, _mm256_castps_si256(_mm256_cmp_ps(v0, v0, _CMP_UNORD_Q)));
    p1 = _mm256_blendv_epi8(_mm256_min_epu32(p1, last), nbv, _mm256_castps_si256(_mm256_cmp_ps(v1, v1, _CMP_UNORD_Q)));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out), p0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(out + 8), p1);
    for (int j = 0; j < 16; ++j) dst[(i + j) * out_stride] = (BinT)out[j];
  }
  return i;
}

// GCC 12 warns about its intrinsics' own unset pass-through operands.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The cut level LV of an L-level search compares with, per lane (k: the
// lane's candidate, below M = 2^(L-1-LV)), from the level's table t (M
// entries, PaddedCuts::by_level): permutations of registers, no gathers.
template <int M>
__attribute__((target("avx512f"), always_inline)) inline __m512 level_cut(const float* t, __m512i k) {
  if (M <= 16) return _mm512_permutexvar_ps(k, _mm512_loadu_ps(t));
  const __m512 a = _mm512_permutex2var_ps(_mm512_loadu_ps(t), k, _mm512_loadu_ps(t + 16));
  if (M == 32) return a;
  const __mmask16 b5 = _mm512_test_epi32_mask(k, _mm512_set1_epi32(32));
  const __m512 ab = _mm512_mask_blend_ps(
      b5, a, _mm512_permutex2var_ps(_mm512_loadu_ps(t + 32), k, _mm512_loadu_ps(t + 48)));
  if (M == 64) return ab;
  const __m512 cd = _mm512_mask_blend_ps(
      b5, _mm512_permutex2var_ps(_mm512_loadu_ps(t + 64), k, _mm512_loadu_ps(t + 80)),
      _mm512_permutex2var_ps(_mm512_loadu_ps(t + 96), k, _mm512_loadu_ps(t + 112)));
  return _mm512_mask_blend_ps(_mm512_test_epi32_mask(k, _mm512_set1_epi32(64)), ab, cd);
}

template <int L, int LV>
__attribute__((target("avx512f"), always_inline)) inline __m512i search_levels(const float* by_level, __m512 v,
                                                                              __m512i pos) {
  constexpr int M = 1 << (L - 1 - LV);
  const __m512 cut = level_cut<M>(by_level + M - 1, _mm512_srli_epi32(pos, LV + 1));
  pos = _mm512_mask_add_epi32(pos, _mm512_cmp_ps_mask(cut, v, _CMP_LE_OQ), pos, _mm512_set1_epi32(1 << LV));
  if constexpr (LV > 0) return search_levels<L, LV - 1>(by_level, v, pos);
  return pos;
}

// bin_l<L> in AVX-512 lanes, 16 values a step, the cuts of each level
// picked from registers (gathers are slow on CPUs with the gather-data-
// sampling fix); the same compares, clamp and NaN bin.  Returns how many
// values it binned (a multiple of 16).
template <int L, class BinT>
__attribute__((target("avx512f"))) size_t bin_run_avx512(const PaddedCuts& pc, const float* src, size_t in_stride,
                                                         BinT* dst, size_t out_stride, size_t n) {
  const __m512i last = _mm512_set1_epi32(pc.nb - 1);
  const __m512i nbv = _mm512_set1_epi32(pc.nb);
  const __m512i lanes = _mm512_mullo_epi32(
      _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32((int)in_stride));
  alignas(64) int32_t out[16];
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = in_stride == 1 ? _mm512_loadu_ps(src + i)
                                    : _mm512_i32gather_ps(lanes, src + i * in_stride, 4);
    __m512i pos = search_levels<L, L - 1>(pc.by_level, v, _mm512_setzero_si512());
    pos = _mm512_mask_mov_epi32(_mm512_min_epu32(pos, last), _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), nbv);
    _mm512_store_si512(out, pos);
    for (int j = 0; j < 16; ++j) dst[(i + j) * out_stride] = (BinT)out[j];
  }
  return i;
}
#pragma GCC diagnostic pop

#endif

// Bins n values of one feature, src[i * in_stride] -> dst[i * out_stride],
// with a search of L levels (in AVX-512 or AVX2 lanes where the CPU has
// them).
template <int L, class BinT>
void bin_run_l(const PaddedCuts& pc, const float* src, size_t in_stride, BinT* dst,
               size_t out_stride, size_t n) {
  size_t i = 0;
#if defined(GBDT_BIN_SIMD)
  if constexpr (L > 0) {
    const int kern = g_bin_kernel.load(std::memory_order_relaxed);
    if (kern == 0 && cpu_has_avx512f())
      i = bin_run_avx512<L>(pc, src, in_stride, dst, out_stride, n);
    else if (kern <= 1 && cpu_has_avx2())
      i = bin_run_avx2<L>(pc, src, in_stride, dst, out_stride, n);
  }
#endif
  for (; i < n; ++i) dst[i * out_stride] = (BinT)pc.bin_l<L>(src[i * in_stride]);
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

void set_bin_kernel_for_tests(int kernel) { g_bin_kernel.store(kernel); }

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
  const size_t nblocks = (m.n_rows + block - 1) / block;
  // With release_binned, the rows go in spans of kReleaseBlocks blocks, and
  // after each span the float pages of its rows are given back: the bins
  // grow while the floats shrink, so the two are never both resident.
  constexpr size_t kReleaseBlocks = 16;  // 64Ki rows
  const bool release = in.release_binned && rows == nullptr;
  const size_t span = release ? kReleaseBlocks : std::max<size_t>(nblocks, 1);
  m.visit_mut([&](auto* entries) {
    using BinT = std::remove_pointer_t<decltype(entries)>;
    for (size_t b0 = 0; b0 < nblocks; b0 += span) {
      const size_t b1 = std::min(nblocks, b0 + span);
      pool.run(b1 - b0, [&](size_t t, int) {
        const size_t begin = (b0 + t) * block, end = std::min(m.n_rows, begin + block);
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
      if (release) {
        // Rows [0, r1) are binned: from the column's start, so that the
        // page holding the span's first rows goes too (the pages released
        // before are empty and cost nothing).
        const size_t r1 = std::min(m.n_rows, b1 * block);
        for (int f = 0; f < d; ++f) release_pages(const_cast<float*>(in.columns[f]), r1 * sizeof(float));
      }
    }
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
