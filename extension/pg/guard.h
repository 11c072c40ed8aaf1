// The error boundary between PostgreSQL and the engine.
//
// run_engine(f) runs engine code f inside try/catch.  A C++ exception is
// converted into a plain error record (kind + message in a fixed buffer);
// only after every C++ object created by f has been destroyed does the
// record become an ereport(ERROR).  So no exception ever reaches
// PostgreSQL and no longjmp ever crosses a frame that owns C++ resources.
//
// Rules for f: capture by reference only; call no PostgreSQL function that
// can ereport(ERROR) (use the *_nothrow helpers below for memory that must
// outlive f).
#pragma once
#include <cstddef>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "pg_includes.h"

#include "gbdt/errors.h"

namespace gbdt_pg {

enum class EngineErrKind : int {
  kNone = 0,
  kInvalidInput,
  kCorruptModel,
  kResource,
  kNoMemory,
  kCancelled,
  kShard,  // a shard server of a distributed training failed
  kInternal,
};

struct EngineError {
  EngineErrKind kind;
  char message[2048];
};

// Stores kind and (truncated, UTF-8 safe) message.  Never throws.
void set_engine_error(EngineError* e, EngineErrKind kind, const char* msg) noexcept;

// Registers (once per backend) the exit callback that stops and joins every
// live engine worker group (gbdt::stop_all_worker_groups) when the backend
// exits without unwinding: FATAL (pg_terminate_backend, client gone, fast
// shutdown, recovery conflict) runs before_shmem_exit callbacks, the ones
// registered after InitPostgres before ShutdownPostgres aborts the
// transaction and frees portal memory, so no worker reads freed memory.
// Called by catch_engine, i.e. before any engine code runs.
void ensure_worker_exit_hook();

template <class F>
void catch_engine(EngineError* e, F&& f) noexcept {
  ensure_worker_exit_hook();
  e->kind = EngineErrKind::kNone;
  e->message[0] = '\0';
  try {
    f();
  } catch (const gbdt::InvalidInput& ex) {
    set_engine_error(e, EngineErrKind::kInvalidInput, ex.what());
  } catch (const gbdt::CorruptModel& ex) {
    set_engine_error(e, EngineErrKind::kCorruptModel, ex.what());
  } catch (const gbdt::ResourceError& ex) {
    set_engine_error(e, EngineErrKind::kResource, ex.what());
  } catch (const gbdt::ShardError& ex) {
    set_engine_error(e, EngineErrKind::kShard, ex.what());
  } catch (const gbdt::Cancelled&) {
    set_engine_error(e, EngineErrKind::kCancelled, "gbdt operation cancelled");
  } catch (const std::bad_alloc&) {
    set_engine_error(e, EngineErrKind::kNoMemory, "out of memory");
  } catch (const std::exception& ex) {
    set_engine_error(e, EngineErrKind::kInternal, ex.what());
  } catch (...) {
    set_engine_error(e, EngineErrKind::kInternal, "unknown exception");
  }
}

// How an engine error maps onto a PostgreSQL error.
struct ErrorStyle {
  int invalid_code;      // for gbdt::InvalidInput
  int corrupt_code;      // for gbdt::CorruptModel
  const char* prefix;    // prepended to the message, may be NULL
};

inline ErrorStyle default_style() {
  return ErrorStyle{ERRCODE_INVALID_PARAMETER_VALUE, ERRCODE_DATA_CORRUPTED, nullptr};
}

// Raises the error described by *e (does not return when e->kind != kNone).
// Cancelled: CHECK_FOR_INTERRUPTS() first, so the real cancel / timeout /
// termination error is raised; if nothing is pending, ERRCODE_QUERY_CANCELED.
void raise_engine_error(const EngineError* e, const ErrorStyle& style);

template <class F>
void run_engine(F&& f, const ErrorStyle& style = default_style()) {
  EngineError err;
  catch_engine(&err, std::forward<F>(f));
  if (err.kind != EngineErrKind::kNone) raise_engine_error(&err, style);
}

// The engine's cancel callback: reads PostgreSQL's pending-interrupt flags.
// Never throws or longjmps.
bool interrupt_pending() noexcept;
// interrupt_pending as a gbdt::CancelFn.
inline gbdt::CancelFn cancel_callback() { return [] { return interrupt_pending(); }; }

// Allocation in a memory context that never longjmps: returns the memory
// or throws std::bad_alloc (so it may be used inside run_engine).  The
// memory belongs to the context: an ERROR later frees it with the context.
void* context_alloc_nothrow(MemoryContext cxt, size_t size);
// NUL-terminated copy of s in CurrentMemoryContext (throws std::bad_alloc).
char* pstrdup_nothrow(const std::string& s);
// A varlena (bytea-like) holding bytes, in CurrentMemoryContext.  Throws
// gbdt::ResourceError when it exceeds the varlena size limit.
struct varlena* bytes_to_varlena_nothrow(const std::vector<uint8_t>& bytes);

}  // namespace gbdt_pg
