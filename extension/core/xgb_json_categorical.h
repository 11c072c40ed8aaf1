// The categorical parts of XGBoost's JSON model (xgb_json.cpp): per tree
// split_type / categories / categories_nodes / categories_segments /
// categories_sizes (the category codes of a split's set, which go right as
// ours do; XGBoost sends other and unseen codes left, as we do), and the
// model's category encoder "cats" (XGBoost >= 3.1: the category values of
// each feature in code order, so XGBoost recodes a DataFrame whose
// categories come in another order).
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "json_parse.h"
#include "model.h"

namespace gbdt {

// ,"categories":[..],"categories_nodes":[..],"categories_segments":[..],
// "categories_sizes":[..], (with the separators shown; empty arrays for a
// tree without categorical splits).
void write_xgb_tree_categories(std::ostringstream& o, const Tree& t);

// ,"cats":{...} for a model with categorical features; nothing otherwise,
// and nothing when a category is not ASCII (see write_xgb_cats).
void write_xgb_cats(std::ostringstream& o, const Model& m);

// The category sets of one XGBoost tree: sets[n] (original node ids) holds
// the codes of node n's set; empty for nodes without one.  Throws
// InvalidInput on malformed arrays.
std::vector<std::vector<int32_t>> read_xgb_tree_categories(const JsonRef& tree, size_t num_nodes,
                                                           const std::string& at);

// Category names per feature from the model's "cats" encoder (string or
// numeric categories), empty vectors when it has none (or is absent).
std::vector<std::vector<std::string>> read_xgb_cats(const JsonRef& gbtree_model, int d);

// Sets the categorical split arrays of t from sets (by t's node ids; empty
// for numeric splits).  No-op when no node has a set.
void set_tree_category_sets(Tree* t, const std::vector<std::vector<int32_t>>& sets);

// Finishes the categorical features of an imported model: categorical[f]
// features get feature type kCategorical and names (from `names`, else the
// decimal codes 0 .. max code used + 1).
void finish_imported_categories(Model* m, const std::vector<uint8_t>& categorical,
                                std::vector<std::vector<std::string>> names);

}  // namespace gbdt
