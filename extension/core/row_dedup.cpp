#include "row_dedup.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "backend.h"
#include "gradients.h"
#include "multi_quantile.h"
#include "objective.h"
#include "params.h"
#include "parallel_policy.h"
#include "thread_pool.h"

namespace gbdt {

namespace {

// A row's key: its bin entries (bytes) and its float columns compared bit
// for bit (a -0 and a +0 margin are two keys: never merged wrongly).
struct KeyView {
  const uint8_t* bins = nullptr;  // row r's entries: bins + r * row_bytes
  size_t row_bytes = 0;
  const float* labels = nullptr;
  const float* weights = nullptr;
  const float* margins = nullptr;
  size_t K = 0;

  static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    return h * 0xFF51AFD7ED558CCDULL;
  }
  static uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  }
  uint64_t hash(size_t r) const {
    const uint8_t* p = bins + r * row_bytes;
    uint64_t h = 0x243F6A8885A308D3ULL;
    size_t i = 0;
    for (; i + 8 <= row_bytes; i += 8) {
      uint64_t v;
      std::memcpy(&v, p + i, 8);
      h = mix(h, v);
    }
    if (i < row_bytes) {
      uint64_t v = 0;
      for (size_t j = i; j < row_bytes; ++j) v = (v << 8) | p[j];
      h = mix(h, v);
    }
    uint64_t x = bits(labels[r]);
    if (weights) x |= (uint64_t)bits(weights[r]) << 32;
    h = mix(h, x);
    for (size_t k = 0; k < K; ++k) h = mix(h, bits(margins[r * K + k]));
    return h ^ (h >> 29);
  }
  // Byte rows compared 8 bytes at a time (rows are short: a memcmp call
  // costs more than the compare).
  static bool bytes_equal(const uint8_t* a, const uint8_t* b, size_t len) {
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
      uint64_t x, y;
      std::memcpy(&x, a + i, 8);
      std::memcpy(&y, b + i, 8);
      if (x != y) return false;
    }
    for (; i < len; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  bool same(size_t a, size_t b) const {
    if (!bytes_equal(bins + a * row_bytes, bins + b * row_bytes, row_bytes)) return false;
    if (bits(labels[a]) != bits(labels[b])) return false;
    if (weights && bits(weights[a]) != bits(weights[b])) return false;
    for (size_t k = 0; k < K; ++k)
      if (bits(margins[a * K + k]) != bits(margins[b * K + k])) return false;
    return true;
  }
};

// Open addressing over the distinct rows seen so far (each named by its
// first row); grows by doubling at half load.
class DistinctTable {
 public:
  explicit DistinctTable(const KeyView& key) : key_(key) { rehash(1024); }

  // The distinct index of row r (a new one when its key is new).
  uint32_t insert(size_t r) {
    const uint64_t h = key_.hash(r);
    size_t s = (size_t)h & mask_;
    for (;;) {
      const uint32_t id = slot_[s];
      if (id == kEmpty) break;
      if (hash_[id] == h && key_.same(first_[id], r)) return id;
      s = (s + 1) & mask_;
    }
    const uint32_t id = (uint32_t)first_.size();
    slot_[s] = id;
    first_.push_back((uint32_t)r);
    hash_.push_back(h);
    if (2 * first_.size() > slot_.size()) rehash(2 * slot_.size());
    return id;
  }
  size_t size() const { return first_.size(); }
  const std::vector<uint32_t>& first_rows() const { return first_; }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  void rehash(size_t cap) {
    slot_.assign(cap, kEmpty);
    mask_ = cap - 1;
    for (uint32_t id = 0; id < (uint32_t)first_.size(); ++id) {
      size_t s = (size_t)hash_[id] & mask_;
      while (slot_[s] != kEmpty) s = (s + 1) & mask_;
      slot_[s] = id;
    }
  }
  const KeyView& key_;
  std::vector<uint32_t> slot_;
  std::vector<uint32_t> first_;  // per distinct row: its first training row
  std::vector<uint64_t> hash_;   // per distinct row: its key's hash
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
  key.bins = m.wide ? reinterpret_cast<const uint8_t*>(m.bins16.data()) : m.bins.data();
  key.labels = in.labels;
  key.weights = in.weights;
  key.margins = in.margins;
  key.K = in.margins ? in.K : 0;
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
