// Tuples of a heap table copied as raw bytes (gbdt::RawRows, raw_rows.h)
// for another thread to decode: where each wanted column lies in a tuple's
// data, planned once from the tuple descriptor (PostgreSQL's attcacheoff
// rule), and the copy of one tuple.  Possible when every attribute up to the
// last wanted one is fixed-width and every wanted column is a plain number
// (float8, float4, int2, int4, int8, bool).
#pragma once

#include "pg_includes.h"

#include "convert.h"
#include "gbdt/load_internals.h"

extern "C" {
#include "access/htup_details.h"
}

namespace gbdt_pg {

struct RawLayout {
  int ncols;
  int natts;                // attributes 1 .. natts: every wanted column, at least min_natts
  int16_t* att_len;         // per attribute < natts
  uint8_t* att_align;       // per attribute < natts: 1, 2, 4 or 8
  int32_t* att_column;      // per attribute < natts: wanted column index or -1
  uint32* att_off;          // per attribute < natts: its offset in a tuple without NULLs
  uint32 end;               // where attribute natts + 1 starts, before its alignment (no NULLs)
  gbdt::RawColumn* cols;    // per wanted column: offset in a tuple without NULLs, kind
  uint32 span;              // data bytes holding every wanted column (no NULLs)
  uint32 bitmap_bytes;      // null bitmap bytes of attributes < natts
  uint32 data_offset;       // where a row's data starts (after its bitmap copy)
  uint32 stride;            // bytes per copied row
};

// Plans the layout of columns (atts[i], kinds[i]) of desc, describing at
// least the first min_natts attributes (where a caller finds more in the
// tuple: gbdt_predict_table's key); false when the table's tuples cannot be
// copied raw (a variable-width attribute among those described, a kind that
// is not a plain number, a width that does not match the kind, a column
// wanted twice).
bool plan_raw_layout(TupleDesc desc, const AttrNumber* atts, const ValKind* kinds, int n,
                     int min_natts, RawLayout* out);

// An attribute's typalign as a byte count (1, 2, 4 or 8).
inline uint8_t align_bytes(char attalign) {
  return attalign == TYPALIGN_DOUBLE ? 8 : attalign == TYPALIGN_INT ? 4 : attalign == TYPALIGN_SHORT ? 2 : 1;
}

// Whether a column of this kind and width can be copied raw (its RawKind).
bool raw_kind(ValKind k, int16 attlen, gbdt::RawKind* out);

// Copies tuple tup into row (layout.stride bytes) and returns its pending
// code for RawRows: 1 without NULLs, 2 with (the bitmap copied too), or 0
// when the tuple has fewer attributes than layout.natts (a column added
// after it was written: deform it instead; nothing copied).
inline uint8_t copy_raw_tuple(const RawLayout& l, HeapTuple tup, uint8_t* row) {
  HeapTupleHeader th = tup->t_data;
  if (HeapTupleHeaderGetNatts(th) < l.natts) return 0;
  const char* data = (const char*)th + th->t_hoff;
  if (!HeapTupleHasNulls(tup)) {
    memcpy(row + l.data_offset, data, l.span);
    return 1;
  }
  // Values are stored only for non-NULL attributes: the data is no longer
  // than without NULLs, and the decoder walks the bitmap.
  memcpy(row, th->t_bits, l.bitmap_bytes);
  memcpy(row + l.data_offset, data, Min((size_t)(tup->t_len - th->t_hoff), (size_t)l.span));
  return 2;
}

// RawRows over rows copied with layout l.
gbdt::RawRows raw_rows_of(const RawLayout& l, const uint8_t* data, const uint8_t* pending);

// Column c of a copied row (pending 1 or 2) as the double its datum holds
// (false: NULL).
bool raw_row_double(const RawLayout& l, const uint8_t* row, uint8_t pending, int c, double* v);

}  // namespace gbdt_pg
