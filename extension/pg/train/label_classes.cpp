#include "train/label_classes.h"

#include <algorithm>
#include <cmath>

#include "gbdt/model.h"

extern "C" {
#include "catalog/pg_type.h"
}

namespace gbdt_pg {

bool is_text_label_type(Oid typid) {
  char category;
  bool preferred;
  get_type_category_preferred(getBaseType(typid), &category, &preferred);
  return category == TYPCATEGORY_STRING || category == TYPCATEGORY_ENUM;
}

namespace {
int cmp_by_bytes(const void* a, const void* b, void* names) {
  char* const* n = (char* const*)names;
  return strcmp(n[*(const int*)a], n[*(const int*)b]);
}
}  // namespace

int* order_names_by_bytes(char* const* names, int k) {
  int* order = (int*)palloc(sizeof(int) * (k > 0 ? k : 1));
  for (int i = 0; i < k; i++) order[i] = i;
  qsort_arg(order, k, sizeof(int), cmp_by_bytes, (void*)names);
  return order;
}

int find_name_by_bytes(char* const* names, const int* by_bytes, int k, const char* s) {
  int lo = 0, hi = k;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    const int c = strcmp(names[by_bytes[mid]], s);
    if (c == 0) return by_bytes[mid];
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return -1;
}

void text_label_classes(const RelInfo* rel, const char* target, LabelClasses* out) {
  const char* col = quote_identifier(target);
  // The type is qualified: this runs under the caller's search path, where
  // a schema listed before pg_catalog could hold a domain named text whose
  // CHECK runs its author's code with the caller's rights.
  char* q = psprintf(
      "SELECT (s.c)::pg_catalog.text AS label FROM (SELECT DISTINCT %s AS c FROM %s WHERE %s IS NOT NULL) s "
      "ORDER BY s.c LIMIT %d",
      col, rel->qualname, col, gbdt::kMaxClasses + 1);
  MemoryContext caller = CurrentMemoryContext;
  if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "gbdt: SPI_connect failed");
  int rc = SPI_execute(q, false, 0);
  if (rc != SPI_OK_SELECT)
    elog(ERROR, "gbdt: reading the classes of \"%s\" failed: %s", target,
         SPI_result_code_string(rc));
  const int k = (int)SPI_processed;
  if (k > gbdt::kMaxClasses)
    ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                    errmsg("target column \"%s\" has more than %d distinct values: too many "
                           "classes (at most %d)",
                           target, gbdt::kMaxClasses, gbdt::kMaxClasses),
                    errhint("A text target is a class label; for a numeric target use a "
                            "numeric column.")));
  MemoryContext spi = MemoryContextSwitchTo(caller);
  out->k = k;
  out->text = true;
  out->names = (char**)palloc(sizeof(char*) * (k > 0 ? k : 1));
  out->model_names = (const char**)palloc(sizeof(char*) * (k > 0 ? k : 1));
  for (int i = 0; i < k; i++) {
    bool isnull;
    Datum d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
    // A user-defined cast to text (CREATE CAST ... WITH FUNCTION) may return
    // NULL for a value that is not NULL: no class label to name.
    if (isnull)
      ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                      errmsg("target column \"%s\" has a value whose cast to text is NULL",
                             target),
                      errhint("Class labels are the text of the target's values: fix the "
                              "cast of type %s to text, or train from a view that casts the "
                              "target to text.",
                              format_type_be(find_column(rel, target)->atttypid))));
    out->names[i] = text_to_cstring(DatumGetTextPP(d));
  }
  MemoryContextSwitchTo(spi);
  SPI_finish();
  for (int i = 0; i < k; i++) out->model_names[i] = server_to_model_string(out->names[i]);
  out->by_bytes = order_names_by_bytes(out->names, k);
  // Distinct values with one text (a user-defined cast to text that maps two
  // values to one string) would be two classes of one name: the rows of both
  // would go to one of them, and the model's class names could not tell them
  // apart.
  for (int i = 1; i < k; i++)
    if (strcmp(out->names[out->by_bytes[i - 1]], out->names[out->by_bytes[i]]) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("target column \"%s\" has distinct values whose text is the same, "
                             "'%s'",
                             target, out->names[out->by_bytes[i]]),
                      errhint("Class labels are the text of the target's values: fix the "
                              "cast of type %s to text, or train from a view that casts the "
                              "target to text.",
                              format_type_be(find_column(rel, target)->atttypid))));
}

float text_label_code(const LabelClasses* lc, const char* target, Datum value) {
  char* s = text_to_cstring(DatumGetTextPP(value));
  const int c = find_name_by_bytes(lc->names, lc->by_bytes, lc->k, s);
  if (c >= 0) return (float)c;
  ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                  errmsg("target column \"%s\" has value '%s', not among the classes read "
                         "before (the relation changed while it was read)",
                         target, s)));
  return 0;
}

char* quote_class_list(const LabelClasses* lc, int max) {
  StringInfoData b;
  initStringInfo(&b);
  for (int i = 0; i < lc->k && i < max; i++)
    appendStringInfo(&b, "%s'%s'", i ? ", " : "", lc->names[i]);
  if (lc->k > max) appendStringInfoString(&b, ", ...");
  return b.data;
}

}  // namespace gbdt_pg
