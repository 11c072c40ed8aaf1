// gbdt engine, public API: Scoring rows and batches with a decoded model.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../predictor/predict.h"
