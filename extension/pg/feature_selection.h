// Which columns gbdt_train's default feature list (features => NULL) takes,
// and the reasons for those it leaves out, for the training NOTICE.
#pragma once

#include "pg_includes.h"

#include "relation_reader.h"

namespace gbdt_pg {

// Whether column `a` of rel is a generated key: an identity column or one
// whose default draws from a sequence it owns (serial/bigserial).  Such
// columns number rows; they are left out of the default feature list.
// Returns "identity column", "serial key" or null.
const char* generated_key_kind(const RelInfo* rel, Form_pg_attribute a);

// A growing "name (reason), name (reason)" list for the NOTICE.
struct ColumnList {
  StringInfoData text;
  int n = 0;
};
void column_list_init(ColumnList* l);
// Appends `name` (and " (reason)" when reason is not null); after `max`
// entries only counts them ("..." and the count are added by column_list_text).
void column_list_add(ColumnList* l, const char* name, const char* reason, int max = 30);
const char* column_list_text(const ColumnList* l, int max = 30);

}  // namespace gbdt_pg
