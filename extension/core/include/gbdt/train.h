// gbdt engine, public API: Training: parameters, the label decision, the objective table, the trainer, continued training and the backend choice.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../gbm/trainer.h"
#include "../../gbm/labels.h"
#include "../../gbm/params.h"
#include "../../gbm/continue_training.h"
#include "../../gbm/cross_validation.h"
#include "../../gbm/multi_quantile.h"
#include "../../objective/objective.h"
#include "../../tree/tree_backend.h"
#include "../../objective/label_quantiles.h"
