// Categorical feature columns: the dictionaries value -> category code.
//
// Training: text, varchar, char(n), enum and boolean columns are
// categorical by default, integer columns when named in the
// categorical_features parameter.  A column's dictionary is built while
// the relation is read: every value first gets a provisional code (order
// of appearance); once the rows with a target are counted, the final codes
// order the values by descending frequency, ties by value (UTF-8 byte
// order).  The direct heap scan counts in its first pass, so the later
// passes (cut sample, binning) read final codes; the SPI path reads once
// and remaps its float columns.
//
// Scoring: the model's category names (Model::categories) are looked up
// in a hash map built once per decoded model (model_type.cpp's cache).  A
// value the model has not seen gets code n (the number of categories),
// which scoring treats as missing like NULL (NaN): category_values.h.
//
// Values are compared as their text (boolean: "false"/"true"; integers:
// decimal; char(n) without trailing spaces, as (col)::text; enum: label)
// in UTF-8, whatever the database encoding.
#pragma once

#include <string>
#include <vector>

#include "pg_includes.h"

#include "convert.h"

#include "gbdt/model.h"
#include "read/relation_reader.h"

namespace gbdt_pg {

enum class CatSource : uint8_t { kText, kBpchar, kEnum, kBool, kInt2, kInt4, kInt8 };

// How a column of type typid (domains resolved) becomes category text;
// false for types that cannot be categorical.
bool category_source_for(Oid typid, CatSource* out);
// Types that are categorical without being declared (text, varchar,
// char(n), enum, boolean).
bool is_default_categorical_type(Oid typid);

struct CategoryDict;    // one feature's dictionary (C++, opaque)
struct ModelCategories; // the scoring dictionaries of one model (C++, opaque)

struct CategoryColumn {
  CatSource src;
  Oid typid;          // base type of the column
  FmgrInfo out;       // enum: output function
  CategoryDict* dict;
  bool building;      // training, before finalize: new values get new codes
  const char* colname;
  int limit;          // training: max_categories
  size_t cap;         // training: provisional values at most (then an error)
  bool convert;       // the database encoding is not UTF-8: values are converted
};

// The category code of a non-NULL value, as a float.
float category_code(CategoryColumn* c, Datum d);

// category_code in two steps, for a reader that hands the lookups to
// another thread (relation_reader.cpp's batched pass):
//
// The value's category text in UTF-8, on this thread (detoasting, enum
// output and encoding conversion may allocate in CurrentMemoryContext):
// *p points into the value, into buf or into new memory.
void category_text(const CategoryColumn* c, Datum d, char (&buf)[32], const char** p, size_t* len);
// category_text without a call in the common case: an uncompressed text
// or varchar value stored inline, in a UTF-8 database; false otherwise.
inline bool category_text_inline(const CategoryColumn* c, Datum d, const char** p, size_t* len) {
  if (c->src != CatSource::kText || c->convert) return false;
  return inline_varlena(DatumGetPointer(d), p, len);
}
// Its code on any thread, without any PostgreSQL call (may throw
// std::bad_alloc): a new value is added while the dictionary is being
// built; -1 when the value cannot be coded there (a new value past the
// column's cap, or one longer than gbdt::kMaxStringBytes), which
// category_code_text reports.  p may be null when len > kMaxStringBytes.
// Only one thread at a time may look up a column.
int32_t category_lookup(CategoryColumn* c, const char* p, size_t len);
// category_lookup on this thread, with the errors for what it refuses.
float category_code_text(CategoryColumn* c, const char* p, size_t len);

// Whether a column of type typid reads as c expects (the direct scan's check).
bool category_type_matches(const CategoryColumn* c, Oid typid);

// ---- training ----
struct TrainCategories;

// Dictionaries for the features of kind kCategory among cols[first ..
// first + nf), set as their ReaderColumn::cat.  Owned by cxt (freed when it
// is reset or deleted).  NULL when no feature is categorical.  limit: the
// most distinct values a column may have (max_categories).
TrainCategories* train_categories_create(MemoryContext cxt, const RelInfo* rel,
                                         ReaderColumn* cols, int first, int nf, int limit);
// Counts one row with a target (vals: the feature values, provisional codes).
void train_categories_count_row(TrainCategories* tc, const float* vals);
// Counts float columns (provisional codes) of n rows with a target, a
// column per task on up to nthread threads.
void train_categories_count_columns(TrainCategories* tc, float* const* cols, size_t n, int nthread);
// Final codes from the counts: errors for a column with more distinct
// values than the limit (count and limit in the message) or without any.
// cols (may be NULL): float columns of n rows holding provisional codes,
// rewritten to final ones (a column per task on up to nthread threads).
// After this, the readers produce final codes.
void train_categories_finalize(TrainCategories* tc, float* const* cols, size_t n, int nthread = 1);
// The category names per feature (empty for numeric ones) for
// gbdt::BinnedInput::categories.  Engine code: call inside run_engine.
void train_categories_names(const TrainCategories* tc,
                            std::vector<std::vector<std::string>>* out);

// ---- scoring ----
// Engine code (may throw bad_alloc): call inside run_engine.  NULL when the
// model has no categorical feature.  The model must outlive the result.
ModelCategories* build_model_categories(const gbdt::Model& m);
void delete_model_categories(ModelCategories* mc) noexcept;
// the same from per-feature category names (a training's, for its
// validation_relation); the names must outlive the result.
ModelCategories* build_categories(const std::vector<std::vector<std::string>>& categories);

// The reader column of model feature f read from a column of type typid
// named colname (allocated in CurrentMemoryContext).  Errors when the
// column's kind and the model's feature type do not agree (a text column
// for a numeric feature, a float column for a categorical one), naming the
// column.  Returns the ValKind to read it as; *cat is set for categorical
// features.
ValKind scoring_column_kind(const gbdt::Model* m, const ModelCategories* mc, int f, Oid typid,
                            const char* colname, CategoryColumn** cat);

}  // namespace gbdt_pg

namespace gbdt_pg {

// ---- training feature columns ----
// The columns named in the categorical_features parameter and the
// max_categories limit (palloc'd).
struct CategoricalDecl {
  int n;
  char** names;
  int limit;
};

// From the checked parameters.  Engine side of the boundary: call inside
// run_engine (allocates with the *_nothrow helpers).
CategoricalDecl* categorical_decl_from_params(const gbdt::TrainParams& p);

// How gbdt_train reads feature column a: kCategory for text, varchar,
// char, enum and boolean columns and for columns named in decl, else
// kind_for_type (kNone: unsupported type).
ValKind training_feature_kind(Form_pg_attribute a, const CategoricalDecl* decl);

// Errors for a name in decl that is not a column of rel, is the target, is
// not among the features, or is not of a type that can be categorical
// (a float or numeric column, for instance), naming it.
void check_categorical_decl(const RelInfo* rel, const char* target, int nfeatures,
                            const char* const* features, const CategoricalDecl* decl);

}  // namespace gbdt_pg
