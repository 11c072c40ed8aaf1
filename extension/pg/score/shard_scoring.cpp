#include "score/shard_scoring.h"

#include "distributed/shard_plan.h"
#include "guard.h"
#include "settings.h"

extern "C" {
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "partitioning/partdesc.h"
#include "storage/lmgr.h"
#include "utils/rls.h"
}

namespace gbdt_pg {

namespace {

// The shards' sessions print values as postgres_fdw's sessions do, so a
// key or a label read as text converts here as the rows postgres_fdw
// would bring (floats exactly, dates in ISO, times in UTC).
constexpr const char* kShardSettings =
    "-c extra_float_digits=3 -c DateStyle=ISO -c IntervalStyle=postgres -c TimeZone=UTC";

const char* qualified_name(Oid relid) {
  return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
                                    get_rel_name(relid));
}

// Why the rows of rel, read through rel, could differ from its partitions'
// rows read one by one: what the user may see of rel (null: nothing).
const char* privilege_refusal(Oid relid, const char* qual) {
  if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
    return psprintf("the current user may SELECT only some columns of %s", qual);
  if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
    return psprintf("%s has row-level security", qual);
  return nullptr;
}

// Why plain partition `part` cannot be scored here on its own (null: it can).
const char* local_refusal(Oid part, const char* qual) {
  const char kind = get_rel_relkind(part);
  if (kind == RELKIND_PARTITIONED_TABLE)
    return psprintf("partition %s is itself partitioned", qual);
  if (kind != RELKIND_RELATION) return partition_refusal(part, qual);
  if (pg_class_aclcheck(part, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
    return psprintf("the current user may not SELECT partition %s itself", qual);
  if (get_rel_relispartition(part) && check_enable_rls(part, InvalidOid, true) != RLS_NONE)
    return psprintf("partition %s has row-level security of its own", qual);
  return nullptr;
}

// The model's bytes with its features named as on partition part (the
// layout's columns, one per feature).
void shard_model(const gbdt::Model* m, const ScoringLayout* layout, Oid part, ScorePart* out) {
  const int nf = layout->nf;
  const char** names = (const char**)palloc(sizeof(char*) * (nf > 0 ? nf : 1));
  for (int f = 0; f < nf; f++) names[f] = remote_column(part, layout->cols[f].name);
  struct varlena* bytes = nullptr;
  run_engine([&] {
    gbdt::Model copy = *m;
    for (int f = 0; f < nf; f++) copy.feature_names[(size_t)f] = names[f];
    bytes = bytes_to_varlena_nothrow(gbdt::serialize_model(copy));
  });
  out->model = VARDATA(bytes);
  out->model_len = (int)(VARSIZE(bytes) - VARHDRSZ);
}

// The partitions of rel with their shards described; the reason to read
// here, or null.
const char* describe_parts(const RelInfo* rel, const gbdt::Model* m,
                           const ScoringLayout* layout, const char* column, ShardScoring* sc,
                           Oid** servers, const char*** labels) {
  Relation r = relation_open(rel->relid, AccessShareLock);
  PartitionDesc pd = RelationGetPartitionDesc(r, true);
  const int n = pd->nparts;
  Oid* oids = (Oid*)palloc(sizeof(Oid) * (n > 0 ? n : 1));
  memcpy(oids, pd->oids, sizeof(Oid) * n);  // pd belongs to the relcache entry
  relation_close(r, NoLock);
  sc->n = n;
  sc->parts = (ScorePart*)palloc0(sizeof(ScorePart) * (n > 0 ? n : 1));
  *servers = (Oid*)palloc(sizeof(Oid) * (n > 0 ? n : 1));
  *labels = (const char**)palloc(sizeof(char*) * (n > 0 ? n : 1));
  const char* why = nullptr;
  for (int i = 0; i < n; i++) {
    CHECK_FOR_INTERRUPTS();
    LockRelationOid(oids[i], AccessShareLock);  // as the scan would: not dropped meanwhile
    const char* qual = qualified_name(oids[i]);
    ScorePart* p = &sc->parts[i];
    p->relid = oids[i];
    p->shard = -1;
    if (get_rel_relkind(oids[i]) != RELKIND_FOREIGN_TABLE) {
      if (why == nullptr) why = local_refusal(oids[i], qual);
      continue;
    }
    const char* refusal = partition_refusal(oids[i], qual);
    if (refusal != nullptr) {
      if (why == nullptr) why = refusal;
      continue;
    }
    p->shard = sc->nshards++;
    (*servers)[p->shard] = GetForeignTable(oids[i])->serverid;
    (*labels)[p->shard] = shard_label(oids[i], qual);
    p->relation = remote_relation(oids[i]);
    p->column = remote_column(oids[i], column);
    shard_model(m, layout, oids[i], p);
  }
  if (why == nullptr && sc->nshards == 0)
    why = psprintf("partitioned table %s has no foreign partition", rel->qualname);
  return why;
}

}  // namespace

ShardScoring* shard_scoring_plan(const RelInfo* rel, const gbdt::Model* m,
                                 const ScoringLayout* layout, const char* column,
                                 const char* refusal) {
  const int mode = guc_distributed_scoring;
  if (mode == kDistributedScoringOff) return nullptr;
  if (mode == kDistributedScoringAuto && rel->relkind != RELKIND_PARTITIONED_TABLE) return nullptr;
  ShardScoring* sc = (ShardScoring*)palloc0(sizeof(ShardScoring));
  Oid* servers = nullptr;
  const char** labels = nullptr;
  const char* why = nullptr;
  if (rel->relkind != RELKIND_PARTITIONED_TABLE)
    why = psprintf("relation %s is not a partitioned table", rel->qualname);
  if (why == nullptr) why = privilege_refusal(rel->relid, rel->qualname);
  if (why == nullptr && layout->has_arrays)
    why = "a model feature is an element of an array column or absent from the relation";
  if (why == nullptr) why = refusal;
  bool any_foreign = false;
  if (why == nullptr) {
    why = describe_parts(rel, m, layout, column, sc, &servers, &labels);
    any_foreign = sc->nshards > 0;
  } else if (rel->relkind == RELKIND_PARTITIONED_TABLE) {
    // Only to decide whether "auto" says why: any foreign partition.
    Relation r = relation_open(rel->relid, AccessShareLock);
    PartitionDesc pd = RelationGetPartitionDesc(r, true);
    for (int i = 0; i < pd->nparts; i++)
      any_foreign |= get_rel_relkind(pd->oids[i]) == RELKIND_FOREIGN_TABLE;
    relation_close(r, NoLock);
  }
  if (why == nullptr) {
    const char* problem = nullptr;
    sc->group = shard_scan_open(sc->nshards, servers, labels, kShardSettings,
                                mode == kDistributedScoringOn ? nullptr : &problem);
    if (problem != nullptr) {
      shard_sessions_close(sc->group->id);
      sc->group = nullptr;
      why = problem;
    }
  }
  if (why == nullptr) return sc;
  if (mode == kDistributedScoringOn)
    ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                    errmsg("gbdt: cannot score relation \"%s\" on its shard servers: %s",
                           rel->name, why),
                    errhint("Set gbdt.distributed_scoring to auto or off to read every row "
                            "through this server.")));
  if (any_foreign) ereport(NOTICE, (errmsg("gbdt: reading every row through this server: %s", why)));
  return nullptr;
}

void shard_scoring_start(ShardScoring* sc, char* (*sql)(const char* schema), const char* extra) {
  for (int i = 0; i < sc->n; i++) {
    const ScorePart& p = sc->parts[i];
    if (p.shard < 0) continue;
    ShardSession* s = &sc->group->s[p.shard];
    const char* values[4] = {p.model, p.relation, p.column, extra};
    const int lengths[4] = {p.model_len, 0, 0, 0};
    const int formats[4] = {1, 0, 0, 0};
    shard_scan_send(sc->group, p.shard, sql(quote_identifier(s->schema)), extra != nullptr ? 4 : 3,
                    values, lengths, formats);
  }
}

void shard_scoring_read(ShardScoring* sc, int i, ShardRowFn fn, void* arg) {
  shard_scan_read(sc->group, sc->parts[i].shard, fn, arg);
}

void shard_scoring_end(ShardScoring* sc) {
  if (sc->group != nullptr) shard_sessions_close(sc->group->id);
  sc->group = nullptr;
}

Datum shard_row_text(const PGresult* row, int col, bool* isnull) {
  *isnull = PQgetisnull(row, 0, col);
  if (*isnull) return (Datum)0;
  // The bytes come in binary format, unchecked by any input function:
  // they must be valid text of this database's encoding.
  const char* bytes = PQgetvalue(row, 0, col);
  const int len = PQgetlength(row, 0, col);
  (void)pg_verifymbstr(bytes, len, false);
  return PointerGetDatum(cstring_to_text_with_len(bytes, len));
}

double shard_row_float8(const PGresult* row, int col) {
  if (PQgetisnull(row, 0, col) || PQgetlength(row, 0, col) != 8)
    ereport(ERROR, (errcode(ERRCODE_PROTOCOL_VIOLATION),
                    errmsg("gbdt: a shard's scoring row has no float8 in column %d", col + 1)));
  uint64 bits = 0;
  const unsigned char* b = (const unsigned char*)PQgetvalue(row, 0, col);
  for (int k = 0; k < 8; k++) bits = (bits << 8) | b[k];  // network byte order
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

void printed_as_here_init(PrintedAsHere* p, Oid type) {
  memset(p, 0, sizeof *p);
  switch (type) {
    case FLOAT4OID: case FLOAT8OID: case DATEOID: case TIMEOID: case TIMETZOID:
    case TIMESTAMPOID: case TIMESTAMPTZOID: case INTERVALOID:
      p->reprint = true;
      break;
    default:
      return;
  }
  Oid in, out;
  bool varlena;
  getTypeInputInfo(type, &in, &p->ioparam);
  getTypeOutputInfo(type, &out, &varlena);
  fmgr_info(in, &p->in);
  fmgr_info(out, &p->out);
}

Datum shard_row_printed(const PrintedAsHere* p, const PGresult* row, int col, bool* isnull) {
  Datum t = shard_row_text(row, col, isnull);
  if (*isnull || !p->reprint) return t;
  char* printed = text_to_cstring(DatumGetTextPP(t));
  Datum d = InputFunctionCall(const_cast<FmgrInfo*>(&p->in), printed, p->ioparam, -1);
  return CStringGetTextDatum(OutputFunctionCall(const_cast<FmgrInfo*>(&p->out), d));
}

}  // namespace gbdt_pg
