// gbdt engine, public API: Errors and cancellation: the exception types the engine throws and the cancel callback it polls.
// The PostgreSQL glue includes only headers of this directory; the
// engine headers named here are the part of the engine it may use.
#pragma once

#include "../../common/common.h"
#include "../../common/interruptible.h"
