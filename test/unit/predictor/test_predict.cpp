// Batch scoring (predict_batch, BatchPredictor): every kernel and thread
// count gives bit for bit the row-by-row answer, and raw rows (fixed
// offsets, or a null bitmap with values packed PostgreSQL-style) decode to
// the same floats as the caller's own conversion.
#include <gtest/gtest.h>

#include <cstring>

#include "predictor/predict.h"
#include "test_util.h"

using gbdt::BatchPredictor;
using gbdt::Model;
using gbdt::RawColumn;
using gbdt::RawKind;
using gbdt::RawRows;
using gbdt_test::Data;
using gbdt_test::Task;

namespace {

// transform_margins(predict_margin_row(row)) for every row.
std::vector<double> reference(const Model& m, const std::vector<float>& x, size_t n) {
  const int K = m.num_output_group;
  const int d = m.n_features();
  std::vector<double> out(n * K);
  for (size_t r = 0; r < n; ++r) {
    gbdt::predict_margin_row(m, x.data() + r * d, out.data() + r * K);
    gbdt::transform_margins(m, out.data() + r * K);
  }
  return out;
}

void expect_same(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) ++bad;
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << a.size() << " values differ";
}

void check_all_kernels(const Model& m, const Data& T, const std::string& name) {
  gbdt_test::KernelRestore reset;
  std::vector<float> x = T.row_major();
  std::vector<double> ref = reference(m, x, T.n);
  for (int kernel = 0; kernel <= 3; ++kernel) {
    gbdt::set_predict_kernel_for_tests(kernel);
    for (int nt : {1, 3}) {
      std::vector<double> out(T.n * m.num_output_group);
      gbdt::predict_batch(m, x.data(), T.n, out.data(), nt);
      expect_same(out, ref, name + " kernel " + std::to_string(kernel) + " threads " + std::to_string(nt));
    }
  }
}

}  // namespace

TEST(Predict, BatchEqualsRowByRowBinaryWithMissing) {
  Data D = gbdt_test::make_data(3000, 7, Task::kBinary, 0.1, 31);
  Model m = gbdt_test::train(D, gbdt_test::params_for(Task::kBinary, 20, 2));
  Data T = gbdt_test::make_data(1003, 7, Task::kBinary, 0.1, 32);  // not a multiple of 16, 64 or 256
  check_all_kernels(m, T, "binary");
}

TEST(Predict, BatchEqualsRowByRowMulticlass) {
  Data D = gbdt_test::make_data(3000, 5, Task::kMulticlass, 0.05, 33);
  gbdt::TrainParams p = gbdt_test::params_for(Task::kMulticlass, 8, 2);
  p.max_depth = 4;
  Model m = gbdt_test::train(D, p);
  ASSERT_EQ(m.num_output_group, 4);
  Data T = gbdt_test::make_data(517, 5, Task::kMulticlass, 0.05, 34);
  check_all_kernels(m, T, "multiclass");
}

TEST(Predict, BatchEqualsRowByRowDepth9) {
  // Perfect layout with levels past 32 nodes (gathers in the vector kernel).
  Data D = gbdt_test::make_data(6000, 9, Task::kBinary, 0.05, 37);
  gbdt::TrainParams p = gbdt_test::params_for(Task::kBinary, 8, 2);
  p.max_depth = 9;
  Model m = gbdt_test::train(D, p);
  Data T = gbdt_test::make_data(901, 9, Task::kBinary, 0.05, 38);
  check_all_kernels(m, T, "depth 9");
}

TEST(Predict, BatchEqualsRowByRowDeepTrees) {
  // Depth 12 is beyond the perfect layout: node tables for every kernel.
  Data D = gbdt_test::make_data(6000, 6, Task::kRegression, 0.02, 35);
  gbdt::TrainParams p = gbdt_test::params_for(Task::kRegression, 5, 2);
  p.max_depth = 12;
  Model m = gbdt_test::train(D, p);
  Data T = gbdt_test::make_data(700, 6, Task::kRegression, 0.02, 36);
  check_all_kernels(m, T, "deep");
}

namespace {

struct Att {
  int16_t len;
  uint8_t align;
  int feature;  // -1: not a feature
  RawKind kind;
};

// Writes value v of kind k at p, returns the float the caller's conversion
// (datum -> double -> float) gives for it.
float put(uint8_t* p, RawKind k, double v) {
  switch (k) {
    case RawKind::kFloat8: { double a = v; std::memcpy(p, &a, 8); return (float)a; }
    case RawKind::kFloat4: { float a = (float)v; std::memcpy(p, &a, 4); return (float)(double)a; }
    case RawKind::kInt2: { int16_t a = (int16_t)std::lround(v * 1000); std::memcpy(p, &a, 2); return (float)(double)a; }
    case RawKind::kInt4: { int32_t a = (int32_t)std::lround(v * 1e6); std::memcpy(p, &a, 4); return (float)(double)a; }
    case RawKind::kInt8: {
      // Large values where (float)(double)v and (float)v differ.
      int64_t a = (int64_t)std::llround(v * 1e6) * 1000000007LL + 1;
      std::memcpy(p, &a, 8);
      return (float)(double)a;
    }
    case RawKind::kBool: { uint8_t a = v > 0 ? 1 : 0; *p = a; return a ? 1.0f : 0.0f; }
  }
  return NAN;
}

// Scores T's rows through BatchPredictor with raw rows laid out per `atts`
// (row r: pending 0 / 1 / 2 by r % 3, missing values only where pending 2
// applies) and checks against predict_batch on the floats the conversion
// gives.
void check_raw(const std::vector<Att>& atts, size_t n, int d, uint64_t seed, int nthread) {
  // Offsets without NULLs.
  std::vector<RawColumn> cols((size_t)d);
  size_t off = 0, span = 0;
  std::vector<int16_t> len;
  std::vector<uint8_t> align;
  std::vector<int32_t> feat;
  for (const Att& a : atts) {
    off = (off + a.align - 1) & ~(size_t)(a.align - 1);
    if (a.feature >= 0) cols[a.feature] = RawColumn{(uint32_t)off, a.kind};
    off += a.len;
    span = off;
    len.push_back(a.len);
    align.push_back(a.align);
    feat.push_back(a.feature);
  }
  const size_t bm = (atts.size() + 7) / 8;
  const size_t doff = (bm + 7) & ~(size_t)7;
  const size_t stride = (doff + span + 7) & ~(size_t)7;

  // Training data for the model: same value distribution as the rows.
  Data D = gbdt_test::make_data(2000, d, Task::kRegression, 0.05, seed);
  std::vector<float> expect(n * d);
  std::vector<float> x(n * d, -12345.0f);
  std::vector<uint8_t> raw(n * stride, 0xEE), pending(n);
  for (size_t r = 0; r < n; ++r) {
    uint8_t* row = raw.data() + r * stride;
    uint8_t* p = row + doff;
    std::memset(row, 0, bm);  // the rest stays 0xEE: bytes never written must not be read
    const int mode = (int)(r % 3);
    pending[r] = (uint8_t)mode;
    size_t o = 0;
    for (size_t a = 0; a < atts.size(); ++a) {
      const Att& A = atts[a];
      double v = gbdt_test::unif(seed * 31 + a, r) * 2.0 - 1.0;
      bool missing = mode == 2 && gbdt_test::unif(seed * 77 + a, r) < 0.2;
      if (missing) {
        if (A.feature >= 0) expect[r * d + A.feature] = NAN;
        continue;
      }
      row[a >> 3] |= (uint8_t)(1u << (a & 7));
      o = (o + A.align - 1) & ~(size_t)(A.align - 1);
      float f = put(p + o, A.kind, v);
      if (A.feature >= 0) expect[r * d + A.feature] = f;
      o += A.len;
    }
    if (mode == 0)
      for (int f = 0; f < d; ++f) x[r * d + f] = expect[r * d + f];
  }
  Model m = gbdt_test::train(D, gbdt_test::params_for(Task::kRegression, 10, 1));
  std::vector<double> want(n);
  gbdt::predict_batch(m, expect.data(), n, want.data(), 1);

  RawRows rr;
  rr.data = raw.data();
  rr.stride = stride;
  rr.data_offset = doff;
  rr.cols = cols.data();
  rr.pending = pending.data();
  rr.natts = (int)atts.size();
  rr.att_len = len.data();
  rr.att_align = align.data();
  rr.att_feature = feat.data();
  std::vector<double> got(n);
  BatchPredictor bp(m, nthread);
  bp.start(x.data(), n, got.data(), &rr);
  bp.finish();
  expect_same(got, want, "raw rows, threads " + std::to_string(nthread));
  // The decoded features themselves.
  size_t bad = 0;
  for (size_t i = 0; i < n * d; ++i)
    if (std::memcmp(&x[i], &expect[i], 4) != 0 && !(std::isnan(x[i]) && std::isnan(expect[i]))) ++bad;
  EXPECT_EQ(bad, 0u) << "decoded features differ";
  // Consecutive float8 features: each row decoded straight from its bytes
  // (what gbdt_predict_table does with wide rows) by every decoder.
  const gbdt::RawShape sh = gbdt::raw_shape(rr, d);
  if (sh.contig_first < 0) return;
  for (gbdt::RawDecode isa : {gbdt::RawDecode::kBest, gbdt::RawDecode::kAvx2, gbdt::RawDecode::kScalar}) {
    std::vector<float> xr((size_t)d);
    size_t wrong = 0;
    for (size_t r = 0; r < n; ++r) {
      if (pending[r] == 0) continue;
      const uint8_t* row = raw.data() + r * stride;
      gbdt::decode_contig_f8_row(pending[r] == 1 ? nullptr : row, row + doff, row + stride,
                                 sh.contig_first, d, xr.data(), isa);
      for (int f = 0; f < d; ++f) {
        const float e = expect[r * d + f];
        if (std::memcmp(&xr[f], &e, 4) != 0 && !(std::isnan(xr[f]) && std::isnan(e))) ++wrong;
      }
    }
    EXPECT_EQ(wrong, 0u) << "decode_contig_f8_row, decoder " << (int)isa;
  }
}

}  // namespace

TEST(Predict, RawRowsMixedKinds) {
  // int4 key, float8, dropped int2, float4, int2, bool, int8, float8 label, int4 feature.
  std::vector<Att> atts = {
      {4, 4, -1, RawKind::kInt4},   {8, 8, 0, RawKind::kFloat8}, {2, 2, -1, RawKind::kInt2},
      {4, 4, 1, RawKind::kFloat4},  {2, 2, 2, RawKind::kInt2},   {1, 1, 3, RawKind::kBool},
      {8, 8, 4, RawKind::kInt8},    {8, 8, -1, RawKind::kFloat8}, {4, 4, 5, RawKind::kInt4},
  };
  for (int nt : {1, 2}) check_raw(atts, 1500, 6, 41, nt);
}

TEST(Predict, RawRowsAllFloat8) {
  // The packed float8 walk: int8 key, label, then features (one column
  // not a feature in between).
  std::vector<Att> atts = {{8, 8, -1, RawKind::kInt8}, {8, 8, -1, RawKind::kFloat8}};
  for (int f = 0; f < 12; ++f) {
    atts.push_back({8, 8, f, RawKind::kFloat8});
    if (f == 5) atts.push_back({8, 8, -1, RawKind::kFloat8});
  }
  for (int nt : {1, 2}) check_raw(atts, 2100, 12, 42, nt);
}

TEST(Predict, BatchPredictorReusedAcrossBatches) {
  Data D = gbdt_test::make_data(3000, 4, Task::kBinary, 0.05, 51);
  Model m = gbdt_test::train(D, gbdt_test::params_for(Task::kBinary, 10, 1));
  Data T = gbdt_test::make_data(3000, 4, Task::kBinary, 0.05, 52);
  std::vector<float> x = T.row_major();
  std::vector<double> ref = reference(m, x, T.n);
  BatchPredictor bp(m, 2);
  std::vector<double> out(T.n);
  // Batches of different sizes, one in flight while the next is prepared.
  size_t sizes[] = {1, 300, 1000, 17, 1682};
  size_t at = 0;
  for (size_t s : sizes) {
    std::vector<float> xb(x.begin() + at * 4, x.begin() + (at + s) * 4);
    bp.start(xb.data(), s, out.data() + at, nullptr);
    bp.finish();
    at += s;
  }
  ASSERT_EQ(at, T.n);
  expect_same(out, ref, "reused predictor");
  // Many short batches back to back on 4 threads (a worker woken late for
  // a finished batch must not touch the next one).
  BatchPredictor bp4(m, 4);
  for (int rep = 0; rep < 300; ++rep) {
    const size_t s = 257 + (size_t)(rep * 37) % 700;
    const size_t from = (size_t)(rep * 101) % (T.n - s);
    std::vector<double> o(s, -1.0);
    bp4.start(x.data() + from * 4, s, o.data(), nullptr);
    bp4.finish();
    for (size_t r = 0; r < s; ++r) ASSERT_EQ(o[r], ref[from + r]) << "batch " << rep << " row " << r;
  }
  // abandon() with nothing in flight, and after a start.
  bp.abandon();
  bp.start(x.data(), T.n, out.data(), nullptr);
  bp.abandon();
}

TEST(Predict, RawRowsConsecutiveFloat8) {
  // Features in consecutive float8 attributes after `first` other 8-byte
  // columns (the vectorized decode where available: kernel 0 the widest,
  // 3 AVX2, 1 scalar), d not a multiple of 8, bitmap windows across byte
  // boundaries, rows whose last stored values end near the stride.
  gbdt_test::KernelRestore reset;
  for (int first : {0, 3, 8}) {
    for (int d : {5, 20, 67}) {
      std::vector<Att> atts;
      for (int a = 0; a < first; ++a) atts.push_back({8, 8, -1, a % 2 ? RawKind::kInt8 : RawKind::kFloat8});
      for (int f = 0; f < d; ++f) atts.push_back({8, 8, f, RawKind::kFloat8});
      // Attributes after the features that are not features.
      if (first == 3) atts.insert(atts.end(), 2, Att{8, 8, -1, RawKind::kFloat8});
      for (int kernel : {0, 1, 3}) {
        gbdt::set_predict_kernel_for_tests(kernel);
        SCOPED_TRACE("first " + std::to_string(first) + " d " + std::to_string(d) + " kernel " +
                     std::to_string(kernel));
        check_raw(atts, 1100, d, 60 + first + d, 2);
      }
    }
  }
}
