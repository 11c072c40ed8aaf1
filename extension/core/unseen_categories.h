// Continued training with categorical features (init_model): the rows are
// coded with the init model's dictionaries, so a value the init model has
// not seen has the code "unseen" (>= its number of categories n, the code
// scoring gives it).  The init model's cuts have no bin for it: binned as
// it is, it would fall into the last category's bin (bin_of clamps).  The
// init model's trees send it left at every categorical split (its margins
// come from the floats, as gbdt_predict scores it); in the histograms of
// the new rounds it counts as missing, the one bin that stands for no
// category.
#pragma once
#include <string>
#include <vector>

#include "binned_matrix.h"
#include "quantile.h"

namespace gbdt {

// For every categorical feature f (categories[f] non-empty), rows whose
// code x.columns[f][r] is >= categories[f].size() get the missing bin
// (cuts.nbins(f)) in *m.  Returns how many cells were changed.
size_t bin_unseen_categories_as_missing(const std::vector<std::vector<std::string>>& categories,
                                        const Cuts& cuts, const ColumnInput& x, BinnedMatrix* m);

}  // namespace gbdt
