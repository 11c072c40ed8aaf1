// partition_column and add_leaf_values_column (row_partitioner.h): with
// AVX-512F, 16 rows per step.  Their bins are gathered (4 bytes read at each
// bin: kColumnPadding), and for a categorical split the words of its set at
// those bins; the partition compresses the left rows in order to
// tmp + l and the right rows, reversed, to end at tmp + r (the same row
// lists as the scalar loop); the leaf values are added to the gathered
// margins and scattered back (the same float additions).  With AVX2 only,
// the partition takes 8 rows per step, loaded one by one and compressed by
// permutations from a table indexed by the 8 rows' left mask
// (lane_compress.h); a categorical split's set is looked up row by row.
#include "row_partitioner.h"

#include "../../common/cpu_features.h"
#include "../../common/lane_compress.h"

#include <climits>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GBDT_PARTITION_AVX512 1
#endif

namespace gbdt {

namespace {

#if defined(GBDT_PARTITION_AVX512)

// The bins of 8 rows by scalar loads: a gather (vpgatherdd) is microcoded
// and slower than the 8 loads on AMD Zen.
template <typename BinT>
__attribute__((target("avx2"))) inline __m256i bins_of_8(const BinT* col, const uint32_t* rows) {
  return _mm256_setr_epi32(col[rows[0]], col[rows[1]], col[rows[2]], col[rows[3]], col[rows[4]], col[rows[5]],
                           col[rows[6]], col[rows[7]]);
}

// The left rows among 8 (bit j: row rows[j]) by a numeric split, compared
// as vectors.
template <typename BinT>
__attribute__((target("avx2"))) inline unsigned left_mask8(const BinT* col, const uint32_t* rows,
                                                           const NumericLeft& L) {
  const __m256i bins = bins_of_8(col, rows);
  const __m256i vsplit = _mm256_set1_epi32((int)L.split_bin);  // bins < 2^16: signed compares hold
  const __m256i miss = _mm256_cmpeq_epi32(bins, _mm256_set1_epi32((int)L.nb));
  // left: (bin <= split and not missing) or (missing and dl)
  const __m256i gt = _mm256_cmpgt_epi32(bins, vsplit);
  const __m256i left = _mm256_or_si256(_mm256_andnot_si256(_mm256_or_si256(gt, miss), _mm256_set1_epi32(-1)),
                                       _mm256_and_si256(miss, _mm256_set1_epi32(L.dl ? -1 : 0)));
  return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(left));
}

// By a categorical split: one set lookup per row (a gather of the set's
// words is no faster where AVX2 is the widest unit).
template <typename BinT>
__attribute__((target("avx2"))) inline unsigned left_mask8(const BinT* col, const uint32_t* rows,
                                                           const SetLeft& L) {
  unsigned m = 0;
  for (int j = 0; j < 8; ++j) m |= (unsigned)L((unsigned)col[rows[j]]) << j;
  return m;
}

// Full 8-lane stores, not masked ones (vpmaskmovd stores are microcoded on
// AMD Zen: 2.5 ns per row against 1.1 for the scalar loop): the left lanes
// go to tmp[l .. l + 8), the right lanes end at tmp + r, and the lanes past
// each side's rows land in [l, r), the rows not yet placed, which later
// steps overwrite.  The two stores cannot overlap while r - l >= 16, which
// holds while 16 rows are left (r - l is always the rows left); the last
// 8-15 rows take the scalar loop.
template <typename BinT, typename Left>
__attribute__((target("avx2"))) size_t partition_avx2(const BinT* col, Left goes_left, const uint32_t* idx,
                                                      uint32_t* tmp, size_t b, size_t e) {
  const LaneCompressTable& t = lane_compress_table();  // left rows first, right rows last
  size_t l = b, r = e, i = b;
  for (; i + 16 <= e; i += 8) {
    const __m256i rows = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + i));
    const unsigned m = left_mask8(col, idx + i, goes_left);
    const int nl = __builtin_popcount(m), nr = 8 - nl;
    const __m256i lv = _mm256_permutevar8x32_epi32(
        rows, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.left[m])));
    const __m256i rv = _mm256_permutevar8x32_epi32(
        rows, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t.right[m])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tmp + l), lv);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tmp + (r - 8)), rv);
    l += (size_t)nl;
    r -= (size_t)nr;
  }
  return partition_rows_from(col, 1, goes_left, idx, tmp, i, e, l, r) - b;
}

// The bins of 16 rows (4 bytes gathered at each: kColumnPadding).
template <typename BinT>
__attribute__((target("avx512f"))) inline __m512i bins_of_16(const BinT* col, __m512i rows) {
  const __m512i low = _mm512_set1_epi32(sizeof(BinT) == 1 ? 0xFF : 0xFFFF);
  return _mm512_and_si512(
      _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (__mmask16)0xFFFF, rows, (const void*)col,
                                  (int)sizeof(BinT)),
      low);
}

// The left rows among 16 by a numeric split: bin <= split_bin and not the
// missing bin nb, or the missing bin when dl.
template <typename BinT>
__attribute__((target("avx512f"))) inline __mmask16 left_lanes(const BinT* col, __m512i rows,
                                                                const NumericLeft& L) {
  const __m512i bins = bins_of_16(col, rows);
  const __mmask16 miss = _mm512_cmpeq_epi32_mask(bins, _mm512_set1_epi32((int)L.nb));
  const __mmask16 le = _kandn_mask16(miss, _mm512_cmple_epu32_mask(bins, _mm512_set1_epi32((int)L.split_bin)));
  return L.dl ? _kor_mask16(le, miss) : le;
}

// Groups of 32 set words that left_lanes permutes from registers; larger
// sets are gathered.
constexpr unsigned kSetPermuteGroups = 8;

// By a categorical split: the set's word of each bin, permuted from a
// register for sets of up to 16 words, from kSetPermuteGroups pairs of
// registers up to 256 words (8192 bins), else gathered (bins past the words:
// none), its bit tested; not in the set and not missing, or
// missing when dl.
template <typename BinT>
__attribute__((target("avx512f"))) inline __mmask16 left_lanes(const BinT* col, __m512i rows, const SetLeft& L) {
  const __m512i bins = bins_of_16(col, rows);
  const __mmask16 miss = _mm512_cmpeq_epi32_mask(bins, _mm512_set1_epi32((int)L.nb));
  const __mmask16 in_words = _mm512_cmplt_epu32_mask(bins, _mm512_set1_epi32((int)L.nbits));
  // (maskz forms: GCC 12 warns about the undefined source of the plain ones)
  const __mmask16 all = (__mmask16)0xFFFF;
  const __m512i word_of = _mm512_maskz_srli_epi32(all, bins, 5);
  __m512i w;
  if (L.nbits <= 512) {  // at most 16 words: the set in a register, permuted
    const __m512i set = _mm512_maskz_loadu_epi32((__mmask16)((1u << (L.nbits / 32)) - 1), L.words);
    w = _mm512_maskz_permutexvar_epi32(in_words, word_of, set);
  } else if (L.nbits <= 32u * 32u * kSetPermuteGroups) {
    // Groups of 32 words (1024 bins): each group's two registers permuted
    // by the word's low 5 bits, kept in the lanes whose word is in it
    // (cheaper than a 16-load gather up to a few groups).
    const unsigned nwords = L.nbits / 32;
    const __m512i group = _mm512_maskz_srli_epi32(all, word_of, 5);
    w = _mm512_setzero_si512();
    for (unsigned g = 0; g * 32 < nwords; ++g) {
      const unsigned left = nwords - g * 32;  // words from this group on
      const __mmask16 mlo = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
      const __mmask16 mhi =
          left >= 32 ? (__mmask16)0xFFFF : left <= 16 ? (__mmask16)0 : (__mmask16)((1u << (left - 16)) - 1);
      const __m512i lo = _mm512_maskz_loadu_epi32(mlo, L.words + g * 32);
      const __m512i hi = _mm512_maskz_loadu_epi32(mhi, L.words + g * 32 + 16);
      const __mmask16 in_g = _kand_mask16(in_words, _mm512_cmpeq_epi32_mask(group, _mm512_set1_epi32((int)g)));
      w = _mm512_mask_mov_epi32(w, in_g, _mm512_permutex2var_epi32(lo, word_of, hi));
    }
  } else {
    w = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), in_words, word_of, (const void*)L.words, 4);
  }
  const __m512i bit = _mm512_maskz_srlv_epi32(all, w, _mm512_and_si512(bins, _mm512_set1_epi32(31)));
  const __mmask16 in_set = _mm512_test_epi32_mask(bit, _mm512_set1_epi32(1));
  const __mmask16 out = _kandn_mask16(in_set, _knot_mask16(miss));  // neither missing nor in the set
  return L.dl ? _kor_mask16(out, miss) : out;
}

template <typename BinT, typename Left>
__attribute__((target("avx512f"))) size_t partition_avx512(const BinT* col, Left goes_left, const uint32_t* idx,
                                                           uint32_t* tmp, size_t b, size_t e) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  size_t l = b, r = e, i = b;
  for (; i + 16 <= e; i += 16) {
    const __m512i rows = _mm512_loadu_si512(idx + i);
    const __mmask16 left = left_lanes(col, rows, goes_left);
    const unsigned nl = (unsigned)__builtin_popcount((unsigned)left);
    const unsigned nr = 16 - nl;
    const __m512i lv = _mm512_maskz_compress_epi32(left, rows);
    _mm512_mask_storeu_epi32(tmp + l, (__mmask16)((1u << nl) - 1), lv);
    // Right rows: lane j of the store gets the (nr - 1 - j)-th right row.
    const __m512i rv = _mm512_maskz_compress_epi32(_knot_mask16(left), rows);
    const __mmask16 rmask = (__mmask16)((1u << nr) - 1);
    const __m512i rev =
        _mm512_maskz_permutexvar_epi32(rmask, _mm512_sub_epi32(_mm512_set1_epi32((int)nr - 1), iota), rv);
    _mm512_mask_storeu_epi32(tmp + (r - nr), rmask, rev);
    l += nl;
    r -= nr;
  }
  return partition_rows_from(col, 1, goes_left, idx, tmp, i, e, l, r) - b;
}

// Margins of 16 rows gathered, each plus its leaf's value, scattered back
// (the rows of a node are distinct).
template <typename BinT, typename Left>
__attribute__((target("avx512f"))) void leaf_values_avx512(const BinT* col, Left goes_left, const uint32_t* idx,
                                                           size_t b, size_t e, float vl, float vr,
                                                           float* margins) {
  const __m512 l = _mm512_set1_ps(vl), r = _mm512_set1_ps(vr);
  size_t i = b;
  for (; i + 16 <= e; i += 16) {
    const __m512i rows = _mm512_loadu_si512(idx + i);
    const __mmask16 left = left_lanes(col, rows, goes_left);
    const __m512 m = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), (__mmask16)0xFFFF, rows, margins, 4);
    _mm512_i32scatter_ps(margins, rows, _mm512_add_ps(m, _mm512_mask_blend_ps(left, r, l)), 4);
  }
  add_leaf_values_from(col, 1, goes_left, idx, i, e, vl, vr, margins, 1, 0);
}
#endif

RowIsa resolve(RowIsa isa) {
  if (isa == RowIsa::kBest)
    return row_isa_available(RowIsa::kAvx512) ? RowIsa::kAvx512
                                              : (row_isa_available(RowIsa::kAvx2) ? RowIsa::kAvx2 : RowIsa::kScalar);
  return row_isa_available(isa) ? isa : RowIsa::kScalar;
}

template <typename BinT>
size_t partition_any(const BinT* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                     size_t e, RowIsa isa) {
  return visit_route(route, [&](auto goes_left) -> size_t {
#if defined(GBDT_PARTITION_AVX512)
    switch (resolve(isa)) {
      case RowIsa::kAvx512:
        if (e - b >= 16) return partition_avx512(col, goes_left, idx, tmp, b, e);
        break;
      case RowIsa::kAvx2:
        if (e - b >= 16) return partition_avx2(col, goes_left, idx, tmp, b, e);
        break;
      default:
        break;
    }
#else
    (void)isa;
#endif
    return partition_rows_from(col, 1, goes_left, idx, tmp, b, e, b, e) - b;
  });
}

template <typename BinT>
void leaf_values_any(const BinT* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e, float vl,
                     float vr, float* margins) {
  visit_route(route, [&](auto goes_left) {
#if defined(GBDT_PARTITION_AVX512)
    if (e - b >= 16 && cpu_has_avx512f()) return leaf_values_avx512(col, goes_left, idx, b, e, vl, vr, margins);
#endif
    add_leaf_values_from(col, 1, goes_left, idx, b, e, vl, vr, margins, 1, 0);
  });
}

}  // namespace

bool row_isa_available(RowIsa isa) {
  switch (isa) {
    case RowIsa::kBest:
    case RowIsa::kScalar:
      return true;
#if defined(GBDT_PARTITION_AVX512)
    case RowIsa::kAvx2:
      return cpu_has_avx2();
    case RowIsa::kAvx512:
      return cpu_has_avx512f();
#endif
    default:
      return false;
  }
}

size_t partition_column(const uint8_t* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                        size_t e, RowIsa isa) {
  return partition_any(col, route, idx, tmp, b, e, isa);
}

size_t partition_column(const uint16_t* col, const RowRoute& route, const uint32_t* idx, uint32_t* tmp, size_t b,
                        size_t e, RowIsa isa) {
  return partition_any(col, route, idx, tmp, b, e, isa);
}

void add_leaf_values_column(const uint8_t* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e,
                            float vl, float vr, float* margins) {
  leaf_values_any(col, route, idx, b, e, vl, vr, margins);
}

void add_leaf_values_column(const uint16_t* col, const RowRoute& route, const uint32_t* idx, size_t b, size_t e,
                            float vl, float vr, float* margins) {
  leaf_values_any(col, route, idx, b, e, vl, vr, margins);
}

// ---- RowPartitioner ----

void RowPartitioner::release() {
  if (budget_) budget_->release(cols_charged_);
  cols_charged_ = 0;
}

void RowPartitioner::init(const BinnedMatrix* matrix, size_t n_rows, ThreadPool* pool, MemoryBudget* budget,
                          bool copies, bool keep) {
  matrix_ = matrix;
  pool_ = pool;
  budget_ = budget;
  n_ = n_rows;
  nf_ = matrix->n_features;
  row_idx_.resize(n_);
  tmp_idx_.resize(n_);
  if (keep) return;
  const double bytes = (double)n_ * nf_ * (matrix->wide ? 2.0 : 1.0) + (double)kColumnPadding;
  const bool room = !budget || budget->limit() <= 0 || budget->used() + bytes <= 0.5 * budget->limit();
  // Rows < 2^31: the vector paths index them as int32.
  has_cols_ = copies && n_ > 0 && n_ <= (size_t)INT32_MAX && room && (!budget || budget->try_charge(bytes));
  if (has_cols_) {
    cols_charged_ = budget ? bytes : 0;
    make_columns();
  }
  // Routing a row costs about a nanosecond on the vector paths of the
  // column store (parallel_policy.h), more on the row-major matrix.
  route_cost_ = has_cols_ && (row_isa_available(RowIsa::kAvx2) || row_isa_available(RowIsa::kAvx512))
                    ? kCostRouteRowVector
                    : kCostPartitionRow;
}

void RowPartitioner::make_columns() {
  matrix_->visit([&](auto* bins) {
    using BinT = std::remove_const_t<std::remove_pointer_t<decltype(bins)>>;
    std::vector<BinT>& cols = column_store(BinT{});
    cols.resize(n_ * (size_t)nf_ + kColumnPadding / sizeof(BinT));
    const size_t nf = (size_t)nf_, n = n_;
    // Tiles of 64 rows x 64 features: both sides stay in cache.
    pool_->run_blocks_sized(n * nf, (n + 63) / 64, [&](size_t b, size_t e, int) {
      for (size_t r0 = b * 64; r0 < std::min(n, e * 64); r0 += 64)
        for (size_t f0 = 0; f0 < nf; f0 += 64)
          for (size_t f = f0; f < std::min(nf, f0 + 64); ++f)
            for (size_t r = r0; r < std::min(n, r0 + 64); ++r) cols[f * n + r] = bins[r * nf + f];
    });
  });
}

// whole: the node's only piece.
struct RowPartitioner::Piece {
  size_t node, begin, end, nleft, out_left, out_right;
  bool whole;
};

// Pieces of the nodes' row segments for the partition: at most 65536
// rows, and several per node when the step is worth more than one thread
// (parallel_policy.h).  emit(node, begin, end).
template <typename Emit>
void RowPartitioner::split_rows(const std::vector<LevelNode*>& nodes, size_t rows_all, Emit emit) const {
  const size_t max_piece = 65536;
  const int nt = threads_for_work(rows_all * route_cost_, pool_->size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const LevelNode* ln = nodes[i];
    const size_t rows = ln->end - ln->begin;
    const size_t np = std::max(row_pieces(rows, rows_all, nt, kMinWorkPerThread / kCostPartitionRow / 2),
                               (rows + max_piece - 1) / max_piece);
    for (size_t j = 0; j < np; ++j) {
      const size_t b = ln->begin + rows * j / np, e = ln->begin + rows * (j + 1) / np;
      if (b < e) emit(i, b, e);
    }
  }
}

// One pass over the bins per piece, from the node's row list into the
// other one: left rows go forward from the piece's start, right rows
// backward from its end.
void RowPartitioner::route_pieces(const std::vector<LevelNode*>& nodes, const std::vector<SplitCandidate>& splits,
                                  const std::vector<const CatWords*>& split_sets, const Cuts& c,
                                  std::vector<Piece>& pieces, size_t rows_all) {
  matrix_->visit([&](auto* bins) {  // uint8_t or uint16_t entries
    pool_->run_sized(rows_all * route_cost_, pieces.size(), [&](size_t pi, int) {
      Piece& p = pieces[pi];
      const uint32_t* idx = nodes[p.node]->rows;
      uint32_t* tmp = other(idx);
      const SplitCandidate& s = splits[p.node];
      const int nb = c.nbins(s.feature);
      size_t cs;  // the column's row stride
      const auto* col = feature_column(bins, s.feature, &cs);
      const RowRoute route = row_route(s, nb, split_sets[p.node]);
      if (cs == 1)  // the feature-major column
        p.nleft = partition_column(col, route, idx, tmp, p.begin, p.end);
      else
        p.nleft = partition_rows_scalar(col, cs, route, idx, tmp, p.begin, p.end);
    });
  });
}

// A node routed as one piece is done after route_pieces (its right child's
// rows are in reverse order: a node's rows are always in increasing or
// decreasing order, which reads the bins and gradients as well; integer
// sums do not depend on the order); the pieces of a node routed in several
// are moved back into its own list by a second pass.
std::vector<size_t> RowPartitioner::update(const std::vector<LevelNode*>& nodes,
                                           const std::vector<SplitCandidate>& splits,
                                           const std::vector<const CatWords*>& split_sets, const Cuts& c,
                                           std::vector<uint32_t*>* child_rows) {
  std::vector<Piece> pieces;
  size_t rows_all = 0;
  for (const LevelNode* ln : nodes) rows_all += ln->end - ln->begin;
  split_rows(nodes, rows_all, [&](size_t i, size_t b, size_t e) { pieces.push_back(Piece{i, b, e, 0, 0, 0, false}); });
  size_t n_split_pieces = 0;  // pieces of nodes with several
  for (size_t j = 0; j < pieces.size(); ++j) {
    const LevelNode* ln = nodes[pieces[j].node];
    pieces[j].whole = pieces[j].begin == ln->begin && pieces[j].end == ln->end;
    n_split_pieces += !pieces[j].whole;
  }
  // Left rows of a piece from tmp to idx + out_left, its right rows
  // (written backwards from the piece's end) to idx + out_right.
  auto move_back = [](const Piece& p, uint32_t* idx, const uint32_t* tmp) {
    std::memcpy(idx + p.out_left, tmp + p.begin, p.nleft * sizeof(uint32_t));
    const size_t nr = (p.end - p.begin) - p.nleft;
    uint32_t* dst = idx + p.out_right;
    const uint32_t* src = tmp + p.end - 1;
    for (size_t j = 0; j < nr; ++j) dst[j] = src[-(ptrdiff_t)j];
  };
  route_pieces(nodes, splits, split_sets, c, pieces, rows_all);
  child_rows->resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) (*child_rows)[i] = nodes[i]->rows;
  for (const Piece& p : pieces)
    if (p.whole) (*child_rows)[p.node] = other(nodes[p.node]->rows);
  std::vector<size_t> nleft(nodes.size(), 0);
  for (const Piece& p : pieces) nleft[p.node] += p.nleft;
  std::vector<size_t> lpos(nodes.size()), rpos(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    lpos[i] = nodes[i]->begin;
    rpos[i] = nodes[i]->begin + nleft[i];
  }
  for (Piece& p : pieces) {
    p.out_left = lpos[p.node];
    p.out_right = rpos[p.node];
    lpos[p.node] += p.nleft;
    rpos[p.node] += (p.end - p.begin) - p.nleft;
  }
  if (n_split_pieces > 0) {
    std::vector<const Piece*> rest;
    rest.reserve(n_split_pieces);
    size_t rest_rows = 0;
    for (const Piece& p : pieces)
      if (!p.whole) {
        rest.push_back(&p);
        rest_rows += p.end - p.begin;
      }
    pool_->run_sized(rest_rows, rest.size(), [&](size_t pi, int) {
      uint32_t* idx = nodes[rest[pi]->node]->rows;
      move_back(*rest[pi], idx, other(idx));
    });
  }
  return nleft;
}

}  // namespace gbdt
