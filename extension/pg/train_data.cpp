#include "train_data.h"

#include "gucs.h"
#include "module.h"

namespace gbdt_pg {

char* format_bytes(double bytes) {
  if (bytes < 10.0 * 1024) return psprintf("%.0f bytes", bytes);
  if (bytes < 10.0 * 1024 * 1024) return psprintf("%.0f kB", bytes / 1024);
  if (bytes < 10.0 * 1024 * 1024 * 1024) return psprintf("%.0f MB", bytes / (1024.0 * 1024));
  return psprintf("%.1f GB", bytes / (1024.0 * 1024 * 1024));
}

void check_memory_estimate(double rows, int nfeatures, double float_rows, bool at_least) {
  double need = training_bytes_estimate(rows, nfeatures, float_rows);
  double limit = max_memory_bytes();
  if (need <= limit) return;
  ereport(ERROR,
          (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
           at_least
               ? errmsg("gbdt training needs more than gbdt.max_memory = %s: the estimate "
                        "already exceeds it after reading %.0f rows of %d features (%s)",
                        format_bytes(limit), rows, nfeatures, format_bytes(need))
               : errmsg("gbdt training needs an estimated %s of memory (%.0f rows x %d "
                        "features), more than gbdt.max_memory = %s",
                        format_bytes(need), rows, nfeatures, format_bytes(limit)),
           errhint("Raise gbdt.max_memory, or train on a sample or fewer features.")));
}

ValKind require_numeric_column(const RelInfo* rel, const char* name, const char* role) {
  Form_pg_attribute a = find_column(rel, name);
  if (a == nullptr) report_missing_column(rel, name);
  ValKind k = kind_for_type(a->atttypid);
  if (k == ValKind::kNone)
    ereport(ERROR,
            (errcode(ERRCODE_DATATYPE_MISMATCH),
             errmsg("%s column \"%s\" has unsupported type %s", role, name,
                    format_type_be(a->atttypid)),
             errhint("Supported types are smallint, integer, bigint, real, double precision, "
                     "numeric and boolean.")));
  return k;
}

}  // namespace gbdt_pg
