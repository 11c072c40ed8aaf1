#include "read/read_order.h"

#include "pg_includes.h"

extern "C" {
#include "utils/guc.h"
}

namespace gbdt_pg {

int begin_read_in_order() {
  const int level = NewGUCNestLevel();
  set_config_option("max_parallel_workers_per_gather", "0", PGC_USERSET, PGC_S_SESSION,
                    GUC_ACTION_SAVE, true, 0, false);
  set_config_option("synchronize_seqscans", "off", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE,
                    true, 0, false);
  return level;
}

void end_read_in_order(int level) { AtEOXact_GUC(true, level); }

}  // namespace gbdt_pg
