// Shared pieces of the scoring functions (row, batch, evaluation).
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"
#include "model/model_type.h"
#include "read/relation_reader.h"

namespace gbdt_pg {

// Reader columns for the model's features, looked up by name in rel:
// fills cols[0 .. n_features).  A missing column or one of an unsupported
// type is an error naming it.  Infinity is accepted (scored as a value).
// Categorical features (mc: the call cache's lookups, NULL when the model
// has none) read text/enum/bool/integer columns as category codes; a column
// whose kind does not fit the model's feature is an error naming it.
struct ModelCategories;
void model_feature_columns(const RelInfo* rel, const gbdt::Model* m, const ModelCategories* mc,
                           ReaderColumn* cols);

// The scalar answer (gbdt_predict semantics) from one row of predict_batch
// output (K values, already transformed): value / P(class 1) / class label
// of the most probable class.
double scalar_from_output(const gbdt::Model* m, const double* o);

// Rows per predict_batch call for n features.
size_t batch_rows(int n_features);

// Rows per batch of gbdt_predict_table, which keeps two batches (one being
// read, one being scored): n_features floats plus raw_stride bytes of raw
// tuple data plus K doubles of output per row, about 1 MB per batch,
// between 1024 and 16384 rows, but never more than budget_rows(K, ...).
size_t predict_table_batch_rows(int n_features, size_t raw_stride, int K);

// The most rows a scoring batch may hold so that its rows x (K outputs +
// other_bytes) stay within the byte budget (work_mem): memory is bounded by
// classes as well as rows.  At least 1.
size_t budget_rows(int K, size_t other_bytes_per_row);

// The features of a whole-row argument as floats (NULL/NaN -> NaN), in a
// buffer of the call site's cache (CallCache::extra); a missing column or
// one of an unsupported type is an error naming it (predict.cpp).
const float* row_features(FunctionCallInfo fcinfo, const gbdt::Model* m, HeapTupleHeader th);

// row_features with the row mapping kept in *slot (built for `generation`
// of model m with its category lookups; rebuilt when either changes):
// for a call site that scores with several models (a partitioned
// model's sub-models).  free_row_features frees a slot's mapping.
const float* row_features_in(CallCache* c, void** slot, uint64_t generation,
                             const ModelCategories* categories, const gbdt::Model* m,
                             HeapTupleHeader th);
void free_row_features(void* slot);

// Threads for predict_batch.
int scoring_threads();

// Objective name, for messages.
const char* model_objective_name(const gbdt::Model* m);

}  // namespace gbdt_pg
