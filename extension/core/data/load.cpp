// load_binned: the choice between one pass and sample + binning passes, and
// the passes themselves, over a caller's RowBatchSource.
#include "load.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "../common/common.h"
#include "../common/interruptible.h"
#include "../gbm/trainer.h"
#include "binned_matrix.h"
#include "quantile.h"

namespace gbdt {

RoleKind role_kind(Role role) {
  return role == Role::kQueryGroup ? RoleKind::kCode : RoleKind::kFloat;
}

size_t default_cut_sample_rows(int n_features) { return cut_sample_rows(n_features); }

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Checks a batch against the options: one column per feature, one entry
// per role.  A source that gets this wrong is a programming error, not
// bad data, but it must not read out of bounds either.
void check_batch(const RowBatch& b, const LoadOptions& o) {
  if (b.n_rows == 0) return;
  if ((int)b.columns.size() != o.n_features || b.labels == nullptr ||
      b.roles.size() != o.roles.size())
    throw std::logic_error("load_binned: a batch does not match the load's columns");
  for (const float* c : b.columns)
    if (c == nullptr) throw std::logic_error("load_binned: a batch lacks a feature column");
  for (const void* r : b.roles)
    if (r == nullptr) throw std::logic_error("load_binned: a batch lacks a role column");
}

// Labels and role columns of every row (they are small next to the
// features, so every pass that keeps rows keeps them whole).
struct RowExtras {
  std::vector<float> labels;
  std::vector<std::vector<float>> floats;     // per role (kFloat)
  std::vector<std::vector<uint32_t>> codes;   // per role (kCode)

  explicit RowExtras(const LoadOptions& o) : floats(o.roles.size()), codes(o.roles.size()) {}
  void reserve(const LoadOptions& o, size_t n) {
    labels.reserve(n);
    for (size_t k = 0; k < o.roles.size(); k++) {
      if (o.roles[k].kind == RoleKind::kCode) codes[k].reserve(n);
      else floats[k].reserve(n);
    }
  }
  // Rows [r0, r1) of b.
  void append(const LoadOptions& o, const RowBatch& b, size_t r0, size_t r1) {
    labels.insert(labels.end(), b.labels + r0, b.labels + r1);
    for (size_t k = 0; k < o.roles.size(); k++) {
      if (o.roles[k].kind == RoleKind::kCode) {
        const uint32_t* v = (const uint32_t*)b.roles[k];
        codes[k].insert(codes[k].end(), v + r0, v + r1);
      } else {
        const float* v = (const float*)b.roles[k];
        floats[k].insert(floats[k].end(), v + r0, v + r1);
      }
    }
  }
  // Into the BinnedInput fields of their roles.
  void move_into(const LoadOptions& o, BinnedInput* out) {
    out->labels = std::move(labels);
    for (size_t k = 0; k < o.roles.size(); k++) {
      switch (o.roles[k].role) {
        case Role::kWeight: out->weights = std::move(floats[k]); break;
        case Role::kLabelUpper: out->labels_upper = std::move(floats[k]); break;
        case Role::kQueryGroup: out->query_group = std::move(codes[k]); break;
      }
    }
  }
};

// Rows held as float columns (one pass, or the cut sample).
struct FloatRows {
  std::vector<std::vector<float>> cols;
  size_t n = 0;
  explicit FloatRows(int nf) : cols((size_t)nf) {}
  void reserve(size_t cap) {
    for (auto& c : cols) c.reserve(cap);
  }
  void append(const RowBatch& b, size_t r0, size_t r1) {
    for (size_t f = 0; f < cols.size(); f++)
      cols[f].insert(cols[f].end(), b.columns[f] + r0, b.columns[f] + r1);
    n += r1 - r0;
  }
  ColumnInput input() const {
    ColumnInput in;
    in.n_rows = n;
    for (const auto& c : cols) in.columns.push_back(c.data());
    return in;
  }
};

const std::vector<uint32_t>* counts_of(const LoadOptions& o) {
  return o.category_counts.empty() ? nullptr : &o.category_counts;
}

// The in-memory trainer's binning (bin_input) of rows held as floats: cuts
// from the cut sample of them, value ranges of every row, then the matrix.
// The matrix needs the rows and the cuts at once, so the float pages are
// given back as their rows are binned (release_binned), then freed.
void bin_floats(const LoadOptions& o, FloatRows* rows, BinnedInput* out) {
  ColumnInput in = rows->input();
  out->cuts = compute_cuts(in, o.max_bin, o.nthread, o.sample_rows, counts_of(o));
  in.release_binned = true;
  out->matrix = bin_matrix(in, out->cuts, o.nthread);
  rows->cols.clear();
  rows->cols.shrink_to_fit();
}

// One pass keeping every row; false (nothing kept) when bail_rows > 0 and
// the source delivered more rows than that.
bool read_all(RowBatchSource& src, const LoadOptions& o, size_t bail_rows, size_t cap,
              CancelPoller* poll, FloatRows* rows, RowExtras* extras) {
  rows->reserve(cap);
  extras->reserve(o, cap);
  src.reset();
  RowBatch b;
  while (src.next(&b)) {
    check_batch(b, o);
    if (bail_rows > 0 && rows->n + b.n_rows > bail_rows) return false;
    rows->append(b, 0, b.n_rows);
    extras->append(o, b, 0, b.n_rows);
    poll->tick(b.n_rows * (size_t)(o.n_features + 1));
  }
  return true;
}

uint64_t count_rows(RowBatchSource& src, const LoadOptions& o, CancelPoller* poll) {
  uint64_t n = 0;
  src.reset();
  RowBatch b;
  while (src.next(&b)) {
    n += b.n_rows;
    poll->tick(b.n_rows);
  }
  return n;
}

// The cut sample: rows cut_sample_row(i, n, take), i < take, of a pass of
// n rows; every row's labels and roles as well when take == n.
void read_sample(RowBatchSource& src, const LoadOptions& o, uint64_t n, size_t take,
                 CancelPoller* poll, FloatRows* rows, RowExtras* extras) {
  rows->reserve(take);
  if (take == n) extras->reserve(o, take);
  src.reset();
  RowBatch b;
  uint64_t seen = 0;
  size_t next = 0;
  while (src.next(&b)) {
    check_batch(b, o);
    if (seen + b.n_rows > n) throw SourceChanged();
    for (size_t r = 0; r < b.n_rows && next < take;) {
      const uint64_t want = cut_sample_row(next, (size_t)n, take);
      if (want >= seen + b.n_rows) break;
      const size_t r0 = (size_t)(want - seen);
      size_t r1 = r0 + 1;
      next++;
      // A run of consecutive sample rows (all of them when take == n).
      while (r1 < b.n_rows && next < take && cut_sample_row(next, (size_t)n, take) == seen + r1) {
        r1++;
        next++;
      }
      rows->append(b, r0, r1);
      if (take == n) extras->append(o, b, r0, r1);
      r = r1;
    }
    seen += b.n_rows;
    poll->tick(b.n_rows);
  }
  if (seen != n || rows->n != take) throw SourceChanged();
}

// Every row binned as it arrives with `cuts`; labels and roles kept.
void bin_pass(RowBatchSource& src, const LoadOptions& o, uint64_t n, CancelPoller* poll,
              BinnedInput* out, RowExtras* extras, double* seconds_bin) {
  extras->reserve(o, (size_t)n);
  RowBinner binner(out->cuts, (size_t)n, o.nthread);
  const int nf = o.n_features;
  src.reset();
  RowBatch b;
  uint64_t seen = 0;
  while (src.next(&b)) {
    check_batch(b, o);
    if (seen + b.n_rows > n) throw SourceChanged();
    for (size_t r = 0; r < b.n_rows; r++) {
      float* x = binner.next_row();
      for (int f = 0; f < nf; f++) x[f] = b.columns[(size_t)f][r];
    }
    extras->append(o, b, 0, b.n_rows);
    seen += b.n_rows;
    poll->tick(b.n_rows * (size_t)(nf + 1));
  }
  if (seen != n) throw SourceChanged();
  ValueRange range;
  out->matrix = binner.finish(&range);
  set_value_range(&out->cuts, range.lo, range.hi);
  *seconds_bin += binner.seconds_binning();
}

void check_options(const LoadOptions& o) {
  if (o.n_features < 1) throw InvalidInput("no feature columns to train on");
  if (!o.category_counts.empty() && (int)o.category_counts.size() != o.n_features)
    throw std::logic_error("load_binned: category_counts needs one entry per feature");
  for (const RoleColumn& r : o.roles) {
    if (r.kind != role_kind(r.role))
      throw std::logic_error("load_binned: role column \"" + r.name + "\" has the wrong kind");
    for (const RoleColumn& s : o.roles)
      if (&s != &r && s.role == r.role)
        throw std::logic_error("load_binned: two columns with one role");
  }
}

}  // namespace

void load_binned(RowBatchSource& src, const LoadOptions& o, BinnedInput* out, LoadStats* stats) {
  check_options(o);
  CancelPoller poll(o.cancel);
  const int nf = o.n_features;
  const size_t sample_cap = o.sample_rows > 0 ? o.sample_rows : cut_sample_rows(nf);
  LoadStats st;
  RowExtras extras(o);

  // One pass: a source read once, or one estimated well within the cut
  // sample or with its floats within the bound.
  const double est = src.estimated_rows();
  const bool once = !src.can_rescan();
  if (once || (o.one_pass && est > 0 &&
               (est <= 0.5 * (double)sample_cap || est * nf <= o.one_pass_floats))) {
    size_t bail = 0, cap = 1024;
    if (!once) {
      bail = std::max(sample_cap,
                      (size_t)std::min(2 * std::ceil(est), o.one_pass_floats / nf));
      cap = std::min(bail, std::max<size_t>(1024, (size_t)est + 1));
    } else if (est > 0) {
      cap = std::max<size_t>(1024, (size_t)std::min(est + 1, o.one_pass_floats / nf));
    }
    FloatRows rows(nf);
    if (read_all(src, o, bail, cap, &poll, &rows, &extras)) {
      if (rows.n == 0) throw InvalidInput("no rows to train on");
      const auto tb = Clock::now();
      st.rows = rows.n;
      st.passes = 1;
      st.sample_rows = std::min(rows.n, sample_cap);
      bin_floats(o, &rows, out);
      st.seconds_bin = since(tb);
      extras.move_into(o, out);
      if (stats) *stats = st;
      return;
    }
    extras = RowExtras(o);  // larger than it looked: the passes instead
  }

  // Pass 1 counts, pass 2 reads the cut sample, pass 3 (when the sample is
  // not every row) bins every row as it arrives.
  const uint64_t n = count_rows(src, o, &poll);
  if (n == 0) throw InvalidInput("no rows to train on");
  const size_t take = (size_t)std::min<uint64_t>(n, sample_cap);
  FloatRows sample(nf);
  read_sample(src, o, n, take, &poll, &sample, &extras);
  st.rows = n;
  st.sample_rows = take;
  const auto tb = Clock::now();
  if (take == n) {
    st.passes = 2;
    bin_floats(o, &sample, out);
    st.seconds_bin = since(tb);
  } else {
    st.passes = 3;
    out->cuts = cuts_from_sample(sample.input(), o.max_bin, o.nthread, counts_of(o));
    // The sample's floats go before the matrix comes: never both at once.
    sample.cols.clear();
    sample.cols.shrink_to_fit();
    st.seconds_bin = since(tb);
    bin_pass(src, o, n, &poll, out, &extras, &st.seconds_bin);
  }
  extras.move_into(o, out);
  if (stats) *stats = st;
}

}  // namespace gbdt
