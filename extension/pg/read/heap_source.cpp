// The row-by-row passes over a plain table read directly (TablePasses of
// relation_reader.h): planning the scan, the passes, closing them.
#include "read/heap_source.h"

#include "read/rel_info.h"

extern "C" {
#include "access/heapam.h"
#include "catalog/pg_am.h"
#include "access/table.h"
#include "access/xact.h"
#include "parser/parse_coerce.h"
#include "utils/snapmgr.h"
}

namespace gbdt_pg {
namespace {

// ---- direct heap scan (plain tables) ----
bool plain_kind(ValKind k) {
  switch (k) {
    case ValKind::kFloat8:
    case ValKind::kFloat4:
    case ValKind::kInt2:
    case ValKind::kInt4:
    case ValKind::kInt8:
    case ValKind::kBool:
      return true;
    default:
      return false;
  }
}

bool plan_fast_scan(const RelInfo* rel, const ReaderColumn* cols, int ncols, FastScan* fs) {
  if (!relation_readable_directly(rel)) return false;
  fs->attnums = (AttrNumber*)palloc0(sizeof(AttrNumber) * (ncols > 0 ? ncols : 1));
  fs->outfns = (FmgrInfo*)palloc0(sizeof(FmgrInfo) * (ncols > 0 ? ncols : 1));
  fs->is_text = (bool*)palloc0(sizeof(bool) * (ncols > 0 ? ncols : 1));
  fs->maxatt = 0;
  fs->plain = true;
  int hint = 0;
  for (int i = 0; i < ncols; i++) {
    if (!plain_kind(cols[i].kind)) fs->plain = false;
    Form_pg_attribute a = find_column(rel, cols[i].name, &hint);
    if (a == nullptr) return false;  // the SPI path reports it
    Oid t = a->atttypid;
    if (cols[i].kind == ValKind::kNone) {
      if (t == TEXTOID) {
        fs->is_text[i] = true;
      } else {
        Oid castfunc = InvalidOid;
        if (find_coercion_pathway(TEXTOID, t, COERCION_EXPLICIT, &castfunc) !=
            COERCION_PATH_COERCEVIAIO)
          return false;
        Oid outfn;
        bool varlena;
        getTypeOutputInfo(t, &outfn, &varlena);
        fmgr_info(outfn, &fs->outfns[i]);
      }
    } else if (cols[i].kind == ValKind::kCategory ? !category_type_matches(cols[i].cat, t)
               : cols[i].kind == ValKind::kArray  ? !OidIsValid(get_element_type(t))
                                                  : kind_for_type(t) != cols[i].kind) {
      return false;
    }
    fs->attnums[i] = a->attnum;
    if (a->attnum > fs->maxatt) fs->maxatt = a->attnum;
  }
  return true;
}

}  // namespace

TablePasses* open_table_passes(const RelInfo* rel, const ReaderColumn* cols, int ncols,
                               bool read_only) {
  FastScan fs;
  if (ncols < 1 || !plan_fast_scan(rel, cols, ncols, &fs)) return nullptr;
  TablePasses* tp = (TablePasses*)palloc0(sizeof(TablePasses));
  tp->cols = cols;
  tp->ncols = ncols;
  tp->fs = fs;
  // Snapshot as SPI takes it: a fresh one (after a command counter
  // increment) unless read-only; the same one for every pass.
  if (!read_only) {
    CommandCounterIncrement();
    PushActiveSnapshot(GetTransactionSnapshot());
  } else {
    PushActiveSnapshot(GetActiveSnapshot());
  }
  tp->r = table_open(rel->relid, AccessShareLock);
  tp->slot = table_slot_create(tp->r, nullptr);
  TupleDesc od = CreateTemplateTupleDesc(ncols);
  for (int i = 0; i < ncols; i++)
    TupleDescInitEntry(od, (AttrNumber)(i + 1), cols[i].name,
                       cols[i].kind == ValKind::kNone ? TEXTOID : FLOAT8OID, -1, 0);
  tp->out = MakeSingleTupleTableSlot(od, &TTSOpsVirtual);
  tp->vals = (float*)palloc(sizeof(float) * ncols);
  tp->nulls = (bool*)palloc(sizeof(bool) * ncols);
  tp->row_cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt reader row", ALLOCSET_SMALL_SIZES);
  return tp;
}

namespace {

// Deforms and converts the current tuple and hands it to fn, in the
// per-row memory context.
void deliver_row(TablePasses* tp, ReaderRowFn fn, void* arg) {
  if (tp->fs.plain) {
    // Nothing is allocated converting plain numbers; the row function
    // still runs in the per-row context (it may allocate).
    slot_getsomeattrs(tp->slot, tp->fs.maxatt);
    convert_plain_row(tp, tp->slot);
    MemoryContext old = MemoryContextSwitchTo(tp->row_cxt);
    fn(arg, tp->out, tp->vals, tp->nulls);
    MemoryContextSwitchTo(old);
    if (!tp->row_cxt->isReset) MemoryContextReset(tp->row_cxt);
    return;
  }
  MemoryContextReset(tp->row_cxt);
  MemoryContext old = MemoryContextSwitchTo(tp->row_cxt);
  slot_getsomeattrs(tp->slot, tp->fs.maxatt);
  convert_row(tp, tp->slot);
  fn(arg, tp->out, tp->vals, tp->nulls);
  MemoryContextSwitchTo(old);
}

}  // namespace

// Rows are delivered as they are (no skipping, all of them): read_relation.
uint64 pass_all(TablePasses* tp, ReaderRowFn fn, void* arg) {
  TableScanDesc scan = table_beginscan_strat(tp->r, GetActiveSnapshot(), 0, nullptr, true, false);
  uint64 rows = 0;
  while (table_scan_getnextslot(scan, ForwardScanDirection, tp->slot)) {
    deliver_row(tp, fn, arg);
    rows++;
    if ((rows & 4095) == 0) CHECK_FOR_INTERRUPTS();
  }
  table_endscan(scan);
  return rows;
}

uint64 table_pass(TablePasses* tp, const uint64* rows, size_t nrows, ReaderRowFn fn, void* arg,
                  uint64* skipped) {
  const int att0 = tp->fs.attnums[0];
  const ReaderColumn& c0 = tp->cols[0];
  TupleDesc desc = RelationGetDescr(tp->r);
  // A heap's tuples are read as they lie in the page: the first column by
  // heap_getattr (its cached offset when the tuple has no NULL), the tuple
  // stored in the slot only when delivered.  A counting pass or a sample's
  // pass so deforms no row up to the target (the last column of a table
  // read as it was loaded).
  const bool heap = tp->r->rd_rel->relam == HEAP_TABLE_AM_OID;
  TableScanDesc scan = table_beginscan_strat(tp->r, GetActiveSnapshot(), 0, nullptr, true, false);
  uint64 seen = 0, kept = 0, skip = 0;
  size_t next = 0;  // index into rows
  for (;;) {
    HeapTuple tup = nullptr;
    Datum d;
    bool isnull;
    if (heap) {
      if ((tup = heap_getnext(scan, ForwardScanDirection)) == nullptr) break;
      d = heap_getattr(tup, att0, desc, &isnull);
    } else {
      if (!table_scan_getnextslot(scan, ForwardScanDirection, tp->slot)) break;
      slot_getsomeattrs(tp->slot, att0);
      isnull = tp->slot->tts_isnull[att0 - 1];
      d = tp->slot->tts_values[att0 - 1];
    }
    if ((++seen & 4095) == 0) CHECK_FOR_INTERRUPTS();
    bool keep = !isnull;
    if (keep && c0.kind != ValKind::kNone) {
      double v = datum_to_double(d, c0.kind);
      keep = !std::isnan(v);
    }
    if (!keep) {
      skip++;
      continue;
    }
    const uint64 k = kept++;
    if (rows != nullptr) {
      if (next >= nrows || rows[next] != k) continue;
      next++;
    }
    if (heap) ExecStoreBufferHeapTuple(tup, tp->slot, ((HeapScanDesc)scan)->rs_cbuf);
    deliver_row(tp, fn, arg);
  }
  table_endscan(scan);
  if (skipped) *skipped = skip;
  return kept;
}

void close_table_passes(TablePasses* tp) {
  ExecDropSingleTupleTableSlot(tp->out);
  ExecDropSingleTupleTableSlot(tp->slot);
  table_close(tp->r, NoLock);
  MemoryContextDelete(tp->row_cxt);
  pfree(tp->vals);
  pfree(tp->nulls);
  pfree(tp);
  PopActiveSnapshot();
}

}  // namespace gbdt_pg
