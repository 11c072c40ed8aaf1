// Batch scoring with a reusable forest and worker threads (predict.cpp).
//
// BatchPredictor flattens the model's trees once and keeps up to nthread - 1
// worker threads for its whole life (started on the first batch that has
// more than one block of rows), so a caller that scores a relation batch by
// batch pays neither per batch.  A batch is scored asynchronously: start()
// returns at once and the workers score while the calling thread does other
// work (reading the next batch); finish() makes the calling thread score
// blocks too until the batch is done.  Workers block all signals and never
// call anything outside this file; they touch only the buffers of the
// batch in flight.  While a predictor has worker threads it is a
// WorkerGroup (thread_pool.h), so a backend that exits without unwinding
// stops and joins them before the buffers and the model go away.
//
// A batch may carry some of its rows as raw bytes (RawRows): fixed-width
// values at fixed byte offsets, decoded to float by whichever thread scores
// the row's block, exactly as the caller would have converted them (value
// -> double -> float; bool -> 0/1).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "../common/common.h"
#include "../model/model.h"
#include "../data/raw_rows.h"

namespace gbdt {

// Tests: which kernel scores batches.  0: the fastest available (default);
// 1: perfect-layout trees, scalar; 2: node tables (what deep trees use);
// 3: perfect-layout trees in AVX2 lanes where the CPU has AVX2 (kernel 0
// takes it on CPUs without AVX-512).  Raw rows (RawDecode) are decoded
// with the widest decoder under kernel 0, AVX2 under 3, scalar under 1, 2.
void set_predict_kernel_for_tests(int kernel);

// Tests: rows the AVX-512 and AVX2 kernels have left to the row walk after
// their vector steps since the process started, summed over trees (only a
// batch's last rows should be: fewer than 16 or 32 per tree).
size_t scoring_rows_walked_for_tests();

// A model's trees laid out for batch scoring (what BatchPredictor builds
// from the model): immutable, so predictors of the same model, in turn or at
// once, may share one instead of each laying the trees out again.
struct PreparedForest;
std::shared_ptr<const PreparedForest> prepare_forest(const Model& m);
size_t prepared_forest_bytes(const PreparedForest& p);

class BatchPredictor {
 public:
  // The model must outlive the predictor.  nthread <= 1: the calling thread only.
  BatchPredictor(const Model& m, int nthread);
  // The same with forest = prepare_forest(m) of this very model (NULL: built here).
  BatchPredictor(const Model& m, int nthread, std::shared_ptr<const PreparedForest> forest);
  ~BatchPredictor();  // abandons a batch in flight and joins the workers
  BatchPredictor(const BatchPredictor&) = delete;
  BatchPredictor& operator=(const BatchPredictor&) = delete;

  int K() const;
  // Starts scoring n rows of x (row-major, n x n_features; rows pending in
  // raw are decoded into x first) into out (n x K, after transform_margins).
  // Buffers must stay valid, and untouched by the caller, until finish().
  // At most one batch in flight.
  void start(float* x, size_t n, double* out, const RawRows* raw = nullptr);
  // Starts the worker threads now rather than at the first batch of more
  // than one block, for a caller that will score many rows: they are then
  // up (and spinning, spin_wait.h) when that batch starts.  Without threads
  // to spare (nthread 1, a failed start) it does nothing; never throws.
  void prestart();
  // Scores alongside the workers until the batch in flight is done;
  // rethrows a worker's exception.  No-op when nothing is in flight.
  void finish();
  // Stops the batch in flight (blocks not yet taken are skipped, blocks
  // being scored stop at their next tree, or within kCheckLevels levels of
  // a deep tree) and waits for them.  Never throws.
  void abandon() noexcept;
  // The caller's cancel callback, polled on the calling thread while it
  // scores (through a CancelPoller counting node visits: between trees,
  // and every few thousand visits inside a deep tree) or waits (every
  // 10 ms) in finish(): when it reports a cancel, a flag stops the batch
  // (the workers check it at the same points) and finish() throws
  // Cancelled.
  void set_cancel(CancelFn fn);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// predict_margin_row / predict_value_row (model.h) polling cancel every
// 4096 trees (throws Cancelled): a row over a huge model stops promptly.
void predict_margin_row(const Model& m, const float* x, double* out, int rounds,
                        const CancelFn& cancel);
double predict_value_row(const Model& m, const float* x, const CancelFn& cancel);

// The same over m's prepared forest (prepare_forest(m) of this very model):
// the same bits, faster for shallow trees (their perfect layout).
void predict_margin_row(const Model& m, const PreparedForest& pf, const float* x, double* out,
                        const CancelFn& cancel);
double predict_value_row(const Model& m, const PreparedForest& pf, const float* x,
                         const CancelFn& cancel);

// predict_batch (model.h) with a cancel callback polled as by
// BatchPredictor::set_cancel; throws Cancelled.
void predict_batch(const Model& m, const float* x, size_t n, double* out, int nthread,
                   const CancelFn& cancel);

}  // namespace gbdt
