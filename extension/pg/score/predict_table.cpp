// gbdt_predict_table(model gbdt_model, relation regclass, key text)
//   -> TABLE(key text, prediction float8)
// gbdt_predict_table(model, relation, key, output text)
//   -> TABLE(key text, prediction text): output 'value' is the prediction
//      of the three-argument form as text (float8's output), 'class' the
//      class name of a classification model's prediction (as
//      gbdt_predict_class: binary models class 1 when P(class 1) > 0.5,
//      multiclass models their most probable class); 'class' on another
//      model is an error.
// gbdt_predict_proba_table(model, relation, key)
//   -> TABLE(key text, class text, probability float8): one row per row and
//      class (class order), the values gbdt_predict_proba gives the row.
//
// Reads the relation in batches and scores each batch on the engine's
// BatchPredictor while the backend reads the next one (double buffering):
// the worker threads score batch i while this thread reads batch i + 1,
// then this thread scores alongside them, starts batch i + 1 and writes
// batch i's results to the tuplestore (which respects work_mem).
//
// Plain heap tables without row-level security that the user may SELECT as
// a whole are read directly (heap_getnext).  When every attribute up to the
// last one needed is fixed-width, a tuple that has all those attributes
// stores each needed value at an offset computed once from the descriptor
// (PostgreSQL's attcacheoff rule) when it has no NULLs, or at an offset its
// null bitmap determines: such a tuple is not deformed here, its data (and
// bitmap) are copied raw into the batch and the scoring threads decode the
// values to floats (same conversion as datum_to_double + (float)).  Every
// other tuple is deformed through a slot as usual.  Other relations (views, RLS, foreign tables,
// column-only privileges, other table AMs, keys whose text cast is not the
// I/O conversion) are read through read_relation (SPI).
//
// The key is returned as (key)::text: integer keys are printed here with
// pg_itoa / pg_ltoa / pg_lltoa (what int2out / int4out / int8out do), text
// keys are copied, other types use their output function.
#include "guard.h"
#include "model/model_cache_pg.h"
#include "model/model_type.h"
#include "read/raw_layout.h"
#include "read/relation_reader.h"
#include "score/partition_table.h"
#include "score/predict_shards.h"
#include "score/scoring.h"
#include "read/scoring_layout.h"
#include "score/class_names.h"

#include "gbdt/model.h"
#include "gbdt/predict.h"
#include "gbdt/train.h"

extern "C" {
#include "access/heapam.h"
#include "storage/bufmgr.h"
#include "catalog/pg_am.h"
#include "access/table.h"
#include "access/tableam.h"
#include "parser/parse_coerce.h"
#include "utils/snapmgr.h"
}

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_predict_table);
PG_FUNCTION_INFO_V1(gbdt_predict_proba_table);
}

namespace gbdt_pg {
namespace {

// What a row's output becomes (see the top of the file).
enum class OutputMode : uint8_t { kValue, kValueText, kClass, kProba };

// How the key becomes text.
enum class KeyConv : uint8_t { kText, kInt2, kInt4, kInt8, kOutput };

constexpr size_t kIntKeySlot = 32;  // varlena header + up to 20 digits and sign + NUL

// Features from which rows of consecutive float8 features are decoded by
// the reading thread rather than copied raw for the scoring threads: a
// row of 500 costs less to decode (4 kB read, 2 kB written) than to copy
// (4 kB read and written, fresh batch memory) and decode again; at 8-41
// features either way measured the same (AMD EPYC, AVX2).
constexpr int kDecodeHereFeatures = 64;

struct Batch {
  size_t n;
  float* x;            // cap x nf
  double* out;         // cap x K
  uint8_t* raw;        // cap x raw_stride (direct scan with a fixed layout), else NULL
  uint8_t* pending;    // cap: 0 row i is in x; 1 / 2 in raw (see gbdt::RawRows)
  Datum* keys;         // cap
  bool* key_nulls;     // cap
  char* int_keys;      // cap x kIntKeySlot (integer keys)
  MemoryContext cxt;   // other keys and per-row garbage; reset when the batch is reused
};

struct Sink {
  const gbdt::Model* model;
  ScoringLayout* layout;  // the relation's columns (array columns expanded)
  int nf;
  int K;
  size_t cap;
  size_t raw_stride;
  gbdt::RawRows raw;  // layout of raw rows (data and pending set per batch)
  // >= 0: the features are consecutive float8 attributes from this one on
  // (gbdt::RawShape::contig_first) in rows wide enough that this thread
  // decodes fixed-layout tuples itself, straight into x, instead of
  // copying them raw for the scoring threads (kDecodeHereFeatures).
  int decode_first;
  KeyConv key_conv;
  FmgrInfo key_out;  // kOutput
  Batch b[2];
  int cur;
  bool in_flight;   // b[1 - cur] is being scored
  gbdt::BatchPredictor* pred;
  Tuplestorestate* store;
  TupleDesc desc;
  uint64 rows;
  OutputMode mode;
  Datum* class_names;  // kClass, kProba: the K class names (2 for binary models)
};

void init_batch(Sink* s, Batch* b, bool with_raw, MemoryContext parent) {
  size_t cap = s->cap;
  b->n = 0;
  b->x = (float*)palloc(sizeof(float) * cap * (s->nf > 0 ? s->nf : 1));
  b->out = (double*)palloc(sizeof(double) * cap * s->K);
  b->raw = with_raw ? (uint8_t*)palloc(s->raw_stride * cap) : nullptr;
  b->pending = with_raw ? (uint8_t*)palloc0(cap) : nullptr;
  b->keys = (Datum*)palloc(sizeof(Datum) * cap);
  b->key_nulls = (bool*)palloc(sizeof(bool) * cap);
  b->int_keys = (s->key_conv == KeyConv::kInt2 || s->key_conv == KeyConv::kInt4 ||
                 s->key_conv == KeyConv::kInt8)
                    ? (char*)palloc(kIntKeySlot * cap)
                    : nullptr;
  b->cxt = AllocSetContextCreate(parent, "gbdt predict batch", ALLOCSET_DEFAULT_SIZES);
}

// Key value d (not NULL) of row i of batch b as a text datum owned by the batch.
inline Datum key_text(Sink* s, Batch* b, size_t i, Datum d) {
  char* slot;
  int len;
  switch (s->key_conv) {
    case KeyConv::kInt2:
      slot = b->int_keys + i * kIntKeySlot;
      len = pg_itoa(DatumGetInt16(d), slot + VARHDRSZ);
      SET_VARSIZE(slot, VARHDRSZ + len);
      return PointerGetDatum(slot);
    case KeyConv::kInt4:
      slot = b->int_keys + i * kIntKeySlot;
      len = pg_ltoa(DatumGetInt32(d), slot + VARHDRSZ);
      SET_VARSIZE(slot, VARHDRSZ + len);
      return PointerGetDatum(slot);
    case KeyConv::kInt8:
      slot = b->int_keys + i * kIntKeySlot;
      len = pg_lltoa(DatumGetInt64(d), slot + VARHDRSZ);
      SET_VARSIZE(slot, VARHDRSZ + len);
      return PointerGetDatum(slot);
    case KeyConv::kText: {
      MemoryContext old = MemoryContextSwitchTo(b->cxt);
      struct varlena* v = pg_detoast_datum_packed((struct varlena*)DatumGetPointer(d));
      Datum r = (Pointer)v != DatumGetPointer(d) ? PointerGetDatum(v)
                                                  : datumCopy(d, false, -1);
      MemoryContextSwitchTo(old);
      return r;
    }
    case KeyConv::kOutput: {
      MemoryContext old = MemoryContextSwitchTo(b->cxt);
      Datum r = PointerGetDatum(cstring_to_text(OutputFunctionCall(&s->key_out, d)));
      MemoryContextSwitchTo(old);
      return r;
    }
  }
  return (Datum)0;
}

// Row o's class (kClass) as gbdt_predict_class chooses it: binary models
// class 1 when P(class 1) > 0.5 (binary:logitraw's margin turned into the
// probability), multiclass models the most probable class.
int output_class(const gbdt::Model* m, const double* o, int K) {
  const gbdt::ObjectiveInfo& info = gbdt::objective_info(m->objective);
  if (info.binary) {
    double p = o[0];
    if (info.eval_transform != nullptr) info.eval_transform(&p, 1);
    return p > 0.5 ? 1 : 0;
  }
  int best = 0;
  for (int k = 1; k < K; k++)
    if (o[k] > o[best]) best = k;
  return best;
}

// One row per class of row o (kProba): binary P(class 0) = 1 - p, then p.
void emit_proba(Sink* s, Datum key, bool key_null, const double* o) {
  Datum values[3];
  bool nulls[3] = {key_null, false, false};
  values[0] = key;
  const bool binary = s->model->objective == gbdt::Objective::kLogistic;
  const int classes = binary ? 2 : s->K;
  for (int k = 0; k < classes; k++) {
    values[1] = s->class_names[k];
    values[2] = Float8GetDatum(binary ? (k == 0 ? 1.0 - o[0] : o[0]) : o[k]);
    tuplestore_putvalues(s->store, s->desc, values, nulls);
  }
}

// Writes the results of batch b to the tuplestore and empties it.
void emit(Sink* s, Batch* b) {
  const gbdt::Model* m = s->model;
  Datum values[2];
  bool nulls[2] = {false, false};
  for (size_t i = 0; i < b->n; i++) {
    const double* o = b->out + i * s->K;
    if (s->mode == OutputMode::kProba) {
      emit_proba(s, b->keys[i], b->key_nulls[i], o);
    } else {
      values[0] = b->keys[i];
      nulls[0] = b->key_nulls[i];
      if (s->mode == OutputMode::kValue) {
        values[1] = Float8GetDatum(scalar_from_output(m, o));
      } else if (s->mode == OutputMode::kClass) {
        values[1] = s->class_names[output_class(m, o, s->K)];
      } else {
        MemoryContext old = MemoryContextSwitchTo(b->cxt);
        values[1] = CStringGetTextDatum(DatumGetCString(
            DirectFunctionCall1(float8out, Float8GetDatum(scalar_from_output(m, o)))));
        MemoryContextSwitchTo(old);
      }
      tuplestore_putvalues(s->store, s->desc, values, nulls);
    }
    if ((i & 4095) == 4095) CHECK_FOR_INTERRUPTS();
  }
  b->n = 0;
  MemoryContextReset(b->cxt);
}

// The current batch is complete: wait for the one in flight, start this
// one, write the finished one out.
void submit(Sink* s) {
  Batch* c = &s->b[s->cur];
  Batch* p = &s->b[1 - s->cur];
  gbdt::BatchPredictor* pred = s->pred;
  if (s->in_flight) run_engine([&] { pred->finish(); });
  s->in_flight = false;
  if (c->n > 0) {
    gbdt::RawRows raw = s->raw;
    raw.data = c->raw;
    raw.pending = c->pending;
    run_engine([&] { pred->start(c->x, c->n, c->out, c->raw != nullptr ? &raw : nullptr); });
    s->in_flight = true;
  }
  if (p->n > 0) emit(s, p);
  s->cur = 1 - s->cur;
}

void finish_all(Sink* s) {
  submit(s);  // starts the last partial batch, writes out the previous one
  if (s->in_flight) {
    gbdt::BatchPredictor* pred = s->pred;
    run_engine([&] { pred->finish(); });
    s->in_flight = false;
    emit(s, &s->b[1 - s->cur]);
  }
}

// ---- read_relation path ----

void reader_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  Sink* s = (Sink*)arg;
  Batch* b = &s->b[s->cur];
  size_t i = b->n;
  scoring_row(s->layout, slot, vals, nulls, 1, b->x + i * s->nf);
  b->key_nulls[i] = nulls[0];
  b->keys[i] = (Datum)0;
  if (!nulls[0]) {
    // Already (key)::text; copied.
    MemoryContext old = MemoryContextSwitchTo(b->cxt);
    b->keys[i] = datumCopy(slot->tts_values[0], false, -1);
    MemoryContextSwitchTo(old);
  }
  b->n++;
  if (b->n == s->cap) submit(s);
}

// ---- direct heap scan ----

struct DirectPlan {
  AttrNumber key_att;
  AttrNumber* feat_att;   // per feature
  ValKind* feat_kind;     // per feature
  AttrNumber maxatt;      // largest attnum needed
  bool fixed;             // fixed layout available (see top of file)
  // Fixed layout:
  uint32 key_off;         // offset of the key without NULLs (aligned if fixed-width)
  char key_align;         // attalign of the key
  int16 key_len;          // attlen of the key
  RawLayout layout;       // the features', describing every attribute before the key too
};

// Whether the relation may be read directly, and how.  The first three
// checks are those of relation_reader's direct scan (the same ~5 lines).
bool plan_direct(const RelInfo* rel, const gbdt::Model* m, const ReaderColumn* feat,
                 Form_pg_attribute key, Sink* s, DirectPlan* p) {
  if (!relation_readable_directly(rel)) return false;
  {
    // heap_getnext reads heap tables only.
    Relation r = table_open(rel->relid, AccessShareLock);
    bool heap = r->rd_rel->relam == HEAP_TABLE_AM_OID;
    table_close(r, NoLock);
    if (!heap) return false;
  }

  Oid kt = key->atttypid;
  if (kt == TEXTOID) {
    s->key_conv = KeyConv::kText;
  } else if (kt == INT2OID) {
    s->key_conv = KeyConv::kInt2;
  } else if (kt == INT4OID) {
    s->key_conv = KeyConv::kInt4;
  } else if (kt == INT8OID) {
    s->key_conv = KeyConv::kInt8;
  } else {
    // Only where (key)::text is the output function (as relation_reader).
    Oid castfunc = InvalidOid;
    if (find_coercion_pathway(TEXTOID, kt, COERCION_EXPLICIT, &castfunc) !=
        COERCION_PATH_COERCEVIAIO)
      return false;
    Oid outfn;
    bool varlena;
    getTypeOutputInfo(kt, &outfn, &varlena);
    fmgr_info(outfn, &s->key_out);
    s->key_conv = KeyConv::kOutput;
  }

  const int nf = m->n_features();
  p->key_att = key->attnum;
  p->feat_att = (AttrNumber*)palloc(sizeof(AttrNumber) * (nf > 0 ? nf : 1));
  p->feat_kind = (ValKind*)palloc(sizeof(ValKind) * (nf > 0 ? nf : 1));
  p->maxatt = key->attnum;
  int hint = 0;
  for (int f = 0; f < nf; f++) {
    Form_pg_attribute a = find_column(rel, feat[f].name, &hint);
    if (a == nullptr || kind_for_type(a->atttypid) != feat[f].kind) return false;
    p->feat_att[f] = a->attnum;
    p->feat_kind[f] = feat[f].kind;
    if (a->attnum > p->maxatt) p->maxatt = a->attnum;
  }

  // Fixed layout: every attribute before the last needed one is
  // fixed-width (dropped ones included), every feature is of a raw kind;
  // the key may be a varlena only as the last needed attribute.
  TupleDesc desc = rel->desc;
  p->fixed = false;
  Form_pg_attribute ka = TupleDescAttr(desc, p->key_att - 1);
  if (ka->attlen <= 0 && !(ka->attlen == -1 && p->key_att == p->maxatt)) return true;
  const int described = ka->attlen > 0 ? p->key_att : p->key_att - 1;
  if (!plan_raw_layout(desc, p->feat_att, p->feat_kind, nf, described, &p->layout)) return true;
  p->key_off = ka->attlen > 0 ? p->layout.att_off[p->key_att - 1] : p->layout.end;
  p->key_align = ka->attalign;
  p->key_len = ka->attlen;
  if (ka->attlen > 0 && s->key_conv == KeyConv::kOutput) return true;  // never mind
  p->fixed = true;
  return true;
}

// Row i of batch b from a deformed slot (any tuple).
inline void slot_row(Sink* s, Batch* b, size_t i, TupleTableSlot* slot, const DirectPlan* p) {
  float* x = b->x + i * (size_t)s->nf;
  for (int f = 0; f < s->nf; f++) {
    const int att = p->feat_att[f] - 1;
    x[f] = slot->tts_isnull[att] ? NAN : (float)datum_to_double(slot->tts_values[att], p->feat_kind[f]);
  }
  const int ka = p->key_att - 1;
  b->key_nulls[i] = slot->tts_isnull[ka];
  b->keys[i] = slot->tts_isnull[ka] ? (Datum)0 : key_text(s, b, i, slot->tts_values[ka]);
  if (b->pending != nullptr) b->pending[i] = 0;
}

// Key of a fixed-layout tuple (data = start of the tuple's data).
inline Datum fixed_key(Sink* s, Batch* b, size_t i, const char* data, const DirectPlan* p,
                       uint32 key_off) {
  const char* kp = data + key_off;
  switch (s->key_conv) {
    case KeyConv::kInt2: {
      int16 v;
      memcpy(&v, kp, 2);
      return key_text(s, b, i, Int16GetDatum(v));
    }
    case KeyConv::kInt4: {
      int32 v;
      memcpy(&v, kp, 4);
      return key_text(s, b, i, Int32GetDatum(v));
    }
    case KeyConv::kInt8: {
      int64 v;
      memcpy(&v, kp, 8);
      return key_text(s, b, i, Int64GetDatum(v));
    }
    default: {
      // A varlena key (the last needed attribute).
      uint32 o = att_align_pointer(key_off, p->key_align, -1, kp);
      return key_text(s, b, i, PointerGetDatum(data + o));
    }
  }
}

// Offset of the key in a fixed-layout tuple with NULLs (the key itself not
// NULL): the attributes before it that are stored, each aligned.
inline uint32 key_offset_with_nulls(const bits8* bm, const DirectPlan* p) {
  uint32 off = 0;
  const RawLayout& l = p->layout;
  for (int a = 0; a < p->key_att - 1; a++) {
    if (att_isnull(a, bm)) continue;
    off = TYPEALIGN(l.att_align[a], off) + l.att_len[a];
  }
  if (p->key_len > 0) off = TYPEALIGN(l.att_align[p->key_att - 1], off);
  return off;
}

void read_direct(const RelInfo* rel, Sink* s, const DirectPlan* p) {
  PushActiveSnapshot(GetActiveSnapshot());  // as read_relation(read_only = true)
  Relation r = table_open(rel->relid, AccessShareLock);
  // More than a page of rows: the scoring threads start while this thread
  // reads the first batch (BatchPredictor::prestart).
  if (RelationGetNumberOfBlocks(r) > 1) s->pred->prestart();
  TupleTableSlot* slot = MakeSingleTupleTableSlot(RelationGetDescr(r), &TTSOpsHeapTuple);
  TableScanDesc scan = table_beginscan_strat(r, GetActiveSnapshot(), 0, nullptr, true, false);
  const bool fixed = p->fixed;
  const size_t stride = s->raw_stride;
  const int maxatt = p->maxatt;
  HeapTuple tup;
  while ((tup = heap_getnext(scan, ForwardScanDirection)) != nullptr) {
    Batch* b = &s->b[s->cur];
    const size_t i = b->n;
    HeapTupleHeader th = tup->t_data;
    if (fixed && HeapTupleHeaderGetNatts(th) >= maxatt) {
      const char* data = (const char*)th + th->t_hoff;
      uint8_t pend;
      if (s->decode_first >= 0) {
        const bits8* bm = HeapTupleHasNulls(tup) ? th->t_bits : nullptr;
        gbdt::decode_contig_f8_row((const uint8_t*)bm, (const uint8_t*)data,
                                   (const uint8_t*)th + tup->t_len, s->decode_first, s->nf,
                                   b->x + i * s->nf);
        pend = bm == nullptr ? 1 : 2;
      } else {
        pend = copy_raw_tuple(p->layout, tup, b->raw + i * stride);
        b->pending[i] = pend;
      }
      if (pend == 1) {
        b->key_nulls[i] = false;
        b->keys[i] = fixed_key(s, b, i, data, p, p->key_off);
      } else {
        const bits8* bm = th->t_bits;
        const bool knull = att_isnull(p->key_att - 1, bm);
        b->key_nulls[i] = knull;
        b->keys[i] = knull ? (Datum)0 : fixed_key(s, b, i, data, p, key_offset_with_nulls(bm, p));
      }
    } else {
      ExecStoreHeapTuple(tup, slot, false);
      MemoryContext old = MemoryContextSwitchTo(b->cxt);
      slot_getsomeattrs(slot, maxatt);
      slot_row(s, b, i, slot, p);
      MemoryContextSwitchTo(old);
      ExecClearTuple(slot);
    }
    b->n++;
    if ((++s->rows & 4095) == 0) CHECK_FOR_INTERRUPTS();
    if (b->n == s->cap) submit(s);
  }
  table_endscan(scan);
  ExecDropSingleTupleTableSlot(slot);
  table_close(r, NoLock);
  PopActiveSnapshot();
}

void drop_predictor(gbdt::BatchPredictor* p) noexcept {
  try {
    delete p;
  } catch (...) {
  }
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

namespace gbdt_pg {
namespace {

// The output argument of gbdt_predict_table (argument 3, when given).
OutputMode output_mode_arg(FunctionCallInfo fcinfo, const gbdt::Model* m) {
  if (PG_NARGS() < 4) return OutputMode::kValue;
  const char* output = text_to_cstring(PG_GETARG_TEXT_PP(3));
  if (strcmp(output, "value") == 0) return OutputMode::kValueText;
  if (strcmp(output, "class") != 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt_predict_table: output \"%s\" is not one of value, class", output)));
  const gbdt::ObjectiveInfo& info = gbdt::objective_info(m->objective);
  if (!info.binary && !info.multiclass)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("gbdt_predict_table: output \"class\" needs a classification model, "
                           "not objective %s",
                           model_objective_name(m)),
                    errhint("Use output => 'value' (or the three-argument form) for a regression.")));
  return OutputMode::kClass;
}

Datum predict_table(FunctionCallInfo fcinfo, OutputMode mode);

}  // namespace
}  // namespace gbdt_pg

Datum gbdt_predict_table(PG_FUNCTION_ARGS) {
  const gbdt::Model* m = get_model_arg_any(fcinfo, 0);
  if (m->partitions != nullptr)  // rows routed to their key's sub-model (partition_table.h)
    return partition_predict_table(fcinfo, m, PG_NARGS() > 3 ? text_to_cstring(PG_GETARG_TEXT_PP(3)) : nullptr);
  return predict_table(fcinfo, output_mode_arg(fcinfo, get_model_arg(fcinfo, 0)));
}

Datum gbdt_predict_proba_table(PG_FUNCTION_ARGS) {
  const gbdt::Model* pm = get_model_arg_any(fcinfo, 0);
  // A partitioned model's sub-models share one objective (one training).
  const gbdt::Model* m = pm->partitions != nullptr ? pm->partitions->models[0].get() : pm;
  if (m->objective != gbdt::Objective::kLogistic && !gbdt::objective_info(m->objective).multiclass)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("gbdt_predict_proba_table: the model is not a classifier (objective %s)",
                           model_objective_name(m)),
                    errhint("gbdt_predict_proba_table needs a binary:logistic, multi:softprob or "
                            "multi:softmax model.")));
  if (pm->partitions != nullptr) return partition_predict_proba_table(fcinfo, pm);  // partition_table.h
  return predict_table(fcinfo, OutputMode::kProba);
}

namespace gbdt_pg {
namespace {

// The relation's rows scored into the result (rel: the relation called
// with, or one local partition of it scored on its own).
struct ScoreCall {
  FunctionCallInfo fcinfo;
  const gbdt::Model* m;
  const char* key;
  OutputMode mode;
};

void score_relation(const ScoreCall* c, RelInfo* rel, Form_pg_attribute key_attr,
                    ScoringLayout* layout);

// A local partition of a parent scored on the shards (predict_shards.h).
void score_local_partition(void* arg, Oid relid) {
  const ScoreCall* c = (const ScoreCall*)arg;
  RelInfo* rel = open_rel_info(relid);
  Form_pg_attribute key_attr = find_column(rel, c->key);
  if (key_attr == nullptr) report_missing_column(rel, c->key);
  ScoringLayout* layout = scoring_layout(rel, c->m->feature_names,
                                         get_call_cache(c->fcinfo)->categories, nullptr, nullptr,
                                         nullptr);
  score_relation(c, rel, key_attr, layout);
}

Datum predict_table(FunctionCallInfo fcinfo, OutputMode mode) {
  const gbdt::Model* m = get_model_arg(fcinfo, 0);
  Oid relid = PG_GETARG_OID(1);
  char* key = text_to_cstring(PG_GETARG_TEXT_PP(2));

  RelInfo* rel = open_rel_info(relid);
  Form_pg_attribute key_attr = find_column(rel, key);
  if (key_attr == nullptr) report_missing_column(rel, key);
  ScoringLayout* layout =
      scoring_layout(rel, m->feature_names, get_call_cache(fcinfo)->categories, nullptr, nullptr,
                     nullptr);

  // one prediction column cannot hold several quantiles.
  if (!gbdt::objective_info(m->objective).multiclass && m->num_output_group > 1)
    ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
                    errmsg("gbdt_predict_table: the model predicts %d quantiles (a quantile_alpha list)",
                           m->num_output_group),
                    errhint("Use gbdt_predict_quantiles(model, row) for one value per quantile.")));
  InitMaterializedSRF(fcinfo, 0);
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  ScoreCall call{fcinfo, m, key, mode};
  // A partitioned table of postgres_fdw partitions: scored where its rows
  // live (gbdt_predict_proba_table reads them here).
  const Oid key_type = key_attr->atttypid;
  ShardScoring* sc =
      mode == OutputMode::kProba
          ? nullptr
          : shard_scoring_plan(rel, m, layout, key, predict_key_refusal(key, key_type));
  if (sc != nullptr) {
    PredictShardsOut out{rsinfo->setResult, rsinfo->setDesc, key_type,
                         mode == OutputMode::kClass, mode == OutputMode::kValueText};
    predict_on_shards(sc, &out, score_local_partition, &call);
    return (Datum)0;
  }
  score_relation(&call, rel, key_attr, layout);
  return (Datum)0;
}

void score_relation(const ScoreCall* c, RelInfo* rel, Form_pg_attribute key_attr,
                    ScoringLayout* layout) {
  FunctionCallInfo fcinfo = c->fcinfo;
  const gbdt::Model* m = c->m;
  const char* key = c->key;
  const OutputMode mode = c->mode;
  ReturnSetInfo* rsinfo = (ReturnSetInfo*)fcinfo->resultinfo;
  int nf = m->n_features();
  const int ncols = layout->ncols + 1;
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * ncols);
  cols[0] = ReaderColumn{key, ValKind::kNone, false, false};
  memcpy(cols + 1, layout->cols, sizeof(ReaderColumn) * layout->ncols);

  Sink* s = (Sink*)palloc0(sizeof(Sink));
  s->model = m;
  s->layout = layout;
  s->nf = nf;
  s->K = m->num_output_group > 0 ? m->num_output_group : 1;
  s->store = rsinfo->setResult;
  s->desc = rsinfo->setDesc;
  s->key_conv = KeyConv::kText;
  s->mode = mode;
  if (mode == OutputMode::kClass || mode == OutputMode::kProba) {
    const int classes = gbdt::objective_info(m->objective).binary ? 2 : s->K;
    s->class_names = (Datum*)palloc(sizeof(Datum) * classes);
    for (int k = 0; k < classes; k++) s->class_names[k] = class_name_datum(m, k);
  }

  DirectPlan plan;
  memset(&plan, 0, sizeof(plan));
  // Array columns (several features per column) take the reader's path.
  bool direct = !layout->has_arrays && plan_direct(rel, m, cols + 1, key_attr, s, &plan);
  bool with_raw = direct && plan.fixed;
  s->decode_first = -1;
  if (with_raw) {
    s->raw = raw_rows_of(plan.layout, nullptr, nullptr);
    s->raw_stride = plan.layout.stride;
    const int first = gbdt::raw_shape(s->raw, nf).contig_first;
    if (first >= 0 && nf >= kDecodeHereFeatures) {
      s->decode_first = first;
      with_raw = false;  // no raw copies: the batches hold x only
      s->raw_stride = 0;
    }
  }
  s->cap = predict_table_batch_rows(nf, with_raw ? s->raw_stride : 0, s->K);
  if (!direct) s->key_conv = KeyConv::kText;  // the reader hands (key)::text
  init_batch(s, &s->b[0], with_raw, CurrentMemoryContext);
  init_batch(s, &s->b[1], with_raw, CurrentMemoryContext);

  int nthread = scoring_threads();
  gbdt::ModelCacheEntry* entry = get_call_cache(fcinfo)->shared;  // pinned by the call site
  run_engine([&] {
    // The trees laid out once per decoded model, not once per call.
    s->pred = new gbdt::BatchPredictor(*m, nthread, model_cache_forest(entry, *m));
    s->pred->set_cancel(cancel_callback());
  });

  PG_TRY();
  {
    if (direct)
      read_direct(rel, s, &plan);
    else
      read_relation(rel, cols, ncols, reader_row, s, true);
    finish_all(s);
  }
  PG_CATCH();
  {
    drop_predictor(s->pred);  // stops and joins the workers before any buffer goes away
    s->pred = nullptr;
    PG_RE_THROW();
  }
  PG_END_TRY();
  drop_predictor(s->pred);
  s->pred = nullptr;
  MemoryContextDelete(s->b[0].cxt);
  MemoryContextDelete(s->b[1].cxt);
}

}  // namespace
}  // namespace gbdt_pg
