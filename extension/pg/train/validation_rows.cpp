// gbdt_validation_row(ordinal bigint, fraction float8, seed bigint DEFAULT 0)
//   -> bool
//
// Which rows the hashed validation_fraction split holds out: row `ordinal`
// (0-based, counting only rows with a non-NULL target, in the order
// gbdt_train reads the relation) is a validation row of a training with
// these validation_fraction and seed parameters.  docs/registry.md shows the
// query that lists them.
#include "pg_includes.h"

#include "gbdt/train.h"

extern "C" {
PG_FUNCTION_INFO_V1(gbdt_validation_row);
}

extern "C" Datum gbdt_validation_row(PG_FUNCTION_ARGS) {
  int64 ordinal = PG_GETARG_INT64(0);
  double fraction = PG_GETARG_FLOAT8(1);
  int64 seed = PG_GETARG_INT64(2);
  if (ordinal < 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("ordinal = " INT64_FORMAT " is out of range: must be >= 0 (rows are "
                           "numbered from 0)",
                           ordinal)));
  if (!(fraction >= 0 && fraction < 1))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("parameter \"validation_fraction\" = %g is out of range: must be in "
                           "[0, 1)",
                           fraction)));
  if (seed < 0 || seed > 9007199254740992LL)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("parameter \"seed\" = " INT64_FORMAT " is out of range: must be an "
                           "integer in [0, 2^53]",
                           seed)));
  // Plain arithmetic (no allocation, no exception).
  PG_RETURN_BOOL(gbdt::hashed_validation_row((uint64_t)seed, (uint64_t)ordinal, fraction));
}
