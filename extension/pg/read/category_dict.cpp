#include "read/category_dict.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "guard.h"
#include "gbdt/model.h"
#include "gbdt/load_internals.h"

namespace gbdt_pg {

// Slots of recently looked-up values, by a cheap hash of a value's length
// and three of its bytes: a hit (checked byte for byte against the
// dictionary) skips std::hash and the map's modulo, most of a lookup's
// cost on columns of few distinct values.
constexpr int kHotSlotBits = 6;

struct CategoryDict {
  std::deque<std::string> store;          // training: the values (UTF-8)
  std::vector<std::string_view> names;    // code -> value
  std::unordered_map<std::string_view, int32_t> index;  // value -> code
  std::vector<uint64_t> counts;           // training: rows per provisional code
  int32_t hot[1 << kHotSlotBits];         // slot -> code (-1: empty)

  CategoryDict() { std::fill(std::begin(hot), std::end(hot), -1); }
};

struct ModelCategories {
  std::vector<std::unique_ptr<CategoryDict>> dicts;  // per feature; null: numeric
};

struct TrainCategories {
  int nf;
  int limit;
  CategoryColumn** cols;        // per feature; NULL: numeric
  std::vector<CategoryDict*>* owned;
};

bool category_source_for(Oid typid, CatSource* out) {
  const Oid base = getBaseType(typid);
  switch (base) {
    case TEXTOID:
    case VARCHAROID: *out = CatSource::kText; return true;
    case BPCHAROID: *out = CatSource::kBpchar; return true;
    case BOOLOID: *out = CatSource::kBool; return true;
    case INT2OID: *out = CatSource::kInt2; return true;
    case INT4OID: *out = CatSource::kInt4; return true;
    case INT8OID: *out = CatSource::kInt8; return true;
    default: break;
  }
  if (type_is_enum(base)) {
    *out = CatSource::kEnum;
    return true;
  }
  return false;
}

bool is_default_categorical_type(Oid typid) {
  CatSource s;
  if (!category_source_for(typid, &s)) return false;
  return s == CatSource::kText || s == CatSource::kBpchar || s == CatSource::kEnum ||
         s == CatSource::kBool;
}

bool category_type_matches(const CategoryColumn* c, Oid typid) {
  return c != nullptr && getBaseType(typid) == c->typid;
}

namespace {

CategoryColumn* make_column(Oid typid, const char* colname, CategoryDict* dict, bool building) {
  CategoryColumn* c = (CategoryColumn*)palloc0(sizeof(CategoryColumn));
  if (!category_source_for(typid, &c->src))
    elog(ERROR, "gbdt: column \"%s\" of type %s cannot be categorical", colname,
         format_type_be(typid));
  c->typid = getBaseType(typid);
  if (c->src == CatSource::kEnum) {
    Oid outfn;
    bool varlena;
    getTypeOutputInfo(c->typid, &outfn, &varlena);
    fmgr_info(outfn, &c->out);
  }
  c->dict = dict;
  c->building = building;
  c->convert = GetDatabaseEncoding() != PG_UTF8;
  c->colname = pstrdup(colname);
  return c;
}

// count: the exact number of distinct values, or (at_least) a lower bound:
// the read stops at the first value past the dictionary's cap, so the
// message says how far it counted rather than a number the column need
// not have.
void report_too_many(const char* colname, size_t count, int limit, bool at_least) {
  ereport(ERROR,
          (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
           errmsg("categorical column \"%s\" has %s%zu distinct values%s, more than the limit "
                  "of %d (max_categories)",
                  colname, at_least ? "at least " : "", count,
                  at_least ? " (the read stopped counting there)" : "", limit),
           errhint("Raise max_categories (at most %d), merge rare values into one (e.g. in a "
                   "view), or leave the column out of the features.",
                   gbdt::kMaxCategories)));
}

}  // namespace

void category_text(const CategoryColumn* c, Datum d, char (&buf)[32], const char** out,
                   size_t* outlen) {
  const char* p = buf;
  size_t len = 0;
  switch (c->src) {
    case CatSource::kText:
    case CatSource::kBpchar: {
      text* t = DatumGetTextPP(d);
      p = VARDATA_ANY(t);
      len = VARSIZE_ANY_EXHDR(t);
      if (c->src == CatSource::kBpchar)
        while (len > 0 && p[len - 1] == ' ') len--;
      break;
    }
    case CatSource::kEnum:
      p = OutputFunctionCall(const_cast<FmgrInfo*>(&c->out), d);
      len = strlen(p);
      break;
    case CatSource::kBool:
      p = DatumGetBool(d) ? "true" : "false";
      len = strlen(p);
      break;
    case CatSource::kInt2: len = (size_t)snprintf(buf, sizeof buf, "%d", (int)DatumGetInt16(d)); break;
    case CatSource::kInt4: len = (size_t)snprintf(buf, sizeof buf, "%d", (int)DatumGetInt32(d)); break;
    case CatSource::kInt8:
      len = (size_t)snprintf(buf, sizeof buf, "%lld", (long long)DatumGetInt64(d));
      break;
  }
  if (c->convert && len > 0) {
    const char* u = pg_server_to_any(p, (int)len, PG_UTF8);
    if (u != p) {
      p = u;
      len = strlen(u);
    }
  }
  *out = p;
  *outlen = len;
}

namespace {

// The code of a value of at most kMaxStringBytes in the dictionary, or -1.
// Allocates nothing, throws nothing.
int32_t find_code(CategoryDict* dict, const char* p, size_t len) noexcept {
  uint32_t h = (uint32_t)len * 0x9E3779B1u;
  if (len > 0)
    h ^= (uint32_t)(uint8_t)p[0] * 0x85EBCA77u ^ (uint32_t)(uint8_t)p[len - 1] * 0xC2B2AE3Du ^
         (uint32_t)(uint8_t)p[len / 2] * 0x27D4EB2Fu;
  int32_t& slot = dict->hot[h >> (32 - kHotSlotBits)];
  if (slot >= 0 && (size_t)slot < dict->names.size()) {
    const std::string_view& name = dict->names[(size_t)slot];
    if (name.size() == len && (len == 0 || memcmp(name.data(), p, len) == 0)) return slot;
  }
  auto it = dict->index.find(std::string_view(p, len));
  if (it == dict->index.end()) return -1;
  slot = it->second;
  return it->second;
}

}  // namespace

int32_t category_lookup(CategoryColumn* c, const char* p, size_t len) {
  CategoryDict* dict = c->dict;
  // Never in a dictionary (too long to add): unseen, or refused.
  if (len > gbdt::kMaxStringBytes) return c->building ? -1 : (int32_t)dict->names.size();
  const int32_t found = find_code(dict, p, len);
  if (found >= 0) return found;
  if (!c->building) return (int32_t)dict->names.size();  // unseen: scored as missing
  if (dict->names.size() >= c->cap) return -1;
  const std::string_view key(p, len);
  dict->store.emplace_back(key);
  const std::string_view sv(dict->store.back());
  dict->index.emplace(sv, (int32_t)dict->names.size());
  dict->names.push_back(sv);
  dict->counts.push_back(0);
  return (int32_t)(dict->names.size() - 1);
}

float category_code_text(CategoryColumn* c, const char* p, size_t len) {
  if (len <= gbdt::kMaxStringBytes) {
    const int32_t found = find_code(c->dict, p, len);
    if (found >= 0) return (float)found;
  }
  int32_t code = -1;
  run_engine([&] { code = category_lookup(c, p, len); });
  if (code >= 0) return (float)code;
  // Too many values: an error before the dictionary grows without bound
  // (the exact count is reported by train_categories_finalize when lower).
  // The dictionary holds cap values and this one is another.
  if (c->dict->names.size() >= c->cap) report_too_many(c->colname, c->cap + 1, c->limit, true);
  ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                  errmsg("categorical column \"%s\" has a value of %zu bytes, more than the "
                         "limit of %zu bytes for a category",
                         c->colname, len, gbdt::kMaxStringBytes)));
  return 0;  // not reached
}

float category_code(CategoryColumn* c, Datum d) {
  char buf[32];
  const char* p;
  size_t len;
  category_text(c, d, buf, &p, &len);
  return category_code_text(c, p, len);
}

// ---- training ----

namespace {

void delete_train_dicts(void* arg) {
  TrainCategories* tc = (TrainCategories*)arg;
  if (tc->owned == nullptr) return;
  for (CategoryDict* d : *tc->owned) delete d;
  delete tc->owned;
  tc->owned = nullptr;
}

}  // namespace

TrainCategories* train_categories_create(MemoryContext cxt, const RelInfo* rel,
                                         ReaderColumn* cols, int first, int nf, int limit) {
  bool any = false;
  for (int f = 0; f < nf; f++) any = any || cols[first + f].kind == ValKind::kCategory;
  if (!any) return nullptr;
  MemoryContext old = MemoryContextSwitchTo(cxt);
  TrainCategories* tc = (TrainCategories*)palloc0(sizeof(TrainCategories));
  tc->nf = nf;
  tc->limit = limit;
  tc->cols = (CategoryColumn**)palloc0(sizeof(CategoryColumn*) * nf);
  MemoryContextCallback* cb = (MemoryContextCallback*)palloc0(sizeof(MemoryContextCallback));
  cb->func = delete_train_dicts;
  cb->arg = tc;
  run_engine([&] { tc->owned = new std::vector<CategoryDict*>(); });
  MemoryContextRegisterResetCallback(cxt, cb);
  for (int f = 0; f < nf; f++) {
    ReaderColumn& rc = cols[first + f];
    if (rc.kind != ValKind::kCategory) continue;
    Form_pg_attribute a = find_column(rel, rc.name);
    if (a == nullptr) report_missing_column(rel, rc.name);
    CategoryDict* dict = nullptr;
    run_engine([&] {
      tc->owned->push_back(nullptr);
      dict = new CategoryDict();
      tc->owned->back() = dict;
    });
    CategoryColumn* c = make_column(a->atttypid, rc.name, dict, true);
    c->limit = limit;
    c->cap = (size_t)limit * 2 + 1000;
    tc->cols[f] = c;
    rc.cat = c;
  }
  MemoryContextSwitchTo(old);
  return tc;
}

void train_categories_count_row(TrainCategories* tc, const float* vals) {
  for (int f = 0; f < tc->nf; f++) {
    CategoryColumn* c = tc->cols[f];
    if (c == nullptr || std::isnan(vals[f])) continue;
    c->dict->counts[(size_t)vals[f]]++;
  }
}

// fn(f) for tc's categorical features f, one task each on up to nthread
// threads (pure array work: no PostgreSQL call inside).  Engine code: call
// inside run_engine.
template <class Fn>
void for_category_columns(const TrainCategories* tc, size_t n, int nthread, Fn&& fn) {
  std::vector<int> fs;
  for (int f = 0; f < tc->nf; f++)
    if (tc->cols[f] != nullptr) fs.push_back(f);
  if (fs.empty()) return;
  const size_t work = n * fs.size() * 2;  // ~2 ns per value
  gbdt::ThreadPool pool(gbdt::threads_for_work(work, std::min<int>(nthread, (int)fs.size())));
  pool.run_sized(work, fs.size(), [&](size_t i, int) { fn(fs[i]); });
}

void train_categories_count_columns(TrainCategories* tc, float* const* cols, size_t n, int nthread) {
  run_engine([&] {
    for_category_columns(tc, n, nthread, [&](int f) {
      std::vector<uint64_t>& counts = tc->cols[f]->dict->counts;
      const size_t m = counts.size();
      const float* col = cols[f];
      // Four tables, a row in each in turn: rows of the same category in a
      // row do not wait for each other's increment.  A missing value
      // counts in the extra slot m.
      std::vector<uint64_t> c4(4 * (m + 1), 0);
      auto slot = [m](float v) { return v == v ? (size_t)v : m; };
      size_t i = 0;
      for (; i + 4 <= n; i += 4) {
        c4[slot(col[i])]++;
        c4[(m + 1) + slot(col[i + 1])]++;
        c4[2 * (m + 1) + slot(col[i + 2])]++;
        c4[3 * (m + 1) + slot(col[i + 3])]++;
      }
      for (; i < n; i++) c4[slot(col[i])]++;
      for (size_t k = 0; k < m; k++)
        counts[k] += c4[k] + c4[(m + 1) + k] + c4[2 * (m + 1) + k] + c4[3 * (m + 1) + k];
    });
  });
}

void train_categories_finalize(TrainCategories* tc, float* const* cols, size_t n, int nthread) {
  for (int f = 0; f < tc->nf; f++) {
    CategoryColumn* c = tc->cols[f];
    if (c == nullptr) continue;
    size_t kept = 0;
    for (uint64_t k : c->dict->counts) kept += k > 0;
    if (kept == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("categorical column \"%s\" has no non-NULL values in the rows with "
                             "a target",
                             c->colname),
                      errhint("Leave the column out of the features.")));
    if (kept > (size_t)tc->limit) report_too_many(c->colname, kept, tc->limit, false);
  }
  run_engine([&] {
    // Per feature: the final code of each provisional one.
    std::vector<std::vector<int32_t>> remaps((size_t)tc->nf);
    for (int f = 0; f < tc->nf; f++) {
      CategoryColumn* c = tc->cols[f];
      if (c == nullptr) continue;
      CategoryDict* d = c->dict;
      std::vector<int32_t> order;
      for (size_t i = 0; i < d->counts.size(); i++)
        if (d->counts[i] > 0) order.push_back((int32_t)i);
      std::sort(order.begin(), order.end(), [d](int32_t a, int32_t b) {
        if (d->counts[a] != d->counts[b]) return d->counts[a] > d->counts[b];
        return d->names[a] < d->names[b];
      });
      std::vector<int32_t>& remap = remaps[(size_t)f];
      remap.assign(d->names.size(), -1);
      std::vector<std::string_view> names;
      names.reserve(order.size());
      for (size_t k = 0; k < order.size(); k++) {
        remap[order[k]] = (int32_t)k;
        names.push_back(d->names[order[k]]);
      }
      d->index.clear();
      for (size_t k = 0; k < names.size(); k++) d->index.emplace(names[k], (int32_t)k);
      d->names.swap(names);
      d->counts.assign(d->names.size(), 0);
      std::fill(std::begin(d->hot), std::end(d->hot), -1);  // codes renumbered
    }
    if (cols != nullptr)
      for_category_columns(tc, n, nthread, [&](int f) {
        float* col = cols[f];
        const int32_t* r = remaps[(size_t)f].data();
        for (size_t i = 0; i < n; i++)
          if (!std::isnan(col[i])) col[i] = (float)r[(size_t)col[i]];
      });
  });
  for (int f = 0; f < tc->nf; f++)
    if (tc->cols[f] != nullptr) tc->cols[f]->building = false;
}

void train_categories_names(const TrainCategories* tc,
                            std::vector<std::vector<std::string>>* out) {
  out->assign((size_t)tc->nf, {});
  for (int f = 0; f < tc->nf; f++) {
    const CategoryColumn* c = tc->cols[f];
    if (c == nullptr) continue;
    for (std::string_view v : c->dict->names) (*out)[f].emplace_back(v);
  }
}

// ---- scoring ----

ModelCategories* build_model_categories(const gbdt::Model& m) {
  if (!m.has_categorical()) return nullptr;
  return build_categories(m.categories);
}

ModelCategories* build_categories(const std::vector<std::vector<std::string>>& categories) {
  bool any = false;
  for (const auto& c : categories) any = any || !c.empty();
  if (!any) return nullptr;
  std::unique_ptr<ModelCategories> mc(new ModelCategories());
  mc->dicts.resize(categories.size());
  for (size_t f = 0; f < categories.size(); f++) {
    if (categories[f].empty()) continue;
    std::unique_ptr<CategoryDict> d(new CategoryDict());
    d->names.reserve(categories[f].size());
    d->index.reserve(categories[f].size());
    for (const std::string& s : categories[f]) {
      d->index.emplace(std::string_view(s), (int32_t)d->names.size());
      d->names.emplace_back(s);
    }
    mc->dicts[f] = std::move(d);
  }
  return mc.release();
}

void delete_model_categories(ModelCategories* mc) noexcept { delete mc; }

ValKind scoring_column_kind(const gbdt::Model* m, const ModelCategories* mc, int f, Oid typid,
                            const char* colname, CategoryColumn** cat) {
  *cat = nullptr;
  const bool model_cat = mc != nullptr && f < (int)mc->dicts.size() && mc->dicts[f] != nullptr;
  if (model_cat) {
    CatSource src;
    if (!category_source_for(typid, &src))
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("column \"%s\" has type %s, but the model's feature \"%s\" is "
                             "categorical",
                             colname, format_type_be(typid), colname),
                      errhint("Pass the column as text, varchar, char, an enum, boolean or an "
                              "integer type holding the category values.")));
    *cat = make_column(typid, colname, mc->dicts[f].get(), false);
    return ValKind::kCategory;
  }
  ValKind k = kind_for_type(typid);
  if (k == ValKind::kNone) {
    CatSource src;
    const bool could_be_cat = category_source_for(typid, &src);
    ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                    errmsg("column \"%s\" has unsupported type %s", colname,
                           format_type_be(typid)),
                    could_be_cat ? errhint("The model's feature \"%s\" is numeric: it was not "
                                           "trained on a categorical column.",
                                           colname)
                                 : errhint("Supported types are " GBDT_SUPPORTED_TYPES
                                           ", and for categorical features text, varchar, "
                                           "char and enums.")));
  }
  (void)m;
  return k;
}

}  // namespace gbdt_pg

namespace gbdt_pg {

CategoricalDecl* categorical_decl_from_params(const gbdt::TrainParams& p) {
  CategoricalDecl* d =
      (CategoricalDecl*)context_alloc_nothrow(CurrentMemoryContext, sizeof(CategoricalDecl));
  d->n = (int)p.categorical_features.size();
  d->limit = p.max_categories;
  d->names = (char**)context_alloc_nothrow(CurrentMemoryContext, sizeof(char*) * (d->n + 1));
  for (int i = 0; i < d->n; i++) d->names[i] = pstrdup_nothrow(p.categorical_features[i]);
  return d;
}

namespace {
bool declared(const CategoricalDecl* decl, const char* name) {
  if (decl == nullptr) return false;
  for (int i = 0; i < decl->n; i++)
    if (strcmp(decl->names[i], name) == 0) return true;
  return false;
}
}  // namespace

ValKind training_feature_kind(Form_pg_attribute a, const CategoricalDecl* decl) {
  if (is_default_categorical_type(a->atttypid)) return ValKind::kCategory;
  CatSource src;
  if (declared(decl, NameStr(a->attname)) && category_source_for(a->atttypid, &src))
    return ValKind::kCategory;
  return kind_for_type(a->atttypid);
}

void check_categorical_decl(const RelInfo* rel, const char* target, int nfeatures,
                            const char* const* features, const CategoricalDecl* decl) {
  if (decl == nullptr) return;
  for (int i = 0; i < decl->n; i++) {
    const char* name = decl->names[i];
    Form_pg_attribute a = find_column(rel, name);
    if (a == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("categorical_features names column \"%s\", which relation \"%s\" "
                             "does not have",
                             name, rel->name)));
    CatSource src;
    if (!category_source_for(a->atttypid, &src))
      ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
                      errmsg("categorical_features names column \"%s\" of type %s, which cannot "
                             "be categorical",
                             name, format_type_be(a->atttypid)),
                      errhint("Categorical columns are of an integer type (smallint, integer, "
                              "bigint), text, varchar, char, an enum or boolean; cast a float "
                              "column holding codes to integer in a view.")));
    if (strcmp(name, target) == 0)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("categorical_features names column \"%s\", which is the target",
                             name)));
    bool is_feature = false;
    for (int f = 0; f < nfeatures && !is_feature; f++) is_feature = strcmp(features[f], name) == 0;
    if (!is_feature)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("categorical_features names column \"%s\", which is not among the "
                             "features",
                             name),
                      errhint("Add it to the features or leave it out of categorical_features.")));
  }
}

}  // namespace gbdt_pg
