// build_shard_plan (shard_plan.h): the partitions of a partitioned table
// as shards, read from the catalog (partition descriptor, foreign table,
// server, wrapper and column options).
#include "distributed/shard_plan.h"

#include <cstring>
#include <new>

extern "C" {
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "partitioning/partdesc.h"
#include "storage/lmgr.h"
}

namespace gbdt_pg {
namespace {

// The value of option `name` in a DefElem list, or null.
const char* option_value(List* options, const char* name) {
  ListCell* lc;
  foreach (lc, options) {
    DefElem* d = (DefElem*)lfirst(lc);
    if (strcmp(d->defname, name) == 0) return defGetString(d);
  }
  return nullptr;
}

}  // namespace

const char* remote_column(Oid relid, const char* name) {
  const AttrNumber att = get_attnum(relid, name);
  if (att == InvalidAttrNumber)
    elog(ERROR, "gbdt: column \"%s\" is missing from partition %u", name, relid);
  const char* remote = option_value(GetForeignColumnOptions(relid, att), "column_name");
  return remote != nullptr ? remote : pstrdup(name);
}

const char* partition_refusal(Oid part, const char* qual) {
  const char kind = get_rel_relkind(part);
  if (kind == RELKIND_PARTITIONED_TABLE)
    return psprintf("partition %s is itself partitioned", qual);
  if (kind != RELKIND_FOREIGN_TABLE)
    return psprintf("partition %s is not a foreign table (its rows are on this server)", qual);
  ForeignTable* ft = GetForeignTable(part);
  ForeignServer* server = GetForeignServer(ft->serverid);
  ForeignDataWrapper* fdw = GetForeignDataWrapper(server->fdwid);
  if (strcmp(fdw->fdwname, "postgres_fdw") != 0)
    return psprintf("partition %s is a foreign table of wrapper \"%s\", not postgres_fdw", qual,
                    fdw->fdwname);
  return nullptr;
}

const char* remote_relation(Oid part) {
  ForeignTable* ft = GetForeignTable(part);
  const char* nsp = option_value(ft->options, "schema_name");
  const char* rel = option_value(ft->options, "table_name");
  if (nsp == nullptr) nsp = get_namespace_name(get_rel_namespace(part));
  if (rel == nullptr) rel = get_rel_name(part);
  return quote_qualified_identifier(nsp, rel);
}

const char* shard_label(Oid part, const char* qual) {
  ForeignServer* server = GetForeignServer(GetForeignTable(part)->serverid);
  return psprintf("server \"%s\" (partition %s)", server->servername, qual);
}

namespace {

// The shard of foreign partition `part`.
void describe_part(Oid part, const char* qual, const char* target, const char* weight,
                   const char* const* features, int nf, ShardPart* out) {
  out->server = GetForeignTable(part)->serverid;
  out->label = shard_label(part, qual);
  out->relation = remote_relation(part);
  out->target = remote_column(part, target);
  out->weight = weight != nullptr ? remote_column(part, weight) : nullptr;
  out->features = (const char**)palloc(sizeof(char*) * (nf > 0 ? nf : 1));
  for (int f = 0; f < nf; f++) out->features[f] = remote_column(part, features[f]);
}

}  // namespace

ShardPlan* build_shard_plan(Oid relid, const char* target, const char* weight,
                            const char* const* features, int nf) {
  ShardPlan* plan = new (palloc0(sizeof(ShardPlan))) ShardPlan();
  plan->nf = nf;
  const char* relname =
      quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), get_rel_name(relid));
  if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE) {
    plan->reason = psprintf("relation %s is not a partitioned table", relname);
    return plan;
  }
  plan->partitioned = true;
  Relation rel = relation_open(relid, AccessShareLock);
  PartitionDesc pd = RelationGetPartitionDesc(rel, true);
  const int n = pd->nparts;
  Oid* oids = (Oid*)palloc(sizeof(Oid) * (n > 0 ? n : 1));
  memcpy(oids, pd->oids, sizeof(Oid) * n);  // pd belongs to the relcache entry
  relation_close(rel, NoLock);
  if (n == 0) plan->reason = psprintf("partitioned table %s has no partitions", relname);
  plan->parts = (ShardPart*)palloc0(sizeof(ShardPart) * (n > 0 ? n : 1));
  for (int i = 0; i < n; i++) {
    CHECK_FOR_INTERRUPTS();
    LockRelationOid(oids[i], AccessShareLock);  // as the scan would: not dropped meanwhile
    const char* qual =
        quote_qualified_identifier(get_namespace_name(get_rel_namespace(oids[i])), get_rel_name(oids[i]));
    if (get_rel_relkind(oids[i]) == RELKIND_FOREIGN_TABLE) plan->any_foreign = true;
    const char* why = partition_refusal(oids[i], qual);
    if (why != nullptr) {
      if (plan->reason == nullptr) plan->reason = why;
      continue;
    }
    describe_part(oids[i], qual, target, weight, features, nf, &plan->parts[plan->n++]);
  }
  return plan;
}

}  // namespace gbdt_pg
