// gbdt engine, public API: The model value: trees, metadata, its byte format, limits, identity and the decoded-model cache.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../model/model.h"
#include "../../model/format.h"
#include "../../model/partitioned.h"
#include "../../model/partitioned_json.h"
#include "../../model/model_limits.h"
#include "../../model/model_identity.h"
#include "../../model/model_cache.h"
#include "../../data/category_values.h"
