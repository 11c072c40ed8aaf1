// Opening the relation a function reads: privileges, the row estimate,
// column lookup, and whether its storage may be read directly.
#include "read/rel_info.h"

#include "convert.h"

extern "C" {
#include "catalog/pg_am.h"
#include "access/genam.h"
#include "access/stratnum.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "commands/extension.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "access/table.h"
#include "optimizer/plancat.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rls.h"
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

// Whether relid is a Citus distributed (or reference) table: its rows live
// on the workers and the coordinator's own heap is an empty shell.  Read
// from Citus's catalog pg_dist_partition (logicalrelid, its first column)
// when Citus is installed.
bool citus_distributed(Oid relid) {
  if (!OidIsValid(get_extension_oid("citus", true))) return false;
  const Oid cat = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
  if (!OidIsValid(cat)) return false;
  Relation r = table_open(cat, AccessShareLock);
  ScanKeyData key;
  ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
  SysScanDesc scan = systable_beginscan(r, InvalidOid, false, nullptr, 1, &key);
  const bool found = HeapTupleIsValid(systable_getnext(scan));
  systable_endscan(scan);
  table_close(r, AccessShareLock);
  return found;
}

}  // namespace

bool relation_readable_directly(const RelInfo* rel) {
  // A table with inheritance children: SELECT reads their rows too, the
  // heap scan would not.  A table of another access method, or one whose
  // rows live elsewhere (a Citus distributed table's coordinator shell),
  // is read through the executor, which knows where its rows are.
  if (rel->relkind != RELKIND_RELATION || rel->has_children) return false;
  Relation r = relation_open(rel->relid, NoLock);  // locked by open_rel_info
  const bool heap = r->rd_rel->relam == HEAP_TABLE_AM_OID;
  relation_close(r, NoLock);
  return heap && !citus_distributed(rel->relid) &&
         check_enable_rls(rel->relid, InvalidOid, true) != RLS_ENABLED &&
         pg_class_aclcheck(rel->relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
}

}  // namespace gbdt_pg
