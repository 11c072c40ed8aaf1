#include "read/relation_reader.h"

#include <atomic>
#include <cfloat>
#include <cmath>
#include <functional>
#include <memory>

#include "read/category_dict.h"
#include "settings.h"
#include "guard.h"
#include "gbdt/model.h"
#include "read/raw_layout.h"
#include "gbdt/load_internals.h"
#include "read/tuple_walk.h"

extern "C" {
#include "access/heapam.h"
#include "catalog/pg_am.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "optimizer/plancat.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "parser/parse_coerce.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
}

namespace gbdt_pg {

RelInfo* open_rel_info(Oid relid) {
  // A regclass argument may hold any OID (0, or a relation dropped since):
  // a clear "undefined table" error, not relation_open's internal one.
  Relation r = OidIsValid(relid) ? try_relation_open(relid, AccessShareLock) : nullptr;
  if (r == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
                    errmsg("relation with OID %u does not exist", relid)));
  RelInfo* info = (RelInfo*)palloc0(sizeof(RelInfo));
  info->relid = relid;
  info->name = pstrdup(RelationGetRelationName(r));
  info->qualname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(r)),
                                              RelationGetRelationName(r));
  info->relkind = r->rd_rel->relkind;
  info->reltuples = (double)r->rd_rel->reltuples;
  info->has_children = r->rd_rel->relhassubclass;
  const Oid nsp = RelationGetNamespace(r);
  info->desc = CreateTupleDescCopy(RelationGetDescr(r));
  relation_close(r, NoLock);  // keep the lock until end of transaction

  switch (info->relkind) {
    case RELKIND_RELATION:
    case RELKIND_VIEW:
    case RELKIND_MATVIEW:
    case RELKIND_FOREIGN_TABLE:
    case RELKIND_PARTITIONED_TABLE:
      break;
    default:
      ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                      errmsg("\"%s\" is not a table, view, materialized view or foreign table",
                             info->name)));
  }

  // Up-front privilege checks (before any column is looked up), with
  // PostgreSQL's own messages, in the order SELECT makes them: USAGE on the
  // schema (a regclass given by OID skips the name lookup that checks it),
  // then SELECT on the relation.  Column privileges are enough: the query
  // itself checks the columns it reads.
  Oid user = GetUserId();
  if (gbdt_namespace_aclcheck(nsp, user, ACL_USAGE) != ACLCHECK_OK)
    aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_SCHEMA, get_namespace_name(nsp));
  if (pg_class_aclcheck(relid, user, ACL_SELECT) != ACLCHECK_OK &&
      pg_attribute_aclcheck_all(relid, user, ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK)
    aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(info->relkind), info->name);
  return info;
}

double estimated_rows(const RelInfo* rel) {
  if (!RELKIND_HAS_TABLE_AM(rel->relkind)) return rel->reltuples;
  Relation r = relation_open(rel->relid, NoLock);  // locked by open_rel_info
  double rows = -1;
  if (rel->reltuples < 0 && r->rd_rel->relam == HEAP_TABLE_AM_OID) {
    const BlockNumber pages = RelationGetNumberOfBlocks(r);
    if (pages > 0) {
      Buffer b = ReadBufferExtended(r, MAIN_FORKNUM, 0, RBM_NORMAL, nullptr);
      LockBuffer(b, BUFFER_LOCK_SHARE);
      const Page page = BufferGetPage(b);
      const OffsetNumber on_page = PageIsNew(page) ? 0 : PageGetMaxOffsetNumber(page);
      UnlockReleaseBuffer(b);
      if (on_page > 0) rows = (double)on_page * (double)pages;
    }
  }
  if (rows < 0) {
    BlockNumber pages = 0;
    double allvisfrac = 0;
    estimate_rel_size(r, nullptr, &pages, &rows, &allvisfrac);
  }
  relation_close(r, NoLock);
  return rows;
}

Form_pg_attribute find_column(const RelInfo* rel, const char* name, int* hint) {
  const int n = rel->desc->natts;
  const int from = hint != nullptr && *hint >= 0 && *hint < n ? *hint : 0;
  for (int k = 0; k < n; k++) {
    const int i = from + k < n ? from + k : from + k - n;
    Form_pg_attribute a = TupleDescAttr(rel->desc, i);
    if (a->attisdropped) continue;
    if (strcmp(NameStr(a->attname), name) == 0) {
      if (hint != nullptr) *hint = i + 1;
      return a;
    }
  }
  return nullptr;
}

void report_missing_column(const RelInfo* rel, const char* name) {
  ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                  errmsg("column \"%s\" of relation \"%s\" does not exist", name, rel->name)));
}

namespace {

struct GbdtReceiver {
  DestReceiver pub;  // must be first
  const ReaderColumn* cols;
  int ncols;
  ReaderRowFn fn;
  void* arg;
  MemoryContext row_cxt;  // reset per row
  float* vals;
  bool* nulls;
  uint64 rows;
};

bool receive_slot(TupleTableSlot* slot, DestReceiver* self) {
  GbdtReceiver* r = (GbdtReceiver*)self;
  MemoryContextReset(r->row_cxt);
  MemoryContext old = MemoryContextSwitchTo(r->row_cxt);
  slot_getallattrs(slot);
  for (int i = 0; i < r->ncols; i++) {
    const ReaderColumn& c = r->cols[i];
    r->nulls[i] = slot->tts_isnull[i];
    if (slot->tts_isnull[i] || c.kind == ValKind::kNone || c.kind == ValKind::kArray) {
      r->vals[i] = NAN;
      continue;
    }
    Datum d = slot->tts_values[i];
    if (c.kind == ValKind::kCategory) {
      r->vals[i] = category_code(c.cat, d);
      continue;
    }
    double v = datum_to_double(d, c.kind);
    float f = (float)v;
    if (c.reject_infinity && std::isinf(f)) report_nonfinite(c.name, c.is_target, d, c.kind, v);
    r->vals[i] = f;
  }
  r->fn(r->arg, slot, r->vals, r->nulls);
  MemoryContextSwitchTo(old);
  r->rows++;
  if ((r->rows & 4095) == 0) CHECK_FOR_INTERRUPTS();
  return true;
}

void receiver_startup(DestReceiver* self, int operation, TupleDesc typeinfo) {
  GbdtReceiver* r = (GbdtReceiver*)self;
  if (typeinfo->natts != r->ncols)
    elog(ERROR, "gbdt: query returned %d columns, expected %d", typeinfo->natts, r->ncols);
}

void receiver_shutdown(DestReceiver* self) {}
void receiver_destroy(DestReceiver* self) {}

}  // namespace

bool relation_readable_directly(const RelInfo* rel) {
  // A table with inheritance children: SELECT reads their rows too, the
  // heap scan would not.
  return rel->relkind == RELKIND_RELATION && !rel->has_children &&
         check_enable_rls(rel->relid, InvalidOid, true) != RLS_ENABLED &&
         pg_class_aclcheck(rel->relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
}

namespace {

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
void convert_plain_row(TablePasses* tp, TupleTableSlot* slot) {
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
void convert_row(TablePasses* tp, TupleTableSlot* slot) {
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

}  // namespace

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

// ---- raw pass ----

namespace {

// Deformed batches: where a categorical value's text lies in the batch's
// text bytes (len only when longer than a category may be: not stored).
struct CatRef {
  uint32 off;
  uint32 len;
};

// Text bytes after which a deformed batch goes to the worker, whatever
// its row count.
constexpr size_t kBatchTextBytes = (size_t)1 << 20;
// Tuple bytes after which a walked batch goes to the worker.
constexpr size_t kBatchTupleBytes = (size_t)512 << 10;

// How a pass hands tuples to the worker: copies of a fixed layout's bytes
// (raw_layout.h), whole tuples the worker walks (tuple_walk.h), or values
// this thread deformed and converted (categorical values as text).
enum class PassMode : uint8_t { kLayout, kWalk, kDeform };

// A walked batch's row: where its tuple copy lies (off kDeformedRow: the
// row was deformed here, as in a deformed batch).
struct TupleRef {
  uint32 off;
  uint32 len;
};
constexpr uint32 kDeformedRow = PG_UINT32_MAX;

struct RawBatch {
  uint8_t* raw;      // cap rows of layout.stride bytes (deformed batches: null)
  uint8_t* pending;  // per row: RawRows' pending code
  float* x;          // cap rows of ncols floats
  bool* nulls;       // cap rows of ncols flags, rows of pending 0 only
  CatRef* refs;      // deformed batches: cap rows of ncat text references
  char* text;        // deformed batches: the categorical values' text
  size_t text_used;
  size_t text_cap;
  TupleRef* tuples;  // walked batches: cap rows
  uint8_t* tup;      // walked batches: the tuples' copies, each 8-aligned
  size_t tup_used;
  size_t tup_cap;
  size_t walked_from;  // walked and layout batches: rows from here on were walked or
                       // decoded by this thread before the batch went to the worker (n: none)
  size_t n;
  size_t inf_row;    // first row with an infinity in a column that rejects it (n: none)
  size_t coded;      // deformed and walked batches: the first row the worker did not
                     // convert (n: all)
  size_t stop;       // the first row sink->take did not take
};

struct RawPass {
  TablePasses* tp;
  const RawSink* sink;
  void* arg;
  RawLayout layout;
  gbdt::RawShape shape;
  int ncols;
  bool* reject;             // per column: infinity is an error
  size_t cap;               // rows per batch
  RawBatch b[2];
  int cur;                  // the batch being filled
  RawBatch* in_flight;      // the batch the worker takes, or null
  bool ended;               // the sink ended the pass
  uint64 rows;
  TupleTableSlot* hslot;    // tuples without the layout, deformed here
  // Deformed pass: every tuple is deformed and converted here,
  // categorical values copied as text, and the worker looks up their
  // codes before the sink takes the rows.  Walked pass: tuples are copied
  // whole and the worker converts them (walk_tuple), except the ones
  // written before the table gained attributes, deformed here.
  PassMode mode;
  TupleWalk walk;
  int ncat;
  int* cat_col;             // the categorical columns' indices
  gbdt::ThreadPool* pool;
  std::function<void(size_t, int)>* job;
  // Layout batches, and walked batches without categorical columns
  // (nothing the threads share), on two threads: while the worker takes a
  // batch, this thread converts the next one's rows from its end until the
  // worker is done.
  bool helps;
  bool help_all;  // gbdt.debug_loader_help
  std::atomic<bool> job_done;
};

// The text a reference points to (null for a value too long to copy).
inline const char* ref_text(const RawBatch* b, CatRef r) {
  return r.len > gbdt::kMaxStringBytes ? nullptr : b->text + r.off;
}

// Codes the categorical values of row i of a deformed batch, or a row
// deformed here of a walked one (no PostgreSQL call); false at a value
// only this thread may code (category_code_text's errors).
bool code_row(RawPass* p, RawBatch* b, size_t i) {
  const int nc = p->ncols, ncat = p->ncat;
  const ReaderColumn* cols = p->tp->cols;
  const CatRef* refs = b->refs + i * ncat;
  float* x = b->x + i * nc;
  const bool* nulls = b->nulls + i * nc;
  for (int k = 0; k < ncat; k++) {
    const int c = p->cat_col[k];
    if (nulls[c]) continue;
    const int32_t code = category_lookup(cols[c].cat, ref_text(b, refs[k]), refs[k].len);
    if (code < 0) return false;
    x[c] = (float)code;
  }
  return true;
}

// Walks row i of a walked batch (its tuple copy) into its values; false
// when the row is left to this thread (walk_tuple).
inline bool walk_row(const RawPass* p, RawBatch* b, size_t i) {
  const TupleRef t = b->tuples[i];
  const size_t at = i * (size_t)p->ncols;
  return walk_tuple(p->walk, b->tup + t.off, t.len, b->x + at, b->nulls + at);
}

// Converts rows [from, b->n) of a deformed or walked batch on any thread
// (those from b->walked_from on are); returns the first row only this
// thread may convert, or b->n.
size_t convert_rows(RawPass* p, RawBatch* b, size_t from) {
  for (size_t i = from; i < b->walked_from; i++) {
    const bool ok = p->mode == PassMode::kWalk && b->tuples[i].off != kDeformedRow
                        ? walk_row(p, b, i)
                        : code_row(p, b, i);
    if (!ok) return i;
  }
  return b->n;
}

// The worker's part (no PostgreSQL call): decode the batch, find its first
// infinity, hand the rows before it to the sink.  A deformed or walked
// batch has no infinity (this thread stops at one; the walk leaves rows
// with one to this thread); its rows are converted first.
void take_batch(RawPass* p, RawBatch* b) {
  if (p->mode != PassMode::kLayout) {
    b->inf_row = b->n;
    b->coded = convert_rows(p, b, 0);
    b->stop = p->sink->take(p->arg, b->x, (size_t)p->ncols, 0, b->coded);
    return;
  }
  b->coded = b->n;
  const gbdt::RawRows rr = raw_rows_of(p->layout, b->raw, b->pending);
  gbdt::decode_raw_rows(rr, p->shape, p->ncols, 0, b->walked_from, b->x);
  const int nc = p->ncols;
  size_t inf = b->n;
  // Infinities are rare: one vector scan of the batch, then the search
  // for the first row with one in a column that rejects it.
  const bool any_inf = gbdt::any_infinite(b->x, b->n * (size_t)nc);
  for (size_t i = 0; any_inf && i < b->n && inf == b->n; i++) {
    const float* v = b->x + i * nc;
    for (int c = 0; c < nc; c++)
      if (std::isinf(v[c]) && p->reject[c]) {
        inf = i;
        break;
      }
  }
  b->inf_row = inf;
  b->stop = p->sink->take(p->arg, b->x, (size_t)nc, 0, inf);
}

// A tuple without the layout (fewer attributes): deformed and converted
// here, with the checks of convert_plain_row.
void raw_slot_row(RawPass* p, RawBatch* b, size_t i, HeapTuple tup) {
  TablePasses* tp = p->tp;
  ExecStoreHeapTuple(tup, p->hslot, false);
  slot_getsomeattrs(p->hslot, tp->fs.maxatt);
  convert_plain_row(tp, p->hslot);
  ExecClearTuple(p->hslot);
  memcpy(b->x + i * p->ncols, tp->vals, sizeof(float) * p->ncols);
  memcpy(b->nulls + i * p->ncols, tp->nulls, sizeof(bool) * p->ncols);
}

// Row i's values and NULL flags as a row function gets them.
void raw_row_values(RawPass* p, RawBatch* b, size_t i, float* vals, bool* nulls) {
  const int nc = p->ncols;
  memcpy(vals, b->x + i * nc, sizeof(float) * nc);
  const uint8_t pend = b->pending[i];
  const uint8_t* row = pend == 0 ? nullptr : b->raw + i * p->layout.stride;
  for (int c = 0; c < nc; c++) {
    double v;
    nulls[c] = pend == 0 ? b->nulls[i * nc + c]
               : pend == 1 ? false
                           : !raw_row_double(p->layout, row, pend, c, &v);
  }
}

// The error convert_plain_row raises for row i's first infinity.
void report_raw_infinity(RawPass* p, RawBatch* b, size_t i) {
  const uint8_t* row = b->raw + i * p->layout.stride;
  for (int c = 0; c < p->ncols; c++) {
    if (!p->reject[c] || !std::isinf(b->x[i * p->ncols + c])) continue;
    double v = 0;
    raw_row_double(p->layout, row, b->pending[i], c, &v);
    const ReaderColumn& col = p->tp->cols[c];
    report_nonfinite(col.name, col.is_target,
                     col.kind == ValKind::kFloat4 ? Float4GetDatum((float)v) : Float8GetDatum(v),
                     col.kind, v);
  }
  elog(ERROR, "gbdt: raw pass lost an infinity");
}

// Row i of a walked batch, which the walk left: its tuple copy deformed
// and converted here as convert_row does (detoasting, numerics off the
// digits' route, categories, and their errors).
void convert_tuple_copy(RawPass* p, RawBatch* b, size_t i) {
  TablePasses* tp = p->tp;
  HeapTupleData t;
  t.t_len = b->tuples[i].len;
  t.t_data = (HeapTupleHeader)(b->tup + b->tuples[i].off);
  ItemPointerSetInvalid(&t.t_self);
  t.t_tableOid = RelationGetRelid(tp->r);
  ExecStoreHeapTuple(&t, p->hslot, false);
  MemoryContextReset(tp->row_cxt);
  MemoryContext old = MemoryContextSwitchTo(tp->row_cxt);
  slot_getsomeattrs(p->hslot, tp->fs.maxatt);
  convert_row(tp, p->hslot);
  MemoryContextSwitchTo(old);
  MemoryContextReset(tp->row_cxt);
  ExecClearTuple(p->hslot);
  memcpy(b->x + i * p->ncols, tp->vals, sizeof(float) * p->ncols);
  memcpy(b->nulls + i * p->ncols, tp->nulls, sizeof(bool) * p->ncols);
}

// This thread, after the worker: the rows the sink's take stopped at
// (sink->stopped takes each; take resumes after it) and the batch's
// infinity, in row order.
void resolve_batch(RawPass* p, RawBatch* b) {
  const TablePasses* tp = p->tp;
  size_t at = b->stop;
  while (at < b->n) {
    if (at == b->inf_row) report_raw_infinity(p, b, at);
    if (at == b->coded) {
      if (p->mode == PassMode::kWalk && b->tuples[at].off != kDeformedRow) {
        // The row the walk left: converted here, with its errors.
        convert_tuple_copy(p, b, at);
      } else {
        // The value the worker could not code: its error, raised here.
        for (int k = 0; k < p->ncat; k++) {
          const int c = p->cat_col[k];
          if (b->nulls[at * p->ncols + c]) continue;
          const CatRef r = b->refs[at * p->ncat + k];
          b->x[at * p->ncols + c] = category_code_text(tp->cols[c].cat, ref_text(b, r), r.len);
        }
      }
      run_engine([&] { b->coded = convert_rows(p, b, at + 1); });
    }
    raw_row_values(p, b, at, tp->vals, tp->nulls);
    if (!p->sink->stopped(p->arg, tp->vals, tp->nulls)) {
      p->ended = true;
      return;
    }
    const RawSink* sink = p->sink;
    const size_t to = std::min(b->inf_row, b->coded);
    run_engine([&] { at = sink->take(p->arg, b->x, (size_t)p->ncols, at + 1, to); });
  }
}

void finish_in_flight(RawPass* p) {
  if (p->in_flight == nullptr) return;
  gbdt::ThreadPool* pool = p->pool;
  run_engine([&] { pool->finish(); });
  RawBatch* b = p->in_flight;
  p->in_flight = nullptr;
  resolve_batch(p, b);
  b->n = 0;
  b->text_used = 0;
  b->tup_used = 0;
}

// While the worker takes the batch before it, this thread converts the
// rows of filled batch c from its end (RawPass::helps): walks them,
// stopping at a row it leaves (the worker meets it again, and hands it
// back in row order), or decodes copied layouts 64 rows at a time.
// (gbdt.debug_loader_help: every row it may, whatever the worker does.)
void help_convert(RawPass* p, RawBatch* c) {
  const bool all = p->help_all;
  if (p->mode == PassMode::kLayout) {
    const gbdt::RawRows rr = raw_rows_of(p->layout, c->raw, c->pending);
    while (c->walked_from > 0 && (all || !p->job_done.load(std::memory_order_acquire))) {
      const size_t b = c->walked_from > 64 ? c->walked_from - 64 : 0;
      gbdt::decode_raw_rows(rr, p->shape, p->ncols, b, c->walked_from, c->x);
      c->walked_from = b;
    }
    return;
  }
  while (c->walked_from > 0 && (all || !p->job_done.load(std::memory_order_acquire))) {
    const size_t i = c->walked_from - 1;
    // A row deformed here is converted already (no category to code).
    if (c->tuples[i].off != kDeformedRow && !walk_row(p, c, i)) break;
    c->walked_from = i;
  }
}

// The filled batch goes to the worker once the one before it is resolved.
void submit_batch(RawPass* p) {
  RawBatch* c = &p->b[p->cur];
  c->walked_from = c->n;
  if (p->helps && (p->in_flight != nullptr || p->help_all) && !p->ended) help_convert(p, c);
  finish_in_flight(p);
  if (p->ended || c->n == 0) return;
  p->in_flight = c;
  p->job_done.store(false, std::memory_order_relaxed);
  gbdt::ThreadPool* pool = p->pool;
  std::function<void(size_t, int)>* job = p->job;
  run_engine([&] { pool->start(1, *job); });
  p->cur ^= 1;
}

// Row i of a deformed batch from tuple tup: values converted, NULLs
// flagged, categorical values' text copied (their codes are the worker's).
// False, with the tuple left in p->hslot, at an infinity in a column that
// rejects it.
bool deform_row(RawPass* p, RawBatch* b, size_t i, HeapTuple tup) {
  TablePasses* tp = p->tp;
  TupleTableSlot* slot = p->hslot;
  ExecStoreHeapTuple(tup, slot, false);
  slot_getsomeattrs(slot, tp->fs.maxatt);
  const AttrNumber* attnums = tp->fs.attnums;
  const ReaderColumn* cols = tp->cols;
  const int nc = p->ncols;
  float* x = b->x + i * nc;
  bool* nulls = b->nulls + i * nc;
  CatRef* refs = b->refs + i * p->ncat;
  // Detoasting, numerics and encoding conversion allocate here.
  MemoryContext old = MemoryContextSwitchTo(tp->row_cxt);
  bool ok = true;
  for (int c = 0, k = 0; c < nc; c++) {
    const int att = attnums[c] - 1;
    const bool isnull = slot->tts_isnull[att];
    const Datum d = slot->tts_values[att];
    nulls[c] = isnull;
    if (cols[c].kind == ValKind::kCategory) {
      CatRef& r = refs[k++];
      x[c] = isnull ? NAN : 0.0f;
      if (isnull) continue;
      char buf[32];
      const char* s;
      size_t len;
      if (!category_text_inline(cols[c].cat, d, &s, &len))
        category_text(cols[c].cat, d, buf, &s, &len);
      r.len = (uint32)Min(len, (size_t)PG_UINT32_MAX);
      r.off = 0;
      if (len > gbdt::kMaxStringBytes) continue;  // the worker refuses it without its text
      if (b->text_used + len > b->text_cap) {
        b->text_cap = Max(b->text_cap * 2, b->text_used + len);
        b->text = (char*)repalloc(b->text, b->text_cap);
      }
      memcpy(b->text + b->text_used, s, len);
      r.off = (uint32)b->text_used;
      b->text_used += len;
      continue;
    }
    if (isnull) {
      x[c] = NAN;
      continue;
    }
    const double v = datum_to_double(d, cols[c].kind);
    const float f = (float)v;
    if (unlikely(std::isinf(f)) && cols[c].reject_infinity) {
      ok = false;
      break;
    }
    x[c] = f;
  }
  MemoryContextSwitchTo(old);
  if (!tp->row_cxt->isReset) MemoryContextReset(tp->row_cxt);
  if (ok) ExecClearTuple(slot);
  return ok;
}

// Everything that may raise an error while the worker runs: no C++ object
// with a destructor lives here (the caller stops the worker on an error).
void raw_pass_loop(RawPass* p) {
  TableScanDesc scan = table_beginscan_strat(p->tp->r, GetActiveSnapshot(), 0, nullptr, true, false);
  const size_t stride = p->layout.stride;
  HeapTuple tup;
  uint64 seen = 0;
  while ((tup = heap_getnext(scan, ForwardScanDirection)) != nullptr) {
    if ((++seen & 4095) == 0) CHECK_FOR_INTERRUPTS();
    RawBatch* b = &p->b[p->cur];
    const size_t i = b->n;
    if (p->mode == PassMode::kWalk && HeapTupleHeaderGetNatts(tup->t_data) >= p->walk.natts) {
      // The whole tuple, 8-aligned as in its page (its attributes' alignments hold).
      const size_t at = TYPEALIGN(8, b->tup_used);
      if (at + tup->t_len > b->tup_cap) {
        b->tup_cap = Max(b->tup_cap * 2, at + tup->t_len);
        b->tup = (uint8_t*)repalloc(b->tup, b->tup_cap);
      }
      memcpy(b->tup + at, tup->t_data, tup->t_len);
      b->tuples[i].off = (uint32)at;
      b->tuples[i].len = tup->t_len;
      b->tup_used = at + tup->t_len;
      b->pending[i] = 0;
      if (++b->n == p->cap || b->tup_used >= kBatchTupleBytes) {
        submit_batch(p);
        if (p->ended) break;
      }
      continue;
    }
    if (p->mode != PassMode::kLayout) {
      if (p->mode == PassMode::kWalk) b->tuples[i].off = kDeformedRow;
      if (!deform_row(p, b, i, tup)) {
        // An infinity: every row before it is taken first (their stops
        // and errors come first), then the row's conversion raises its
        // error, as convert_row would in a row-by-row pass.
        submit_batch(p);
        finish_in_flight(p);
        if (p->ended) break;
        convert_row(p->tp, p->hslot);
        elog(ERROR, "gbdt: deformed pass lost an infinity");
      }
      b->pending[i] = 0;
      if (++b->n == p->cap || b->text_used >= kBatchTextBytes) {
        submit_batch(p);
        if (p->ended) break;
      }
      continue;
    }
    const uint8_t pend = copy_raw_tuple(p->layout, tup, b->raw + i * stride);
    if (pend == 0) raw_slot_row(p, b, i, tup);
    b->pending[i] = pend;
    if (++b->n == p->cap) {
      submit_batch(p);
      if (p->ended) break;
    }
  }
  if (!p->ended) submit_batch(p);  // the last, partial batch
  if (!p->ended) finish_in_flight(p);
  table_endscan(scan);
  p->rows = seen;
}

void stop_raw_worker(RawPass* p) noexcept {
  delete p->pool;  // joins the worker, which ends the batch it is taking first
  p->pool = nullptr;
  delete p->job;
  p->job = nullptr;
}

}  // namespace

bool table_pass_raw(TablePasses* tp, const RawSink* sink, void* arg, int nthread, uint64* rows) {
  if (tp->r->rd_rel->relam != HEAP_TABLE_AM_OID) return false;
  for (int c = 0; c < tp->ncols; c++) {
    const ReaderColumn& col = tp->cols[c];
    if (col.kind == ValKind::kNone || col.kind == ValKind::kArray ||
        (col.kind == ValKind::kCategory && col.cat == nullptr))
      return false;
  }
  RawPass* p = (RawPass*)palloc0(sizeof(RawPass));
  p->mode = PassMode::kDeform;
  if (tp->fs.plain) {
    ValKind* kinds = (ValKind*)palloc(sizeof(ValKind) * tp->ncols);
    for (int c = 0; c < tp->ncols; c++) kinds[c] = tp->cols[c].kind;
    if (plan_raw_layout(RelationGetDescr(tp->r), tp->fs.attnums, kinds, tp->ncols, 0, &p->layout))
      p->mode = PassMode::kLayout;
    pfree(kinds);
  }
  if (p->mode == PassMode::kDeform && guc_tuple_walk &&
      plan_tuple_walk(RelationGetDescr(tp->r), tp->fs.attnums, tp->cols, tp->ncols, &p->walk))
    p->mode = PassMode::kWalk;
  p->tp = tp;
  p->sink = sink;
  p->arg = arg;
  p->ncols = tp->ncols;
  p->reject = (bool*)palloc(sizeof(bool) * tp->ncols);
  for (int c = 0; c < tp->ncols; c++) p->reject[c] = tp->cols[c].reject_infinity;
  p->cat_col = (int*)palloc(sizeof(int) * tp->ncols);
  for (int c = 0; c < tp->ncols; c++)
    if (tp->cols[c].kind == ValKind::kCategory) p->cat_col[p->ncat++] = c;
  p->helps = (p->mode == PassMode::kLayout || (p->mode == PassMode::kWalk && p->ncat == 0)) &&
             nthread > 1;
  p->help_all = p->helps && guc_debug_loader_help;
  // Batches of about 512 kB (tuple bytes, or converted values and text
  // references): the worker's batch stays in its cache while this thread
  // fills the other.
  const size_t row_bytes =
      p->mode == PassMode::kLayout
          ? p->layout.stride
          : p->ncols * (sizeof(float) + sizeof(bool)) + p->ncat * (sizeof(CatRef) + 8) +
                (p->mode == PassMode::kWalk ? sizeof(TupleRef) + 8 * p->ncols : 0);
  p->cap = std::min<size_t>(16384, std::max<size_t>(256, ((size_t)512 << 10) / row_bytes));
  for (RawBatch& b : p->b) {
    b.raw = p->mode == PassMode::kLayout ? (uint8_t*)palloc(p->cap * p->layout.stride) : nullptr;
    const bool walk = p->mode == PassMode::kWalk;
    b.tuples = walk ? (TupleRef*)palloc(sizeof(TupleRef) * p->cap) : nullptr;
    b.tup_cap = walk ? kBatchTupleBytes + BLCKSZ : 0;
    b.tup = walk ? (uint8_t*)palloc(b.tup_cap) : nullptr;
    b.tup_used = 0;
    b.pending = (uint8_t*)palloc(p->cap);
    b.x = (float*)palloc(sizeof(float) * p->cap * p->ncols);
    b.nulls = (bool*)palloc(sizeof(bool) * p->cap * p->ncols);
    b.refs = (CatRef*)palloc(sizeof(CatRef) * p->cap * Max(p->ncat, 1));
    b.text_cap = p->ncat > 0 ? (size_t)64 << 10 : 64;
    b.text = (char*)palloc(b.text_cap);
    b.text_used = 0;
    b.n = 0;
  }
  p->hslot = MakeSingleTupleTableSlot(RelationGetDescr(tp->r), &TTSOpsHeapTuple);
  if (p->mode == PassMode::kLayout) {
    const gbdt::RawRows rr = raw_rows_of(p->layout, nullptr, nullptr);
    p->shape = gbdt::raw_shape(rr, p->ncols);
  }
  // One worker takes a batch while this thread reads the next.
  run_engine([&] {
    std::unique_ptr<gbdt::ThreadPool> pool(new gbdt::ThreadPool(nthread > 1 ? 2 : 1));
    p->job = new std::function<void(size_t, int)>([p](size_t, int) {
      take_batch(p, p->in_flight);
      p->job_done.store(true, std::memory_order_release);
    });
    p->pool = pool.release();
  });
  PG_TRY();
  {
    raw_pass_loop(p);
  }
  PG_CATCH();
  {
    stop_raw_worker(p);
    PG_RE_THROW();
  }
  PG_END_TRY();
  stop_raw_worker(p);
  ExecDropSingleTupleTableSlot(p->hslot);
  for (RawBatch& b : p->b) {
    if (b.raw != nullptr) pfree(b.raw);
    if (b.tuples != nullptr) pfree(b.tuples);
    if (b.tup != nullptr) pfree(b.tup);
    pfree(b.pending);
    pfree(b.x);
    pfree(b.nulls);
    pfree(b.refs);
    pfree(b.text);
  }
  pfree(p->cat_col);
  pfree(p->reject);
  *rows = p->rows;
  return true;
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

uint64 read_relation(const RelInfo* rel, const ReaderColumn* cols, int ncols, ReaderRowFn fn,
                     void* arg, bool read_only) {
  if (TablePasses* tp = open_table_passes(rel, cols, ncols, read_only)) {
    uint64 rows = pass_all(tp, fn, arg);
    close_table_passes(tp);
    return rows;
  }
  StringInfoData q;
  initStringInfo(&q);
  appendStringInfoString(&q, "SELECT ");
  for (int i = 0; i < ncols; i++) {
    if (i > 0) appendStringInfoString(&q, ", ");
    // pg_catalog.text, not text: a schema before pg_catalog in the caller's
    // search path could hold a domain named text (label_classes.cpp).
    if (cols[i].kind == ValKind::kNone)
      appendStringInfo(&q, "(%s)::pg_catalog.text", quote_identifier(cols[i].name));
    else
      appendStringInfoString(&q, quote_identifier(cols[i].name));
  }
  appendStringInfo(&q, " FROM %s", rel->qualname);

  GbdtReceiver* r = (GbdtReceiver*)palloc0(sizeof(GbdtReceiver));
  r->pub.receiveSlot = receive_slot;
  r->pub.rStartup = receiver_startup;
  r->pub.rShutdown = receiver_shutdown;
  r->pub.rDestroy = receiver_destroy;
  r->pub.mydest = DestNone;
  r->cols = cols;
  r->ncols = ncols;
  r->fn = fn;
  r->arg = arg;
  r->vals = (float*)palloc(sizeof(float) * (ncols > 0 ? ncols : 1));
  r->nulls = (bool*)palloc(sizeof(bool) * (ncols > 0 ? ncols : 1));
  r->row_cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt reader row",
                                     ALLOCSET_SMALL_SIZES);

  if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "gbdt: SPI_connect failed");
  SPIExecuteOptions opts;
  memset(&opts, 0, sizeof(opts));
  opts.read_only = read_only;
  opts.dest = (DestReceiver*)r;
  int rc = SPI_execute_extended(q.data, &opts);
  if (rc < 0) elog(ERROR, "gbdt: reading relation \"%s\" failed: %s", rel->name,
                   SPI_result_code_string(rc));
  SPI_finish();

  MemoryContextDelete(r->row_cxt);
  uint64 rows = r->rows;
  pfree(r->vals);
  pfree(r->nulls);
  pfree(r);
  pfree(q.data);
  return rows;
}

}  // namespace gbdt_pg
