#include "train/train_bounds.h"

#include <cmath>
#include <limits>

#include "guard.h"
#include "train/train_data.h"

namespace gbdt_pg {

ValKind check_upper_bound_column(const RelInfo* rel, const char* column, const char* target,
                                 const char* weight_column, bool features_given, FeatureSet* fs) {
  if (find_column(rel, column) == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("label_upper_bound_column \"%s\" is not a column of relation \"%s\"",
                           column, rel->name),
                    errhint("label_upper_bound_column names the column of the upper bounds of "
                            "the survival times (survival:aft).")));
  if (strcmp(column, target) == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("label_upper_bound_column \"%s\" is the target column", column),
                    errhint("The target is the lower bound; the upper bounds need a column of "
                            "their own (equal to the target for uncensored rows).")));
  if (weight_column != nullptr && strcmp(column, weight_column) == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("label_upper_bound_column \"%s\" is the weight column", column)));
  const ValKind kind = require_numeric_column(rel, column, "label_upper_bound_column");
  remove_role_column(rel, target, column, "label_upper_bound_column", features_given, fs);
  return kind;
}

const char* init_model_param(const gbdt::Model* init, const char* key) {
  const char* out = nullptr;
  for (const auto& kv : init->params)
    if (kv.first == key && !kv.second.empty()) out = pstrdup(kv.second.c_str());
  return out;
}

struct UpperBounds {
  std::vector<float> rows;
};

namespace {
void delete_bounds(void* arg) {
  UpperBounds** slot = (UpperBounds**)arg;
  delete *slot;
  *slot = nullptr;
}
}  // namespace

UpperBounds* upper_bounds_create(MemoryContext cxt) {
  UpperBounds** slot = (UpperBounds**)MemoryContextAllocZero(cxt, sizeof(UpperBounds*));
  MemoryContextCallback* cb =
      (MemoryContextCallback*)MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
  run_engine([&] { *slot = new UpperBounds(); });
  cb->func = delete_bounds;
  cb->arg = slot;
  MemoryContextRegisterResetCallback(cxt, cb);
  return *slot;
}

void upper_bounds_add(UpperBounds* u, float value, bool isnull) {
  const float v = isnull ? std::numeric_limits<float>::infinity() : value;
  run_engine([&] { u->rows.push_back(v); });
}

size_t upper_bounds_rows(const UpperBounds* u) { return u->rows.size(); }

void upper_bounds_take(UpperBounds* u, std::vector<float>* out) {
  run_engine([&] {
    out->swap(u->rows);
    u->rows.clear();
  });
}

}  // namespace gbdt_pg
