// gbdt engine, public API: Metrics of predictions: the metric table, survival and ranking metrics, drift.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../metric/metrics.h"
#include "../../metric/class_metrics.h"
#include "../../metric/drift.h"
#include "../../objective/survival.h"
#include "../../objective/lambdarank.h"
