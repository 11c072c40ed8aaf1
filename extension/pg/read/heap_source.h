// The heap passes of read/relation_reader.h (TablePasses) inside: the scan
// plan, the pass state, and the per-row conversions that the row-by-row
// passes (heap_source.cpp) and the raw pass (raw_pass.cpp) share.  Only
// files of read/ include it.
#pragma once

#include <cmath>

#include "pg_includes.h"

#include "convert.h"
#include "read/category_dict.h"
#include "read/relation_reader.h"

extern "C" {
#include "access/tableam.h"
}

namespace gbdt_pg {

// ---- direct heap scan (plain tables) ----
// For a plain table without row-level security that the user may SELECT
// as a whole, reading the heap directly gives the same rows in the same
// order as the SPI query (no synchronized scan start, so the order is always
// the physical one) without the executor's per-column projection, which
// dominates on wide tables.  Pass-through (text) columns get the same text
// as the query's (col)::text, so only types whose cast to text is the I/O
// conversion (or text itself) qualify; anything else takes the SPI path.
struct FastScan {
  AttrNumber* attnums;  // per requested column
  FmgrInfo* outfns;     // per requested column (pass-through columns)
  bool* is_text;        // pass-through column already of type text
  AttrNumber maxatt;
  // Every column a plain number (float8, float4, int2, int4, int8, bool):
  // converted by convert_plain_row without any PostgreSQL call.
  bool plain;
};

struct TablePasses {
  const ReaderColumn* cols;
  int ncols;
  FastScan fs;
  Relation r;
  TupleTableSlot* slot;  // the table's tuples
  TupleTableSlot* out;   // virtual slot handed to the row function
  float* vals;
  bool* nulls;
  MemoryContext row_cxt;
};

// The value of a plain-number column (plain_kind) as float, as
// (float)datum_to_double.
inline float plain_value(Datum d, ValKind k, double* v) {
  switch (k) {
    case ValKind::kFloat8: *v = DatumGetFloat8(d); break;
    case ValKind::kFloat4: *v = (double)DatumGetFloat4(d); break;
    case ValKind::kInt2: *v = (double)DatumGetInt16(d); break;
    case ValKind::kInt4: *v = (double)DatumGetInt32(d); break;
    case ValKind::kInt8: *v = (double)DatumGetInt64(d); break;
    default: *v = DatumGetBool(d) ? 1.0 : 0.0; break;
  }
  return (float)*v;
}

// convert_row for tables whose columns are all plain numbers: no memory
// context switch, no call per value, pointers held in locals.
inline void convert_plain_row(TablePasses* tp, TupleTableSlot* slot) {
  const AttrNumber* attnums = tp->fs.attnums;
  const ReaderColumn* cols = tp->cols;
  const Datum* sv = slot->tts_values;
  const bool* sn = slot->tts_isnull;
  TupleTableSlot* out = tp->out;
  ExecClearTuple(out);
  Datum* ov = out->tts_values;
  bool* on = out->tts_isnull;
  float* vals = tp->vals;
  bool* nulls = tp->nulls;
  const int ncols = tp->ncols;
  for (int i = 0; i < ncols; i++) {
    const int att = attnums[i] - 1;
    const bool isnull = sn[att];
    const Datum d = sv[att];
    nulls[i] = isnull;
    on[i] = isnull;
    ov[i] = d;
    if (isnull) {
      vals[i] = NAN;
      continue;
    }
    double v;
    const float f = plain_value(d, cols[i].kind, &v);
    if (unlikely(std::isinf(f)) && cols[i].reject_infinity)
      report_nonfinite(cols[i].name, cols[i].is_target, d, cols[i].kind, v);
    vals[i] = f;
  }
  ExecStoreVirtualTuple(out);
}

// Converts the requested columns of the (deformed) tuple in slot.
inline void convert_row(TablePasses* tp, TupleTableSlot* slot) {
  const FastScan* fs = &tp->fs;
  TupleTableSlot* out = tp->out;
  ExecClearTuple(out);
  for (int i = 0; i < tp->ncols; i++) {
    const ReaderColumn& c = tp->cols[i];
    const int att = fs->attnums[i] - 1;
    const bool isnull = slot->tts_isnull[att];
    Datum d = slot->tts_values[att];
    tp->nulls[i] = isnull;
    out->tts_isnull[i] = isnull;
    out->tts_values[i] = d;
    if (isnull || c.kind == ValKind::kArray) {  // arrays: expanded by the row function
      tp->vals[i] = NAN;
      continue;
    }
    if (c.kind == ValKind::kNone) {
      tp->vals[i] = NAN;
      if (!fs->is_text[i])
        out->tts_values[i] = PointerGetDatum(cstring_to_text(OutputFunctionCall(&fs->outfns[i], d)));
      continue;
    }
    if (c.kind == ValKind::kCategory) {
      tp->vals[i] = category_code(c.cat, d);
      continue;
    }
    double v = datum_to_double(d, c.kind);
    float f = (float)v;
    if (c.reject_infinity && std::isinf(f)) report_nonfinite(c.name, c.is_target, d, c.kind, v);
    tp->vals[i] = f;
  }
  ExecStoreVirtualTuple(out);
}

// Every row of the table delivered as it is (no skipping): read_relation's
// direct scan.
uint64 pass_all(TablePasses* tp, ReaderRowFn fn, void* arg);

}  // namespace gbdt_pg
