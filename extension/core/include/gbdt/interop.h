// gbdt engine, public API: XGBoost JSON import and export.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../model/xgb_json.h"
