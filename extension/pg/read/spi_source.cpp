// read_relation: the chosen columns of a relation through SPI (privileges
// and row-level security apply), each row converted by a DestReceiver, or
// straight from the heap when that gives the same rows (heap_source.h).
#include "read/relation_reader.h"

#include <cmath>

#include "read/category_dict.h"
#include "read/heap_source.h"
#include "read/read_order.h"

extern "C" {
#include "executor/spi.h"
}

namespace gbdt_pg {

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
  // The rows in the relation's own order, the same on every call.
  const int order_level = begin_read_in_order();
  int rc = SPI_execute_extended(q.data, &opts);
  end_read_in_order(order_level);
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
