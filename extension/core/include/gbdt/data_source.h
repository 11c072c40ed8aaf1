// gbdt engine, public API: The load: binning, cut sampling, raw row storage, column checks and the thread pool the glue drives while it reads a relation.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../data/binned_matrix.h"
#include "../../data/quantile.h"
#include "../../data/raw_rows.h"
#include "../../data/row_columns.h"
#include "../../data/column_checks.h"
#include "../../data/value_checks.h"
#include "../../data/unseen_categories.h"
#include "../../common/thread_pool.h"
#include "../../common/parallel_policy.h"
#include "../../data/nbase_decimal.h"
