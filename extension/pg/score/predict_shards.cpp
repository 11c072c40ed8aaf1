#include "score/predict_shards.h"

extern "C" {
#include "utils/builtins.h"
}

namespace gbdt_pg {

namespace {

struct RowSink {
  const PredictShardsOut* out;
  PrintedAsHere key;
  MemoryContext row_cxt;
};

char* value_sql(const char* schema) {
  return psprintf("SELECT t.key, t.prediction FROM %s.gbdt_predict_table($1::%s.gbdt_model, "
                  "$2::pg_catalog.regclass, $3) AS t",
                  schema, schema);
}

char* class_sql(const char* schema) {
  return psprintf("SELECT t.key, t.prediction FROM %s.gbdt_predict_table($1::%s.gbdt_model, "
                  "$2::pg_catalog.regclass, $3, $4) AS t",
                  schema, schema);
}

void put_row(void* arg, const PGresult* row) {
  RowSink* s = (RowSink*)arg;
  MemoryContext old = MemoryContextSwitchTo(s->row_cxt);
  Datum values[2];
  bool nulls[2] = {false, false};
  values[0] = shard_row_printed(&s->key, row, 0, &nulls[0]);
  if (s->out->as_class) {
    values[1] = shard_row_text(row, 1, &nulls[1]);
  } else {
    const double v = shard_row_float8(row, 1);
    values[1] = s->out->as_text ? CStringGetTextDatum(DatumGetCString(
                                      DirectFunctionCall1(float8out, Float8GetDatum(v))))
                                : Float8GetDatum(v);
  }
  tuplestore_putvalues(s->out->store, s->out->desc, values, nulls);
  MemoryContextSwitchTo(old);
  MemoryContextReset(s->row_cxt);
}

}  // namespace

const char* predict_key_refusal(const char* key, Oid key_type) {
  switch (key_type) {
    case TEXTOID: case VARCHAROID: case BPCHAROID:
    case INT2OID: case INT4OID: case INT8OID: case NUMERICOID: case UUIDOID:
    case FLOAT4OID: case FLOAT8OID: case DATEOID: case TIMESTAMPOID: case TIMESTAMPTZOID:
      return nullptr;
    default:
      return psprintf("key \"%s\" is of type %s (keys of numbers, text, uuid, dates and "
                      "timestamps come back from the shard servers)",
                      key, format_type_be(key_type));
  }
}

void predict_on_shards(ShardScoring* sc, const PredictShardsOut* out,
                       void (*score_local)(void* arg, Oid relid), void* arg) {
  RowSink s;
  memset(&s, 0, sizeof s);
  s.out = out;
  printed_as_here_init(&s.key, out->key_type);
  s.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt shard row", ALLOCSET_SMALL_SIZES);
  shard_scoring_start(sc, out->as_class ? class_sql : value_sql,
                      out->as_class ? "class" : nullptr);
  for (int i = 0; i < sc->n; i++) {
    if (sc->parts[i].shard < 0)
      score_local(arg, sc->parts[i].relid);
    else
      shard_scoring_read(sc, i, put_row, &s);
  }
  shard_scoring_end(sc);
  MemoryContextDelete(s.row_cxt);
}

}  // namespace gbdt_pg
