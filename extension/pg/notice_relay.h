// NOTICEs sent from inside engine code (a callback the engine calls on the
// backend's thread while C++ frames that own resources are live).
//
// ereport(NOTICE) can raise an error after all: errfinish checks for
// interrupts (a pending cancel becomes an ERROR, a termination a FATAL
// exit), and out of memory is an ERROR.  Neither may happen inside the
// engine's frames.  NoticeRelay::emit holds interrupts around the ereport
// (the engine's cancel poll sees them and unwinds first; the glue processes
// them after) and runs it under PG_TRY in a frame that owns no C++ object;
// any other error is copied out and flushed there, emit returns false (the
// caller then throws a C++ exception that unwinds the engine), and
// rethrow() re-raises the very error once every C++ frame is gone.
#pragma once

#include "pg_includes.h"

namespace gbdt_pg {

class NoticeRelay {
 public:
  // One NOTICE with text msg.  False when it raised an error (kept for
  // rethrow; later calls then do nothing and return false).  Never throws
  // or longjmps.
  bool emit(const char* msg) noexcept;
  bool emit_n(const char* msg, int len) noexcept;  // the first len bytes of msg
  // Each line of text as one NOTICE (empty lines skipped).
  bool emit_lines(const char* text) noexcept;
  bool failed() const { return error_ != nullptr; }
  // Re-raises the kept error, if any (call after the engine's frames are
  // gone).
  void rethrow();

 private:
  ErrorData* error_ = nullptr;
};

}  // namespace gbdt_pg
