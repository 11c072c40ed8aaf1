#include "distributed/shard_wait.h"

#include <cstdint>

extern "C" {
#include "utils/wait_event.h"
}

namespace gbdt_pg {

bool shard_wait_sockets(const pgsocket* socks, const int* events, int n, long timeout_ms,
                        WaitEvent* occurred, int* ready, bool* pm_death, char* err,
                        size_t errlen) noexcept {
  MemoryContext cxt = CurrentMemoryContext;
  WaitEventSet* volatile set = nullptr;
  volatile bool ok = true;
  *pm_death = false;
  for (int i = 0; i < n; i++) ready[i] = 0;
  // An ERROR resets the hold-off count, so it is restored explicitly.
  const uint32 holdoff = InterruptHoldoffCount;
  HOLD_INTERRUPTS();
  PG_TRY();
  {
    set = gbdt_create_wait_event_set(n + 2);
    AddWaitEventToSet(set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, nullptr);
    AddWaitEventToSet(set, WL_POSTMASTER_DEATH, PGINVALID_SOCKET, nullptr, nullptr);
    for (int i = 0; i < n; i++)
      AddWaitEventToSet(set, events[i], socks[i], nullptr, (void*)(intptr_t)(i + 1));
    int k = WaitEventSetWait(set, timeout_ms, occurred, n + 2, PG_WAIT_EXTENSION);
    for (int j = 0; j < k; j++) {
      if (occurred[j].events & WL_LATCH_SET) ResetLatch(MyLatch);
      if (occurred[j].events & WL_POSTMASTER_DEATH) *pm_death = true;
      intptr_t who = (intptr_t)occurred[j].user_data;
      if (who > 0 && who <= n) ready[who - 1] |= (int)occurred[j].events;
    }
    FreeWaitEventSet(set);
    set = nullptr;
  }
  PG_CATCH();
  {
    MemoryContextSwitchTo(cxt);
    ErrorData* e = CopyErrorData();
    FlushErrorState();
    strlcpy(err, e->message != nullptr ? e->message : "unknown error", errlen);
    FreeErrorData(e);
    if (set != nullptr) FreeWaitEventSet(set);
    ok = false;
  }
  PG_END_TRY();
  InterruptHoldoffCount = holdoff;
  return ok;
}

}  // namespace gbdt_pg
