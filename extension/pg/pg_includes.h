// The PostgreSQL headers the glue uses, with C linkage.  Only files in
// extension/pg include this (and thereby postgres.h).
#pragma once

// PostgreSQL's C headers use `register` (not C++17); silence that for them only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wregister"
extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/tupdesc.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/typcache.h"
#include "pg_compat.h"  // the differences between PostgreSQL majors
}
#pragma GCC diagnostic pop
