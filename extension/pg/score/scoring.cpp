#include "score/scoring.h"

#include "module.h"
#include "read/category_dict.h"

#include <algorithm>

#include "gbdt/train.h"

namespace gbdt_pg {

void model_feature_columns(const RelInfo* rel, const gbdt::Model* m, const ModelCategories* mc,
                           ReaderColumn* cols) {
  int nf = m->n_features();
  for (int f = 0; f < nf; f++) {
    const char* name = model_to_server_string(m->feature_names[f].c_str());
    Form_pg_attribute a = find_column(rel, name);
    if (a == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("relation \"%s\" has no column \"%s\" required by the model",
                             rel->name, name)));
    CategoryColumn* cat = nullptr;
    ValKind k = scoring_column_kind(m, mc, f, a->atttypid, name, &cat);
    cols[f] = ReaderColumn{name, k, false, false, cat};
  }
}

double scalar_from_output(const gbdt::Model* m, const double* o) {
  if (!gbdt::objective_info(m->objective).multiclass) return o[0];
  int K = m->num_output_group;
  int best = 0;
  for (int k = 1; k < K; k++)
    if (o[k] > o[best]) best = k;
  return best < (int)m->class_labels.size() ? m->class_labels[best] : (double)best;
}

size_t batch_rows(int n_features) {
  // About 4 MB of features per batch, between 1024 and 65536 rows.
  size_t rows = (size_t)(4u << 20) / (sizeof(float) * (size_t)(n_features > 0 ? n_features : 1));
  if (rows < 1024) rows = 1024;
  if (rows > 65536) rows = 65536;
  return rows;
}

size_t budget_rows(int K, size_t other_bytes_per_row) {
  size_t budget = (size_t)work_mem * 1024;
  size_t per_row = sizeof(double) * (size_t)(K > 0 ? K : 1) + other_bytes_per_row;
  size_t rows = budget / per_row;
  return rows > 0 ? rows : 1;
}

size_t predict_table_batch_rows(int n_features, size_t raw_stride, int K) {
  size_t per_row = sizeof(float) * (size_t)(n_features > 0 ? n_features : 1) + raw_stride + 64;
  size_t rows = (size_t)(1u << 20) / per_row;
  if (rows < 1024) rows = 1024;
  if (rows > 16384) rows = 16384;
  // Two batches in flight.
  return std::min(rows, std::max<size_t>(1, budget_rows(K, per_row) / 2));
}

// The machine's cores, capped by gbdt.max_threads (no NOTICE).
int scoring_threads() { return capped_threads(0, "threads"); }

const char* model_objective_name(const gbdt::Model* m) { return gbdt::objective_name(m->objective); }

}  // namespace gbdt_pg
