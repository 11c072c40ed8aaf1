// Continued training with categorical features (init_model), and the
// validation rows of a training: the rows are coded with the model's
// dictionaries, so a value the model has not seen has the code "unseen"
// (>= its number of categories n, the code scoring gives it).  The cuts
// have no bin for it: binned as it is, it would fall into the last
// category's bin (bin_of clamps).  Scoring treats it as missing
// (category_values.h), and so do the histograms and the validation
// metrics: its bin is the missing bin, the one bin that stands for no
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
