// Parameter dicts pasted from XGBoost or LightGBM: the nearest known name
// for a misspelt key, and the rules that tie several of their keys together
// (LightGBM's num_leaves grows leaf-wise, bagging_freq, is_unbalance).
#pragma once
#include <string>
#include <vector>

#include "params.h"

namespace gbdt {

// The name among `names` closest to `key` (case-insensitive optimal string
// alignment distance: insertions, deletions, substitutions, transpositions
// of neighbours), or "" when none is within a third of the key's length
// (at least 1, at most 3 edits).  Ties go to the first name.
std::string nearest_param_name(const std::string& key, const std::vector<std::string>& names);

// The checks that need every key of the list, after each was applied to *p:
// num_leaves implies grow_policy lossguide (an explicit depthwise is an
// error), max_depth -1 needs lossguide, bagging_freq 0 with a
// bagging_fraction below 1 is an error, is_unbalance with scale_pos_weight
// is an error, and is_unbalance with a non-binary objective given is an
// error.  Throws InvalidInput naming the keys.
void check_dropin_params(const std::vector<ParamKV>& kvs, TrainParams* p);

}  // namespace gbdt
