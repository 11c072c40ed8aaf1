// Checks of the categorical part of a training input (engine side; the glue
// turns text/enum/bool columns into codes and fills the category names).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../model/model.h"
#include "quantile.h"

namespace gbdt {

// Per feature its number of categories (0 for numeric features); empty when
// no feature has categories.  Throws InvalidInput when `categories` is
// neither empty nor one entry per feature, when a feature has category
// names but is not FeatureType::kCategorical, or has more than
// kMaxCategories categories.
std::vector<uint32_t> category_counts(const std::vector<std::string>& feature_names,
                                      const std::vector<FeatureType>& feature_types,
                                      const std::vector<std::vector<std::string>>& categories);

// Every value of a categorical column must be NaN (missing) or an integer
// code 0 .. n-1; throws InvalidInput naming the column, the value and its
// row (the first such column, a column per task on up to nthread threads).
void check_category_codes(const ColumnInput& in, const std::vector<std::string>& feature_names,
                          const std::vector<uint32_t>& counts, int nthread = 1);

// Whether cuts were made for these counts (categorical_cuts for each
// categorical feature); throws std::logic_error naming the feature if not.
void check_categorical_cuts(const Cuts& cuts, const std::vector<uint32_t>& counts);

}  // namespace gbdt
