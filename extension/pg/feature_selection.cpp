#include "feature_selection.h"

extern "C" {
#include "catalog/dependency.h"
#include "commands/sequence.h"
#include "nodes/pg_list.h"
}

namespace gbdt_pg {

const char* generated_key_kind(const RelInfo* rel, Form_pg_attribute a) {
  // rel->desc is a copy without identity and default flags: an identity
  // column owns its sequence by an INTERNAL dependency, a serial column by
  // an AUTO one (what pg_get_serial_sequence finds).
  List* seqs = getOwnedSequences(rel->relid);
  const char* kind = nullptr;
  ListCell* lc;
  foreach (lc, seqs) {
    Oid tab;
    int32 col;
    const Oid seq = lfirst_oid(lc);
    if (sequenceIsOwned(seq, DEPENDENCY_INTERNAL, &tab, &col) && tab == rel->relid &&
        col == a->attnum)
      kind = "identity column";
    else if (sequenceIsOwned(seq, DEPENDENCY_AUTO, &tab, &col) && tab == rel->relid &&
             col == a->attnum)
      kind = "serial key";
  }
  list_free(seqs);
  return kind;
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

}  // namespace gbdt_pg
