// gbdt_predict_table(model gbdt_model, relation regclass, key text)
//   -> TABLE(key text, prediction float8)
// Streams the relation in batches, scores each batch with predict_batch.
#include "guard.h"
#include "model_type.h"
#include "relation_reader.h"
#include "scoring.h"

#include "model.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_predict_table);
}

namespace gbdt_pg {
namespace {

struct TableSink {
  const gbdt::Model* model;
  int nf;
  int K;
  size_t cap;         // rows per batch
  size_t n;           // rows in the batch
  float* x;           // cap x nf, row-major
  double* out;        // cap x K
  Datum* keys;        // cap (copies in key_cxt)
  bool* key_nulls;    // cap
  MemoryContext key_cxt;
  Tuplestorestate* store;
  TupleDesc desc;
};

void flush(TableSink* s) {
  if (s->n == 0) return;
  const gbdt::Model* m = s->model;
  const float* x = s->x;
  double* out = s->out;
  size_t n = s->n;
  int nthread = scoring_threads();
  run_engine([&] { gbdt::predict_batch(*m, x, n, out, nthread); });
  Datum values[2];
  bool nulls[2];
  for (size_t i = 0; i < n; i++) {
    values[0] = s->keys[i];
    nulls[0] = s->key_nulls[i];
    values[1] = Float8GetDatum(scalar_from_output(m, out + i * s->K));
    nulls[1] = false;
    tuplestore_putvalues(s->store, s->desc, values, nulls);
  }
  s->n = 0;
  MemoryContextReset(s->key_cxt);
}

void table_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  TableSink* s = (TableSink*)arg;
  size_t i = s->n;
  memcpy(s->x + i * s->nf, vals + 1, sizeof(float) * s->nf);
  s->key_nulls[i] = nulls[0];
  s->keys[i] = (Datum)0;
  if (!nulls[0]) {
    MemoryContext old = MemoryContextSwitchTo(s->key_cxt);
    s->keys[i] = datumCopy(slot->tts_values[0], false, -1);
    MemoryContextSwitchTo(old);
  }
  s->n++;
  if (s->n == s->cap) flush(s);
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_predict_table(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  Oid relid = PG_GETARG_OID(1);
  char* key = text_to_cstring(PG_GETARG_TEXT_PP(2));

  RelInfo* rel = open_rel_info(relid);
  if (find_column(rel, key) == nullptr) report_missing_column(rel, key);
  int nf = m->n_features();
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * (nf + 1));
  cols[0] = ReaderColumn{key, ValKind::kNone, false, false};
  model_feature_columns(rel, m, cols + 1);

  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;

  TableSink s;
  memset(&s, 0, sizeof(s));
  s.model = m;
  s.nf = nf;
  s.K = m->num_output_group > 0 ? m->num_output_group : 1;
  s.cap = batch_rows(nf);
  s.x = (float*)palloc(sizeof(float) * s.cap * (nf > 0 ? nf : 1));
  s.out = (double*)palloc(sizeof(double) * s.cap * s.K);
  s.keys = (Datum*)palloc(sizeof(Datum) * s.cap);
  s.key_nulls = (bool*)palloc(sizeof(bool) * s.cap);
  s.key_cxt = AllocSetContextCreate(CurrentMemoryContext, "gbdt predict keys",
                                    ALLOCSET_DEFAULT_SIZES);
  s.store = rsinfo->setResult;
  s.desc = rsinfo->setDesc;

  read_relation(rel, cols, nf + 1, table_row, &s, true);
  flush(&s);
  MemoryContextDelete(s.key_cxt);
  return (Datum)0;
}
