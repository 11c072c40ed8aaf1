// Reading a relation's rows through a query in one fixed order, the order
// a model or a metric depends on (the float sums of a metric, the ties of
// the first boosting round, the copies of partition_by).  Two executor
// features can change the order from one call to the next: a parallel
// scan (its workers' rows interleave) and a synchronized scan (a large
// table's scan may start where another backend's is).  Between
// begin_read_in_order() and end_read_in_order(level) both are off; an
// error in between leaves the restoring to the transaction's abort.
#pragma once

namespace gbdt_pg {

// Turns parallel and synchronized scans off; returns the settings' level.
int begin_read_in_order();
// Restores the settings begin_read_in_order() changed.
void end_read_in_order(int level);

}  // namespace gbdt_pg
