#include "model_cache.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace gbdt {

ModelCacheEntry::~ModelCacheEntry() {
  if (extra != nullptr && free_extra != nullptr) free_extra(extra);
}

ModelCache::Entry* ModelCache::find(const uint8_t* key, size_t len) noexcept {
  for (auto& e : entries_) {
    if (e->key.size() != len) continue;
    if (len > 0 && std::memcmp(e->key.data(), key, len) != 0) continue;
    e->pins++;
    e->used = ++clock_;
    return e.get();
  }
  return nullptr;
}

ModelCache::Entry* ModelCache::insert(const uint8_t* key, size_t len, std::unique_ptr<Model> model,
                                      void* extra, void (*free_extra)(void*), size_t decoded_bytes) {
  std::unique_ptr<Entry> e;
  try {
    e.reset(new Entry());
    e->extra = extra;  // owned from here on
    e->free_extra = free_extra;
    e->key.assign(key, key + len);
    entries_.reserve(entries_.size() + 1);
  } catch (...) {
    if (e == nullptr && extra != nullptr && free_extra != nullptr) free_extra(extra);
    throw;
  }
  e->model = std::move(model);
  e->cost = len + decoded_bytes;
  e->pins = 1;
  e->used = ++clock_;
  Entry* out = e.get();
  entries_.push_back(std::move(e));  // capacity reserved: no throw
  bytes_ += out->cost;
  evict();
  return out;
}

void ModelCache::unpin(Entry* e) noexcept {
  if (e == nullptr) return;
  if (e->pins > 0) e->pins--;
  evict();
}

void ModelCache::add_cost(Entry* e, size_t bytes) noexcept {
  e->cost += bytes;
  bytes_ += bytes;
  evict();
}

void ModelCache::evict() noexcept {
  while (entries_.size() > max_entries_ || bytes_ > max_bytes_) {
    // The least recently used unpinned entry.
    size_t victim = entries_.size();
    for (size_t i = 0; i < entries_.size(); i++) {
      if (entries_[i]->pins > 0) continue;
      if (victim == entries_.size() || entries_[i]->used < entries_[victim]->used) victim = i;
    }
    if (victim == entries_.size()) return;  // all pinned
    bytes_ -= entries_[victim]->cost;
    entries_.erase(entries_.begin() + (std::ptrdiff_t)victim);
  }
}

void ModelCache::clear() noexcept {
  for (size_t i = entries_.size(); i-- > 0;) {
    if (entries_[i]->pins > 0) continue;
    bytes_ -= entries_[i]->cost;
    entries_.erase(entries_.begin() + (std::ptrdiff_t)i);
  }
}

namespace {
template <class T>
size_t vec_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}
}  // namespace

size_t decoded_model_bytes(const Model& m) {
  size_t b = sizeof(Model);
  for (const Tree& t : m.trees) {
    b += sizeof(Tree) + vec_bytes(t.left) + vec_bytes(t.right) + vec_bytes(t.parent) +
         vec_bytes(t.feature) + vec_bytes(t.split_bin) + vec_bytes(t.threshold) +
         vec_bytes(t.default_left) + vec_bytes(t.value) + vec_bytes(t.gain) + vec_bytes(t.cover) +
         vec_bytes(t.split_type) + vec_bytes(t.cat_offset) + vec_bytes(t.cat_bits);
  }
  b += vec_bytes(m.cuts.ptr) + vec_bytes(m.cuts.values) + vec_bytes(m.cuts.min_values);
  for (const auto& s : m.feature_names) b += sizeof(s) + s.capacity();
  for (const auto& s : m.class_names) b += sizeof(s) + s.capacity();
  for (const auto& c : m.categories)
    for (const auto& s : c) b += sizeof(s) + s.capacity();
  b += vec_bytes(m.tree_group) + vec_bytes(m.class_labels) + vec_bytes(m.base_margin);
  if (m.partitions) {  // a partitioned model: its container and sub-models
    const PartitionedModel& pm = *m.partitions;
    for (size_t g = 0; g < pm.groups.size(); ++g)
      b += vec_bytes(pm.groups[g].bytes) + decoded_model_bytes(*pm.models[g]);
    if (pm.global) b += vec_bytes(pm.global_bytes) + decoded_model_bytes(*pm.global);
  }
  return b;
}

}  // namespace gbdt
