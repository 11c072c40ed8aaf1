// The gbdt_model type (varlena holding gbdt::serialize_model bytes) and the
// per-call-site cache of decoded models.
#pragma once
#include <cstdint>

#include "pg_includes.h"

#include "gbdt/model.h"

namespace gbdt_pg {

struct ModelCategories;  // category_dict.h

// Per call site state kept in flinfo->fn_extra (allocated in fn_mcxt).
struct CallCache {
  const gbdt::Model* model;  // decoded model: shared's, pinned until fn_mcxt goes
  const ModelCategories* categories;  // lookups of model's category names (NULL: none)
  uint64_t generation;      // bumped whenever `model` is replaced
  // Identity of the value `model` was decoded from: the backend cache's
  // entry (model_cache_pg.h: keyed on all the stored bytes), and the
  // on-disk TOAST pointer it came from when it came from one (see
  // get_model_arg for why that may identify it).
  gbdt::ModelCacheEntry* shared;
  bool has_toast_key;
  uint32_t toast_key_len;
  uint8_t toast_key[32];
  MemoryContext mcxt;       // fn_mcxt (or the caller's context without flinfo)
  MemoryContextCallback cleanup;
  void* extra;              // for the calling function (allocated in mcxt)
  uint64_t extra_generation;
  void* part_extra;         // a partitioned model's scoring state (score/partition_route.h)
};

// The call site's cache (created on first use).
CallCache* get_call_cache(FunctionCallInfo fcinfo);

// The decoded model of argument `argno` (a gbdt_model), decoded once per
// call site for as long as the argument value stays the same (same bytes,
// all of them).  Output functions must not use it: they write the stored
// bytes themselves.  Corrupt
// bytes are an ERROR (ERRCODE_DATA_CORRUPTED).
// A partitioned model (gbdt::Model::partitions) is an error naming the
// calling function: only the functions that route rows to its sub-models
// take one, through get_model_arg_any.
const gbdt::Model* get_model_arg(FunctionCallInfo fcinfo, int argno);
const gbdt::Model* get_model_arg_any(FunctionCallInfo fcinfo, int argno);

// A new model value (gbdt_train, import, input) as the function returns it:
// compressed with LZ4 when the server has LZ4 and the value is larger than
// a TOAST chunk; otherwise `v` itself.  The value is stored as given (a
// compressed value is not compressed again), so storing a trained model
// costs an LZ4 pass instead of PostgreSQL's default pglz one (a 450 kB
// model of 100 depth-6 trees: about 1 ms instead of 12), and reading it
// back decompresses faster too.  Frees `v` when it returns a new value.
struct varlena* compressed_model_value(struct varlena* v);

}  // namespace gbdt_pg
