// gbdt engine, public API: Explanations: TreeSHAP contributions and the JSON dump of trees.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../predictor/explain.h"
#include "../../predictor/treeshap.h"
