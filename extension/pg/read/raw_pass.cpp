// table_pass_raw (relation_reader.h): a pass over a heap table in
// batches, read on this thread and decoded, walked or coded on a worker.
#include <atomic>
#include <cfloat>
#include <cmath>
#include <functional>
#include <memory>

#include "read/heap_source.h"
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
#include "access/tableam.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/snapmgr.h"
}

namespace gbdt_pg {

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

}  // namespace gbdt_pg
