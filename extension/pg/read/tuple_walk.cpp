#include "read/tuple_walk.h"

#include <cmath>
#include <cstring>

#include "read/category_dict.h"
#include "read/raw_layout.h"

extern "C" {
#include "access/htup_details.h"
#include "access/tupmacs.h"
}

namespace gbdt_pg {

bool plan_tuple_walk(TupleDesc desc, const AttrNumber* atts, const ReaderColumn* cols, int n,
                     TupleWalk* out) {
  if (n < 1) return false;
  int natts = 0;
  for (int c = 0; c < n; c++) {
    if (atts[c] < 1 || atts[c] > desc->natts) return false;
    natts = Max(natts, (int)atts[c]);
  }
  out->ncols = n;
  out->natts = natts;
  out->att_len = (int16_t*)palloc(sizeof(int16_t) * natts);
  out->att_align = (uint8_t*)palloc(natts);
  out->att_column = (int32_t*)palloc(sizeof(int32_t) * natts);
  for (int a = 0; a < natts; a++) {
    Form_pg_attribute att = TupleDescAttr(desc, a);
    if (att->attlen <= 0 && att->attlen != -1) return false;  // a C string (dropped ones keep theirs)
    out->att_len[a] = att->attlen;
    out->att_align[a] = align_bytes(att->attalign);
    out->att_column[a] = -1;
  }
  out->kind = (WalkKind*)palloc(sizeof(WalkKind) * n);
  out->plain = (gbdt::RawKind*)palloc0(sizeof(gbdt::RawKind) * n);
  out->vkind = (ValKind*)palloc(sizeof(ValKind) * n);
  out->byval = (bool*)palloc0(sizeof(bool) * n);
  out->cat = (CategoryColumn**)palloc0(sizeof(CategoryColumn*) * n);
  out->reject = (bool*)palloc(sizeof(bool) * n);
  for (int c = 0; c < n; c++) {
    const int a = atts[c] - 1;
    if (out->att_column[a] >= 0) return false;  // the target read as a feature too
    out->att_column[a] = c;
    out->reject[c] = cols[c].reject_infinity;
    out->vkind[c] = cols[c].kind;
    const int16 len = out->att_len[a];
    const bool byval = TupleDescAttr(desc, a)->attbyval;
    out->byval[c] = byval;
    const ValKind k = cols[c].kind;
    if (k == ValKind::kNumeric) {
      if (len != -1) return false;
      out->kind[c] = WalkKind::kNumeric;
    } else if (k == ValKind::kDate || k == ValKind::kTimestamp || k == ValKind::kInterval) {
      // date (4 bytes) and timestamp (8) by value, interval (16) by reference
      if (len != (k == ValKind::kDate ? 4 : k == ValKind::kTimestamp ? 8 : 16) ||
          byval != (k != ValKind::kInterval))
        return false;
      out->kind[c] = WalkKind::kDatetime;
    } else if (k == ValKind::kCategory) {
      const CategoryColumn* cat = cols[c].cat;
      if (cat == nullptr || cat->convert) return false;
      switch (cat->src) {
        case CatSource::kText:
        case CatSource::kBpchar:
          if (len != -1) return false;
          out->kind[c] = WalkKind::kText;
          break;
        case CatSource::kBool:
        case CatSource::kInt2:
        case CatSource::kInt4:
        case CatSource::kInt8: {
          const int16 want = cat->src == CatSource::kBool   ? 1
                             : cat->src == CatSource::kInt2 ? 2
                             : cat->src == CatSource::kInt4 ? 4
                                                             : 8;
          if (len != want || !byval) return false;
          out->kind[c] = WalkKind::kCategoryFixed;
          break;
        }
        default:
          return false;  // an enum: its text comes from its output function
      }
      out->cat[c] = cols[c].cat;
    } else {
      if (!raw_kind(cols[c].kind, len, &out->plain[c])) return false;
      out->kind[c] = WalkKind::kPlain;
    }
  }
  return true;
}

namespace {

// off rounded up to a multiple of align (a power of two), as att_align_nominal.
inline uint32 align_up(uint32 off, uint8_t align) { return (off + align - 1) & ~(uint32)(align - 1); }

// The bytes of the varlena at data[off] (1-byte, 1-byte out-of-line or
// 4-byte header), or 0 when its header or its bytes do not lie before
// dlen (or it names an unknown kind of out-of-line value).
inline uint32 varlena_bytes(const char* data, uint32 off, uint32 dlen) {
  const char* v = data + off;
  uint32 size;
  if (VARATT_IS_1B_E(v)) {
    if (dlen - off < VARHDRSZ_EXTERNAL || VARTAG_EXTERNAL(v) != VARTAG_ONDISK) return 0;
    size = VARHDRSZ_EXTERNAL + sizeof(varatt_external);
  } else if (VARATT_IS_1B(v)) {
    size = VARSIZE_1B(v);
    if (size < VARHDRSZ_SHORT) return 0;
  } else {
    if (dlen - off < VARHDRSZ) return 0;
    uint32 h;
    memcpy(&h, v, sizeof h);
    size = VARSIZE_4B(&h);
    if (size < VARHDRSZ) return 0;
  }
  return size <= dlen - off ? size : 0;
}

// Number f into x[c]; false (the backend's) at an infinity column c refuses.
inline bool put_number(const TupleWalk& w, int c, float f, float* x) {
  if (unlikely(std::isinf(f)) && w.reject[c]) return false;
  x[c] = f;
  return true;
}

// The fixed-width value of column c at p (attlen bytes) into x[c]; false
// when the backend must convert it (an infinity the column refuses, a
// category that cannot be coded here).
inline bool fixed_value(const TupleWalk& w, int c, const char* p, int16 attlen, float* x) {
  switch (w.kind[c]) {
    case WalkKind::kPlain:
      return put_number(w, c, gbdt::raw_value((const uint8_t*)p, w.plain[c]), x);
    case WalkKind::kDatetime: {
      const Datum d = w.byval[c] ? fetch_att(p, true, attlen) : PointerGetDatum(p);
      return put_number(w, c, (float)datetime_to_days(d, w.vkind[c]), x);
    }
    case WalkKind::kCategoryFixed: {
      char buf[32];
      const char* s;
      size_t n;
      category_text(w.cat[c], fetch_att(p, true, attlen), buf, &s, &n);  // printed into buf
      const int32_t code = category_lookup(w.cat[c], s, n);
      if (code < 0) return false;
      x[c] = (float)code;
      return true;
    }
    default:
      return false;  // not planned for a fixed-width attribute
  }
}

}  // namespace

bool walk_tuple(const TupleWalk& w, const uint8_t* tup, uint32 len, float* x, bool* nulls) {
  if (len < SizeofHeapTupleHeader) return false;
  HeapTupleHeaderData th;  // the copy's header (t_bits read from the copy)
  memcpy(&th, tup, SizeofHeapTupleHeader);
  if (HeapTupleHeaderGetNatts(&th) < w.natts) return false;  // missing attributes: the backend's
  const uint32 hoff = th.t_hoff;
  const bool hasnulls = (th.t_infomask & HEAP_HASNULL) != 0;
  if (hoff < SizeofHeapTupleHeader || hoff > len) return false;
  if (hasnulls && SizeofHeapTupleHeader + BITMAPLEN(w.natts) > hoff) return false;
  const bits8* bp = tup + offsetof(HeapTupleHeaderData, t_bits);
  const char* data = (const char*)tup + hoff;
  const uint32 dlen = len - hoff;
  uint32 off = 0;
  for (int a = 0; a < w.natts; a++) {
    const int c = w.att_column[a];
    if (hasnulls && att_isnull(a, bp)) {
      if (c >= 0) {
        x[c] = NAN;
        nulls[c] = true;
      }
      continue;
    }
    const int16 attlen = w.att_len[a];
    if (attlen > 0) {
      off = align_up(off, w.att_align[a]);
      if (off > dlen || (uint32)attlen > dlen - off) return false;
      if (c >= 0 && !fixed_value(w, c, data + off, attlen, x)) return false;
      if (c >= 0) nulls[c] = false;
      off += attlen;
      continue;
    }
    // A varlena: aligned unless its first byte is a 1-byte header (pad bytes are 0).
    if (off >= dlen) return false;
    if (!VARATT_NOT_PAD_BYTE(data + off)) off = align_up(off, w.att_align[a]);
    if (off >= dlen) return false;
    const uint32 size = varlena_bytes(data, off, dlen);
    if (size == 0) return false;
    if (c >= 0) {
      const char* v = data + off;
      if (w.kind[c] == WalkKind::kText) {
        const char* s;
        size_t n;
        if (!inline_varlena(v, &s, &n)) return false;  // compressed or out of line: the backend's
        if (w.cat[c]->src == CatSource::kBpchar)
          while (n > 0 && s[n - 1] == ' ') n--;  // as category_text trims char(n)
        const int32_t code = category_lookup(w.cat[c], s, n);
        if (code < 0) return false;
        x[c] = (float)code;
      } else if (w.kind[c] == WalkKind::kNumeric) {
        double d;
        if (!numeric_value_to_double(v, &d) || !put_number(w, c, (float)d, x)) return false;
      } else {
        return false;  // not planned for a varlena
      }
      nulls[c] = false;
    }
    off += size;
  }
  return true;
}

}  // namespace gbdt_pg
