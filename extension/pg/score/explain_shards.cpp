#include "score/explain_shards.h"

#include "distributed/shard_plan.h"

namespace gbdt_pg {

namespace {

// A feature's name on one shard and its index in the model.
struct RemoteName {
  const char* name;
  int feature;
};

int cmp_remote(const void* a, const void* b) {
  return strcmp(((const RemoteName*)a)->name, ((const RemoteName*)b)->name);
}

struct ExplainSink {
  const ExplainShardsOut* out;
  int nf;
  RemoteName* remote;        // this shard's feature names, sorted
  PrintedAsHere key;
  PrintedAsHere* value;      // per feature: its column's text as here
  MemoryContext row_cxt;
};

char* all_sql(const char* schema) {
  return psprintf("SELECT t.key, t.feature, t.contribution, t.class, t.value_text FROM "
                  "%s.gbdt_explain_table($1::%s.gbdt_model, $2::pg_catalog.regclass, $3) AS t",
                  schema, schema);
}

char* top_sql(const char* schema) {
  return psprintf("SELECT t.key, t.feature, t.contribution, t.class, t.value_text FROM "
                  "%s.gbdt_explain_table($1::%s.gbdt_model, $2::pg_catalog.regclass, $3, "
                  "$4::pg_catalog.int4) AS t",
                  schema, schema);
}

// The model feature a shard's row names ('bias': nf).
int feature_of(const ExplainSink* s, const PGresult* row) {
  if (PQgetisnull(row, 0, 1))
    ereport(ERROR, (errcode(ERRCODE_PROTOCOL_VIOLATION),
                    errmsg("gbdt: a shard's explanation row names no feature")));
  RemoteName k{PQgetvalue(row, 0, 1), -1};
  const RemoteName* f =
      (const RemoteName*)bsearch(&k, s->remote, s->nf, sizeof(RemoteName), cmp_remote);
  if (f != nullptr) return f->feature;
  if (strcmp(k.name, "bias") == 0) return s->nf;
  ereport(ERROR, (errcode(ERRCODE_PROTOCOL_VIOLATION),
                  errmsg("gbdt: a shard's explanation names feature \"%s\", not one of the model",
                         k.name)));
}

void put_row(void* arg, const PGresult* row) {
  ExplainSink* s = (ExplainSink*)arg;
  MemoryContext old = MemoryContextSwitchTo(s->row_cxt);
  Datum values[5];
  bool nulls[5] = {false, false, false, false, true};
  const int f = feature_of(s, row);
  values[0] = shard_row_printed(&s->key, row, 0, &nulls[0]);
  values[1] = s->out->names[f];
  values[2] = Float8GetDatum(shard_row_float8(row, 2));
  nulls[3] = PQgetisnull(row, 0, 3);
  values[3] = nulls[3] ? (Datum)0 : Float8GetDatum(shard_row_float8(row, 3));
  if (f < s->nf) values[4] = shard_row_printed(&s->value[f], row, 4, &nulls[4]);
  tuplestore_putvalues(s->out->store, s->out->desc, values, nulls);
  MemoryContextSwitchTo(old);
  MemoryContextReset(s->row_cxt);
}

// The feature names of partition part's shard, sorted.
void remote_names(ExplainSink* s, Oid part) {
  for (int f = 0; f < s->nf; f++)
    s->remote[f] = RemoteName{remote_column(part, s->out->layout->cols[f].name), f};
  qsort(s->remote, s->nf, sizeof(RemoteName), cmp_remote);
}

}  // namespace

void explain_on_shards(ShardScoring* sc, const ExplainShardsOut* out,
                       void (*explain_local)(void* arg, Oid relid), void* arg) {
  ExplainSink s;
  memset(&s, 0, sizeof s);
  s.out = out;
  s.nf = out->layout->nf;
  s.remote = (RemoteName*)palloc(sizeof(RemoteName) * (s.nf > 0 ? s.nf : 1));
  s.value = (PrintedAsHere*)palloc(sizeof(PrintedAsHere) * (s.nf > 0 ? s.nf : 1));
  printed_as_here_init(&s.key, out->key_type);
  for (int f = 0; f < s.nf; f++) printed_as_here_init(&s.value[f], out->feature_types[f]);
  s.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt shard row", ALLOCSET_SMALL_SIZES);
  const char* top_k = out->top_k >= 0 ? psprintf("%d", out->top_k) : nullptr;
  shard_scoring_start(sc, top_k != nullptr ? top_sql : all_sql, top_k);
  for (int i = 0; i < sc->n; i++) {
    if (sc->parts[i].shard < 0) {
      explain_local(arg, sc->parts[i].relid);
      continue;
    }
    remote_names(&s, sc->parts[i].relid);
    shard_scoring_read(sc, i, put_row, &s);
  }
  shard_scoring_end(sc);
  MemoryContextDelete(s.row_cxt);
}

}  // namespace gbdt_pg
