#include "shard_protocol.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../include/gbdt/distributed.h"

#include "wire.h"

namespace gbdt {

namespace {

constexpr size_t kMaxRows = (size_t)1 << 40;
constexpr size_t kMaxFloats = (size_t)1 << 31;  // a message is at most 1 GB (bytea)

}  // namespace

void put_cuts(const Cuts& c, ByteWriter* w) {
  w->put_vector(c.ptr);
  w->put_vector(c.values);
  w->put_vector(c.min_values);
}

Cuts get_cuts(ByteReader* r) {
  Cuts c;
  c.ptr = r->get_vector<uint32_t>(kMaxShardFeatures + 1);
  c.values = r->get_vector<float>(kMaxShardFeatures * kMaxShardBins);
  c.min_values = r->get_vector<float>(kMaxShardFeatures);
  if (c.ptr.size() < 2 || c.ptr[0] != 0 || c.ptr.back() != c.values.size())
    r->fail("the cuts' offsets do not cover their values");
  const size_t d = c.ptr.size() - 1;
  if (c.min_values.size() != d) r->fail("the cuts' minima do not match their features");
  for (size_t f = 0; f < d; ++f) {
    if (c.ptr[f + 1] <= c.ptr[f] || c.ptr[f + 1] - c.ptr[f] >= kMaxShardBins)
      r->fail("feature " + std::to_string(f) + " has no cut or too many");
    for (uint32_t i = c.ptr[f] + 1; i < c.ptr[f + 1]; ++i)
      if (!(c.values[i - 1] < c.values[i])) r->fail("the cuts of a feature are not ascending");
  }
  return c;
}

std::string encode(const Describe& m) {
  ByteWriter w;
  w.put(m.n_rows);
  w.put(m.n_features);
  w.put(m.has_weight);
  w.put(m.rows_skipped);
  w.put_vector(m.lo);
  w.put_vector(m.hi);
  return w.take();
}

Describe decode_describe(const std::string& b) {
  ByteReader r(b, "describe");
  Describe m;
  m.n_rows = r.get<uint64_t>();
  m.n_features = r.get<int32_t>();
  m.has_weight = r.get<uint8_t>();
  m.rows_skipped = r.get<uint64_t>();
  if (m.n_rows > kMaxRows) r.fail("too many rows");
  if (m.n_features < 1 || (size_t)m.n_features > kMaxShardFeatures) r.fail("a bad feature count");
  m.lo = r.get_vector<float>((size_t)m.n_features);
  m.hi = r.get_vector<float>((size_t)m.n_features);
  if (m.lo.size() != (size_t)m.n_features || m.hi.size() != (size_t)m.n_features)
    r.fail("value ranges do not match the features");
  r.done();
  return m;
}

std::string encode(const Labels& m) {
  ByteWriter w;
  w.put_vector(m.labels);
  w.put_vector(m.weights);
  return w.take();
}

Labels decode_labels(const std::string& b) {
  ByteReader r(b, "labels");
  Labels m;
  m.labels = r.get_vector<float>(kMaxFloats);
  m.weights = r.get_vector<float>(kMaxFloats);
  if (!m.weights.empty() && m.weights.size() != m.labels.size()) r.fail("weights do not match the labels");
  r.done();
  return m;
}

std::string encode(const SampleRequest& m) {
  ByteWriter w;
  w.put(m.offset);
  w.put(m.n_total);
  w.put(m.take);
  return w.take();
}

SampleRequest decode_sample_request(const std::string& b) {
  ByteReader r(b, "sample");
  SampleRequest m;
  m.offset = r.get<uint64_t>();
  m.n_total = r.get<uint64_t>();
  m.take = r.get<uint64_t>();
  if (m.n_total > kMaxRows || m.offset > m.n_total || m.take > m.n_total)
    r.fail("the sample's rows are out of range");
  r.done();
  return m;
}

std::string encode(const Sample& m) {
  ByteWriter w;
  w.put(m.rows);
  w.put_vector(m.values);
  return w.take();
}

Sample decode_sample(const std::string& b) {
  ByteReader r(b, "sample reply");
  Sample m;
  m.rows = r.get<uint64_t>();
  m.values = r.get_vector<float>(kMaxFloats);
  r.done();
  return m;
}

std::string encode(const BinRequest& m) {
  ByteWriter w;
  put_cuts(m.cuts, &w);
  w.put(m.offset);
  w.put(m.validation_fraction);
  w.put(m.seed);
  w.put(m.nthread);
  return w.take();
}

BinRequest decode_bin_request(const std::string& b) {
  ByteReader r(b, "bin");
  BinRequest m;
  m.cuts = get_cuts(&r);
  m.offset = r.get<uint64_t>();
  m.validation_fraction = r.get<double>();
  m.seed = r.get<uint64_t>();
  m.nthread = r.get<int32_t>();
  if (m.offset > kMaxRows) r.fail("a bad row offset");
  if (!(m.validation_fraction >= 0 && m.validation_fraction < 1)) r.fail("a bad validation fraction");
  if (m.nthread < 0 || m.nthread > 1024) r.fail("a bad thread count");
  r.done();
  return m;
}

std::string encode(const ValidationBins& m) {
  ByteWriter w;
  w.put(m.rows);
  w.put_vector(m.bins);
  return w.take();
}

ValidationBins decode_validation_bins(const std::string& b) {
  ByteReader r(b, "validation rows");
  ValidationBins m;
  m.rows = r.get<uint64_t>();
  m.bins = r.get_vector<uint8_t>((size_t)1 << 32);
  r.done();
  return m;
}

std::string encode(const SetupRequest& m) {
  ByteWriter w;
  w.put(m.objective);
  w.put(m.num_group);
  w.put(m.grad);
  w.put(m.scale_pos_weight);
  w.put_vector(m.base_margins);
  w.put(m.subsample);
  w.put(m.seed);
  w.put(m.train_offset);
  w.put(m.max_depth);
  w.put(m.cpu_bin_copies);
  w.put(m.nthread);
  return w.take();
}

SetupRequest decode_setup_request(const std::string& b) {
  ByteReader r(b, "setup");
  SetupRequest m;
  m.objective = r.get<int32_t>();
  m.num_group = r.get<int32_t>();
  m.grad = r.get<GradParams>();
  m.scale_pos_weight = r.get<double>();
  m.base_margins = r.get_vector<float>(kMaxShardGroups);
  m.subsample = r.get<double>();
  m.seed = r.get<uint64_t>();
  m.train_offset = r.get<uint64_t>();
  m.max_depth = r.get<int32_t>();
  m.cpu_bin_copies = r.get<uint8_t>();
  m.nthread = r.get<int32_t>();
  if (m.num_group < 1 || (size_t)m.num_group > kMaxShardGroups || m.base_margins.size() != (size_t)m.num_group)
    r.fail("a bad number of output groups");
  if (!(m.subsample > 0 && m.subsample <= 1)) r.fail("a bad subsample");
  if (!(m.scale_pos_weight > 0) || !std::isfinite(m.scale_pos_weight)) r.fail("a bad scale_pos_weight");
  if (m.max_depth < 0 || m.max_depth > 16) r.fail("a bad max_depth");  // the parameter's range
  if (!std::isfinite(m.grad.max_delta_step) || !std::isfinite(m.grad.huber_slope) ||
      !std::isfinite(m.grad.quantile_alpha) || !std::isfinite(m.grad.tweedie_variance_power))
    r.fail("a gradient parameter that is not finite");
  for (float b : m.base_margins)
    if (!std::isfinite(b)) r.fail("a base margin that is not finite");
  if (m.nthread < 0 || m.nthread > 1024) r.fail("a bad thread count");
  if (m.train_offset > kMaxRows) r.fail("a bad row offset");
  r.done();
  return m;
}

std::string encode(const GradMaxima& m) {
  ByteWriter w;
  w.put_vector(m.max_g);
  w.put_vector(m.max_h);
  return w.take();
}

namespace {
GradMaxima get_maxima(ByteReader* r) {
  GradMaxima m;
  m.max_g = r->get_vector<double>(kMaxShardGroups);
  m.max_h = r->get_vector<double>(kMaxShardGroups);
  if (m.max_g.size() != m.max_h.size()) r->fail("maxima of different lengths");
  for (size_t k = 0; k < m.max_g.size(); ++k)
    if (!(m.max_g[k] >= 0) || !(m.max_h[k] >= 0)) r->fail("a negative or NaN gradient maximum");
  return m;
}
}  // namespace

GradMaxima decode_grad_maxima(const std::string& b) {
  ByteReader r(b, "gradient maxima");
  GradMaxima m = get_maxima(&r);
  r.done();
  return m;
}

std::string encode(const QuantizeRequest& m) {
  ByteWriter w;
  w.put(m.round);
  w.put_vector(m.maxima.max_g);
  w.put_vector(m.maxima.max_h);
  w.put(m.n_total);
  return w.take();
}

QuantizeRequest decode_quantize_request(const std::string& b) {
  ByteReader r(b, "quantize");
  QuantizeRequest m;
  m.round = r.get<int32_t>();
  m.maxima = get_maxima(&r);
  m.n_total = r.get<uint64_t>();
  if (m.round < 0) r.fail("a negative round");
  if (m.n_total == 0 || m.n_total > kMaxRows) r.fail("a bad row count");
  r.done();
  return m;
}

std::string encode(const RootSums& m) {
  ByteWriter w;
  w.put(m.n_sampled);
  w.put_vector(m.sums);
  return w.take();
}

RootSums decode_root_sums(const std::string& b) {
  ByteReader r(b, "root sums");
  RootSums m;
  m.n_sampled = r.get<uint64_t>();
  m.sums = r.get_vector<GradSum>(kMaxShardGroups);
  r.done();
  return m;
}

std::string encode(const SplitRequest& m) {
  ByteWriter w;
  w.put(m.group);
  w.put_vector(m.splits);
  return w.take();
}

SplitRequest decode_split_request(const std::string& b) {
  ByteReader r(b, "split");
  SplitRequest m;
  m.group = r.get<int32_t>();
  m.splits = r.get_vector<SplitOrder>((size_t)1 << 24);
  for (const SplitOrder& s : m.splits)
    if (s.build > 2 || s.default_left > 1) r.fail("a bad split order");
  r.done();
  return m;
}

// Per histogram: a bitmap of its non-empty cells, then those cells' pairs.
std::string encode_histograms(const std::vector<uint64_t>& n_left, const std::vector<const GradSum*>& hists,
                              size_t cells) {
  ByteWriter w;
  w.put_vector(n_left);
  w.put<uint64_t>(hists.size());
  std::vector<uint64_t> bits((cells + 63) / 64);
  for (const GradSum* cell : hists) {
    std::fill(bits.begin(), bits.end(), 0);
    uint64_t nonzero = 0;
    for (size_t x = 0; x < cells; ++x)
      if (cell[x].g != 0 || cell[x].h != 0) {
        bits[x >> 6] |= (uint64_t)1 << (x & 63);
        ++nonzero;
      }
    w.put_raw(bits.data(), bits.size() * sizeof(uint64_t));
    w.put<uint64_t>(nonzero);
    for (size_t x = 0; x < cells; ++x)
      if (cell[x].g != 0 || cell[x].h != 0) w.put(cell[x]);
  }
  return w.take();
}

void add_histograms(const std::string& b, size_t cells, size_t histograms, size_t splits, GradSum* acc,
                    std::vector<uint64_t>* n_left) {
  ByteReader r(b, "histograms");
  const std::vector<uint64_t> nl = r.get_vector<uint64_t>(splits);
  if (nl.size() != splits) r.fail("the counts do not match the splits");
  if (n_left) {
    n_left->resize(splits, 0);
    for (size_t i = 0; i < splits; ++i) (*n_left)[i] += nl[i];
  }
  if (r.get<uint64_t>() != histograms) r.fail("another number of histograms than asked for");
  const size_t words = (cells + 63) / 64;
  for (size_t h = 0; h < histograms; ++h) {
    const char* bitmap = r.get_raw(words * sizeof(uint64_t));
    const uint64_t nonzero = r.get<uint64_t>();
    if (nonzero > cells) r.fail("more cells than the histogram has");
    const char* cellp = r.get_raw((size_t)nonzero * sizeof(GradSum));
    GradSum* out = acc + h * cells;
    uint64_t seen = 0;
    for (size_t wi = 0; wi < words; ++wi) {
      uint64_t word;
      std::memcpy(&word, bitmap + wi * sizeof(uint64_t), sizeof word);
      for (; word != 0; word &= word - 1) {
        const size_t x = wi * 64 + (size_t)__builtin_ctzll(word);
        if (x >= cells || seen >= nonzero) r.fail("a cell outside the histogram");
        GradSum v;
        std::memcpy(&v, cellp + seen * sizeof(GradSum), sizeof v);
        out[x] = gs_add(out[x], v);
        ++seen;
      }
    }
    if (seen != nonzero) r.fail("the cell count does not match its bitmap");
  }
  r.done();
}

std::string encode(const FinishRequest& m) {
  ByteWriter w;
  w.put(m.group);
  w.put_vector(m.tree.left);
  w.put_vector(m.tree.right);
  w.put_vector(m.tree.feature);
  w.put_vector(m.tree.split_bin);
  w.put_vector(m.tree.default_left);
  w.put_vector(m.tree.value);
  return w.take();
}

FinishRequest decode_finish_request(const std::string& b, const Cuts& cuts) {
  ByteReader r(b, "finish");
  FinishRequest m;
  m.group = r.get<int32_t>();
  constexpr size_t kMaxNodes = (size_t)1 << 24;
  Tree& t = m.tree;
  t.left = r.get_vector<int32_t>(kMaxNodes);
  const size_t n = t.left.size();
  t.right = r.get_vector<int32_t>(n);
  t.feature = r.get_vector<int32_t>(n);
  t.split_bin = r.get_vector<int32_t>(n);
  t.default_left = r.get_vector<uint8_t>(n);
  t.value = r.get_vector<float>(n);
  r.done();
  if (n == 0 || t.right.size() != n || t.feature.size() != n || t.split_bin.size() != n ||
      t.default_left.size() != n || t.value.size() != n)
    r.fail("the tree's arrays differ in length");
  const int d = cuts.n_features();
  for (size_t i = 0; i < n; ++i) {
    if (t.left[i] < 0) {
      if (t.right[i] >= 0) r.fail("a node with one child");
      continue;
    }
    // Children come after their parent: every walk moves forward and ends.
    if ((size_t)t.left[i] <= i || (size_t)t.right[i] <= i || (size_t)t.left[i] >= n || (size_t)t.right[i] >= n)
      r.fail("a child before its parent or outside the tree");
    if (t.feature[i] < 0 || t.feature[i] >= d) r.fail("a split on a feature the cuts do not have");
    if (t.split_bin[i] < 0 || t.split_bin[i] >= cuts.nbins(t.feature[i])) r.fail("a split bin outside its feature");
  }
  t.threshold.assign(n, 0.0f);
  t.gain.assign(n, 0.0f);
  t.cover.assign(n, 0.0);
  t.parent.assign(n, -1);
  return m;
}

std::string encode_u64(uint64_t v) {
  ByteWriter w;
  w.put(v);
  return w.take();
}

uint64_t decode_u64(const std::string& b, const char* what) {
  ByteReader r(b, what);
  const uint64_t v = r.get<uint64_t>();
  r.done();
  return v;
}

std::string encode_floats(const std::vector<float>& v) {
  ByteWriter w;
  w.put_vector(v);
  return w.take();
}

std::vector<float> decode_floats(const std::string& b, size_t expect, const char* what) {
  ByteReader r(b, what);
  std::vector<float> v = r.get_vector<float>(expect);
  if (v.size() != expect) r.fail("another number of values than expected");
  r.done();
  return v;
}

std::string encode_counts(const std::vector<uint64_t>& v) {
  ByteWriter w;
  w.put_vector(v);
  return w.take();
}

std::vector<uint64_t> decode_counts(const std::string& b, size_t expect, const char* what) {
  ByteReader r(b, what);
  std::vector<uint64_t> v = r.get_vector<uint64_t>(expect);
  if (v.size() != expect) r.fail("another number of counts than expected");
  r.done();
  return v;
}

std::string encode_open_request(const ShardOpenRequest& q) {
  ByteWriter w;
  w.put_string(q.relation);
  w.put_string(q.target);
  w.put<uint64_t>(q.features.size());
  for (const std::string& f : q.features) w.put_string(f);
  w.put_string(q.weight);
  w.put<int32_t>(q.nthread);
  return w.take();
}

ShardOpenRequest decode_open_request(const std::string& b) {
  ByteReader r(b, "open");
  constexpr size_t kMaxName = 1024;  // a qualified name of two quoted identifiers fits
  ShardOpenRequest q;
  q.relation = r.get_string(kMaxName);
  q.target = r.get_string(kMaxName);
  const uint64_t nf = r.get<uint64_t>();
  if (nf == 0 || nf > kMaxShardFeatures) r.fail("a bad feature count");
  for (uint64_t i = 0; i < nf; ++i) q.features.push_back(r.get_string(kMaxName));
  q.weight = r.get_string(kMaxName);
  q.nthread = r.get<int32_t>();
  if (q.relation.empty() || q.target.empty()) r.fail("no relation or target");
  if (q.nthread < 0 || q.nthread > 1024) r.fail("a bad thread count");
  r.done();
  return q;
}

}  // namespace gbdt
