#include "train/train_data.h"

#include "settings.h"
#include "module.h"
#include "gbdt/train.h"

namespace gbdt_pg {

char* format_bytes(double bytes) {
  if (bytes < 10.0 * 1024) return psprintf("%.0f bytes", bytes);
  if (bytes < 10.0 * 1024 * 1024) return psprintf("%.0f kB", bytes / 1024);
  if (bytes < 10.0 * 1024 * 1024 * 1024) return psprintf("%.0f MB", bytes / (1024.0 * 1024));
  return psprintf("%.1f GB", bytes / (1024.0 * 1024 * 1024));
}

double training_bytes_estimate(double rows, int nfeatures, double float_rows,
                               const MemoryShape& ms) {
  gbdt::TrainShape t;
  t.n_rows = rows > 0 ? (size_t)rows : 0;
  t.n_features = nfeatures;
  t.hist_bins = (size_t)nfeatures * (size_t)(ms.max_bin + 1);
  t.num_class = ms.num_class;
  t.output_backends = ms.quantiles;
  t.nthread = ms.nthread;
  t.max_depth = ms.max_depth;
  t.validation_fraction = ms.validation_fraction;
  t.subsample = ms.subsample;
  const double train = gbdt::estimate_training_memory(t).minimum();
  const double load = rows * (double)nfeatures + rows * 4.0 + float_rows * (double)nfeatures * 4.0;
  return train > load ? train : load;
}

void check_memory_estimate(double rows, int nfeatures, double float_rows, bool at_least,
                           const MemoryShape& ms) {
  double need = training_bytes_estimate(rows, nfeatures, float_rows, ms);
  double limit = max_memory_bytes();
  if (need <= limit) return;
  ereport(ERROR,
          (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
           at_least
               ? errmsg("gbdt training needs more than gbdt.max_memory = %s: the estimate "
                        "already exceeds it after reading %.0f rows of %d features (%s)",
                        format_bytes(limit), rows, nfeatures, format_bytes(need))
               : errmsg("gbdt training needs an estimated %s of memory (%.0f rows x %d "
                        "features%s), more than gbdt.max_memory = %s",
                        format_bytes(need), rows, nfeatures,
                        ms.num_class <= 1 ? ""
                        : ms.quantiles    ? psprintf(" x %d quantiles of quantile_alpha", ms.num_class)
                                          : psprintf(" x %d classes", ms.num_class),
                        format_bytes(limit)),
           ms.quantiles
               ? errhint("Train on a sample of the rows, on fewer features or with fewer "
                         "quantiles in quantile_alpha, or ask a superuser for a higher "
                         "gbdt.max_memory.")
               : errhint("Train on a sample of the rows or on fewer features (or classes), or "
                         "ask a superuser for a higher gbdt.max_memory.")));
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
             errhint("Supported types are " GBDT_SUPPORTED_TYPES ".")));
  return k;
}

}  // namespace gbdt_pg
