// One wait on many shard sockets at once, safe inside engine code: the
// WaitEventSet (latch, postmaster death, every socket) is made, waited on
// and freed under PG_TRY in a frame that owns no C++ object, with
// interrupts held, so a PostgreSQL error becomes a return value, never a
// longjmp through the engine, and a pending cancel is left for the engine's
// own poll (interrupt_pending) to see.
#pragma once

#include <cstddef>

#include "pg_includes.h"

extern "C" {
#include "storage/latch.h"
}

namespace gbdt_pg {

// Waits up to timeout_ms (>= 0) for socks[i] to become ready for events[i]
// (WL_SOCKET_READABLE / WL_SOCKET_WRITEABLE), for the latch (then reset),
// or for postmaster death.  ready[i] receives the events that occurred on
// socks[i]; *pm_death whether the postmaster died.  occurred is scratch
// space for n + 2 events.  Returns false, with the error's message in err,
// when PostgreSQL raised one.
bool shard_wait_sockets(const pgsocket* socks, const int* events, int n, long timeout_ms,
                        WaitEvent* occurred, int* ready, bool* pm_death, char* err,
                        size_t errlen) noexcept;

}  // namespace gbdt_pg
