// The categorical parts of XGBoost's JSON model (xgb_json.cpp): per tree
// split_type / categories / categories_nodes / categories_segments /
// categories_sizes (the category codes of a split's set, which go right as
// ours do; XGBoost sends every other code left), and the model's category
// encoder "cats" (XGBoost >= 3.1: the category values of each feature in
// code order, so XGBoost recodes a DataFrame whose categories come in
// another order).
//
// Unseen categories (category_values.h): gbdt treats a value that is not a
// code of the feature's n categories as missing.  XGBoost sends a missing
// value by default_left but a code >= n (or negative) left.  So that XGBoost
// scoring the export does what gbdt does, a categorical node whose missing
// values go right is written mirrored: children swapped, default_left 1,
// and the set's complement within [0, n) (the codes that went left now go
// right); every code outside [0, n) then goes left, to the original right
// child, with the missing values.  A pandas DataFrame coded with the
// model's categories turns an unseen value into NaN, and XGBoost 3.x
// refuses a DataFrame category its encoder lacks, so NaN is how XGBoost
// users pass an unseen value: both ways agree with gbdt_predict.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "../common/interruptible.h"
#include "../common/json_parse.h"
#include "../common/memory_budget.h"
#include "model.h"

namespace gbdt {

// Whether categorical node n of t is written mirrored (see above): its
// missing values go right.
bool xgb_mirrored_node(const Tree& t, int32_t n);

// The category codes an export writes (a mirrored node's complement may be
// far longer than its set: a set of 2 codes on a feature of 65536
// categories writes 65534).  Exporting more than kMaxExportCategoryCodes
// (about 7 bytes of JSON each) is a ResourceError naming the count, before
// any text is made.
constexpr size_t kMaxExportCategoryCodes = (size_t)1 << 26;
void check_xgb_export_size(const Model& m);

// ,"categories":[..],"categories_nodes":[..],"categories_segments":[..],
// "categories_sizes":[..], (with the separators shown; empty arrays for a
// tree without categorical splits).  ncat[f]: feature f's number of
// categories (the complement of a mirrored node's set is taken in [0,
// ncat[f])).
void write_xgb_tree_categories(std::ostringstream& o, const Tree& t,
                               const std::vector<uint32_t>& ncat);

// ,"cats":{...} for a model with categorical features; nothing otherwise,
// and nothing when a category is not ASCII (see write_xgb_cats).
void write_xgb_cats(std::ostringstream& o, const Model& m);

// What an import may use (xgb_json.h): the memory budget charged before
// the model's arrays are allocated (null: unlimited) and the cancel
// callback polled in every loop over the input (may be empty).
struct XgbImportLimits {
  MemoryBudget* budget = nullptr;
  CancelFn cancel;
};

// The category sets of one XGBoost tree: sets[n] (original node ids) holds
// the codes of node n's set; empty for nodes without one.  Throws
// InvalidInput on malformed arrays.  poll: ticked per code read.
std::vector<std::vector<int32_t>> read_xgb_tree_categories(const JsonRef& tree, size_t num_nodes,
                                                           const std::string& at,
                                                           CancelPoller* poll);

// Category names per feature from the model's "cats" encoder (string or
// numeric categories), empty vectors when it has none (or is absent).
std::vector<std::vector<std::string>> read_xgb_cats(const JsonRef& gbtree_model, int d);

// Sets the categorical split arrays of t from sets (by t's node ids; empty
// for numeric splits).  No-op when no node has a set.  Each set is stored
// as the smaller of a bit field and a code list (tree.h), so the arrays
// never take more than 4 bytes per code of the input; they are charged to
// lim.budget before they are allocated.
void set_tree_category_sets(Tree* t, const std::vector<std::vector<int32_t>>& sets,
                            const XgbImportLimits& lim, CancelPoller* poll);

// Finishes the categorical features of an imported model: categorical[f]
// features get feature type kCategorical and names (from `names`, else the
// decimal codes 0 .. max code used + 1, charged to lim.budget first).  With
// names from the encoder, a split category past them is an InvalidInput
// naming the tree, node and feature (no DataFrame value can have that code).
void finish_imported_categories(Model* m, const std::vector<uint8_t>& categorical,
                                std::vector<std::vector<std::string>> names,
                                const XgbImportLimits& lim, CancelPoller* poll);

}  // namespace gbdt
