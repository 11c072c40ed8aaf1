// A small cache of decoded models keyed on the exact bytes they were decoded
// from (the PostgreSQL glue keeps one per backend, see
// extension/pg/model_cache_pg.cpp): a query that scores with a model the
// backend decoded before skips decompressing, checksumming, decoding and
// validating it again.
//
// Identity is all the key bytes (length and content), never a sample or a
// hash of them: a decoded model is a pure function of its bytes, so an entry
// can never go stale.  Entries are pinned while a caller uses them; an
// unpinned entry is evicted (least recently used first) when the cache holds
// more than max_entries entries or max_bytes bytes (key bytes plus the
// caller's estimate of the decoded model's size).  Pinned entries are never
// evicted; one unpinned while the cache is over budget goes at once.
//
// Not thread-safe: one thread (the backend's) uses it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "model.h"
#include "../predictor/predict.h"

namespace gbdt {

struct ModelCacheEntry {
  std::vector<uint8_t> key;
  std::unique_ptr<Model> model;
  std::shared_ptr<const PreparedForest> forest;  // set by the first batch scorer (may stay NULL)
  void* extra = nullptr;               // owned, freed with free_extra (before the model)
  void (*free_extra)(void*) = nullptr; // noexcept
  size_t cost = 0;                     // key bytes + decoded estimate
  int pins = 0;
  uint64_t used = 0;                   // LRU clock
  ~ModelCacheEntry();
};

class ModelCache {
 public:
  using Entry = ModelCacheEntry;

  ModelCache(size_t max_entries, size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {}
  ModelCache(const ModelCache&) = delete;
  ModelCache& operator=(const ModelCache&) = delete;

  // The entry whose key is exactly [key, key + len), pinned; NULL if none.
  Entry* find(const uint8_t* key, size_t len) noexcept;

  // Adds an entry for key (no entry may have that key) owning model and
  // extra, pinned; decoded_bytes estimates the model's memory.  Evicts
  // unpinned entries over the budget.  On bad_alloc nothing is kept and
  // extra is freed (the model is freed with its unique_ptr).
  Entry* insert(const uint8_t* key, size_t len, std::unique_ptr<Model> model, void* extra,
                void (*free_extra)(void*), size_t decoded_bytes);

  // Releases one pin; the entry may be evicted then.
  void unpin(Entry* e) noexcept;

  // The entry holds bytes more (its forest, once laid out).
  void add_cost(Entry* e, size_t bytes) noexcept;

  // Evicts every unpinned entry.
  void clear() noexcept;

  size_t size() const { return entries_.size(); }
  size_t bytes() const { return bytes_; }

 private:
  void evict() noexcept;

  size_t max_entries_, max_bytes_;
  size_t bytes_ = 0;
  uint64_t clock_ = 0;
  std::vector<std::unique_ptr<Entry>> entries_;
};

// Rough memory of a decoded model (its vectors), for ModelCache budgets.
size_t decoded_model_bytes(const Model& m);

}  // namespace gbdt
