// Limits a superuser sets for every gbdt call of a session (GUCs defined in
// module.cpp): threads and training memory; and where the extension lives.
#pragma once

struct FunctionCallInfoBaseData;

namespace gbdt_pg {

// The schema of the called gbdt function (the extension's), quoted for SQL
// text: where the glue finds the extension's other functions.  An error
// when it is gone.
const char* extension_schema(struct FunctionCallInfoBaseData* fcinfo);

// gbdt.max_threads: the most threads one gbdt call may run (training and
// scoring).  Default: the machine's CPU cores.
int max_threads();

// The thread count to use for a requested `nthread` (0 = all cores):
// capped at gbdt.max_threads.  When an explicit request is lowered, a NOTICE
// says so, naming `param` (e.g. "nthread").  Models do not depend on the
// thread count, so the cap never changes a result.
int capped_threads(int requested, const char* param);

// gbdt.max_memory in bytes: the most memory a training may use.
double max_memory_bytes();

}  // namespace gbdt_pg
