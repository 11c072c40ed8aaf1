// The partition parameters of gbdt_train's params jsonb.
#include "train/train_partition_args.h"

#include <cstring>

extern "C" {
#include "utils/fmgrprotos.h"
}

namespace gbdt_pg {
namespace {

JsonbValue* find_key(Jsonb* params, const char* key) {
  if (params == nullptr || !JB_ROOT_IS_OBJECT(params) || JB_ROOT_IS_SCALAR(params)) return nullptr;
  return getKeyJsonValueFromContainer(&params->root, key, (int)strlen(key), nullptr);
}

[[noreturn]] void bad_partition_by() {
  ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                  errmsg("parameter \"partition_by\" must be a column name or a non-empty array "
                         "of column names"),
                  errhint("Example: '{\"partition_by\": \"store\"}' or "
                          "'{\"partition_by\": [\"store\", \"plan\"]}'.")));
}

void add_column(PartitionArgs* out, const char* s, int len) {
  if (len == 0) bad_partition_by();
  if (out->ncols >= (int)gbdt::kMaxPartitionColumns)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("parameter \"partition_by\" names more than %d columns",
                           (int)gbdt::kMaxPartitionColumns)));
  char* name = pnstrdup(s, len);
  for (int i = 0; i < out->ncols; i++)
    if (strcmp(out->cols[i], name) == 0)
      ereport(ERROR, (errcode(ERRCODE_DUPLICATE_COLUMN),
                      errmsg("parameter \"partition_by\" names column \"%s\" more than once", name)));
  out->cols[out->ncols++] = name;
}

void read_partition_by(const JsonbValue* v, PartitionArgs* out) {
  out->cols = (const char**)palloc0(sizeof(char*) * gbdt::kMaxPartitionColumns);
  if (v->type == jbvString) {
    add_column(out, v->val.string.val, v->val.string.len);
    return;
  }
  if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data)) bad_partition_by();
  JsonbIterator* it = JsonbIteratorInit(v->val.binary.data);
  JsonbValue e;
  JsonbIteratorToken tok;
  while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE) {
    if (tok != WJB_ELEM) continue;
    if (e.type != jbvString) bad_partition_by();
    add_column(out, e.val.string.val, e.val.string.len);
  }
  if (out->ncols == 0) bad_partition_by();
}

Jsonb* without_key(Jsonb* params, const char* key) {
  return DatumGetJsonbP(DirectFunctionCall2(jsonb_delete, JsonbPGetDatum(params),
                                            CStringGetTextDatum(key)));
}

}  // namespace

bool params_have_key(Jsonb* params, const char* key) { return find_key(params, key) != nullptr; }

void partition_args_from_params(Jsonb* params, PartitionArgs* out) {
  const JsonbValue* by = find_key(params, "partition_by");
  if (by == nullptr) bad_partition_by();
  read_partition_by(by, out);
  if (const JsonbValue* fb = find_key(params, "partition_fallback")) {
    const char* s = fb->type == jbvString ? pnstrdup(fb->val.string.val, fb->val.string.len) : "";
    if (strcmp(s, "error") == 0)
      out->fallback = gbdt::PartitionFallback::kError;
    else if (strcmp(s, "null") == 0)
      out->fallback = gbdt::PartitionFallback::kNull;
    else if (strcmp(s, "global") == 0)
      out->fallback = gbdt::PartitionFallback::kGlobal;
    else
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("parameter \"partition_fallback\" must be \"error\", \"null\" or "
                             "\"global\"")));
  }
  if (const JsonbValue* mg = find_key(params, "partition_max_groups")) {
    bool ok = mg->type == jbvNumeric;
    int64 n = 0;
    if (ok) {
      const char* s = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(mg->val.numeric)));
      char* end = nullptr;
      n = strtoll(s, &end, 10);
      ok = end != s && *end == '\0' && n >= 1 && n <= (int64)gbdt::kMaxPartitionGroups;
    }
    if (!ok)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("parameter \"partition_max_groups\" must be an integer from 1 to %d",
                             (int)gbdt::kMaxPartitionGroups)));
    out->max_groups = (int)n;
  }
  Jsonb* rest = without_key(params, "partition_by");
  rest = without_key(rest, "partition_fallback");
  out->rest = without_key(rest, "partition_max_groups");
}

}  // namespace gbdt_pg
