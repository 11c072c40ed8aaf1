// Which columns of a relation hold a model's features, for the functions
// that read a whole relation with a model's features (gbdt_predict_table,
// gbdt_evaluate, the validation_relation reader of gbdt_train).
//
// A feature is the column of its name; a feature "emb[i]" for which the
// relation has no column of that name is element i of array column emb
// (array_features.h): the array column is read once per row and expanded.
// The array's expected length is its length in the training (given) or the
// largest element index among the model's features; a non-NULL array of
// another length is an error naming the column, the row's length and the
// expected length; a NULL array is missing values.  Categorical features
// read their column through the dictionaries (category_dict.h): a value
// never seen in training is the code "unseen" (n, no split sends it right).
#pragma once

#include <string>
#include <vector>

#include "pg_includes.h"

#include "convert.h"
#include "read/relation_reader.h"

namespace gbdt_pg {

struct ModelCategories;

// The model features a scoring payload (a row, a relation) lacks, gathered
// while its columns are looked up, so that one error names them all.
struct AbsentFeatures {
  StringInfoData names;  // "a", "b": the first kAbsentListed columns, each once
  List* listed;          // those columns (char*)
  int count;             // columns named
  int more;              // absent features beyond those (not named)
};
constexpr int kAbsentListed = 20;
void absent_features_init(AbsentFeatures* a);
// Adds a column (the array column of an element feature "emb[i]"), once
// among the named ones.
void absent_features_add(AbsentFeatures* a, const char* column);
// True when absent features score as missing values (gbdt.missing_features
// = 'missing'); else, when some are absent, raises the error naming them:
// 'row has no column(s) ... required by the model' (relation NULL) or
// 'relation "r" has no column(s) ...'.
bool absent_features_allowed(const AbsentFeatures* a, const char* relation);


struct ScoringLayout {
  int nf;              // features
  int ncols;           // reader columns (the relation's columns read)
  ReaderColumn* cols;  // ncols, in the order of the features' first use
  int* col_of;         // per feature: its reader column
  int* elem;           // per feature: 0, or the 1-based element of an array column
  int* arr_len;        // per reader column: the array's expected length (0: not an array)
  ValKind* elem_kind;  // per reader column: the array's element kind
  int* buf_off;        // per reader column: where its elements go in buf
  float* buf;          // one row's expanded arrays
  // some feature is an array element or absent (col_of[f] = -1, a missing
  // value on every row); else col_of[f] == f
  bool has_arrays;
  bool reject_inf;     // +-Infinity is an error (validation rows), else a value
};

// The layout for the features `names` (UTF-8, as stored in a model) of
// relation rel (allocated in CurrentMemoryContext).  mc: the dictionaries
// of the categorical features (NULL: none).  validation: the name of the
// validation relation (errors are worded for it, infinities rejected), NULL
// when scoring.  array_len (may be NULL): the training's length of an array
// column by its name (0: unknown).  A missing column, or one whose type does
// not fit the feature, is an error naming it.  A scoring payload (not
// validation, not training_rows: the rows a continued training reads as
// the init model's features) lacking features raises one error naming
// every absent column, or, with gbdt.missing_features = 'missing', scores
// them as missing values.
ScoringLayout* scoring_layout(const RelInfo* rel, const std::vector<std::string>& names,
                              const ModelCategories* mc, const char* validation,
                              int (*array_len)(void* arg, const char* column), void* arg,
                              bool training_rows = false);

// The row's features (arrays expanded) into dst[0 .. nf): vals / nulls /
// slot as handed to a ReaderRowFn, the layout's columns starting at index
// `first` of them.
void scoring_row(ScoringLayout* l, TupleTableSlot* slot, const float* vals, const bool* nulls,
                 int first, float* dst);

// The largest element index of array column `base` among the features
// `names` (UTF-8), 0 when none.
int model_array_length(const std::vector<std::string>& names, const char* base_utf8);

}  // namespace gbdt_pg
