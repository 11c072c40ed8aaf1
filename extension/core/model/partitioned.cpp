// The partitioned model container (partitioned.h): writer and validating
// reader.  Hostile bytes are an error (CorruptModel), never a crash: every
// count and length is checked against the bytes left and the limits before
// anything is allocated.
#include "partitioned.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "../common/common.h"
#include "../common/utf8.h"
#include "model.h"
#include "model_limits.h"
#include "format.h"

namespace gbdt {

namespace {

constexpr char kPartMagic[8] = {'G', 'B', 'D', 'T', 'P', 'A', 'R', 'T'};
constexpr uint32_t kPartVersion = 1;

[[noreturn]] void bad(const std::string& what) { throw CorruptModel("partitioned model: " + what); }

uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

void put_u(std::vector<uint8_t>* b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b->push_back((uint8_t)(v >> (8 * i)));
}
void put_str(std::vector<uint8_t>* b, const std::string& s) {
  put_u(b, s.size(), 4);
  b->insert(b->end(), s.begin(), s.end());
}
void put_bytes(std::vector<uint8_t>* b, const std::vector<uint8_t>& v) {
  put_u(b, v.size(), 8);
  b->insert(b->end(), v.begin(), v.end());
}
uint64_t get_u(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

// Reads the payload, each read checked against the bytes left.
class PartReader {
 public:
  PartReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  uint64_t u(int bytes, const char* what) {
    need(bytes, what);
    uint64_t v = get_u(p_, bytes);
    p_ += bytes;
    return v;
  }
  double f64(const char* what) {
    uint64_t bits = u(8, what);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  std::string str(const char* what) {
    const uint64_t n = u(4, what);
    if (n > kMaxStringBytes) bad(std::string(what) + " longer than " + std::to_string(kMaxStringBytes) + " bytes");
    need(n, what);
    std::string s((const char*)p_, (size_t)n);
    p_ += n;
    if (!valid_utf8(s)) bad(std::string(what) + " is not valid UTF-8 (or holds a NUL byte)");
    return s;
  }
  std::vector<uint8_t> bytes(const char* what) {
    const uint64_t n = u(8, what);
    need(n, what);
    std::vector<uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  size_t left() const { return (size_t)(end_ - p_); }

 private:
  void need(uint64_t n, const char* what) {
    if (n > left()) bad(std::string(what) + ": truncated");
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace

std::string partition_key_string(const std::vector<std::string>& key,
                                 const std::vector<uint8_t>& key_null) {
  std::string s;
  for (size_t i = 0; i < key.size(); ++i) {
    const bool null = i < key_null.size() && key_null[i];
    s.push_back(null ? '\1' : '\0');
    if (null) continue;
    const uint32_t n = (uint32_t)key[i].size();
    for (int b = 0; b < 4; ++b) s.push_back((char)(n >> (8 * b)));
    s += key[i];
  }
  return s;
}

int PartitionedModel::find(const std::vector<std::string>& key,
                           const std::vector<uint8_t>& key_null) const {
  auto it = index.find(partition_key_string(key, key_null));
  return it == index.end() ? -1 : it->second;
}

bool is_partitioned_bytes(const uint8_t* data, size_t len) {
  return len >= 8 && std::memcmp(data, kPartMagic, 8) == 0;
}

std::vector<uint8_t> serialize_partitioned(const PartitionedModel& pm) {
  const size_t nc = pm.column_names.size();
  if (nc == 0 || nc > kMaxPartitionColumns || pm.column_types.size() != nc)
    throw std::invalid_argument("partitioned model: bad key column count");
  if (pm.groups.empty() || pm.groups.size() > kMaxPartitionGroups)
    throw std::invalid_argument("partitioned model: bad group count");
  if ((pm.fallback == PartitionFallback::kGlobal) != !pm.global_bytes.empty())
    throw std::invalid_argument("partitioned model: a global model goes with fallback global only");
  std::vector<uint8_t> p;
  put_u(&p, nc, 4);
  for (size_t c = 0; c < nc; ++c) {
    put_str(&p, pm.column_names[c]);
    put_str(&p, pm.column_types[c]);
  }
  put_u(&p, (uint64_t)pm.fallback, 1);
  put_u(&p, pm.groups.size(), 4);
  for (const PartitionGroup& g : pm.groups) {
    if (g.key.size() != nc || g.key_null.size() != nc)
      throw std::invalid_argument("partitioned model: key of the wrong width");
    for (size_t c = 0; c < nc; ++c) {
      put_u(&p, g.key_null[c] ? 1 : 0, 1);
      put_str(&p, g.key_null[c] ? std::string() : g.key[c]);
    }
    put_u(&p, g.rows, 8);
    put_str(&p, g.metric_name);
    uint64_t bits;
    std::memcpy(&bits, &g.metric, sizeof bits);
    put_u(&p, bits, 8);
    put_bytes(&p, g.bytes);
  }
  put_bytes(&p, pm.global_bytes);
  std::vector<uint8_t> out(kPartMagic, kPartMagic + 8);
  put_u(&out, kPartVersion, 4);
  put_u(&out, p.size(), 8);
  out.insert(out.end(), p.begin(), p.end());
  put_u(&out, fnv1a(out.data(), out.size()), 8);
  return out;
}

namespace {

// One sub-model's bytes decoded (validated); never a nested container.
std::shared_ptr<const Model> decode_sub_model(const std::vector<uint8_t>& b, const std::string& what,
                                              MemoryBudget* budget) {
  if (is_partitioned_bytes(b.data(), b.size())) bad(what + " is itself a partitioned model");
  try {
    return std::make_shared<const Model>(deserialize_model(b.data(), b.size(), budget));
  } catch (const CorruptModel& e) {
    bad(what + ": " + e.what());
  }
}

void read_group(PartReader& r, size_t nc, PartitionGroup* g, size_t gi) {
  const std::string what = "group " + std::to_string(gi + 1);
  g->key.resize(nc);
  g->key_null.resize(nc);
  for (size_t c = 0; c < nc; ++c) {
    const uint64_t null = r.u(1, "key null flag");
    if (null > 1) bad(what + ": key null flag " + std::to_string(null) + " is not 0 or 1");
    g->key_null[c] = (uint8_t)null;
    g->key[c] = r.str("key value");
    if (null && !g->key[c].empty()) bad(what + ": a NULL key value with text");
  }
  g->rows = r.u(8, "row count");
  if (g->rows == 0) bad(what + " has no rows");
  g->metric_name = r.str("metric name");
  g->metric = r.f64("metric");
  if (std::isinf(g->metric)) bad(what + ": metric is infinite");
  g->bytes = r.bytes("sub-model");
}

}  // namespace

PartitionedModel deserialize_partitioned(const uint8_t* data, size_t len, MemoryBudget* budget) {
  if (len < 28) bad("data too short (" + std::to_string(len) + " bytes)");
  if (!is_partitioned_bytes(data, len)) bad("bad magic");
  const uint64_t version = get_u(data + 8, 4);
  if (version != kPartVersion) bad("unsupported version " + std::to_string(version));
  if (get_u(data + 12, 8) != len - 28) bad("length field does not match the data");
  if (get_u(data + len - 8, 8) != fnv1a(data, len - 8)) bad("checksum mismatch");
  PartReader r(data + 20, len - 28);
  PartitionedModel pm;
  const uint64_t nc = r.u(4, "key columns");
  if (nc == 0 || nc > kMaxPartitionColumns)
    bad(std::to_string(nc) + " key columns (1 to " + std::to_string(kMaxPartitionColumns) + ")");
  for (uint64_t c = 0; c < nc; ++c) {
    pm.column_names.push_back(r.str("key column name"));
    pm.column_types.push_back(r.str("key column type"));
    if (pm.column_names.back().empty()) bad("empty key column name");
    for (uint64_t d = 0; d < c; ++d)
      if (pm.column_names[d] == pm.column_names.back()) bad("key column \"" + pm.column_names.back() + "\" twice");
  }
  const uint64_t fb = r.u(1, "fallback");
  if (fb > (uint64_t)PartitionFallback::kGlobal) bad("unknown fallback " + std::to_string(fb));
  pm.fallback = (PartitionFallback)fb;
  const uint64_t ng = r.u(4, "groups");
  if (ng == 0 || ng > kMaxPartitionGroups)
    bad(std::to_string(ng) + " groups (1 to " + std::to_string(kMaxPartitionGroups) + ")");
  // Each group takes at least 1 + 4 bytes per key column and 28 more.
  if (ng * (nc * 5 + 28) > r.left()) bad(std::to_string(ng) + " groups: truncated");
  pm.groups.resize((size_t)ng);
  for (size_t g = 0; g < ng; ++g) {
    read_group(r, (size_t)nc, &pm.groups[g], g);
    const std::string k = partition_key_string(pm.groups[g].key, pm.groups[g].key_null);
    if (!pm.index.emplace(k, (int)g).second) bad("group " + std::to_string(g + 1) + " repeats a key");
  }
  pm.global_bytes = r.bytes("global model");
  if (r.left() != 0) bad(std::to_string(r.left()) + " bytes after the global model");
  if ((pm.fallback == PartitionFallback::kGlobal) != !pm.global_bytes.empty())
    bad(pm.fallback == PartitionFallback::kGlobal ? "fallback global without a global model"
                                                  : "a global model without fallback global");
  for (size_t g = 0; g < pm.groups.size(); ++g)
    pm.models.push_back(decode_sub_model(pm.groups[g].bytes, "group " + std::to_string(g + 1), budget));
  if (!pm.global_bytes.empty()) pm.global = decode_sub_model(pm.global_bytes, "global model", budget);
  return pm;
}

void reseal_partitioned_bytes(uint8_t* data, size_t len) {
  if (len < 28) return;
  std::vector<uint8_t> f;
  put_u(&f, len - 28, 8);
  std::memcpy(data + 12, f.data(), 8);
  f.clear();
  put_u(&f, fnv1a(data, len - 8), 8);
  std::memcpy(data + len - 8, f.data(), 8);
}

}  // namespace gbdt
