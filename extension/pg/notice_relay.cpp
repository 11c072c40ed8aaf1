#include "notice_relay.h"

#include <cstring>

namespace gbdt_pg {

bool NoticeRelay::emit(const char* msg) noexcept { return emit_n(msg, (int)strlen(msg)); }

bool NoticeRelay::emit_n(const char* msg, int len) noexcept {
  if (error_ != nullptr) return false;
  MemoryContext cxt = CurrentMemoryContext;
  ErrorData* volatile copied = nullptr;
  // Interrupts held: errfinish does not act on a pending cancel or
  // termination here (inside the engine's frames); the engine's own cancel
  // poll sees it, unwinds, and the glue processes it afterwards.  An ERROR
  // resets the hold-off count, so it is restored explicitly.
  const uint32 holdoff = InterruptHoldoffCount;
  HOLD_INTERRUPTS();
  PG_TRY();
  {
    ereport(NOTICE, (errmsg("%.*s", len, msg)));
  }
  PG_CATCH();
  {
    MemoryContextSwitchTo(cxt);
    copied = CopyErrorData();
    FlushErrorState();
  }
  PG_END_TRY();
  InterruptHoldoffCount = holdoff;
  error_ = copied;
  return error_ == nullptr;
}

bool NoticeRelay::emit_lines(const char* text) noexcept {
  if (text == nullptr) return !failed();
  const char* p = text;
  while (*p) {
    const char* e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len > 0 && !emit_n(p, (int)len)) return false;
    if (!e) break;
    p = e + 1;
  }
  return !failed();
}

void NoticeRelay::rethrow() {
  if (error_ == nullptr) return;
  ErrorData* e = error_;
  error_ = nullptr;
  ReThrowError(e);
}

}  // namespace gbdt_pg
