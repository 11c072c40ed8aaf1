// Rows of a partitioned model routed to their key's sub-model
// (partition_route.h).  Per call site, the state (CallCache::part_extra)
// holds the key columns' positions and output functions for one row type,
// and per sub-model its row mapping and category lookups, built on the
// first row that needs them; it is rebuilt when the model or the row
// type changes, and its C++ objects are freed with the call site's memory.
#include "score/partition_route.h"

#include <string>
#include <vector>

#include "convert.h"
#include "guard.h"
#include "read/category_dict.h"
#include "score/scoring.h"

namespace gbdt_pg {
namespace {

struct PartState {
  uint64_t generation;
  const gbdt::Model* model;
  Oid typid;
  int32 typmod;
  TupleDesc desc;
  Datum* values;
  bool* nulls;
  int ncols;
  int* att;           // per key column: attribute index in the row type
  FmgrInfo* out;      // per key column: the type's output function
  int nmodels;        // sub-models, then the global one
  void** maps;        // per model: row_features_in's slot
  ModelCategories** cats;
  bool* cats_built;
  MemoryContextCallback cleanup;
};

void free_state(PartState* s) {
  for (int i = 0; i < s->nmodels; i++) {
    free_row_features(s->maps[i]);
    s->maps[i] = nullptr;
    delete_model_categories(s->cats[i]);  // noexcept
    s->cats[i] = nullptr;
  }
  s->nmodels = 0;
}

void state_cleanup(void* arg) { free_state((PartState*)arg); }

PartState* build_state(CallCache* c, const gbdt::Model* m, Oid typid, int32 typmod) {
  const gbdt::PartitionedModel& pm = *m->partitions;
  TupleDesc td = lookup_rowtype_tupdesc(typid, typmod);
  MemoryContext old = MemoryContextSwitchTo(c->mcxt);
  PartState* s = (PartState*)palloc0(sizeof(PartState));
  s->generation = c->generation;
  s->model = m;
  s->typid = typid;
  s->typmod = typmod;
  s->desc = CreateTupleDescCopy(td);
  s->values = (Datum*)palloc(sizeof(Datum) * (td->natts + 1));
  s->nulls = (bool*)palloc(sizeof(bool) * (td->natts + 1));
  s->ncols = (int)pm.column_names.size();
  s->att = (int*)palloc(sizeof(int) * s->ncols);
  s->out = (FmgrInfo*)palloc0(sizeof(FmgrInfo) * s->ncols);
  MemoryContextSwitchTo(old);
  for (int k = 0; k < s->ncols; k++) {
    const char* name = model_to_server_string(pm.column_names[k].c_str());
    const char* type = model_to_server_string(pm.column_types[k].c_str());
    s->att[k] = -1;
    for (int i = 0; i < td->natts; i++) {
      Form_pg_attribute a = TupleDescAttr(td, i);
      if (!a->attisdropped && strcmp(NameStr(a->attname), name) == 0) s->att[k] = i;
    }
    if (s->att[k] < 0) {
      ReleaseTupleDesc(td);
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("the row has no column \"%s\", a partition_by key of the model", name)));
    }
    const Oid t = TupleDescAttr(td, s->att[k])->atttypid;
    if (strcmp(format_type_be(t), type) != 0) {
      ReleaseTupleDesc(td);
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("partition_by key column \"%s\" is of type %s, the model was trained "
                             "on type %s",
                             name, format_type_be(t), type),
                      errhint("Cast the column to %s: keys are matched by their text form.", type)));
    }
    Oid fn;
    bool varlena;
    getTypeOutputInfo(t, &fn, &varlena);
    fmgr_info_cxt(fn, &s->out[k], c->mcxt);
  }
  ReleaseTupleDesc(td);
  s->nmodels = (int)pm.groups.size() + 1;
  s->maps = (void**)MemoryContextAllocZero(c->mcxt, sizeof(void*) * s->nmodels);
  s->cats = (ModelCategories**)MemoryContextAllocZero(c->mcxt, sizeof(void*) * s->nmodels);
  s->cats_built = (bool*)MemoryContextAllocZero(c->mcxt, sizeof(bool) * s->nmodels);
  s->cleanup.func = state_cleanup;
  s->cleanup.arg = s;
  MemoryContextRegisterResetCallback(c->mcxt, &s->cleanup);
  return s;
}

}  // namespace

bool partition_route(CallCache* c, const gbdt::Model* m, HeapTupleHeader th, PartitionRoute* out) {
  const gbdt::PartitionedModel& pm = *m->partitions;
  const Oid typid = HeapTupleHeaderGetTypeId(th);
  const int32 typmod = HeapTupleHeaderGetTypMod(th);
  PartState* s = (PartState*)c->part_extra;
  if (s == nullptr || s->generation != c->generation || s->model != m || s->typid != typid ||
      s->typmod != typmod) {
    if (s != nullptr) free_state(s);  // its memory goes with the call site's
    c->part_extra = nullptr;
    s = build_state(c, m, typid, typmod);
    c->part_extra = s;
  }
  HeapTupleData tmp;
  tmp.t_len = HeapTupleHeaderGetDatumLength(th);
  ItemPointerSetInvalid(&tmp.t_self);
  tmp.t_tableOid = InvalidOid;
  tmp.t_data = th;
  heap_deform_tuple(&tmp, s->desc, s->values, s->nulls);
  char** text = (char**)palloc(sizeof(char*) * s->ncols);
  const char** utf8 = (const char**)palloc(sizeof(char*) * s->ncols);
  for (int k = 0; k < s->ncols; k++) {
    const int i = s->att[k];
    text[k] = s->nulls[i] ? nullptr : OutputFunctionCall(&s->out[k], s->values[i]);
    utf8[k] = text[k] != nullptr ? server_to_model_string(text[k]) : nullptr;
  }
  int g = -1;
  run_engine([&] {
    std::vector<std::string> key;
    std::vector<uint8_t> null;
    for (int k = 0; k < s->ncols; k++) {
      key.emplace_back(utf8[k] != nullptr ? utf8[k] : "");
      null.push_back(utf8[k] == nullptr ? 1 : 0);
    }
    g = pm.find(key, null);
  });
  int slot = g;
  if (g < 0) {
    if (pm.fallback == gbdt::PartitionFallback::kNull) return false;
    if (pm.fallback == gbdt::PartitionFallback::kError)
      ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                      errmsg("the partitioned model has no sub-model for key %s", key_message(pm, text)),
                      errhint("Train with \"partition_fallback\": \"global\" (a model of every row "
                              "for unseen keys) or \"null\" (NULL for them).")));
    slot = s->nmodels - 1;
  }
  const gbdt::Model* sub = g >= 0 ? pm.models[g].get() : pm.global.get();
  if (!s->cats_built[slot]) {
    ModelCategories* mc = nullptr;
    run_engine([&] { mc = build_model_categories(*sub); });
    s->cats[slot] = mc;
    s->cats_built[slot] = true;
  }
  out->model = sub;
  out->categories = s->cats[slot];
  out->slot = &s->maps[slot];
  return true;
}

char* key_message(const gbdt::PartitionedModel& pm, char** text) {
  StringInfoData msg;
  initStringInfo(&msg);
  for (size_t k = 0; k < pm.column_names.size(); k++)
    appendStringInfo(&msg, "%s%s=%s", k ? ", " : "", model_to_server_string(pm.column_names[k].c_str()),
                     text[k] != nullptr ? text[k] : "NULL");
  return msg.data;
}

}  // namespace gbdt_pg
