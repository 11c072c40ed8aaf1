#include "row_dedup.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "../tree/tree_backend.h"
#include "../objective/gradients.h"
#include "../gbm/multi_quantile.h"
#include "../objective/objective.h"
#include "../gbm/params.h"
#include "../common/parallel_policy.h"
#include "../common/thread_pool.h"

namespace gbdt {

namespace {

// A row's key: its bin entries (bytes) and its float columns compared bit
// for bit (a -0 and a +0 margin are two keys: never merged wrongly),
// packed into `words` 64-bit words: the entries (the last word
// zero-padded), then the label and weight bits in one word, then the K
// margins' bits two to a word.  Words are built in registers and stored
// whole (byte stores read back as a word would stall the load).
struct KeyView {
  const uint8_t* bins = nullptr;  // row r's entries: bins + r * row_bytes
  size_t row_bytes = 0;
  size_t n_rows = 0;
  const float* labels = nullptr;
  const float* weights = nullptr;
  const float* margins = nullptr;
  size_t K = 0;
  size_t words = 0;  // set by finish()

  void finish() { words = (row_bytes + 7) / 8 + 1 + (K + 1) / 2; }
  static uint64_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }
  static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    return h * 0xFF51AFD7ED558CCDULL;
  }
  static uint64_t final(uint64_t h) { return h ^ (h >> 29); }
  static uint64_t hash(const uint64_t* w, size_t n) {
    uint64_t h = 0x243F6A8885A308D3ULL;
    for (size_t i = 0; i < n; ++i) h = mix(h, w[i]);
    return final(h);
  }
  // Row r's key into w[0, words); returns hash(w, words).
  uint64_t pack(size_t r, uint64_t* w) const {
    const uint8_t* p = bins + r * row_bytes;
    uint64_t h = 0x243F6A8885A308D3ULL;
    size_t i = 0, o = 0;
    for (; o + 8 <= row_bytes; o += 8, ++i) {
      uint64_t v;
      std::memcpy(&v, p + o, 8);
      w[i] = v;
      h = mix(h, v);
    }
    if (o < row_bytes) {
      const size_t tail = row_bytes - o;
      uint64_t v = 0;
      if ((r + 1) * row_bytes + (8 - tail) <= n_rows * row_bytes) {
        // The next row's entries follow: one load, masked (little-endian:
        // the row's bytes are the low ones).
        std::memcpy(&v, p + o, 8);
        v &= ~0ULL >> (8 * (8 - tail));
      } else {
        for (size_t j = 0; j < tail; ++j) v |= (uint64_t)p[o + j] << (8 * j);
      }
      w[i] = v;
      h = mix(h, v);
      ++i;
    }
    uint64_t v = bits(labels[r]) | (weights ? bits(weights[r]) << 32 : 0);
    w[i++] = v;
    h = mix(h, v);
    const float* m = margins + r * K;
    for (size_t k = 0; k < K; k += 2, ++i) {
      v = bits(m[k]) | (k + 1 < K ? bits(m[k + 1]) << 32 : 0);
      w[i] = v;
      h = mix(h, v);
    }
    return final(h);
  }
};

// Open addressing over the distinct rows seen so far, in order of first
// occurrence; grows by doubling at half load.  A slot holds the id and 32
// bits of the key's hash.  Keys of up to kKeptWords words are kept in the
// table (a lookup then reads the slot and one key, both in the table's own
// arrays, not the training row's scattered entries and floats); longer
// keys, as of wide rows, are packed again from their first row when
// compared, so that the table never holds a copy of the matrix.
constexpr size_t kKeptWords = 8;

class DistinctTable {
 public:
  explicit DistinctTable(const KeyView& key)
      : key_(key), w_(key.words), kept_(key.words <= kKeptWords) {
    tmp_.resize(2 * w_);
    rehash(1024);
  }

  // The distinct index of row r (a new one when its key is new).
  uint32_t insert(size_t r) {
    uint64_t* k = tmp_.data();
    const uint64_t h = key_.pack(r, k);
    const uint32_t tag = (uint32_t)(h >> 32);
    size_t s = (size_t)h & mask_;
    for (;;) {
      const uint64_t e = slot_[s];
      if (e == kEmpty) break;
      if ((uint32_t)(e >> 32) == tag && equal(key_of((uint32_t)e), k)) return (uint32_t)e;
      s = (s + 1) & mask_;
    }
    const uint32_t id = (uint32_t)first_.size();
    slot_[s] = ((uint64_t)tag << 32) | id;
    first_.push_back((uint32_t)r);
    if (kept_) keys_.insert(keys_.end(), k, k + w_);
    if (2 * first_.size() > slot_.size()) rehash(2 * slot_.size());
    return id;
  }
  size_t size() const { return first_.size(); }
  const std::vector<uint32_t>& first_rows() const { return first_; }

 private:
  static constexpr uint64_t kEmpty = ~0ULL;  // id 0xFFFFFFFF never exists (n < 2^32)
  // Distinct row id's key (a kept one, or packed into tmp_'s second half).
  const uint64_t* key_of(uint32_t id) {
    if (kept_) return keys_.data() + (size_t)id * w_;
    key_.pack(first_[id], tmp_.data() + w_);
    return tmp_.data() + w_;
  }
  bool equal(const uint64_t* a, const uint64_t* b) const {
    for (size_t i = 0; i < w_; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  void rehash(size_t cap) {
    slot_.assign(cap, kEmpty);
    mask_ = cap - 1;
    for (uint32_t id = 0; id < (uint32_t)first_.size(); ++id) {
      const uint64_t h = KeyView::hash(key_of(id), w_);
      size_t s = (size_t)h & mask_;
      while (slot_[s] != kEmpty) s = (s + 1) & mask_;
      slot_[s] = ((h >> 32) << 32) | id;
    }
  }
  const KeyView& key_;
  const size_t w_;
  const bool kept_;              // keys_ holds the keys
  std::vector<uint64_t> slot_;
  std::vector<uint64_t> keys_;   // per distinct row: its packed key (kept_)
  std::vector<uint32_t> first_;  // per distinct row: its first training row
  std::vector<uint64_t> tmp_;    // the key being looked up, then one to compare
  size_t mask_ = 0;
};

// Tables of kMinSampled rows or more: a sample of s different rows first
// (16 sqrt(n) rows, at least 2048 and at most kSample or a quarter of the
// table: the sample's rows are scattered, each a cache miss).  With D
// distinct keys, a sample of s rows holds about s^2 / (2 D) repeated keys
// when D >> s, and at least that many whatever the frequencies (equal
// frequencies give the fewest); fewer than a quarter of what D = limit
// would give says the table has far more distinct rows than the limit.
// (With s a quarter of the table and every key twice, the sample holds
// about half of s^2 / (2 D): still above the quarter.)  A "no" only skips
// the compression, which never changes the model.
constexpr size_t kSample = 16384;
constexpr size_t kMinSampled = 8192;

bool sample_says_no(const KeyView& key, size_t n, size_t limit) {
  if (n < kMinSampled) return false;
  // s^2 / (2 limit) >= 256 repeats expected at the limit (limit = n / 2)
  // up to kSample rows (a 1M-row table), fewer beyond.
  const size_t want = std::min(std::min(kSample, n / 4),
                               std::max<size_t>(2048, (size_t)(16.0 * std::sqrt((double)n))));
  DistinctTable t(key);
  // Rows drawn by a hash, each once (a regular pattern such as a stride
  // would avoid or hit the table's own periods; the draws must look random).
  std::vector<size_t> rows(want);
  for (size_t i = 0; i < want; ++i) rows[i] = (size_t)(mix64(0x5A3D0000ull + i) % n);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (size_t r : rows) t.insert(r);
  const size_t s = rows.size();
  const double repeats = (double)(s - t.size());
  const double expected_at_limit = (double)s * (double)s / (2.0 * (double)limit);
  return repeats < 0.25 * expected_at_limit;
}

// Rough cost (ns) of hashing one row into a table (parallel_policy.h).
constexpr size_t kCostDedupRow = 30;

// Per training row its distinct index (row_of) in order of first
// occurrence; false as soon as more than `limit` distinct keys are seen.
// Several threads: each hashes a contiguous range of rows into its own
// table (local indices, in the range's order of first occurrence); the
// ranges' distinct rows are then inserted into one table in range order,
// which numbers every key by its first occurrence in the whole table, as a
// single pass does; row_of is then mapped from local to global indices.
bool distinct_rows(const KeyView& key, size_t n, size_t limit, int nthread, uint32_t* row_of,
                   std::vector<uint32_t>* first) {
  const int T = threads_for_work(n * kCostDedupRow, nthread);
  if (T <= 1) {
    DistinctTable t(key);
    for (size_t r = 0; r < n; ++r) {
      row_of[r] = t.insert(r);
      if (t.size() > limit) return false;
    }
    *first = t.first_rows();
    return true;
  }
  std::vector<std::vector<uint32_t>> local_first((size_t)T);
  std::atomic<bool> over(false);
  ThreadPool pool(T);
  pool.run((size_t)T, [&](size_t c, int) {
    const size_t b = n * c / (size_t)T, e = n * (c + 1) / (size_t)T;
    DistinctTable t(key);
    for (size_t r = b; r < e; ++r) {
      row_of[r] = t.insert(r);
      // A range's distinct keys are distinct in the table too.
      if (t.size() > limit || ((r & 4095) == 0 && over.load(std::memory_order_relaxed))) {
        over.store(true, std::memory_order_relaxed);
        return;
      }
    }
    local_first[c] = t.first_rows();
  });
  if (over.load()) return false;
  DistinctTable g(key);
  std::vector<std::vector<uint32_t>> to_global((size_t)T);
  for (int c = 0; c < T; ++c) {
    to_global[(size_t)c].resize(local_first[(size_t)c].size());
    for (size_t i = 0; i < local_first[(size_t)c].size(); ++i) {
      to_global[(size_t)c][i] = g.insert(local_first[(size_t)c][i]);
      if (g.size() > limit) return false;
    }
  }
  pool.run((size_t)T, [&](size_t c, int) {
    const size_t b = n * c / (size_t)T, e = n * (c + 1) / (size_t)T;
    const uint32_t* m = to_global[c].data();
    for (size_t r = b; r < e; ++r) row_of[r] = m[row_of[r]];
  });
  *first = g.first_rows();
  return true;
}

// Whether every row's K margins are bit for bit row 0's.
bool margins_same_on_every_row(const float* m, size_t n, size_t K) {
  std::vector<uint32_t> first(K);
  std::memcpy(first.data(), m, 4 * K);
  for (size_t r = 1; r < n; ++r)
    for (size_t k = 0; k < K; ++k) {
      uint32_t u;
      std::memcpy(&u, m + r * K + k, 4);
      if (u != first[k]) return false;
    }
  return true;
}

}  // namespace

bool dedup_rows(const DedupInput& in, double max_distinct, RowDedup* out, int nthread) {
  *out = RowDedup();
  const BinnedMatrix& m = *in.matrix;
  const size_t n = m.n_rows, d = (size_t)m.n_features;
  if (n < 2 || d == 0 || n > 0xFFFFFFFFull) return false;
  const size_t limit = (size_t)((double)n * max_distinct);
  if (limit < 1) return false;
  KeyView key;
  key.row_bytes = d * (m.wide ? 2 : 1);
  key.n_rows = n;
  key.bins = m.wide ? reinterpret_cast<const uint8_t*>(m.bins16.data()) : m.bins.data();
  key.labels = in.labels;
  key.weights = in.weights;
  key.margins = in.margins;
  key.K = in.margins ? in.K : 0;
  // Margins equal on every row (no init model or base margins): not part
  // of the key.
  if (key.K && margins_same_on_every_row(in.margins, n, in.K)) key.K = 0;
  key.finish();
  if (sample_says_no(key, n, limit)) return false;

  std::vector<uint32_t> row_of(n);
  std::vector<uint32_t> first;
  if (!distinct_rows(key, n, limit, nthread, row_of.data(), &first)) return false;
  const size_t D = first.size();
  out->n_rows = n;
  out->row_of = std::move(row_of);
  out->multiplicity.assign(D, 0);
  for (size_t r = 0; r < n; ++r) ++out->multiplicity[out->row_of[r]];
  out->matrix.n_rows = D;
  out->matrix.n_features = m.n_features;
  out->matrix.wide = m.wide;
  out->matrix.resize_entries();
  uint8_t* dst = m.wide ? reinterpret_cast<uint8_t*>(out->matrix.bins16.data())
                        : out->matrix.bins.data();
  out->labels.resize(D);
  if (in.weights) out->weights.resize(D);
  if (in.margins) out->margins.resize(D * in.K);
  for (size_t i = 0; i < D; ++i) {
    const size_t r = first[i];
    std::memcpy(dst + i * key.row_bytes, key.bins + r * key.row_bytes, key.row_bytes);
    out->labels[i] = in.labels[r];
    if (in.weights) out->weights[i] = in.weights[r];
    if (in.margins)
      std::copy(in.margins + r * in.K, in.margins + (r + 1) * in.K, out->margins.begin() + i * in.K);
  }
  return true;
}

bool row_dedup_possible(const TrainParams& p, const ObjectiveInfo& oi, const BoostData& bd,
                        bool cpu_backend) {
  return p.row_dedup && cpu_backend && p.subsample >= 1.0 && !oi.ranking &&
         !oi.host_gradients && !bd.external_gradients && !oi.leaf_quantile &&
         !is_multi_quantile(p);
}

}  // namespace gbdt
