// Checks of a feature column that holds whole numbers (category codes, or
// an integer column's values) against the target, on the rows the column
// checks see (column_checks.h): how many distinct values it has (a column
// with a different value on nearly every row is an identifier: a model
// learns nothing from it that holds on new rows), and whether each value
// goes with one label on every row (the column determines the target: a
// leak, as a copy of the target is).
#pragma once

#include <cstddef>

#include "../common/common.h"

namespace gbdt {

// A column is "unique" when at least kUniqueFraction of its present values
// are distinct, over at least kUniqueMinRows present values (fewer rows
// say nothing about identifiers).
constexpr double kUniqueFraction = 0.99;
constexpr size_t kUniqueMinRows = 100;
// A column "determines" the target when every one of its values has a
// single label value on all its rows and there are at least
// kDetermineRowsPerValue present rows per distinct value (with fewer, a
// value seen on one or two rows has one label by chance) and at least 2
// distinct values (one value is a constant column).
constexpr size_t kDetermineRowsPerValue = 10;

struct ValueCheck {
  bool checked = false;    // false: not a column of whole numbers in a small range, not sorted
  size_t present = 0;      // rows with a value (not NaN)
  size_t distinct = 0;     // distinct present values
  double lo = 0, hi = 0;   // smallest and largest present value
  bool unique = false;     // distinct >= kUniqueFraction * present, present >= kUniqueMinRows
  bool determines = false; // see kDetermineRowsPerValue
};

// x[r], labels[r] for r < n.  Values that are whole numbers spanning at
// most max(4 n, 65536) values are counted in tables (O(n + span)); other
// columns are sorted (O(n log n)) when `allow_sort`, else left unchecked
// (checked = false).  Labels are never NaN (rows without a target are not
// loaded).  Without `want_determines` (the caller asks whether the column
// is unique only), whole numbers spanning too few values to be unique are
// not counted (checked, not unique, distinct 0).  The loops poll `cancel`
// (interruptible.h); a cancel throws gbdt::Cancelled.
ValueCheck check_values(const float* x, const float* labels, size_t n, bool allow_sort,
                        bool want_determines = true, const CancelFn& cancel = CancelFn());

}  // namespace gbdt
