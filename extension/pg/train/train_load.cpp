#include "train/train_load.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "read/array_features.h"
#include "gbdt/load_internals.h"
#include "read/category_dict.h"
#include "train/feature_selection.h"
#include "guard.h"
#include "settings.h"
#include "gbdt/errors.h"
#include "module.h"
#include "train/train_data.h"
#include "train/train_bounds.h"  // survival:aft's upper bounds
#include "train/train_groups.h"

namespace gbdt_pg {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The load's C++ objects, deleted by a reset callback of the load's memory
// context: an error or cancel anywhere in the load frees them.
struct Owned {
  gbdt::BinnedInput* data;
  gbdt::RowBinner* binner;
};

void delete_owned(void* arg) {
  Owned* o = (Owned*)arg;
  delete o->binner;  // joins its threads
  o->binner = nullptr;
  delete o->data;
  o->data = nullptr;
}

void relation_changed(const RelInfo* rel) {
  elog(ERROR, "gbdt: relation \"%s\" returned different rows in two passes under one snapshot",
       rel->name);
}

// The label of a delivered row: the class index of a text label, else the
// value read.  The weight (second column when there is one) must be a
// finite number >= 0.
float row_label(const LoadSpec* spec, TupleTableSlot* slot, const float* vals) {
  if (spec->labels != nullptr && spec->labels->text)
    return text_label_code(spec->labels, spec->target, slot->tts_values[0]);
  return vals[0];
}
float row_weight(const LoadSpec* spec, const float* vals, const bool* nulls) {
  if (nulls[1])
    ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
                    errmsg("weight column \"%s\" contains NULL", spec->weight_column),
                    errhint("Every row with a target needs a weight >= 0 (0 leaves the row "
                            "out of the training).")));
  if (!(vals[1] >= 0) || !std::isfinite(vals[1]))
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("weight column \"%s\" contains %g: weights must be finite and >= 0",
                           spec->weight_column, (double)vals[1])));
  return vals[1];
}

// The row's features (array columns expanded) into dst[0 .. nx).
void fill_features(const LoadSpec* spec, int first, TupleTableSlot* slot, const float* vals,
                   const bool* nulls, float* dst) {
  const FeatureSet* fs = spec->features;
  int j = 0;
  for (int i = 0; i < fs->n; i++) {
    if (fs->kinds[i] == ValKind::kArray) {
      expand_array(slot->tts_values[first + i], nulls[first + i], fs->elem_kinds[i],
                   fs->widths[i], fs->names[i], dst + j, true);
      j += fs->widths[i];
    } else {
      dst[j++] = vals[first + i];
    }
  }
}

// Rows as float columns (column-major), label first.
struct FloatSink {
  float* rowbuf;    // nx floats: a row with its arrays expanded
  const LoadSpec* spec;
  int first;        // index of the first feature among the reader's columns
  float* weights;   // null without a weight column
  const RelInfo* rel;
  MemoryContext cxt;
  int nf;
  float** cols;
  float* labels;
  float** take_dst;  // first + nf: labels, weights (first 2), then cols (float_take's copy)
  size_t n;
  size_t cap;
  bool growable;    // one-pass (SPI) load of unknown size
  double max_rows;  // growable: rows at which the memory estimate exceeds the limit
  // One-pass direct scan (load_one_pass): instead of growing past
  // bail_rows (or past what gbdt.max_memory admits with the float copy),
  // stop keeping rows and set overflow (the caller falls back to passes).
  size_t bail_rows;
  bool overflow;
  const MemoryShape* memory;
  uint64 skipped;
  GroupCoder* groups;  // codes the group column of each row kept (null: none)
  int group_col;       // its index among the columns read
  UpperBounds* upper;  // survival:aft's upper bounds (null: none)
  int upper_col;
  // The raw pass of the cut sample (pass 2, sample_take): rows with a
  // target are numbered (kept) and the ones numbered sample[next] kept.
  const uint64* sample;  // ascending, sample_n of them (null: every row)
  size_t sample_n;
  size_t sample_next;
  uint64 kept;
};

void sink_alloc(FloatSink* s, size_t cap) {
  if (cap < 1) cap = 1;
  s->cap = cap;
  s->labels = (float*)MemoryContextAllocHuge(s->cxt, sizeof(float) * cap);
  if (s->spec->weight_column != nullptr)
    s->weights = (float*)MemoryContextAllocHuge(s->cxt, sizeof(float) * cap);
  s->cols = (float**)MemoryContextAlloc(s->cxt, sizeof(float*) * s->nf);
  for (int f = 0; f < s->nf; f++)
    s->cols[f] = (float*)MemoryContextAllocHuge(s->cxt, sizeof(float) * cap);
  s->take_dst = (float**)MemoryContextAlloc(s->cxt, sizeof(float*) * (s->nf + 2));
}

void sink_free(FloatSink* s) {
  for (int f = 0; f < s->nf; f++) pfree(s->cols[f]);
  pfree(s->cols);
  pfree(s->take_dst);
  pfree(s->labels);
  if (s->weights != nullptr) pfree(s->weights);
  s->weights = nullptr;
  s->cols = nullptr;
  s->take_dst = nullptr;
  s->labels = nullptr;
}

void float_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  FloatSink* s = (FloatSink*)arg;
  const bool text_label = s->spec->labels != nullptr && s->spec->labels->text;
  if (s->overflow) return;
  if (nulls[0] || (!text_label && std::isnan(vals[0]))) {
    s->skipped++;
    return;
  }
  if (s->bail_rows > 0 && s->n >= s->bail_rows) {
    s->overflow = true;
    return;
  }
  if (s->n == s->cap) {
    if (!s->growable) relation_changed(s->rel);
    size_t cap = s->cap * 2;
    if (s->bail_rows > 0) {
      cap = std::min(cap, s->bail_rows);
      if (training_bytes_estimate((double)cap, s->nf, (double)cap, *s->memory) >
              max_memory_bytes()) {
        s->overflow = true;
        return;
      }
    } else if ((double)s->n >= s->max_rows) {
      check_memory_estimate((double)s->n + 1, s->nf, (double)s->n + 1, true, *s->memory);
    }
    s->labels = (float*)repalloc_huge(s->labels, sizeof(float) * cap);
    if (s->weights != nullptr) s->weights = (float*)repalloc_huge(s->weights, sizeof(float) * cap);
    for (int f = 0; f < s->nf; f++)
      s->cols[f] = (float*)repalloc_huge(s->cols[f], sizeof(float) * cap);
    s->cap = cap;
  }
  if (s->groups) group_coder_add(s->groups, slot->tts_values[s->group_col], nulls[s->group_col]);
  if (s->upper) upper_bounds_add(s->upper, vals[s->upper_col], nulls[s->upper_col]);
  size_t i = s->n++;
  s->labels[i] = row_label(s->spec, slot, vals);
  if (s->weights != nullptr) s->weights[i] = row_weight(s->spec, vals, nulls);
  if (s->spec->features->has_arrays) {
    fill_features(s->spec, s->first, slot, vals, nulls, s->rowbuf);
    for (int f = 0; f < s->nf; f++) s->cols[f][i] = s->rowbuf[f];
  } else {
    for (int f = 0; f < s->nf; f++) s->cols[f][i] = vals[f + s->first];
  }
}

// The raw pass into a FloatSink (relation_reader.h): float_row's work on
// decoded batches, on the reader's worker.  A row float_row would handle
// otherwise than by storing it (a bad weight, the sink full, the bail-out
// size reached) stops take, and float_stopped runs float_row itself on it.
// Only for sinks with nothing float_row reads from the slot (no text
// labels, arrays, groups or upper bounds), of a fixed size or with a
// bail-out size.
bool sink_rows_plain(const LoadSpec* spec) {
  return !(spec->labels != nullptr && spec->labels->text) && !spec->features->has_arrays;
}
bool float_sink_takes_raw(const FloatSink* s) {
  return sink_rows_plain(s->spec) && s->groups == nullptr && s->upper == nullptr &&
         (!s->growable || s->bail_rows > 0);
}

// Rows [from, to) of a decoded batch (relation_reader.h RawSink::take): a
// row without a target (NaN) is skipped and counted; the others get index
// *n, *n + 1, ... below lim, their weight (when there are weights, column
// 1) is checked, and each run of consecutive ones, rows [r, e), goes to
// store(r, e, index of row r), which stores values and weights.  A bad
// weight or lim stops it; returns the first row not taken.
template <class StoreRun>
size_t take_runs(const float* x, size_t ncols, size_t from, size_t to, size_t lim, float* weights,
                 size_t* n, uint64* skipped, StoreRun store) {
  size_t i = *n, r = from;
  while (r < to) {
    if (std::isnan(x[r * ncols])) {
      (*skipped)++;
      r++;
      continue;
    }
    if (i >= lim) break;
    size_t e = r;
    bool bad = false;
    for (; e < to && e - r < lim - i && !std::isnan(x[e * ncols]); e++) {
      if (weights == nullptr) continue;
      const float w = x[e * ncols + 1];
      if (!(w >= 0) || !std::isfinite(w)) {
        bad = true;
        break;
      }
    }
    if (e > r) store(r, e, i);
    i += e - r;
    r = e;
    if (bad) break;
  }
  *n = i;
  return r;
}

// take_runs' runs copied as columns at once: the label, the weight (with
// weights) and the features are columns 0, first - 1 and first + f.
size_t float_take(void* arg, const float* x, size_t ncols, size_t from, size_t to) {
  FloatSink* s = (FloatSink*)arg;
  const int first = s->first, nf = s->nf;
  const size_t lim = s->bail_rows > 0 ? std::min(s->cap, s->bail_rows) : s->cap;
  float** dst = s->take_dst;
  dst[0] = s->labels;
  if (first == 2) dst[1] = s->weights;
  for (int f = 0; f < nf; f++) dst[first + f] = s->cols[f];
  return take_runs(x, ncols, from, to, lim, s->weights, &s->n, &s->skipped,
                   [&](size_t r, size_t e, size_t i) {
                     gbdt::rows_to_columns(x, ncols, r, e, (size_t)(first + nf), dst, i);
                   });
}

bool float_stopped(void* arg, const float* vals, const bool* nulls) {
  FloatSink* s = (FloatSink*)arg;
  float_row(arg, nullptr, vals, nulls);
  return !s->overflow;
}

const RawSink kFloatRawSink{float_take, float_stopped};

// float_take for the cut sample (FloatSink::sample): rows without a target
// are skipped and counted, the others numbered, and runs of consecutive
// sampled ones taken by float_take; returns the first row not taken (a
// sampled row float_take stopped at: sample_stopped takes it).
size_t sample_take(void* arg, const float* x, size_t ncols, size_t from, size_t to) {
  FloatSink* s = (FloatSink*)arg;
  size_t r = from;
  while (r < to) {
    if (std::isnan(x[r * ncols])) {
      s->skipped++;
      r++;
      continue;
    }
    if (s->sample_next >= s->sample_n || s->sample[s->sample_next] != s->kept) {
      // Not sampled, but its weight is checked all the same (sample_stopped
      // raises the error): the first bad row is the table's, as in one pass.
      if (s->weights != nullptr) {
        const float w = x[r * ncols + 1];
        if (!(w >= 0) || !std::isfinite(w)) return r;
      }
      s->kept++;
      r++;
      continue;
    }
    size_t e = r + 1, next = s->sample_next + 1;
    uint64 k = s->kept + 1;
    while (e < to && next < s->sample_n && s->sample[next] == k && !std::isnan(x[e * ncols])) {
      e++;
      next++;
      k++;
    }
    const size_t got = float_take(arg, x, ncols, r, e) - r;
    s->kept += got;
    s->sample_next += got;
    r += got;
    if (r < e) return r;
  }
  return r;
}

// A row sample_take did not take, or that the reader handed over itself
// (one it converted on this thread): numbered and kept as sample_take would.
bool sample_stopped(void* arg, const float* vals, const bool* nulls) {
  FloatSink* s = (FloatSink*)arg;
  if (nulls[0] || std::isnan(vals[0])) {  // no text labels here (sink_rows_plain)
    s->skipped++;
    return true;
  }
  const bool sampled = s->sample_next < s->sample_n && s->sample[s->sample_next] == s->kept;
  if (!sampled && s->weights != nullptr) (void)row_weight(s->spec, vals, nulls);  // its error
  s->kept++;
  if (!sampled) return true;
  s->sample_next++;
  return float_stopped(arg, vals, nulls);
}

const RawSink kSampleRawSink{sample_take, sample_stopped};

// Every row straight into the RowBinner (pass 3).
struct BinSink {
  const LoadSpec* spec;
  int first;
  float* weights;
  const RelInfo* rel;
  Owned* owned;
  float* labels;
  int nf;
  size_t n;
  size_t cap;
  GroupCoder* groups;  // ranking's query groups (null: none)
  int group_col;
  UpperBounds* upper;  // survival:aft's upper bounds (null: none)
  int upper_col;
  uint64 skipped;      // raw pass: rows without a target
};

void bin_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  BinSink* s = (BinSink*)arg;
  if (s->n == s->cap) relation_changed(s->rel);
  if (s->groups) group_coder_add(s->groups, slot->tts_values[s->group_col], nulls[s->group_col]);
  if (s->upper) upper_bounds_add(s->upper, vals[s->upper_col], nulls[s->upper_col]);
  if (s->weights != nullptr) s->weights[s->n] = row_weight(s->spec, vals, nulls);
  s->labels[s->n++] = row_label(s->spec, slot, vals);
  float* x = nullptr;
  gbdt::RowBinner* b = s->owned->binner;
  run_engine([&] { x = b->next_row(); });  // bins the previous chunk when full
  if (s->spec->features->has_arrays)
    fill_features(s->spec, s->first, slot, vals, nulls, x);
  else
    memcpy(x, vals + s->first, sizeof(float) * s->nf);
}

// The raw pass into a BinSink: bin_row's work on decoded batches, on the
// reader's worker (which then also bins each full chunk); a bad weight or a
// row past the count of pass 1 stops take, and bin_row itself takes it.
size_t bin_take(void* arg, const float* x, size_t ncols, size_t from, size_t to) {
  BinSink* s = (BinSink*)arg;
  const int first = s->first;
  const size_t feature_bytes = sizeof(float) * (size_t)s->nf;
  gbdt::RowBinner* binner = s->owned->binner;
  float* labels = s->labels;
  float* weights = s->weights;
  return take_runs(x, ncols, from, to, s->cap, weights, &s->n, &s->skipped,
                   [&](size_t r, size_t e, size_t i) {
                     for (; r < e; r++, i++) {
                       const float* v = x + r * ncols;
                       labels[i] = v[0];
                       if (weights != nullptr) weights[i] = v[1];
                       memcpy(binner->next_row(), v + first, feature_bytes);  // bins a full chunk
                     }
                   });
}

// A row bin_take stopped at, or one the reader converted on this thread
// (a row the walk left, which may have no target: skipped as take skips it).
bool bin_stopped(void* arg, const float* vals, const bool* nulls) {
  BinSink* s = (BinSink*)arg;
  if (nulls[0] || std::isnan(vals[0])) {  // no text labels here (sink_rows_plain)
    s->skipped++;
    return true;
  }
  bin_row(arg, nullptr, vals, nulls);
  return true;
}

const RawSink kBinRawSink{bin_take, bin_stopped};

// Index of the first feature of column i (array columns expand to
// widths[i] features; every other column is one feature).
int first_feature_of(const FeatureSet* fs, int i) {
  int j = 0;
  for (int c = 0; c < i; c++) j += fs->kinds[c] == ValKind::kArray ? fs->widths[c] : 1;
  return j;
}

// Per column, its (first) feature's float column: the dictionaries are per
// column, the float columns per feature (palloc'd).
float** category_columns(const FeatureSet* fs, float** feature_cols) {
  float** out = (float**)palloc(sizeof(float*) * (fs->n > 0 ? fs->n : 1));
  for (int i = 0; i < fs->n; i++) out[i] = feature_cols[first_feature_of(fs, i)];
  return out;
}

// Category names per feature (empty for numeric features and array
// elements; categorical columns are never array columns).  Engine code.
void feature_category_names(const FeatureSet* fs, const TrainCategories* tcat,
                            std::vector<std::vector<std::string>>* out) {
  std::vector<std::vector<std::string>> names;
  train_categories_names(tcat, &names);
  out->clear();
  for (int i = 0; i < fs->n; i++) {
    if (fs->kinds[i] == ValKind::kArray)
      out->resize(out->size() + (size_t)fs->widths[i]);
    else
      out->push_back(names[(size_t)i]);
  }
}

template <class Input>
void set_names(const LoadSpec& spec, const LoadResult* out, Input* d, const TrainCategories* tcat) {
  const FeatureSet* fs = spec.features;
  for (int i = 0; i < out->n_kept; i++) {
    const int f = out->kept[i];
    d->feature_names.emplace_back(fs->x_model_names[f]);
    d->feature_types.push_back(fs->x_types[f]);
  }
  // category names of the kept features (the dictionaries are per
  // column, expanded to the features).
  if (tcat != nullptr) {
    std::vector<std::vector<std::string>> names;
    feature_category_names(fs, tcat, &names);
    for (int i = 0; i < out->n_kept; i++) d->categories.push_back(names[out->kept[i]]);
  }
}

// Column checks on the float rows (column_checks.h), one feature per task
// on spec.nthread threads: on all s->n rows, or when take < s->n (a table
// held whole but larger than its cut sample) on the sample rows
// gbdt::cut_sample_row(i, s->n, take), exactly the rows the passes would
// have read into floats.  With every row in hand (all_rows), constant
// columns are dropped when the spec asks (unless every column is constant).
void check_float_columns(const LoadSpec& spec, const FloatSink* s, bool all_rows, size_t take,
                         LoadResult* out) {
  const int nf = s->nf;
  out->checks = (ColumnCheck*)palloc0(sizeof(ColumnCheck) * (nf > 0 ? nf : 1));
  out->values = (gbdt::ValueCheck*)palloc0(sizeof(gbdt::ValueCheck) * (nf > 0 ? nf : 1));
  out->identifier = (const char**)palloc0(sizeof(char*) * (nf > 0 ? nf : 1));
  out->checked_all_rows = all_rows && take >= s->n;
  ColumnCheck* checks = out->checks;
  gbdt::ValueCheck* values = out->values;
  // Which features get the value checks (categorical and integer columns),
  // and which of them may be sorted (feature_selection.h).
  FeatureValueKinds vk = feature_value_kinds(spec.features);
  run_engine([&] {
    // The calling thread (task thread 0) polls for a cancel and raises the
    // flag the workers read.
    gbdt::CancelFlag stop;
    const gbdt::CancelFn caller = [&stop] {
      if (stop.raised()) return true;
      if (!interrupt_pending()) return false;
      stop.raise();
      return true;
    };
    const gbdt::CancelFn worker = [&stop] { return stop.raised(); };
    const bool sampled = take < s->n;
    const size_t m = sampled ? take : s->n;
    std::vector<float> labels;
    std::vector<size_t> rows;  // the sample's row numbers
    if (sampled) {
      labels.resize(take);
      rows.resize(take);
      for (size_t i = 0; i < take; i++) {
        rows[i] = gbdt::cut_sample_row(i, s->n, take);
        labels[i] = s->labels[rows[i]];
      }
    }
    // No worker thread is started for a step too small to share.
    const size_t work = m * (size_t)nf * 4;
    gbdt::ThreadPool pool(gbdt::threads_for_work(work, spec.nthread));
    std::vector<std::vector<float>> buf(sampled ? (size_t)pool.size() : 0);
    pool.run_sized(work, (size_t)nf, [&](size_t f, int t) {
      const float* col = s->cols[f];
      if (sampled) {
        std::vector<float>& b = buf[(size_t)t];
        b.resize(take);
        for (size_t i = 0; i < take; i++) b[i] = col[rows[i]];
        col = b.data();
      }
      const float* y = sampled ? labels.data() : s->labels;
      check_columns(&col, 1, y, m, &checks[f]);
      if (vk.check[f]) {
        try {
          values[f] = gbdt::check_values(col, y, m, vk.sortable[f], !vk.integer[f],
                                        t == 0 ? caller : worker);
        } catch (...) {
          stop.raise();  // the other tasks stop at their next poll
          throw;
        }
      }
    });
  });
  for (int f = 0; f < nf; f++)
    out->identifier[f] = identifier_reason(spec.features, vk, f, values[f], out->checked_all_rows);
  all_rows = out->checked_all_rows;
  out->kept = (int*)palloc(sizeof(int) * (nf > 0 ? nf : 1));
  out->n_kept = 0;
  // array elements are never left out: their positions give the array's
  // length when the model scores (array_features.h).
  bool* in_array = (bool*)palloc0(sizeof(bool) * (nf > 0 ? nf : 1));
  for (int i = 0, j = 0; i < spec.features->n && j < nf; i++) {
    const bool arr = spec.features->kinds[i] == ValKind::kArray;
    for (int e = 0; e < (arr ? spec.features->widths[i] : 1) && j < nf; e++) in_array[j++] = arr;
  }
  for (int f = 0; f < nf; f++)
    if (!(spec.drop_constant && all_rows &&
          (out->checks[f].constant || out->identifier[f] != nullptr) && !in_array[f]))
      out->kept[out->n_kept++] = f;
  if (out->n_kept == 0) {
    for (int f = 0; f < nf; f++) out->kept[f] = f;
    out->n_kept = nf;
  }
  // Category codes are arbitrary numbers: no correlation or equality with
  // the target is meaningful for them.
  for (int f = 0; f < nf; f++)
    if (spec.features->x_types[f] == gbdt::FeatureType::kCategorical)
      out->checks[f].near_target = false;
}

// Categories per feature (0: numeric) for the cuts of categorical features.
std::vector<uint32_t> category_counts(const FeatureSet* fs, const TrainCategories* tcat) {
  std::vector<std::vector<std::string>> names;
  feature_category_names(fs, tcat, &names);
  std::vector<uint32_t> counts;
  for (const auto& n : names) counts.push_back((uint32_t)n.size());
  return counts;
}

struct CategoryPass {
  TrainCategories* tcat;
  int first;  // index of the first feature among the reader's columns
};

// Pass 1 with categorical features: counts the values of every row with a target.
void count_categories_row(void* arg, TupleTableSlot* slot, const float* vals, const bool* nulls) {
  CategoryPass* cp = (CategoryPass*)arg;
  train_categories_count_row(cp->tcat, vals + cp->first);
}

// Pass 1 in the batched pass (relation_reader.h table_pass_raw): the
// worker counts the rows with a target and their values, as table_pass
// with count_categories_row does; it never stops a batch.
struct CountSink {
  CategoryPass* cp;
  uint64 kept;
  uint64 skipped;  // rows whose target is NULL or NaN
};

size_t count_take(void* arg, const float* x, size_t ncols, size_t from, size_t to) {
  CountSink* s = (CountSink*)arg;
  for (size_t r = from; r < to; r++) {
    const float* v = x + r * ncols;
    if (std::isnan(v[0])) {
      s->skipped++;
      continue;
    }
    s->kept++;
    train_categories_count_row(s->cp->tcat, v + s->cp->first);
  }
  return to;
}

// A row whose value only this thread could code (its error comes first).
bool count_stopped(void* arg, const float* vals, const bool* nulls) {
  count_take(arg, vals, 0, 0, 1);
  return true;
}

const RawSink kCountRawSink{count_take, count_stopped};

// Bins float columns as the in-memory engine does; frees them.  The
// column checks see every row unless check_sample (a plain table read
// whole in one pass): then the cut sample, as the passes would.
void bin_floats(const LoadSpec& spec, FloatSink* s, Owned* owned, LoadResult* out,
                const TrainCategories* tcat, bool check_sample = false) {
  const FloatSink* cs = s;
  const size_t cap = spec.sample_rows > 0 ? spec.sample_rows : gbdt::cut_sample_rows(s->nf);
  check_float_columns(spec, s, true, check_sample ? std::min(s->n, cap) : s->n, out);
  run_engine([&] {
    gbdt::TrainInput in;
    in.features.n_rows = cs->n;
    for (int i = 0; i < out->n_kept; i++) in.features.columns.push_back(cs->cols[out->kept[i]]);
    // sink_free comes next: the float pages go as their rows are binned.
    in.features.release_binned = true;
    in.labels = cs->labels;
    in.rows_skipped = cs->skipped;
    // Names, types and categories (bin_input makes categorical cuts from
    // the categories and copies them).
    set_names(spec, out, &in, tcat);
    owned->data = new gbdt::BinnedInput(gbdt::bin_input(in, spec.max_bin, spec.sample_rows, spec.nthread));
    if (cs->weights != nullptr) owned->data->weights.assign(cs->weights, cs->weights + cs->n);
  });
  sink_free(s);
}

void report_no_rows(const LoadSpec& spec, uint64 total, uint64 kept) {
  if (total == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("relation \"%s\" has no rows", spec.rel->name)));
  if (kept == 0)
    ereport(ERROR, (errcode(ERRCODE_NO_DATA_FOUND),
                    errmsg("all values of target column \"%s\" are NULL", spec.target)));
}

// Floats a one-pass load may hold: the cut sample's own bound (64 MiB,
// gbdt::cut_sample_rows), for the whole table instead of its sample.
constexpr double kOnePassFloats = (double)(1u << 24);

// Direct scan of a plain table in one pass (instead of a counting pass, a
// sample pass and, for a table larger than its cut sample, a binning pass):
// every row with a target into growable float columns, categorical values
// with provisional codes that are counted and remapped afterwards, as the
// SPI path does.  The codes, rows, column checks (on the cut sample's rows
// when the table is larger than it), cuts and bins are those the passes
// give.  Taken when gbdt.enable_one_pass_load is on, no group or
// upper-bound column is read and the planner's estimate (estimated_rows:
// a table just loaded and never analyzed has one too) puts the table well
// under the cut sample (every row is the sample) or its float copy within
// the cut sample's bound (kOnePassFloats), and within gbdt.max_memory; false (nothing
// kept, the dictionaries' provisional codes unchanged, which the next scan
// finds again) when the table turns out larger than that after all: more
// rows than the cut sample and than twice the estimate, more floats than
// the bound, or more memory than gbdt.max_memory.
bool load_one_pass(const LoadSpec& spec, TablePasses* tp, FloatSink* fs, TrainCategories* tcat,
                   Owned* owned, LoadResult* out, size_t sample_cap, uint64* skipped) {
  const RelInfo* rel = spec.rel;
  const double est = estimated_rows(rel);
  const int nf = std::max(fs->nf, 1);
  if (!guc_one_pass_load || !(est > 0)) return false;
  if (!(est <= 0.5 * (double)sample_cap || est * nf <= kOnePassFloats)) return false;
  // Beyond gbdt.max_memory by the estimate: the passes count the rows and
  // refuse with the exact count.
  if (training_bytes_estimate(est, fs->nf, est, spec.memory) > max_memory_bytes()) return false;
  fs->growable = true;
  fs->overflow = false;
  fs->bail_rows = std::max(sample_cap, (size_t)std::min(2 * ceil(est), kOnePassFloats / nf));
  sink_alloc(fs, std::min(fs->bail_rows, std::max<size_t>(1024, (size_t)est + 1)));
  uint64 sk = 0, n = 0;
  // Plain numbers are decoded on a worker while this thread reads on.
  if (!(float_sink_takes_raw(fs) && table_pass_raw(tp, &kFloatRawSink, fs, spec.nthread, &n)))
    n = table_pass(tp, nullptr, 0, float_row, fs, &sk);
  if (fs->overflow) {
    sink_free(fs);
    fs->n = 0;
    fs->cap = 0;
    fs->skipped = 0;
    fs->growable = false;
    fs->overflow = false;
    fs->bail_rows = 0;
    return false;
  }
  report_no_rows(spec, n + sk, fs->n);
  out->rows_read = n + sk;
  out->passes = 1;
  out->sample_rows = std::min(fs->n, sample_cap);
  *skipped = sk + fs->skipped;
  if (tcat != nullptr) {
    float** ccols = category_columns(spec.features, fs->cols);
    train_categories_count_columns(tcat, ccols, fs->n, spec.nthread);
    train_categories_finalize(tcat, ccols, fs->n, spec.nthread);
    pfree(ccols);
  }
  close_table_passes(tp);
  bin_floats(spec, fs, owned, out, tcat, true);
  return true;
}

// What the three ways of loading share: the columns read, the role
// columns' coders, the dictionaries and where the result goes.
struct LoadRun {
  const LoadSpec& spec;
  MemoryContext cxt;
  LoadResult* out;
  Owned* owned;
  const RelInfo* rel;
  int nf;
  size_t sample_cap;
  ReaderColumn* cols;
  int ncols;
  int first;
  GroupCoder* groups;
  int group_col;
  UpperBounds* upper;
  int upper_col;
  TrainCategories* tcat;
};

// One pass through SPI into float columns (a relation the table passes
// cannot read: a view, a foreign table, a table with row security...).
void load_in_one_spi_pass(const LoadRun& r, FloatSink* fsp, uint64* skipped, double* seconds_bin) {
  const LoadSpec& spec = r.spec;
  const RelInfo* rel = r.rel;
  const int nf = r.nf;
  Owned* owned = r.owned;
  LoadResult* out = r.out;
  TrainCategories* tcat = r.tcat;
  FloatSink& fs = *fsp;
  const size_t sample_cap = r.sample_cap;
  GroupCoder* groups = r.groups;
  UpperBounds* upper = r.upper;
  const int group_col = r.group_col, upper_col = r.upper_col;
  // One pass through SPI into float columns.
  if (rel->reltuples > 0)
    check_memory_estimate(rel->reltuples, nf, rel->reltuples, false, spec.memory);
  fs.growable = true;
  // Bytes per row of the estimate (it grows about linearly with rows).
  const double per_row =
      (training_bytes_estimate(1e6, nf, 1e6, spec.memory) -
       training_bytes_estimate(0, nf, 0, spec.memory)) / 1e6;
  fs.max_rows = floor(max_memory_bytes() / per_row);
  size_t initial = 16384;
  const double est = estimated_rows(rel);
  if (est > 0 && est < fs.max_rows) initial = (size_t)est + 1;
  sink_alloc(&fs, initial < 1024 ? 1024 : initial);
  fs.groups = groups;
  fs.group_col = group_col;
  fs.upper = upper;
  fs.upper_col = upper_col;
  uint64 total = read_relation(rel, r.cols, r.ncols, float_row, &fs, false);
  report_no_rows(spec, total, fs.n);
  out->rows_read = total;
  out->passes = 1;
  out->sample_rows = std::min(fs.n, sample_cap);
  *skipped = fs.skipped;
  if (tcat != nullptr) {
    float** ccols = category_columns(spec.features, fs.cols);
    train_categories_count_columns(tcat, ccols, fs.n, spec.nthread);
    train_categories_finalize(tcat, ccols, fs.n, spec.nthread);
    pfree(ccols);
  }
  bin_floats(spec, &fs, owned, out, tcat);
  *seconds_bin = owned->data->seconds_bin;
}

// Pass 3 of a table larger than its cut sample: the cuts from the
// sample's floats (freed before the bin matrix is made), then every row
// binned as it is read.
void bin_every_row(const LoadRun& r, TablePasses* tp, FloatSink* fsp, uint64* rows, uint64 n,
                   double* seconds_bin) {
  const LoadSpec& spec = r.spec;
  const RelInfo* rel = r.rel;
  const int nf = r.nf;
  Owned* owned = r.owned;
  LoadResult* out = r.out;
  TrainCategories* tcat = r.tcat;
  FloatSink& fs = *fsp;
  const int first = r.first;
  uint64 skipped2 = 0;
  // Cuts from the sample; pass 3 bins every row as it is read.
  pfree(rows);
  check_float_columns(spec, &fs, false, fs.n, out);
  const FloatSink* cs = &fs;
  const auto tc = Clock::now();
  run_engine([&] {
    gbdt::ColumnInput sample;
    sample.n_rows = cs->n;
    sample.columns.assign(cs->cols, cs->cols + cs->nf);
    owned->data = new gbdt::BinnedInput();
    const std::vector<uint32_t> counts =
        tcat != nullptr ? category_counts(spec.features, tcat) : std::vector<uint32_t>();
    owned->data->cuts = gbdt::cuts_from_sample(sample, spec.max_bin, spec.nthread,
                                               tcat != nullptr ? &counts : nullptr);
    owned->data->labels.resize(n);
    if (spec.weight_column != nullptr) owned->data->weights.resize(n);
  });
  // The sample's floats go before the bin matrix comes: never both at
  // once (on 40k x 500 they were 67 MB and the matrix 20 MB, the
  // backend's peak).
  sink_free(&fs);
  run_engine([&] { owned->binner = new gbdt::RowBinner(owned->data->cuts, n, spec.nthread); });
  *seconds_bin = since(tc);
  BinSink bs;
  bs.spec = &spec;
  bs.first = first;
  bs.weights = spec.weight_column != nullptr ? owned->data->weights.data() : nullptr;
  bs.rel = rel;
  bs.owned = owned;
  bs.labels = owned->data->labels.data();
  bs.nf = nf;
  bs.n = 0;
  bs.cap = n;
  bs.groups = r.groups;
  bs.group_col = r.group_col;
  bs.upper = r.upper;
  bs.upper_col = r.upper_col;
  bs.skipped = 0;
  uint64 n3 = 0;
  if (r.groups == nullptr && r.upper == nullptr && sink_rows_plain(&spec) &&
      table_pass_raw(tp, &kBinRawSink, &bs, spec.nthread, &n3)) {
    n3 -= bs.skipped;
  } else {
    n3 = table_pass(tp, nullptr, 0, bin_row, &bs, &skipped2);
  }
  if (n3 != n || bs.n != n) relation_changed(rel);
  close_table_passes(tp);
  out->passes = 3;
  run_engine([&] {
    gbdt::BinnedInput* d = owned->data;
    gbdt::ValueRange range;
    d->matrix = owned->binner->finish(&range);
    gbdt::set_value_range(&d->cuts, range.lo, range.hi);
    *seconds_bin += owned->binner->seconds_binning();
    delete owned->binner;
    owned->binner = nullptr;
    set_names(spec, out, d, tcat);
  });
}

// A table read in passes: the rows with a target counted (and with
// categorical features every value, so the dictionaries are final), the
// cut sample read (every row when the table is within it), then, for a
// larger table, every row binned (bin_every_row).
void load_in_passes(const LoadRun& r, TablePasses* tp, FloatSink* fsp, uint64* skippedp,
                    double* seconds_bin) {
  const LoadSpec& spec = r.spec;
  const RelInfo* rel = r.rel;
  const int nf = r.nf;
  Owned* owned = r.owned;
  LoadResult* out = r.out;
  TrainCategories* tcat = r.tcat;
  FloatSink& fs = *fsp;
  uint64& skipped = *skippedp;
  const size_t sample_cap = r.sample_cap;
  const int first = r.first;
  GroupCoder* groups = r.groups;
  UpperBounds* upper = r.upper;
  const int group_col = r.group_col, upper_col = r.upper_col;
  MemoryContext cxt = r.cxt;
  if (rel->reltuples > 0)
    check_memory_estimate(rel->reltuples, nf, std::min(rel->reltuples, (double)sample_cap),
                          false, spec.memory);
  // Pass 1: rows with a target.
  // With categorical features, every row's values are counted: the
  // dictionaries are final before the sample and the bins are read.
  uint64 none = 0;
  CategoryPass cpass{tcat, first};
  CountSink counts{&cpass, 0, 0};
  uint64 n = 0, read = 0;
  if (tcat == nullptr) {
    n = table_pass(tp, &none, 0, nullptr, nullptr, &skipped);
  } else if (table_pass_raw(tp, &kCountRawSink, &counts, spec.nthread, &read)) {
    n = counts.kept;  // the worker codes and counts while this thread reads
    skipped = counts.skipped;
  } else {
    n = table_pass(tp, nullptr, 0, count_categories_row, &cpass, &skipped);
  }
  if (tcat != nullptr && n > 0) train_categories_finalize(tcat, nullptr, 0);
  report_no_rows(spec, n + skipped, n);
  const size_t take = std::min((size_t)n, sample_cap);
  check_memory_estimate((double)n, nf, (double)take, false, spec.memory);
  out->rows_read = n + skipped;
  out->sample_rows = take;

  // Pass 2: the cut sample (every row when take == n).
  sink_alloc(&fs, take);
  fs.groups = take == n ? groups : nullptr;  // a sample pass codes no groups
  fs.group_col = group_col;
  fs.upper = take == n ? upper : nullptr;
  fs.upper_col = upper_col;
  uint64* rows = nullptr;
  if (take < n) {
    rows = (uint64*)MemoryContextAllocHuge(cxt, sizeof(uint64) * take);
    for (size_t i = 0; i < take; i++) rows[i] = gbdt::cut_sample_row(i, n, take);
  }
  uint64 skipped2 = 0, n2 = 0;
  // The raw pass decodes every row; a sample's rows are picked from them.
  fs.sample = rows;
  fs.sample_n = take;
  if (float_sink_takes_raw(&fs) &&
      table_pass_raw(tp, rows == nullptr ? &kFloatRawSink : &kSampleRawSink, &fs, spec.nthread,
                     &n2)) {
    n2 -= fs.skipped;  // the raw pass skips nothing itself
  } else {
    n2 = table_pass(tp, rows, take, float_row, &fs, &skipped2);
  }
  fs.sample = nullptr;
  if (n2 != n || fs.n != take) relation_changed(rel);

  if (take == n) {
    close_table_passes(tp);
    out->passes = 2;
    bin_floats(spec, &fs, owned, out, tcat);
    *seconds_bin = owned->data->seconds_bin;
  } else {
    bin_every_row(r, tp, &fs, rows, n, seconds_bin);
  }
}

}  // namespace

void load_training_data(const LoadSpec& spec, MemoryContext cxt, LoadResult* out) {
  const RelInfo* rel = spec.rel;
  const int nf = spec.features->nx;
  const size_t sample_cap = spec.sample_rows > 0 ? spec.sample_rows : gbdt::cut_sample_rows(nf);
  MemoryContext old = MemoryContextSwitchTo(cxt);
  Owned* owned = (Owned*)palloc0(sizeof(Owned));
  MemoryContextCallback* cb = (MemoryContextCallback*)palloc0(sizeof(MemoryContextCallback));
  cb->func = delete_owned;
  cb->arg = owned;
  MemoryContextRegisterResetCallback(cxt, cb);

  const int first = spec.weight_column != nullptr ? 2 : 1;
  int ncols = spec.features->n + first;
  ReaderColumn* cols = (ReaderColumn*)palloc(sizeof(ReaderColumn) * (ncols + 2));
  cols[0] = ReaderColumn{spec.target, spec.target_kind, true, true};
  if (spec.weight_column != nullptr)
    cols[1] = ReaderColumn{spec.weight_column, spec.weight_kind, true, false};
  for (int f = 0; f < spec.features->n; f++)
    cols[f + first] = ReaderColumn{spec.features->names[f], spec.features->kinds[f], true, false};
  // the group column last, passed through as text.
  GroupCoder* groups = nullptr;
  const int group_col = ncols;
  if (spec.group_column) {
    cols[ncols++] = ReaderColumn{spec.group_column, ValKind::kNone, false, false};
    groups = group_coder_create(cxt, spec.group_column);
  }
  // the upper bounds after it (+Infinity allowed: right-censored).
  UpperBounds* upper = nullptr;
  const int upper_col = ncols;
  if (spec.upper_column) {
    cols[ncols++] = ReaderColumn{spec.upper_column, spec.upper_kind, false, false};
    upper = upper_bounds_create(cxt);
  }

  // Dictionaries of the categorical features (category_dict.h).
  TrainCategories* tcat =
      train_categories_create(cxt, rel, cols, first, spec.features->n, spec.max_categories);

  FloatSink fs;
  memset(&fs, 0, sizeof(fs));
  fs.spec = &spec;
  fs.first = first;
  fs.rowbuf = (float*)palloc(sizeof(float) * (nf > 0 ? nf : 1));
  fs.rel = rel;
  fs.cxt = cxt;
  fs.nf = nf;
  fs.memory = &spec.memory;
  const auto t0 = Clock::now();
  double seconds_bin = 0;
  uint64 skipped = 0;

  TablePasses* tp = open_table_passes(rel, cols, ncols, false);
  const LoadRun run{spec, cxt, out, owned, rel, nf, sample_cap, cols, ncols, first,
                    groups, group_col, upper, upper_col, tcat};
  if (tp == nullptr) {
    load_in_one_spi_pass(run, &fs, &skipped, &seconds_bin);
  } else if (groups == nullptr && upper == nullptr &&
             load_one_pass(spec, tp, &fs, tcat, owned, out, sample_cap, &skipped)) {
    seconds_bin = owned->data->seconds_bin;
  } else {
    load_in_passes(run, tp, &fs, &skipped, &seconds_bin);
  }
  gbdt::BinnedInput* d = owned->data;
  d->seconds_bin = seconds_bin;
  d->seconds_load = since(t0) - seconds_bin;
  d->rows_skipped = skipped;
  if (groups) {
    if (group_coder_rows(groups) != d->matrix.n_rows) relation_changed(rel);
    if (!d->weights.empty())  // one weight per query group
      group_coder_check_weights(groups, d->weights.data(), spec.weight_column);
    group_coder_take(groups, &d->query_group);
  }
  if (upper) {
    if (upper_bounds_rows(upper) != d->matrix.n_rows) relation_changed(rel);
    upper_bounds_take(upper, &d->labels_upper);
  }
  out->data = d;
  MemoryContextSwitchTo(old);
}

void remove_role_column(const RelInfo* rel, const char* target, const char* column,
                        const char* role, bool features_given, FeatureSet* fs) {
  int w = 0;
  for (int f = 0; f < fs->n; f++) {
    if (strcmp(fs->names[f], column) == 0) {
      if (features_given)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("column \"%s\" is the %s and cannot also be a feature", column,
                               role)));
      continue;
    }
    fs->names[w] = fs->names[f];
    fs->kinds[w] = fs->kinds[f];
    if (fs->model_names) fs->model_names[w] = fs->model_names[f];
    w++;
  }
  fs->n = w;
  if (fs->n == 0)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("relation \"%s\" has no feature columns besides the target \"%s\" and "
                           "the %s \"%s\"",
                           rel->name, target, role, column)));
}

}  // namespace gbdt_pg
