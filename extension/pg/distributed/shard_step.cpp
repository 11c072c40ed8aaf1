// gbdt_shard_step(token text, step text, payload bytea) -> bytea
//
// The shard side of training across servers (gbdt/distributed.h), called
// by the coordinator's sessions, one statement per step:
//   open   decodes a gbdt::ShardOpenRequest, reads that relation of this
//          server with the caller's rights (shard_rows.h), opens a
//          gbdt::ShardWorker on its rows and keeps it under `token`;
//          replies with the worker's description (row count, ranges).
//   close  frees the token's worker (nothing to free is fine); empty reply.
//   other  hands the step to the token's worker; replies with its answer.
// The workers live in this backend between statements (not in a memory
// context: a step's error does not free them; the coordinator closes them,
// and they end with the backend).
#include <cstring>
#include <memory>
#include <string>

#include "distributed/shard_rows.h"
#include "guard.h"
#include "module.h"

#include "gbdt/distributed.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_shard_step);
}

namespace gbdt_pg {
namespace {

constexpr int kMaxOpenTrainings = 8;  // per backend
constexpr int kTokenLength = 32;

struct OpenTraining {
  char token[kTokenLength + 1];
  gbdt::ShardWorker* worker;  // null: the slot is free
};
OpenTraining open_trainings[kMaxOpenTrainings];

void check_token(const char* token) {
  bool ok = strlen(token) == (size_t)kTokenLength;
  for (int i = 0; ok && i < kTokenLength; i++)
    ok = (token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f');
  if (!ok)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("gbdt shard training token \"%.64s\" is not 32 lowercase hexadecimal "
                           "characters",
                           token)));
}

OpenTraining* find_training(const char* token) {
  for (OpenTraining& t : open_trainings)
    if (t.worker != nullptr && strcmp(t.token, token) == 0) return &t;
  return nullptr;
}

// A bytea of `bytes`, in CurrentMemoryContext (engine side: never longjmps).
bytea* reply_nothrow(const std::string& bytes) {
  if (bytes.size() > (size_t)(MaxAllocSize - VARHDRSZ))
    throw gbdt::ResourceError("a gbdt shard reply of " + std::to_string(bytes.size()) +
                              " bytes exceeds the 1 GB limit of a PostgreSQL value");
  bytea* v = (bytea*)context_alloc_nothrow(CurrentMemoryContext, bytes.size() + VARHDRSZ);
  SET_VARSIZE(v, bytes.size() + VARHDRSZ);
  if (!bytes.empty()) memcpy(VARDATA(v), bytes.data(), bytes.size());
  return v;
}

// The request's names as palloc'd strings (decoded by the engine).
struct OpenNames {
  char* relation;
  char* target;
  char* weight;  // null: unweighted
  int nf;
  const char** features;
  int nthread;
};

OpenNames decode_names(const char* payload, size_t len) {
  OpenNames n{};
  run_engine([&] {
    const gbdt::ShardOpenRequest r = gbdt::decode_open_request(std::string(payload, len));
    n.relation = pstrdup_nothrow(r.relation);
    n.target = pstrdup_nothrow(r.target);
    if (!r.weight.empty()) n.weight = pstrdup_nothrow(r.weight);
    n.nf = (int)r.features.size();
    n.features = (const char**)context_alloc_nothrow(CurrentMemoryContext,
                                                     sizeof(char*) * (r.features.size() + 1));
    for (size_t f = 0; f < r.features.size(); f++) n.features[f] = pstrdup_nothrow(r.features[f]);
    n.nthread = r.nthread;
  });
  return n;
}

// The rows read, as one batch of a source that can be read again.
class ShardRowSource : public gbdt::RowBatchSource {
 public:
  explicit ShardRowSource(const ShardRows& rows) : rows_(rows) {}
  double estimated_rows() const override { return (double)rows_.n; }
  void reset() override { delivered_ = false; }
  bool next(gbdt::RowBatch* out) override {
    if (delivered_) return false;
    delivered_ = true;
    out->n_rows = rows_.n;
    out->columns.assign(rows_.cols, rows_.cols + rows_.nf);
    out->labels = rows_.labels;
    out->roles.clear();
    if (rows_.weights != nullptr) out->roles.push_back(rows_.weights);
    return true;
  }
  bool can_rescan() const override { return true; }

 private:
  const ShardRows& rows_;
  bool delivered_ = false;
};

bytea* shard_open(const char* token, const char* payload, size_t len) {
  if (find_training(token) != nullptr)
    ereport(ERROR, (errcode(ERRCODE_DUPLICATE_OBJECT),
                    errmsg("a gbdt shard training with this token is already open in this "
                           "session")));
  OpenTraining* slot = nullptr;
  for (OpenTraining& t : open_trainings)
    if (t.worker == nullptr) { slot = &t; break; }
  if (slot == nullptr)
    ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                    errmsg("this session already has %d gbdt shard trainings open",
                           kMaxOpenTrainings),
                    errhint("Close one with step 'close' first.")));
  const OpenNames names = decode_names(payload, len);
  MemoryContext cxt =
      AllocSetContextCreate(CurrentMemoryContext, "gbdt shard rows", ALLOCSET_DEFAULT_SIZES);
  ShardRows rows;
  read_shard_rows(names.relation, names.target, names.weight, names.features, names.nf, cxt,
                  &rows);
  const int nthread = capped_threads(names.nthread, "nthread");
  bytea* reply = nullptr;
  const double memory_limit = max_memory_bytes();
  run_engine([&] {
    gbdt::ShardOpenRequest r;
    r.relation = names.relation;
    r.target = names.target;
    if (names.weight != nullptr) r.weight = names.weight;
    r.features.assign(names.features, names.features + names.nf);
    r.nthread = nthread;
    ShardRowSource src(rows);
    std::unique_ptr<gbdt::ShardWorker> worker =
        gbdt::open_shard_worker(src, r, cancel_callback(), rows.skipped, memory_limit);
    reply = reply_nothrow(worker->describe());
    memcpy(slot->token, token, kTokenLength + 1);
    slot->worker = worker.release();
  });
  MemoryContextDelete(cxt);  // the worker keeps its own copy of the rows
  return reply;
}

void shard_close(const char* token) {
  OpenTraining* t = find_training(token);
  if (t == nullptr) return;
  gbdt::ShardWorker* worker = t->worker;
  t->worker = nullptr;
  t->token[0] = '\0';
  run_engine([&] { delete worker; });
}

bytea* shard_call(const char* token, const char* step, const char* payload, size_t len) {
  OpenTraining* t = find_training(token);
  if (t == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
                    errmsg("no open gbdt shard training with this token in this session")));
  bytea* reply = nullptr;
  run_engine([&] {
    reply = reply_nothrow(t->worker->step(step, std::string(payload, len), cancel_callback()));
  });
  return reply;
}

}  // namespace
}  // namespace gbdt_pg

using namespace gbdt_pg;

Datum gbdt_shard_step(PG_FUNCTION_ARGS) {
  char* token = text_to_cstring(PG_GETARG_TEXT_PP(0));
  check_token(token);
  char* step = text_to_cstring(PG_GETARG_TEXT_PP(1));
  bytea* payload = PG_GETARG_BYTEA_PP(2);
  const char* data = VARDATA_ANY(payload);
  const size_t len = VARSIZE_ANY_EXHDR(payload);
  if (strcmp(step, "open") == 0) PG_RETURN_BYTEA_P(shard_open(token, data, len));
  if (strcmp(step, "close") == 0) {
    shard_close(token);
    bytea* empty = (bytea*)palloc(VARHDRSZ);
    SET_VARSIZE(empty, VARHDRSZ);
    PG_RETURN_BYTEA_P(empty);
  }
  PG_RETURN_BYTEA_P(shard_call(token, step, data, len));
}
