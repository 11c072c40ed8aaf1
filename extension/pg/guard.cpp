#include "guard.h"

#include <cstring>

#include "gbdt/threads.h"

extern "C" {
#include "storage/ipc.h"
}

namespace gbdt_pg {

void set_engine_error(EngineError* e, EngineErrKind kind, const char* msg) noexcept {
  e->kind = kind;
  if (msg == nullptr) msg = "";
  size_t n = std::strlen(msg);
  const size_t cap = sizeof(e->message) - 1;
  if (n > cap) {
    n = cap;
    // Do not cut a UTF-8 sequence in half.
    while (n > 0 && (((unsigned char)msg[n]) & 0xC0) == 0x80) n--;
  }
  std::memcpy(e->message, msg, n);
  e->message[n] = '\0';
}

void raise_engine_error(const EngineError* e, const ErrorStyle& style) {
  const char* prefix = style.prefix ? style.prefix : "";
  switch (e->kind) {
    case EngineErrKind::kNone:
      return;
    case EngineErrKind::kInvalidInput: {
      // A message's lines after the first are its errdetail (the unknown
      // parameter's list of allowed names).
      const char* nl = std::strchr(e->message, '\n');
      if (nl != nullptr)
        ereport(ERROR, (errcode(style.invalid_code),
                        errmsg("%s%.*s", prefix, (int)(nl - e->message), e->message),
                        errdetail("%s", nl + 1)));
      ereport(ERROR, (errcode(style.invalid_code), errmsg("%s%s", prefix, e->message)));
      break;
    }
    case EngineErrKind::kCorruptModel:
      ereport(ERROR, (errcode(style.corrupt_code), errmsg("%s%s", prefix, e->message)));
      break;
    case EngineErrKind::kResource:
      ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_RESOURCES), errmsg("%s%s", prefix, e->message)));
      break;
    case EngineErrKind::kNoMemory:
      ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("%sout of memory", prefix),
                      errdetail("The gbdt engine could not allocate memory.")));
      break;
    case EngineErrKind::kCancelled:
      CHECK_FOR_INTERRUPTS();
      ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED), errmsg("gbdt operation cancelled")));
      break;
    case EngineErrKind::kShard:
      ereport(ERROR, (errcode(ERRCODE_CONNECTION_EXCEPTION), errmsg("%s%s", prefix, e->message)));
      break;
    case EngineErrKind::kInternal:
      ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                      errmsg("%sgbdt internal error: %s", prefix, e->message)));
      break;
  }
}

namespace {
bool exit_hook_registered = false;

void stop_workers_at_exit(int code, Datum arg) { gbdt::stop_all_worker_groups(); }
}  // namespace

void ensure_worker_exit_hook() {
  if (exit_hook_registered) return;
  // Only in a process running queries (after InitPostgres), never in the
  // postmaster: the callback must run before ShutdownPostgres's.
  if (!IsUnderPostmaster && IsPostmasterEnvironment) return;
  before_shmem_exit(stop_workers_at_exit, (Datum)0);
  exit_hook_registered = true;
}

bool interrupt_pending() noexcept { return QueryCancelPending || ProcDiePending; }

void* context_alloc_nothrow(MemoryContext cxt, size_t size) {
  if (size == 0) size = 1;
  if (!AllocHugeSizeIsValid(size)) throw std::bad_alloc();
  void* p = MemoryContextAllocExtended(cxt, size, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

char* pstrdup_nothrow(const std::string& s) {
  char* p = (char*)context_alloc_nothrow(CurrentMemoryContext, s.size() + 1);
  std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

struct varlena* bytes_to_varlena_nothrow(const std::vector<uint8_t>& bytes) {
  if (bytes.size() > (size_t)(MaxAllocSize - VARHDRSZ))
    throw gbdt::ResourceError("serialized model of " + std::to_string(bytes.size()) +
                              " bytes exceeds the 1 GB limit of a PostgreSQL value");
  size_t total = bytes.size() + VARHDRSZ;
  struct varlena* v = (struct varlena*)context_alloc_nothrow(CurrentMemoryContext, total);
  SET_VARSIZE(v, total);
  if (!bytes.empty()) std::memcpy(VARDATA(v), bytes.data(), bytes.size());
  return v;
}

}  // namespace gbdt_pg
