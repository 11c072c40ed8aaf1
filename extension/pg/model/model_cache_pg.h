// The backend's cache of decoded models (gbdt::ModelCache), keyed on the
// model's stored bytes: the varlena as it is stored (fetched from TOAST when
// external, still compressed when compressed), compared in full.  A query
// that scores with a model this backend decoded before (the same stored
// bytes) neither decompresses nor decodes it again.  Bounded: at most
// kModelCacheEntries models and kModelCacheBytes bytes (stored bytes plus
// decoded size) not in use by a call site; models in use are pinned by
// their call site's CallCache (model_type.h) until its memory context goes.
#pragma once
#include "pg_includes.h"

#include <memory>

#include "gbdt/model.h"
#include "gbdt/predict.h"

namespace gbdt_pg {

constexpr size_t kModelCacheEntries = 8;
constexpr size_t kModelCacheBytes = (size_t)64 << 20;

// The entry for stored (not external: detoast_external_attr first), pinned:
// found in the cache or decoded now and added (with its category lookups as
// extra).  Corrupt bytes are an ERROR (ERRCODE_DATA_CORRUPTED); nothing is
// pinned then.
gbdt::ModelCacheEntry* model_cache_acquire(const struct varlena* stored);

// Whether e is the entry of stored's bytes.
bool model_cache_entry_is(const gbdt::ModelCacheEntry* e, const struct varlena* stored);

// Releases a pin of model_cache_acquire (NULL: nothing).
void model_cache_release(gbdt::ModelCacheEntry* e) noexcept;

// The laid-out trees of pinned entry e's model, built on first use and kept
// with the entry (NULL e: built now, not kept).  Engine side: call inside
// run_engine (throws bad_alloc).
std::shared_ptr<const gbdt::PreparedForest> model_cache_forest(gbdt::ModelCacheEntry* e,
                                                               const gbdt::Model& m);

// Entries held (for tests).
size_t model_cache_size();

}  // namespace gbdt_pg
