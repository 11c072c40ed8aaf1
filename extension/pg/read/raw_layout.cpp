#include "read/raw_layout.h"

namespace gbdt_pg {

bool raw_kind(ValKind k, int16 attlen, gbdt::RawKind* out) {
  switch (k) {
    case ValKind::kFloat8: *out = gbdt::RawKind::kFloat8; return attlen == 8;
    case ValKind::kFloat4: *out = gbdt::RawKind::kFloat4; return attlen == 4;
    case ValKind::kInt2: *out = gbdt::RawKind::kInt2; return attlen == 2;
    case ValKind::kInt4: *out = gbdt::RawKind::kInt4; return attlen == 4;
    case ValKind::kInt8: *out = gbdt::RawKind::kInt8; return attlen == 8;
    case ValKind::kBool: *out = gbdt::RawKind::kBool; return attlen == 1;
    default: return false;
  }
}

bool plan_raw_layout(TupleDesc desc, const AttrNumber* atts, const ValKind* kinds, int n,
                     int min_natts, RawLayout* out) {
  if (min_natts > desc->natts) return false;
  int natts = min_natts;
  for (int c = 0; c < n; c++) {
    if (atts[c] < 1 || atts[c] > desc->natts) return false;
    natts = Max(natts, (int)atts[c]);
  }
  if (n < 1) return false;
  out->ncols = n;
  out->natts = natts;
  out->att_len = (int16_t*)palloc(sizeof(int16_t) * natts);
  out->att_align = (uint8_t*)palloc(sizeof(uint8_t) * natts);
  out->att_column = (int32_t*)palloc(sizeof(int32_t) * natts);
  out->att_off = (uint32*)palloc(sizeof(uint32) * Max(natts, 1));
  uint32* off = out->att_off;
  uint32 o = 0;
  for (int a = 0; a < natts; a++) {
    Form_pg_attribute att = TupleDescAttr(desc, a);
    if (att->attlen <= 0) return false;  // dropped ones keep their width
    out->att_len[a] = att->attlen;
    out->att_align[a] = align_bytes(att->attalign);
    out->att_column[a] = -1;
    o = att_align_nominal(o, att->attalign);
    off[a] = o;
    o += att->attlen;
  }
  out->end = o;
  out->cols = (gbdt::RawColumn*)palloc(sizeof(gbdt::RawColumn) * n);
  uint32 span = 0;
  for (int c = 0; c < n; c++) {
    const int a = atts[c] - 1;
    if (!raw_kind(kinds[c], out->att_len[a], &out->cols[c].kind)) return false;
    // A column read twice (the target as a feature too) keeps its first index here.
    if (out->att_column[a] >= 0) return false;
    out->att_column[a] = c;
    out->cols[c].offset = off[a];
    span = Max(span, off[a] + (uint32)out->att_len[a]);
  }
  out->span = span;
  out->bitmap_bytes = BITMAPLEN(natts);
  out->data_offset = TYPEALIGN(8, out->bitmap_bytes);
  out->stride = TYPEALIGN(8, out->data_offset + span);
  return true;
}

gbdt::RawRows raw_rows_of(const RawLayout& l, const uint8_t* data, const uint8_t* pending) {
  gbdt::RawRows r;
  r.data = data;
  r.stride = l.stride;
  r.data_offset = l.data_offset;
  r.cols = l.cols;
  r.pending = pending;
  r.natts = l.natts;
  r.att_len = l.att_len;
  r.att_align = l.att_align;
  r.att_feature = l.att_column;
  return r;
}

bool raw_row_double(const RawLayout& l, const uint8_t* row, uint8_t pending, int c, double* v) {
  const int att = [&] {
    for (int a = 0; a < l.natts; a++)
      if (l.att_column[a] == c) return a;
    return -1;
  }();
  const uint8_t* data = row + l.data_offset;
  uint32 off = l.cols[c].offset;
  if (pending == 2) {
    const bits8* bm = row;
    if (att_isnull(att, bm)) return false;
    off = 0;
    for (int a = 0; a < att; a++)
      if (!att_isnull(a, bm)) off = TYPEALIGN(l.att_align[a], off) + l.att_len[a];
    off = TYPEALIGN(l.att_align[att], off);
  }
  const uint8_t* p = data + off;
  switch (l.cols[c].kind) {
    case gbdt::RawKind::kFloat8: memcpy(v, p, 8); break;
    case gbdt::RawKind::kFloat4: { float f; memcpy(&f, p, 4); *v = f; break; }
    case gbdt::RawKind::kInt2: { int16 i; memcpy(&i, p, 2); *v = (double)i; break; }
    case gbdt::RawKind::kInt4: { int32 i; memcpy(&i, p, 4); *v = (double)i; break; }
    case gbdt::RawKind::kInt8: { int64 i; memcpy(&i, p, 8); *v = (double)i; break; }
    case gbdt::RawKind::kBool: *v = *p != 0 ? 1.0 : 0.0; break;
  }
  return true;
}

}  // namespace gbdt_pg
