#include "score/target_classes.h"

#include "train/label_classes.h"
#include "gbdt/train.h"
#include "score/scoring.h"
#include "train/train_data.h"

namespace gbdt_pg {
namespace {

int cmp_values(const void* a, const void* b, void* values) {
  const double* v = (const double*)values;
  const double x = v[*(const int*)a], y = v[*(const int*)b];
  return x < y ? -1 : x > y ? 1 : 0;
}

void sort_names(TargetClasses* tc) { tc->by_bytes = order_names_by_bytes(tc->names, tc->k); }

void sort_values(TargetClasses* tc) {
  tc->by_value = (int*)palloc(sizeof(int) * (tc->k > 0 ? tc->k : 1));
  for (int i = 0; i < tc->k; i++) tc->by_value[i] = i;
  qsort_arg(tc->by_value, tc->k, sizeof(int), cmp_values, tc->values);
}

// "'a', 'b'" / "0, 10, 20": the first 10 classes.
char* class_list(const TargetClasses* tc) {
  StringInfoData b;
  initStringInfo(&b);
  for (int i = 0; i < tc->k && i < 10; i++) {
    if (tc->mode == TargetClasses::Mode::kNames)
      appendStringInfo(&b, "%s'%s'", i ? ", " : "", tc->names[i]);
    else
      appendStringInfo(&b, "%s%g", i ? ", " : "", tc->values[i]);
  }
  if (tc->k > 10) appendStringInfoString(&b, ", ...");
  return b.data;
}

const char* owner(const TargetClasses* tc) { return tc->where[0] != '\0' ? "training" : "model"; }

bool is_identity(const std::vector<double>& v) {
  for (size_t i = 0; i < v.size(); i++)
    if (v[i] != (double)i) return false;
  return true;
}

}  // namespace

void target_classes_for_model(const RelInfo* rel, const char* target, const gbdt::Model* m,
                              TargetClasses* out) {
  *out = TargetClasses();
  out->target = target;
  Form_pg_attribute a = find_column(rel, target);
  if (a == nullptr) report_missing_column(rel, target);
  const Oid typid = a->atttypid;
  const bool is_bool = getBaseType(typid) == BOOLOID;
  const bool textish = kind_for_type(typid) == ValKind::kNone && is_text_label_type(typid);
  const gbdt::ObjectiveInfo& oi = gbdt::objective_info(m->objective);
  const bool classifier = oi.binary || oi.multiclass;
  if (classifier && !m->class_names.empty() && (textish || is_bool)) {
    out->mode = TargetClasses::Mode::kNames;
    out->kind = textish ? ValKind::kNone : ValKind::kBool;
    out->is_bool = is_bool;
    out->k = (int)m->class_names.size();
    out->names = (char**)palloc(sizeof(char*) * (out->k > 0 ? out->k : 1));
    for (int i = 0; i < out->k; i++)
      out->names[i] = pstrdup(model_to_server_string(m->class_names[i].c_str()));
    sort_names(out);
    return;
  }
  if (textish)
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("target column \"%s\" is %s, but the model (objective %s) was trained "
                           "on a numeric target",
                           target, format_type_be(typid), model_objective_name(m)),
                    classifier ? errhint("Its classes are the label values %s: pass a numeric "
                                         "target column.",
                                         psprintf("%g .. %g",
                                                  m->class_labels.empty() ? 0.0
                                                                          : m->class_labels.front(),
                                                  m->class_labels.empty() ? 0.0
                                                                          : m->class_labels.back()))
                               : errhint("Pass a numeric target column (cast it in a view).")));
  out->kind = require_numeric_column(rel, target, "target");
  if (classifier && !m->class_labels.empty() && !is_identity(m->class_labels)) {
    out->mode = TargetClasses::Mode::kValues;
    out->k = (int)m->class_labels.size();
    out->values = (double*)palloc(sizeof(double) * out->k);
    for (int i = 0; i < out->k; i++) out->values[i] = m->class_labels[i];
    sort_values(out);
  }
}

void target_classes_from_names(const char* target, const char* where, int k,
                               char* const* names, bool is_bool, TargetClasses* out) {
  *out = TargetClasses();
  out->mode = TargetClasses::Mode::kNames;
  out->kind = is_bool ? ValKind::kBool : ValKind::kNone;
  out->is_bool = is_bool;
  out->target = target;
  out->where = where;
  out->k = k;
  out->names = (char**)palloc(sizeof(char*) * (k > 0 ? k : 1));
  for (int i = 0; i < k; i++) out->names[i] = names[i];
  sort_names(out);
}

void target_classes_from_values(const char* target, const char* where, int k,
                                const double* values, TargetClasses* out) {
  *out = TargetClasses();
  out->mode = TargetClasses::Mode::kValues;
  out->target = target;
  out->where = where;
  out->k = k;
  out->values = (double*)palloc(sizeof(double) * (k > 0 ? k : 1));
  for (int i = 0; i < k; i++) out->values[i] = values[i];
  sort_values(out);
}

float target_class(const TargetClasses* tc, Datum d, float val) {
  switch (tc->mode) {
    case TargetClasses::Mode::kAsIs: return val;
    case TargetClasses::Mode::kNames: {
      const char* s = tc->is_bool ? (val != 0 ? "true" : "false")
                                  : text_to_cstring(DatumGetTextPP(d));
      const int c = find_name_by_bytes(tc->names, tc->by_bytes, tc->k, s);
      if (c >= 0) return (float)c;
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("target column \"%s\"%s has value '%s', which is not a class of "
                             "the %s",
                             tc->target, tc->where, s, owner(tc)),
                      errdetail("The %s's %d classes are %s.", owner(tc), tc->k, class_list(tc))));
      return 0;
    }
    case TargetClasses::Mode::kValues: {
      const double v = val;
      int lo = 0, hi = tc->k;
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        const double c = tc->values[tc->by_value[mid]];
        if (c == v) return (float)tc->by_value[mid];
        if (c < v) lo = mid + 1; else hi = mid;
      }
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("target column \"%s\"%s has value %g, which is not a class of the "
                             "%s",
                             tc->target, tc->where, v, owner(tc)),
                      errdetail("The %s's %d classes are the label values %s.", owner(tc), tc->k,
                                class_list(tc))));
      return 0;
    }
  }
  return val;
}

}  // namespace gbdt_pg
