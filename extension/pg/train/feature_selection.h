// Which columns gbdt_train's default feature list (features => NULL) takes,
// and the reasons for those it leaves out, for the training NOTICE.
#pragma once

#include "pg_includes.h"

#include "read/relation_reader.h"
#include "train/train_load.h"
#include "gbdt/load_internals.h"

namespace gbdt_pg {

// Whether column `a` of rel is a generated key: an identity column or one
// whose default draws from a sequence it owns (serial/bigserial).  Such
// columns number rows; they are left out of the default feature list.
// Returns "identity column", "serial key" or null.
// A column of a view that is the column of a table (or of a view over
// one, recursively) is that column's kind: a view over a table passes its
// serial key through.
const char* generated_key_kind(const RelInfo* rel, Form_pg_attribute a);

// Whether a column name reads as a key: "id", a name ending in "_id" or
// "Id" (customer_id, customerId), any case for the first two.
bool identifier_like_name(const char* name);

// Per feature of fs (x_* indexes): whether the load runs the value checks
// (value_checks.h) on it: categorical features and integer columns
// (smallint, integer, bigint; not array elements); whether they may sort
// it (categorical codes, and integers with a key's name: other wide
// integer columns are measurements and stay unchecked); whether it is an
// integer column.
struct FeatureValueKinds {
  bool* check;
  bool* sortable;
  bool* integer;
};
FeatureValueKinds feature_value_kinds(const FeatureSet* fs);

// Why feature f is an identifier, for the NOTICE or a WARNING, or null:
// unique per row (value_checks.h) and categorical, or an integer column
// named as a key (identifier_like_name), or an integer column numbering
// its rows (a span of at most 2 values per row).  `all_rows`: the checks
// saw every row (else "sampled" is said).
const char* identifier_reason(const FeatureSet* fs, const FeatureValueKinds& vk, int f,
                              const gbdt::ValueCheck& v, bool all_rows);

// A growing "name (reason), name (reason)" list for the NOTICE.
struct ColumnList {
  StringInfoData text;
  int n = 0;
};
void column_list_init(ColumnList* l);
// Appends `name` (and " (reason)" when reason is not null); after `max`
// entries only counts them ("..." and the count are added by column_list_text).
void column_list_add(ColumnList* l, const char* name, const char* reason, int max = 30);
const char* column_list_text(const ColumnList* l, int max = 30);

// The training's WARNINGs about its features (loaded's checks, nf
// features of fs): columns that copy or nearly equal the target
// (column_checks.h), categorical columns that determine it and
// identifiers it keeps (value_checks.h), each naming the columns.
void warn_feature_checks(const FeatureSet* fs, const LoadResult* loaded, const char* target);

// Parameter "exclude": columns left out of the default feature list
// (features => NULL).  The value is a JSON array of column names, or one
// name as a JSON string.
struct ExcludeList {
  int n = 0;
  const char** names = nullptr;
};
// Parses the parameter's text (as the params reader passes it: the JSON
// text of an array, or the string itself when is_string).  An element that
// is not a string is an error naming the parameter.
ExcludeList parse_exclude_param(const char* value, bool is_string);
// Finds "exclude" among the n params (parallel arrays keys/values/is_string),
// removes it (the others keep their order; *n drops by one) and parses it;
// an empty list when it is not there.
ExcludeList take_exclude_param(char** keys, char** values, bool* is_string, int* n);
// Takes ex's columns out of fs (before expand_features) and names them in
// left_out ("excluded").  Errors: a name that is no column of rel (naming
// it); exclude together with an explicit features list or an init_model
// (the caller chose the features: leave the column out of that list); no
// feature left.
void apply_exclude(const RelInfo* rel, const ExcludeList& ex, bool features_given,
                   bool init_model, FeatureSet* fs, ColumnList* left_out);

}  // namespace gbdt_pg
