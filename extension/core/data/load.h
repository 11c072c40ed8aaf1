// The engine's load (load_binned): passes over a RowBatchSource into
// binned training data.  The interface is public, in
// include/gbdt/data_source.h; this header is the engine's way in to it.
#pragma once

#include "../include/gbdt/data_source.h"
