#include "model/model_cache_pg.h"

#include <cstring>
#include <memory>

#include "read/category_dict.h"
#include "guard.h"
#include "module.h"
#include "gbdt/model.h"

namespace gbdt_pg {

namespace {

// One per backend process, for its lifetime (main thread only).
gbdt::ModelCache* g_cache = nullptr;

void free_categories(void* p) { delete_model_categories((ModelCategories*)p); }

}  // namespace

gbdt::ModelCacheEntry* model_cache_acquire(const struct varlena* stored) {
  const uint8_t* key = (const uint8_t*)stored;
  const size_t klen = VARSIZE_ANY(stored);
  if (g_cache != nullptr) {
    gbdt::ModelCacheEntry* e = g_cache->find(key, klen);
    if (e != nullptr) return e;
  }
  // Decompress (when compressed) and decode.
  struct varlena* v = pg_detoast_datum_packed((struct varlena*)stored);
  const uint8_t* data = (const uint8_t*)VARDATA_ANY(v);
  const size_t len = VARSIZE_ANY_EXHDR(v);
  gbdt::ModelCacheEntry* out = nullptr;
  ErrorStyle style{ERRCODE_DATA_CORRUPTED, ERRCODE_DATA_CORRUPTED, "invalid gbdt_model: "};
  run_engine(
      [&] {
        // The decoded model counts against gbdt.max_memory before it is made.
        gbdt::MemoryBudget budget(max_memory_bytes(), "gbdt.max_memory", "decoding a gbdt model");
        std::unique_ptr<gbdt::Model> m(new gbdt::Model(gbdt::deserialize_model(data, len, &budget)));
        if (g_cache == nullptr) g_cache = new gbdt::ModelCache(kModelCacheEntries, kModelCacheBytes);
        ModelCategories* cats = build_model_categories(*m);  // once per decoded model
        // The dictionaries hold about the category names again.
        size_t bytes = gbdt::decoded_model_bytes(*m);
        if (cats != nullptr)
          for (const auto& c : m->categories)
            for (const auto& s : c) bytes += 2 * (sizeof(s) + s.size()) + 32;
        out = g_cache->insert(key, klen, std::move(m), cats, free_categories, bytes);
      },
      style);
  if ((const struct varlena*)v != stored) pfree(v);
  return out;
}

bool model_cache_entry_is(const gbdt::ModelCacheEntry* e, const struct varlena* stored) {
  const size_t klen = VARSIZE_ANY(stored);
  return e != nullptr && e->key.size() == klen &&
         std::memcmp(e->key.data(), (const uint8_t*)stored, klen) == 0;
}

void model_cache_release(gbdt::ModelCacheEntry* e) noexcept {
  if (e != nullptr && g_cache != nullptr) g_cache->unpin(e);
}

std::shared_ptr<const gbdt::PreparedForest> model_cache_forest(gbdt::ModelCacheEntry* e,
                                                               const gbdt::Model& m) {
  if (e == nullptr || e->model.get() != &m) return gbdt::prepare_forest(m);
  if (e->forest == nullptr) {
    e->forest = gbdt::prepare_forest(m);
    if (g_cache != nullptr) g_cache->add_cost(e, gbdt::prepared_forest_bytes(*e->forest));
  }
  return e->forest;
}

size_t model_cache_size() { return g_cache != nullptr ? g_cache->size() : 0; }

}  // namespace gbdt_pg
