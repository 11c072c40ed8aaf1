// Heap tuples copied whole for another thread to convert (the walked
// batches of relation_reader.cpp's raw pass): for tables whose tuples
// cannot be copied as a fixed layout (raw_layout.h) because a text or
// numeric attribute lies before or among the columns read.  The thread
// that takes a batch walks each tuple's attributes itself, as
// heap_deform_tuple does, with PostgreSQL's macros only (no call):
// plain numbers are read in place, inline numerics from their digits
// (numeric_value_to_double), dates, timestamps and intervals converted
// (datetime_to_days), inline text and char(n) categories and boolean and
// integer ones looked up (category_lookup).  Anything else in a row (a compressed or out-of-line
// value, a numeric off that route, an infinity the column refuses, a
// category that cannot be coded there, a tuple written before its table
// gained attributes) leaves the row to the backend, which converts it the
// ordinary way with its errors.
#pragma once

#include "pg_includes.h"

#include "read/relation_reader.h"
#include "gbdt/load_internals.h"

namespace gbdt_pg {

enum class WalkKind : uint8_t {
  kPlain,        // a plain number (RawKind)
  kNumeric,      // a numeric
  kDatetime,     // a date, timestamp or interval
  kText,         // a text, varchar or char(n) category
  kCategoryFixed // a boolean or integer category (its text printed here)
};

struct TupleWalk {
  int ncols;
  int natts;             // attributes 1 .. natts are walked (the last one read)
  int16_t* att_len;      // per attribute: > 0 fixed width, -1 varlena
  uint8_t* att_align;    // per attribute: its alignment in bytes (1, 2, 4 or 8)
  int32_t* att_column;   // per attribute: column read, or -1
  WalkKind* kind;        // per column
  gbdt::RawKind* plain;  // per column of kind kPlain: its storage
  ValKind* vkind;        // per column: its conversion (kDatetime: which)
  bool* byval;           // per column: passed by value (kDatetime, kCategoryFixed)
  CategoryColumn** cat;  // per categorical column: its dictionary
  bool* reject;          // per column: infinity is refused
};

// Plans the walk of columns cols[0 .. n) (attribute atts[i]) of desc;
// false when some column is none of the above (an enum category, any
// category in a database that is not UTF-8), or an attribute up to the
// last one read is a C string (attlen -2), or a column is read twice.
bool plan_tuple_walk(TupleDesc desc, const AttrNumber* atts, const ReaderColumn* cols, int n,
                     TupleWalk* out);

// Converts a copy of a heap tuple (its header and data, len bytes: a
// HeapTupleHeader's t_len) into x and nulls (ncols each; NULL -> NaN),
// reading nothing at or past len.  Any thread; only one thread at a time
// may look up a categorical column.  False when the backend must convert
// the row (see above); x and nulls are then partly written.
bool walk_tuple(const TupleWalk& w, const uint8_t* tup, uint32 len, float* x, bool* nulls);

}  // namespace gbdt_pg
