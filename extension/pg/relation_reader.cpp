#include "relation_reader.h"

#include <cfloat>
#include <cmath>

namespace gbdt_pg {

RelInfo* open_rel_info(Oid relid) {
  Relation r = relation_open(relid, AccessShareLock);
  RelInfo* info = (RelInfo*)palloc0(sizeof(RelInfo));
  info->relid = relid;
  info->name = pstrdup(RelationGetRelationName(r));
  info->qualname = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(r)),
                                              RelationGetRelationName(r));
  info->relkind = r->rd_rel->relkind;
  info->reltuples = (double)r->rd_rel->reltuples;
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

  // Up-front privilege check (before any column is looked up), with
  // PostgreSQL's own message.  Column privileges are enough: the query
  // itself checks the columns it reads.
  Oid user = GetUserId();
  if (pg_class_aclcheck(relid, user, ACL_SELECT) != ACLCHECK_OK &&
      pg_attribute_aclcheck_all(relid, user, ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK)
    aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(info->relkind), info->name);
  return info;
}

Form_pg_attribute find_column(const RelInfo* rel, const char* name) {
  for (int i = 0; i < rel->desc->natts; i++) {
    Form_pg_attribute a = TupleDescAttr(rel->desc, i);
    if (a->attisdropped) continue;
    if (strcmp(NameStr(a->attname), name) == 0) return a;
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
    if (slot->tts_isnull[i] || c.kind == ValKind::kNone) {
      r->vals[i] = NAN;
      continue;
    }
    Datum d = slot->tts_values[i];
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
  StringInfoData q;
  initStringInfo(&q);
  appendStringInfoString(&q, "SELECT ");
  for (int i = 0; i < ncols; i++) {
    if (i > 0) appendStringInfoString(&q, ", ");
    if (cols[i].kind == ValKind::kNone)
      appendStringInfo(&q, "(%s)::text", quote_identifier(cols[i].name));
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
