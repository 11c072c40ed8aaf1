// Streams chosen columns of a relation, read with the caller's privileges
// (SPI, so permissions and row-level security apply), straight into the
// caller's buffers: a custom DestReceiver converts each row's values to
// floats (NULL/NaN -> NaN), checks infinities, and hands the row to a sink.
// No tuplestore of the relation and no text round trip.
#pragma once

#include "pg_includes.h"

#include "convert.h"
#include "read/rel_info.h"

namespace gbdt_pg {

struct CategoryColumn;  // category_dict.h

struct ReaderColumn {
  const char* name;      // column name in the relation
  ValKind kind;          // conversion; kNone = pass the value through as text
  bool reject_infinity;  // +-Infinity (or float4 overflow) is an error
  bool is_target;        // for messages
  CategoryColumn* cat = nullptr;  // kind kCategory: value -> category code
};

// Receives one row.  vals[i]: converted value (NaN for NULL, NaN values and
// pass-through columns); nulls[i]: SQL NULL.  Pass-through columns are read
// from slot->tts_values[i] (type text).  Runs in a short-lived memory
// context: copy what must be kept.
typedef void (*ReaderRowFn)(void* arg, TupleTableSlot* slot, const float* vals,
                            const bool* nulls);

// Runs SELECT <cols> FROM <rel> and feeds every row to fn.  Connects to and
// disconnects from SPI itself; allocations made by fn in contexts that
// outlive the call (not CurrentMemoryContext) survive.  Returns the number
// of rows read.
uint64 read_relation(const RelInfo* rel, const ReaderColumn* cols, int ncols, ReaderRowFn fn,
                     void* arg, bool read_only);

// Several passes over a plain table read directly (the direct heap scan of
// read_relation: no views, no row-level security, whole-table SELECT
// privilege), all under one snapshot, so every pass sees the same rows in
// the same order.  A loader that must not hold the table in memory reads a
// sample in one pass and bins every row in the next.
struct TablePasses;

// NULL when the relation needs the SPI path (then use read_relation).
TablePasses* open_table_passes(const RelInfo* rel, const ReaderColumn* cols, int ncols,
                               bool read_only);

// One pass.  Rows whose first column is NULL or NaN are skipped (counted in
// *skipped, never delivered, not numbered); the others are numbered 0, 1, ...
// in scan order and delivered to fn when their number is in `rows`
// (ascending, nrows entries), or all of them when rows is NULL.  Rows not
// delivered are not deformed (only the first column is read).  Returns the number
// of rows kept (delivered or not).
uint64 table_pass(TablePasses* tp, const uint64* rows, size_t nrows, ReaderRowFn fn, void* arg,
                  uint64* skipped);

// A pass over every row of a heap table in batches, shared by this thread
// and a worker (nthread > 1; else this thread does both, in turn), which
// takes each batch while this thread reads the next.  When the table's
// tuples can be copied raw (every column a plain number, every attribute
// up to the last one read fixed-width: raw_layout.h), this thread copies
// their bytes and the worker decodes them to floats.  When every column is
// a plain number, a numeric, a date or time, or a category other than an
// enum (tuple_walk.h), this thread
// copies whole tuples and the worker walks them, converting what it can
// and leaving the other rows to this thread.  Otherwise this thread
// deforms each tuple and converts its values, copies categorical values as
// text, and the worker looks up their codes (category_lookup; the
// dictionaries are the worker's during the pass).  The worker then hands
// each batch to sink->take.  Unlike table_pass, no row is skipped: the sink
// sees rows whose first column is NULL or NaN too.  An infinity in a
// column that rejects it, and a categorical value the worker cannot code,
// raise convert's and category_code's errors here, in row order with the
// sink's stops.  False (nothing read) for a table that is not a heap, or
// with pass-through or array columns; else *rows is the number of rows
// read (when the sink did not end the pass).
struct RawSink {
  // Any thread, no PostgreSQL call: take rows [from, to) of a decoded
  // batch (x: ncols floats per row in the reader's column order, NULL as
  // NaN); returns the first row not taken (to: all of them).  A C++
  // exception it throws becomes an error on this thread (run_engine).
  size_t (*take)(void* arg, const float* x, size_t ncols, size_t from, size_t to);
  // This thread, for the row take stopped at, or a row this thread
  // converted itself (one the worker could not: a deformed or walked
  // batch's, whatever its first column; vals/nulls as a row function gets
  // them): take it the slow way (skipping it as take would, errors,
  // growing buffers) and return true (take resumes after it), or return
  // false to end the pass.
  bool (*stopped)(void* arg, const float* vals, const bool* nulls);
};
bool table_pass_raw(TablePasses* tp, const RawSink* sink, void* arg, int nthread, uint64* rows);

// Ends the passes (closes the relation, pops the snapshot).
void close_table_passes(TablePasses* tp);

}  // namespace gbdt_pg
