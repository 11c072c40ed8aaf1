// gbdt engine, public API: the engine's one thread pool (ThreadPool, with
// the signal-blocking spawn of its workers) and the rule of how many
// threads a piece of work gets.  The glue runs its parallel work (category
// lookups, explanations, the raw pass's decoding) on it, never on threads
// of its own.
#pragma once

#include "../../common/thread_pool.h"
#include "../../common/parallel_policy.h"
