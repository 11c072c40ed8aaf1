// gbdt engine, public API: the load.  The engine owns the binning of
// training rows; whoever holds the rows (the PostgreSQL glue: a heap scan,
// an SPI query) implements RowBatchSource and calls load_binned, which
// chooses between one pass (floats held, then binned) and a sample pass
// plus a binning pass (only the cut sample held as floats).
//
// This header declares the interface only: it includes no engine-internal
// header, and names no PostgreSQL type.  BinnedInput, the result, is
// defined in gbdt/train.h (the trainer's input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gbdt {

struct BinnedInput;  // gbdt/train.h

// What a column besides the target and the features is for.  Role columns
// are data: the loader carries each one listed in LoadOptions::roles from
// the batches into the BinnedInput field of its role, with no code per role
// in between.
enum class Role : uint8_t {
  kWeight,      // row weights -> BinnedInput::weights
  kQueryGroup,  // ranking's dense query-group codes -> BinnedInput::query_group
  kLabelUpper,  // survival:aft's label upper bounds -> BinnedInput::labels_upper
};

// How a role column's values travel in a RowBatch.
enum class RoleKind : uint8_t {
  kFloat,  // n_rows floats
  kCode,   // n_rows uint32_t codes
};

struct RoleColumn {
  Role role;
  std::string name;  // the column's name, for messages
  RoleKind kind;
};

// The kind a role's values must have (kWeight and kLabelUpper: kFloat,
// kQueryGroup: kCode).
RoleKind role_kind(Role role);

// Consecutive rows of a pass, each row with a target (a source leaves rows
// without one out).  The pointers stay valid until the next call of the
// source's next() or reset().
struct RowBatch {
  size_t n_rows = 0;
  std::vector<const float*> columns;  // per feature: n_rows floats, NaN = missing
  const float* labels = nullptr;      // n_rows
  // Per entry of LoadOptions::roles, in that order: n_rows floats (kFloat)
  // or n_rows uint32_t (kCode).
  std::vector<const void*> roles;
};

// Rows in passes.  Every pass must deliver the same rows in the same order
// (load_binned throws SourceChanged when a pass finds a different count).
class RowBatchSource {
 public:
  virtual ~RowBatchSource() = default;
  // Rows expected (a planner estimate; < 0 or 0 when unknown).  Chooses one
  // pass or several; never trusted as a count.
  virtual double estimated_rows() const = 0;
  // Starts a pass (the first one too).
  virtual void reset() = 0;
  // The pass's next rows into *out; false when the pass is over.  An empty
  // batch (n_rows 0) that returns true is allowed.
  virtual bool next(RowBatch* out) = 0;
  // Whether reset() may be called again after a pass (a table: yes; the
  // result of a query read once: no).
  virtual bool can_rescan() const = 0;
};

// A later pass delivered another number of rows than the first.
class SourceChanged : public std::runtime_error {
 public:
  SourceChanged() : std::runtime_error("the rows changed between two passes") {}
};

struct LoadOptions {
  int n_features = 0;
  int max_bin = 256;
  size_t sample_rows = 0;  // rows of the cut sample (0 = the engine's bound for n_features)
  int nthread = 1;
  // Per feature: its number of categories when categorical (codes 0 .. n-1
  // as floats; categorical cuts instead of sketched ones), 0 otherwise.
  // Empty: no categorical feature.
  std::vector<uint32_t> category_counts;
  std::vector<RoleColumn> roles;
  // A source that can rescan is read in one pass (floats held, then
  // binned) when one_pass is set and its estimate puts it within half the
  // cut sample, or its floats within one_pass_floats; if it turns out
  // larger (more rows than the cut sample and than twice the estimate, or
  // more floats than the bound), the rows are dropped and the passes run.
  // A source that cannot rescan is always read in one pass.
  bool one_pass = true;
  double one_pass_floats = 16777216.0;  // 64 MiB of floats, the cut sample's own bound
  std::function<bool()> cancel;         // polled on the calling thread (null: never)
};

// How the load went.
struct LoadStats {
  uint64_t rows = 0;         // rows binned
  int passes = 0;            // passes over the source
  size_t sample_rows = 0;    // rows the cuts were computed from
  double seconds_bin = 0;    // of the load's time, binning (the rest is reading)
};

// Rows of the cut sample for n features when sample_rows is 0: every row up
// to this count, else an evenly spaced sample of this many.
size_t default_cut_sample_rows(int n_features);

// Reads src and bins its rows into *out (cuts, matrix, labels and the role
// columns; names, types and categories are the caller's to set).  Passes:
// one (every row held as floats, then binned as the in-memory trainer bins
// them), or counting + cut sample (+ a binning pass when the sample is not
// every row: each row binned as it arrives, the sample's floats freed
// before the matrix is allocated).  Either way the cuts and bins equal
// those the in-memory trainer computes from the same rows in the same
// order, and the cuts' value ranges are those of every row.  Throws
// SourceChanged, Cancelled, InvalidInput (no rows), and whatever the
// source throws.
void load_binned(RowBatchSource& src, const LoadOptions& o, BinnedInput* out,
                 LoadStats* stats = nullptr);

}  // namespace gbdt
