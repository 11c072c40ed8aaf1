#include "train/feature_selection.h"

extern "C" {
#include "catalog/dependency.h"
#include "catalog/partition.h"
#include "access/relation.h"
#include "catalog/pg_class.h"
#include "commands/sequence.h"
#include "nodes/pg_list.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "rewrite/rewriteHandler.h"
#include "utils/lsyscache.h"
#include "utils/fmgrprotos.h"
#include "utils/rel.h"
}

namespace gbdt_pg {

namespace {

// The kind of key column `attnum` of relation `relid` is by the sequences
// it owns: an identity column owns its sequence by an INTERNAL
// dependency, a serial column by an AUTO one (what pg_get_serial_sequence
// finds).
const char* owned_sequence_kind(Oid relid, AttrNumber attnum) {
  List* seqs = getOwnedSequences(relid);
  const char* kind = nullptr;
  ListCell* lc;
  foreach (lc, seqs) {
    Oid tab;
    int32 col;
    const Oid seq = lfirst_oid(lc);
    if (sequenceIsOwned(seq, DEPENDENCY_INTERNAL, &tab, &col) && tab == relid && col == attnum)
      kind = "identity column";
    else if (sequenceIsOwned(seq, DEPENDENCY_AUTO, &tab, &col) && tab == relid && col == attnum)
      kind = "serial key";
  }
  list_free(seqs);
  return kind;
}

// The key kind of column `attnum` of table `relid`, or of the column of the
// same name in a partitioned table above it: a partition's identity or
// serial column draws from a sequence its root table owns ("identity column
// of p" and the like).  Null otherwise.
const char* table_column_key_kind(Oid relid, AttrNumber attnum) {
  const char* kind = owned_sequence_kind(relid, attnum);
  if (kind != nullptr || !get_rel_relispartition(relid)) return kind;
  char* col = get_attname(relid, attnum, true);
  if (col == nullptr) return nullptr;
  List* ancestors = get_partition_ancestors(relid);
  ListCell* lc;
  foreach (lc, ancestors) {
    const Oid parent = lfirst_oid(lc);
    const AttrNumber pattnum = get_attnum(parent, col);
    if (pattnum == InvalidAttrNumber) continue;
    kind = owned_sequence_kind(parent, pattnum);
    if (kind == nullptr) continue;
    char* nsp = get_namespace_name(get_rel_namespace(parent));
    const char* name = get_rel_name(parent);
    if (nsp != nullptr && name != nullptr)
      kind = psprintf("%s of %s", kind, quote_qualified_identifier(nsp, name));
    break;
  }
  list_free(ancestors);
  return kind;
}

// Views nest at most this deep here (a deeper chain is not followed).
constexpr int kMaxViewDepth = 16;

// For column `attnum` of view `viewid`: when the view's query returns a
// plain column of a relation there (no expression, no join alias, no
// outer reference), that column's key kind, following views down to the
// table; "serial key of t" and the like.  Null otherwise.
const char* view_column_key_kind(Oid viewid, AttrNumber attnum, int depth) {
  if (depth >= kMaxViewDepth) return nullptr;
  Relation r = relation_open(viewid, AccessShareLock);
  const char* kind = nullptr;
  Oid base = InvalidOid;
  AttrNumber base_att = 0;
  if (r->rd_rel->relkind == RELKIND_VIEW) {
    Query* q = get_view_query(r);
    TargetEntry* te = get_tle_by_resno(q->targetList, attnum);
    if (te != nullptr && !te->resjunk && te->expr != nullptr && IsA(te->expr, Var)) {
      const Var* v = (const Var*)te->expr;
      if (v->varlevelsup == 0 && v->varattno > 0 && v->varno >= 1 &&
          (int)v->varno <= list_length(q->rtable)) {
        RangeTblEntry* rte = rt_fetch(v->varno, q->rtable);
        if (rte->rtekind == RTE_RELATION) {
          base = rte->relid;
          base_att = v->varattno;
        }
      }
    }
  }
  relation_close(r, AccessShareLock);
  if (!OidIsValid(base)) return nullptr;
  if (get_rel_relkind(base) == RELKIND_VIEW) return view_column_key_kind(base, base_att, depth + 1);
  kind = table_column_key_kind(base, base_att);
  // A partition's kind already names the table owning the sequence.
  if (kind == nullptr || strstr(kind, " of ") != nullptr) return kind;
  char* nsp = get_namespace_name(get_rel_namespace(base));
  const char* rel = get_rel_name(base);
  if (nsp == nullptr || rel == nullptr) return kind;
  return psprintf("%s of %s", kind, quote_qualified_identifier(nsp, rel));
}

}  // namespace

const char* generated_key_kind(const RelInfo* rel, Form_pg_attribute a) {
  // rel->desc is a copy without identity and default flags: the catalog
  // says which columns own a sequence.
  if (rel->relkind == RELKIND_VIEW)
    return view_column_key_kind(rel->relid, a->attnum, 0);
  return table_column_key_kind(rel->relid, a->attnum);
}

void warn_feature_checks(const FeatureSet* fs, const LoadResult* loaded, const char* target) {
  // Columns that copy or nearly equal the target: a WARNING naming them.
  ColumnList leaks;
  column_list_init(&leaks);
  // Categorical columns whose every value has one target value (value_checks.h):
  // a relabelled copy of the target, also a WARNING.
  ColumnList determiners;
  column_list_init(&determiners);
  const char* sampled = loaded->checked_all_rows ? "" : " sampled";
  for (int f = 0; f < fs->nx; f++) {
    const ColumnCheck& c = loaded->checks[f];
    const gbdt::ValueCheck& v = loaded->values[f];
    if (c.near_target)
      column_list_add(&leaks, fs->x_names[f],
                      c.equal >= 0.99 ? psprintf("equal to the target on %.1f%% of the rows%s",
                                                 100.0 * c.equal, sampled)
                                      : psprintf("correlation %.4f with the target", c.corr));
    else if (fs->x_types[f] == gbdt::FeatureType::kCategorical && v.checked && v.determines)
      column_list_add(&determiners, fs->x_names[f],
                      psprintf("each of its %zu values has a single target value on all of "
                               "its %zu%s rows",
                               v.distinct, v.present, sampled));
  }
  if (leaks.n > 0)
    ereport(WARNING,
            (errmsg("gbdt_train: feature column%s nearly equal to the target \"%s\": %s",
                    leaks.n == 1 ? "" : "s", target, column_list_text(&leaks)),
             errhint("A feature that copies the target makes a model that cannot be used "
                     "on new rows; leave it out of features.")));
  if (determiners.n > 0)
    ereport(WARNING,
            (errmsg("gbdt_train: categorical feature column%s that determine%s the target "
                    "\"%s\": %s",
                    determiners.n == 1 ? "" : "s", determiners.n == 1 ? "s" : "", target,
                    column_list_text(&determiners)),
             errhint("A feature that is a relabelling of the target makes a model that "
                     "cannot be used on new rows; leave it out of features.")));
  // Identifiers the training keeps (named in features, or the checks saw
  // a sample only): a WARNING naming them.
  ColumnList ids;
  column_list_init(&ids);
  for (int i = 0; i < loaded->n_kept; i++) {
    const int f = loaded->kept[i];
    if (loaded->identifier[f] != nullptr)
      column_list_add(&ids, fs->x_names[f], loaded->identifier[f]);
  }
  if (ids.n > 0)
    ereport(WARNING,
            (errmsg("gbdt_train: feature column%s with a different value on nearly every "
                    "row: %s",
                    ids.n == 1 ? "" : "s", column_list_text(&ids)),
             errhint("An identifier tells the model nothing that holds on new rows; leave "
                     "it out of features.")));
}

void column_list_init(ColumnList* l) {
  initStringInfo(&l->text);
  l->n = 0;
}

void column_list_add(ColumnList* l, const char* name, const char* reason, int max) {
  if (l->n < max) {
    appendStringInfo(&l->text, "%s%s", l->n ? ", " : "", quote_identifier(name));
    if (reason != nullptr) appendStringInfo(&l->text, " (%s)", reason);
  }
  l->n++;
}

const char* column_list_text(const ColumnList* l, int max) {
  if (l->n <= max) return l->text.data;
  return psprintf("%s, ... (%d more)", l->text.data, l->n - max);
}

bool identifier_like_name(const char* name) {
  const size_t n = strlen(name);
  if (n == 2) return pg_strcasecmp(name, "id") == 0;
  if (n > 3 && pg_strcasecmp(name + n - 3, "_id") == 0) return true;
  // camelCase: a lower-case letter, then "Id" at the end.
  return n > 2 && name[n - 2] == 'I' && name[n - 1] == 'd' && name[n - 3] >= 'a' &&
         name[n - 3] <= 'z';
}

FeatureValueKinds feature_value_kinds(const FeatureSet* fs) {
  const int nx = fs->nx > 0 ? fs->nx : 1;
  FeatureValueKinds vk;
  vk.check = (bool*)palloc0(sizeof(bool) * nx);
  vk.sortable = (bool*)palloc0(sizeof(bool) * nx);
  vk.integer = (bool*)palloc0(sizeof(bool) * nx);
  int j = 0;
  for (int i = 0; i < fs->n && j < fs->nx; i++) {
    if (fs->kinds[i] == ValKind::kArray) {
      j += fs->widths[i];
      continue;
    }
    const ValKind k = fs->kinds[i];
    const bool categorical = fs->x_types[j] == gbdt::FeatureType::kCategorical;
    vk.integer[j] = !categorical && (k == ValKind::kInt2 || k == ValKind::kInt4 || k == ValKind::kInt8);
    vk.check[j] = categorical || vk.integer[j];
    vk.sortable[j] = categorical || (vk.integer[j] && identifier_like_name(fs->names[i]));
    j++;
  }
  return vk;
}

const char* identifier_reason(const FeatureSet* fs, const FeatureValueKinds& vk, int f,
                              const gbdt::ValueCheck& v, bool all_rows) {
  if (!vk.check[f] || !v.checked || !v.unique) return nullptr;
  const char* sampled = all_rows ? "" : " sampled";
  if (!vk.integer[f])
    return psprintf("unique per row: %zu distinct values in %zu%s rows", v.distinct, v.present,
                    sampled);
  if (identifier_like_name(fs->x_names[f]))
    return psprintf("an identifier: %zu distinct values in %zu%s rows", v.distinct, v.present,
                    sampled);
  if (v.hi - v.lo + 1.0 <= 2.0 * (double)v.present)
    return psprintf("numbers the rows: %zu distinct values from %.0f to %.0f in %zu%s rows",
                    v.distinct, v.lo, v.hi, v.present, sampled);
  return nullptr;
}

ExcludeList parse_exclude_param(const char* value, bool is_string) {
  ExcludeList ex;
  if (is_string) {
    ex.n = 1;
    ex.names = (const char**)palloc(sizeof(char*));
    ex.names[0] = pstrdup(value);
    return ex;
  }
  Jsonb* jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(value)));
  if (JB_ROOT_IS_SCALAR(jb) || !JB_ROOT_IS_ARRAY(jb))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("parameter \"exclude\" must be a column name or a JSON array of "
                           "column names, not %s",
                           value)));
  const int cap = (int)JB_ROOT_COUNT(jb);
  ex.names = (const char**)palloc(sizeof(char*) * (cap > 0 ? cap : 1));
  JsonbIterator* it = JsonbIteratorInit(&jb->root);
  JsonbValue v;
  JsonbIteratorToken tok;
  while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE) {
    if (tok != WJB_ELEM) continue;
    if (v.type != jbvString || ex.n >= cap)
      ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                      errmsg("parameter \"exclude\" must list column names (JSON strings): "
                             "element %d is not a string",
                             ex.n + 1)));
    ex.names[ex.n++] = pnstrdup(v.val.string.val, v.val.string.len);
  }
  return ex;
}

ExcludeList take_exclude_param(char** keys, char** values, bool* is_string, int* n) {
  for (int i = 0; i < *n; i++) {
    if (strcmp(keys[i], "exclude") != 0) continue;
    ExcludeList ex = parse_exclude_param(values[i], is_string[i]);
    for (int j = i + 1; j < *n; j++) {
      keys[j - 1] = keys[j];
      values[j - 1] = values[j];
      is_string[j - 1] = is_string[j];
    }
    (*n)--;
    return ex;
  }
  return ExcludeList();
}

void apply_exclude(const RelInfo* rel, const ExcludeList& ex, bool features_given,
                   bool init_model, FeatureSet* fs, ColumnList* left_out) {
  if (ex.n == 0) return;
  if (features_given || init_model)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("parameter \"exclude\" is for the default feature list, not with %s",
                           init_model ? "init_model (its features are taken)"
                                      : "an explicit features list"),
                    errhint("Leave the column out of features, or pass features => NULL.")));
  for (int i = 0; i < ex.n; i++) {
    CHECK_FOR_INTERRUPTS();
    if (find_column(rel, ex.names[i]) == nullptr)
      ereport(ERROR, (errcode(ERRCODE_UNDEFINED_COLUMN),
                      errmsg("parameter \"exclude\" names column \"%s\", which is not a column "
                             "of relation \"%s\"",
                             ex.names[i], rel->name)));
  }
  int kept = 0;
  for (int f = 0; f < fs->n; f++) {
    CHECK_FOR_INTERRUPTS();
    bool drop = false;
    for (int i = 0; i < ex.n && !drop; i++) drop = strcmp(fs->names[f], ex.names[i]) == 0;
    if (drop) {
      column_list_add(left_out, fs->names[f], "excluded");
      continue;
    }
    fs->names[kept] = fs->names[f];
    fs->kinds[kept] = fs->kinds[f];
    fs->widths[kept] = fs->widths[f];
    fs->elem_kinds[kept] = fs->elem_kinds[f];
    kept++;
  }
  fs->n = kept;
  fs->has_arrays = false;
  for (int f = 0; f < fs->n; f++) fs->has_arrays |= fs->kinds[f] == ValKind::kArray;
  if (fs->n == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("parameter \"exclude\" leaves relation \"%s\" no feature column",
                           rel->name)));
}

}  // namespace gbdt_pg
