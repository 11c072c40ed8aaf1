#include "train/train_groups.h"

#include <string>
#include <unordered_map>

#include "guard.h"

namespace gbdt_pg {

void check_group_column(const RelInfo* rel, const char* group, const char* target,
                        bool features_given, FeatureSet* fs) {
  if (find_column(rel, group) == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("group_column \"%s\" is not a column of relation \"%s\"", group,
                           rel->name),
                    errhint("group_column names the column that identifies the query of each "
                            "row.")));
  if (strcmp(group, target) == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("group_column \"%s\" is the target column", group)));
  remove_role_column(rel, target, group, "group_column", features_given, fs);
}

struct GroupCoder {
  char* column;  // palloc'd in the coder's context
  std::unordered_map<std::string, uint32_t> codes;
  std::vector<uint32_t> rows;
};

namespace {
void delete_coder(void* arg) {
  GroupCoder** slot = (GroupCoder**)arg;
  delete *slot;
  *slot = nullptr;
}
}  // namespace

GroupCoder* group_coder_create(MemoryContext cxt, const char* column) {
  GroupCoder** slot = (GroupCoder**)MemoryContextAllocZero(cxt, sizeof(GroupCoder*));
  MemoryContextCallback* cb =
      (MemoryContextCallback*)MemoryContextAllocZero(cxt, sizeof(MemoryContextCallback));
  char* name = MemoryContextStrdup(cxt, column);
  run_engine([&] { *slot = new GroupCoder(); });
  (*slot)->column = name;
  cb->func = delete_coder;
  cb->arg = slot;
  MemoryContextRegisterResetCallback(cxt, cb);
  return *slot;
}

void group_coder_add(GroupCoder* c, Datum value, bool isnull) {
  if (isnull)
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("group_column \"%s\" is NULL in row %zu: every row needs a query group",
                           c->column, c->rows.size() + 1),
                    errhint("Filter the rows with a view (WHERE %s IS NOT NULL) or give them a "
                            "group.",
                            c->column)));
  text* t = (text*)pg_detoast_datum_packed((struct varlena*)DatumGetPointer(value));
  const char* p = VARDATA_ANY(t);
  const size_t len = VARSIZE_ANY_EXHDR(t);
  run_engine([&] {
    auto it = c->codes.emplace(std::string(p, len), (uint32_t)c->codes.size()).first;
    c->rows.push_back(it->second);
  });
}

const std::vector<uint32_t>& group_coder_codes(const GroupCoder* c) { return c->rows; }

size_t group_coder_rows(const GroupCoder* c) { return c->rows.size(); }

void group_coder_check_weights(const GroupCoder* c, const float* weights,
                               const char* weight_column) {
  if (weights == nullptr) return;
  const size_t n = c->rows.size();
  size_t bad_row = n, first_row = 0;
  run_engine([&] {
    std::vector<size_t> first(c->codes.size(), n);
    for (size_t r = 0; r < n && bad_row == n; ++r) {
      const uint32_t g = c->rows[r];
      if (first[g] == n)
        first[g] = r;
      else if (weights[r] != weights[first[g]]) {
        bad_row = r;
        first_row = first[g];
      }
    }
  });
  if (bad_row == n) return;
  const uint32_t code = c->rows[bad_row];
  const char* name = "";
  for (const auto& kv : c->codes)
    if (kv.second == code) name = kv.first.c_str();
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("weight column \"%s\" gives query group %s = '%s' two weights, %g and %g",
                         weight_column, c->column, name, (double)weights[first_row],
                         (double)weights[bad_row]),
                  errdetail("Ranking objectives weigh whole query groups (one weight per group, "
                            "as XGBoost): every row of a group needs the same weight."),
                  errhint("Give each row its group's weight, for example "
                          "max(%s) OVER (PARTITION BY %s).",
                          weight_column, c->column)));
}

void group_coder_take(GroupCoder* c, std::vector<uint32_t>* out) {
  run_engine([&] {
    out->swap(c->rows);
    c->rows.clear();
  });
}

}  // namespace gbdt_pg
