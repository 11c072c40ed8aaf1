#include "read/scoring_layout.h"

#include <cmath>

#include "read/array_features.h"
#include "read/category_dict.h"
#include "settings.h"

namespace gbdt_pg {

int model_array_length(const std::vector<std::string>& names, const char* base_utf8) {
  int len = 0;
  for (const std::string& n : names) {
    char* b = nullptr;
    int i = 0;
    if (parse_element_name(n.c_str(), &b, &i)) {
      if (strcmp(b, base_utf8) == 0 && i > len) len = i;
      pfree(b);
    }
  }
  return len;
}

void absent_features_init(AbsentFeatures* a) {
  initStringInfo(&a->names);
  a->listed = nullptr;
  a->count = 0;
  a->more = 0;
}

void absent_features_add(AbsentFeatures* a, const char* column) {
  ListCell* lc;
  foreach (lc, a->listed)
    if (strcmp((const char*)lfirst(lc), column) == 0) return;  // an array's next element
  if (a->count >= kAbsentListed) {
    a->more++;  // counted, not named: the message stays short
    return;
  }
  if (a->count > 0) appendStringInfoString(&a->names, ", ");
  appendStringInfo(&a->names, "\"%s\"", column);
  a->listed = lappend(a->listed, pstrdup(column));
  a->count++;
}

bool absent_features_allowed(const AbsentFeatures* a, const char* relation) {
  if (a->count == 0) return true;
  if (guc_missing_features == kMissingFeaturesAsMissing) return true;
  const char* hint =
      "Add the columns, or SET gbdt.missing_features = 'missing' to score absent features as "
      "missing values.";
  // one column: the message of earlier versions; several: all of them.
  const char* what = a->count == 1 ? "column" : "columns";
  const char* more = a->more > 0 ? psprintf(" and %d more", a->more) : "";
  if (relation == nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("row has no %s %s%s required by the model", what, a->names.data, more),
                    errhint("%s", hint)));
  ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                  errmsg("relation \"%s\" has no %s %s%s required by the model", relation, what,
                         a->names.data, more),
                  errhint("%s", hint)));
  return false;
}

namespace {

// The reader column named `name` among l->cols[0 .. l->ncols), or -1.
int find_reader_column(const ScoringLayout* l, const char* name) {
  for (int c = 0; c < l->ncols; c++)
    if (strcmp(l->cols[c].name, name) == 0) return c;
  return -1;
}

// A feature column the relation lacks: an error at once for validation
// rows and training rows; a scoring payload's are gathered in `absent`.
void report_missing(const RelInfo* rel, const char* name, const char* validation) {
  if (validation != nullptr)
    ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                    errmsg("feature column \"%s\" of the training does not exist in "
                           "validation_relation \"%s\"",
                           name, validation)));
  ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                  errmsg("relation \"%s\" has no column \"%s\" required by the model", rel->name,
                         name)));
}

}  // namespace

ScoringLayout* scoring_layout(const RelInfo* rel, const std::vector<std::string>& names,
                              const ModelCategories* mc, const char* validation,
                              int (*array_len)(void* arg, const char* column), void* arg,
                              bool training_rows) {
  const int nf = (int)names.size();
  const int n1 = nf > 0 ? nf : 1;
  ScoringLayout* l = (ScoringLayout*)palloc0(sizeof(ScoringLayout));
  l->nf = nf;
  l->cols = (ReaderColumn*)palloc0(sizeof(ReaderColumn) * n1);
  l->col_of = (int*)palloc0(sizeof(int) * n1);
  l->elem = (int*)palloc0(sizeof(int) * n1);
  l->arr_len = (int*)palloc0(sizeof(int) * n1);
  l->elem_kind = (ValKind*)palloc0(sizeof(ValKind) * n1);
  l->buf_off = (int*)palloc0(sizeof(int) * n1);
  l->reject_inf = validation != nullptr;
  int buf_len = 0;
  int hint = 0;
  // a scoring payload's absent features: one error naming them all, or
  // missing values (gbdt.missing_features).
  const bool payload = validation == nullptr && !training_rows;
  AbsentFeatures absent;
  absent_features_init(&absent);
  for (int f = 0; f < nf; f++) {
    const char* name = model_to_server_string(names[f].c_str());
    Form_pg_attribute a = find_column(rel, name, &hint);
    if (a == nullptr) {
      // "emb[i]": element i of array column emb.
      char* base = nullptr;
      int index = 0;
      Form_pg_attribute b = nullptr;
      if (parse_element_name(name, &base, &index)) b = find_column(rel, base);
      if (b == nullptr && payload) {
        absent_features_add(&absent, base != nullptr ? base : name);
        l->col_of[f] = -1;
        continue;
      }
      if (b == nullptr) report_missing(rel, base != nullptr ? base : name, validation);
      const ValKind ek = array_element_kind(b->atttypid);
      if (ek == ValKind::kNone)
        ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                        errmsg("column \"%s\" has type %s, but the %s's feature \"%s\" is an "
                               "element of an array column",
                               base, format_type_be(b->atttypid),
                               validation != nullptr ? "training" : "model", name),
                        errhint("Pass a float4[], float8[], smallint[], integer[] or bigint[] "
                                "column \"%s\".",
                                base)));
      int c = find_reader_column(l, base);
      if (c < 0) {
        c = l->ncols++;
        int len = array_len != nullptr ? array_len(arg, base) : 0;
        if (len <= 0) len = model_array_length(names, server_to_model_string(base));
        l->cols[c] = ReaderColumn{base, ValKind::kArray, l->reject_inf, false, nullptr};
        l->arr_len[c] = len;
        l->elem_kind[c] = ek;
        l->buf_off[c] = buf_len;
        buf_len += len;
      }
      if (index > l->arr_len[c])  // a length given shorter than the model's elements
        elog(ERROR, "gbdt: feature \"%s\" lies beyond the %d elements of array column \"%s\"",
             name, l->arr_len[c], base);
      l->col_of[f] = c;
      l->elem[f] = index;
      l->has_arrays = true;
      continue;
    }
    CategoryColumn* cat = nullptr;
    const ValKind k = scoring_column_kind(nullptr, mc, f, a->atttypid, name, &cat);
    const int c = l->ncols++;
    l->cols[c] = ReaderColumn{name, k, l->reject_inf, false, cat};
    l->col_of[f] = c;
  }
  absent_features_allowed(&absent, rel->name);  // errors unless they score as missing
  // absent features: col_of no longer maps feature f to column f.
  if (absent.count > 0) l->has_arrays = true;
  l->buf = (float*)palloc(sizeof(float) * (buf_len > 0 ? buf_len : 1));
  return l;
}

void scoring_row(ScoringLayout* l, TupleTableSlot* slot, const float* vals, const bool* nulls,
                 int first, float* dst) {
  if (!l->has_arrays) {
    memcpy(dst, vals + first, sizeof(float) * l->nf);
    return;
  }
  for (int c = 0; c < l->ncols; c++) {
    if (l->arr_len[c] == 0) continue;
    float* e = l->buf + l->buf_off[c];
    expand_array(slot->tts_values[first + c], nulls[first + c], l->elem_kind[c], l->arr_len[c],
                 l->cols[c].name, e, false);
    if (l->reject_inf)
      for (int i = 0; i < l->arr_len[c]; i++)
        if (std::isinf(e[i]))
          ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                          errmsg("array column \"%s\" contains infinity (or a value out of "
                                 "range for single precision) at element %d",
                                 l->cols[c].name, i + 1),
                          errhint("Use NULL (or NaN) for a missing value.")));
  }
  for (int f = 0; f < l->nf; f++) {
    const int c = l->col_of[f];
    dst[f] = c < 0               ? NAN  // absent from the relation
             : l->elem[f] > 0 ? l->buf[l->buf_off[c] + l->elem[f] - 1]
                              : vals[first + c];
  }
}

}  // namespace gbdt_pg
