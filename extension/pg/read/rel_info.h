// The relation a function reads: opened with the caller's privileges
// checked, its row estimate, its columns, and whether its storage may be
// read directly (the heap passes of relation_reader.h) rather than through
// a query.
#pragma once

#include "pg_includes.h"

namespace gbdt_pg {

struct RelInfo {
  Oid relid;
  char* name;        // relation name, for messages
  char* qualname;    // quoted schema-qualified name, for queries
  char relkind;
  double reltuples;  // pg_class.reltuples (< 0 when never vacuumed or analyzed)
  bool has_children; // relhassubclass: inheritance children (or partitions)
  TupleDesc desc;    // copy of the relation's tuple descriptor
};

// Opens relation `relid` (AccessShareLock held until end of transaction),
// checks that the current user may use its schema and SELECT from it
// (PostgreSQL's own "permission denied" errors otherwise) and copies what
// is needed.  An OID naming no relation is ERRCODE_UNDEFINED_TABLE.
RelInfo* open_rel_info(Oid relid);

// Rows of the relation now, for the loaders' choices and capacities.  For a
// table, the planner's estimate (estimate_rel_size: reltuples scaled to its
// current size in pages); for a heap never vacuumed or analyzed (a table
// just loaded), the rows on its first page times its pages instead (one
// page read): the planner's rows per page from the column widths leave out
// alignment padding (an int4 before a float8 pads 4 bytes) and NULL
// bitmaps, and take 32 bytes for any text or array.  Otherwise reltuples;
// < 0 when unknown.  Call after open_rel_info (its lock and privilege
// checks).
double estimated_rows(const RelInfo* rel);

// The live attribute called `name`, or NULL.  hint (optional): where the
// search starts, set past the attribute found, so that looking up columns
// in table order (a model's 500 features) costs one comparison each.
Form_pg_attribute find_column(const RelInfo* rel, const char* name, int* hint = nullptr);

// Error: column "x" of relation "t" does not exist.
GBDT_NORETURN void report_missing_column(const RelInfo* rel, const char* name);

// Whether rel may be read straight from its storage instead of through a
// query, with the same rows as the query: a plain table without
// inheritance children and without row-level security that the current
// user may SELECT as a whole.
bool relation_readable_directly(const RelInfo* rel);

}  // namespace gbdt_pg
