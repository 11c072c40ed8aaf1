// The serialized model: versioned, length-checked, checksummed.
//   "GBDTMDL\0" | u32 version | u64 payload length | payload | u64 FNV-1a of all before
// Version 2 appends to version 1's payload a list of tagged sections (u32
// count, then per section u32 tag and u64 byte length) for what version 1
// cannot hold (categorical features and splits, class names); a model that
// needs none of them is written as version 1, byte for byte as before.
// Every integer and float is little-endian, written and read explicitly
// (put_le/get_le), so the bytes are the same on any host.  Every count is
// checked against the bytes left and the limits of model_limits.h before
// anything is allocated, and every string must be UTF-8 without NUL, so
// corrupt or hostile input is an error, never a crash or a huge model.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "model.h"
#include "format.h"
#include "../objective/objective.h"
#include "../common/utf8.h"

namespace gbdt {

namespace {

constexpr char kMagic[8] = {'G', 'B', 'D', 'T', 'M', 'D', 'L', '\0'};
// Version 3: version 2 whose trees may hold category sets stored as code
// lists (Tree split_type kCatList, imported models only); written only for
// such a model, so that earlier builds refuse it by its version (they know
// split types 0 and 1) and every other model keeps its version 1 or 2 bytes.
// Version 4: a version 2 or 3 model with the training distribution section
// (TrainingDistribution: bin counts and prediction histogram, which every
// model trained by this build has); earlier builds refuse it by its
// version.  Models of versions 1 to 3 still load (no distribution).
constexpr uint32_t kFormatVersion = 4;

// Version 2 sections.  Tags are never reused; an unknown tag is an error.
enum SectionTag : uint32_t {
  kSectionCategories = 1,   // per feature: u32 count, then the category names
  kSectionClassNames = 2,   // u32 count, then the names
  kSectionCatSplits = 3,    // per tree: split_type, cat_offset, cat_bits (empty vectors: none)
  kSectionParallelTrees = 4,  // u32 num_parallel_tree (only written when > 1)
  // u64 rows, then count-prefixed u64 bin_counts, f64 pred_edges, u64
  // pred_counts (only written when rows > 0; version 4)
  kSectionTrainingDist = 5,
};
const char* kTextPrefix = "gbdt1:";

uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

// Little-endian encoding of one value, whatever the host's byte order.
template <class T> struct LeBits;
template <> struct LeBits<uint8_t> { using U = uint8_t; };
template <> struct LeBits<int32_t> { using U = uint32_t; };
template <> struct LeBits<uint32_t> { using U = uint32_t; };
template <> struct LeBits<uint64_t> { using U = uint64_t; };
template <> struct LeBits<float> { using U = uint32_t; };
template <> struct LeBits<double> { using U = uint64_t; };

template <class T> void put_le(uint8_t* out, T v) {
  using U = typename LeBits<T>::U;
  static_assert(sizeof(U) == sizeof(T), "size");
  U u;
  std::memcpy(&u, &v, sizeof u);
  for (size_t i = 0; i < sizeof u; ++i) out[i] = (uint8_t)(u >> (8 * i));
}

template <class T> T get_le(const uint8_t* in) {
  using U = typename LeBits<T>::U;
  U u = 0;
  for (size_t i = 0; i < sizeof u; ++i) u |= (U)((U)in[i] << (8 * i));
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr bool kHostLittleEndian = true;  // arrays copied as they are
#else
constexpr bool kHostLittleEndian = false;  // arrays converted value by value
#endif

class Writer {
 public:
  std::vector<uint8_t> buf;
  template <class T> void pod(T v) {
    const size_t at = buf.size();
    buf.resize(at + sizeof(T));
    put_le<T>(buf.data() + at, v);
  }
  template <class T> void vec(const std::vector<T>& v) {
    pod<uint32_t>((uint32_t)v.size());
    const size_t at = buf.size();
    buf.resize(at + v.size() * sizeof(T));
    if (kHostLittleEndian) {
      if (!v.empty()) std::memcpy(buf.data() + at, v.data(), v.size() * sizeof(T));
    } else {
      for (size_t i = 0; i < v.size(); ++i) put_le<T>(buf.data() + at + i * sizeof(T), v[i]);
    }
  }
  void str(const std::string& s) {
    pod<uint32_t>((uint32_t)s.size());
    buf.insert(buf.end(), s.begin(), s.end());
  }
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  template <class T> T pod(const char* what) {
    need(sizeof(T), what);
    T v = get_le<T>(p_);
    p_ += sizeof(T);
    return v;
  }
  // A count-prefixed array of at most `max` elements.
  template <class T> void vec(std::vector<T>* v, const char* what, size_t max = SIZE_MAX) {
    uint32_t n = pod<uint32_t>(what);
    if (n > max)
      throw CorruptModel(std::string(what) + ": " + std::to_string(n) +
                         " entries exceed the limit of " + std::to_string(max));
    need((size_t)n * sizeof(T), what);
    v->resize(n);
    if (kHostLittleEndian) {
      if (n) std::memcpy(v->data(), p_, (size_t)n * sizeof(T));
    } else {
      for (uint32_t i = 0; i < n; ++i) (*v)[i] = get_le<T>(p_ + (size_t)i * sizeof(T));
    }
    p_ += (size_t)n * sizeof(T);
  }
  // A length-prefixed string: at most kMaxStringBytes, valid UTF-8, no NUL.
  std::string str(const char* what) {
    uint32_t n = pod<uint32_t>(what);
    if (n > kMaxStringBytes)
      throw CorruptModel(std::string(what) + " of " + std::to_string(n) +
                         " bytes exceeds the limit of " + std::to_string(kMaxStringBytes));
    need(n, what);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    if (!valid_utf8(s))
      throw CorruptModel(std::string(what) + " \"" + printable(s) +
                         "\" is not valid UTF-8 (or holds a NUL byte)");
    return s;
  }
  size_t left() const { return (size_t)(end_ - p_); }
  const uint8_t* here() const { return p_; }
  void skip(size_t n) {
    need(n, "section");
    p_ += n;
  }
  void need(size_t n, const char* what) {
    if ((size_t)(end_ - p_) < n)
      throw CorruptModel(std::string("truncated model data (reading ") + what + ")");
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

void write_tree(Writer& w, const Tree& t) {
  w.vec(t.left);
  w.vec(t.right);
  w.vec(t.parent);
  w.vec(t.feature);
  w.vec(t.split_bin);
  w.vec(t.threshold);
  w.vec(t.default_left);
  w.vec(t.value);
  w.vec(t.gain);
  w.vec(t.cover);
}

void read_tree(Reader& r, Tree* t) {
  r.vec(&t->left, "tree", kMaxTreeNodes);
  r.vec(&t->right, "tree");
  r.vec(&t->parent, "tree");
  r.vec(&t->feature, "tree");
  r.vec(&t->split_bin, "tree");
  r.vec(&t->threshold, "tree");
  r.vec(&t->default_left, "tree");
  r.vec(&t->value, "tree");
  r.vec(&t->gain, "tree");
  r.vec(&t->cover, "tree");
}

void bad(const std::string& m) { throw CorruptModel(m); }

bool any_categorical_split(const Model& m) {
  for (const Tree& t : m.trees)
    if (t.has_categorical()) return true;
  return false;
}

bool any_category_list(const Model& m) {
  for (const Tree& t : m.trees)
    for (uint8_t k : t.split_type)
      if (k == kCatList) return true;
  return false;
}

// The version 2 sections a model needs, as (tag, bytes); empty for a
// model that version 1 holds.
std::vector<std::pair<uint32_t, std::vector<uint8_t>>> model_sections(const Model& m) {
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> out;
  if (!m.categories.empty()) {
    Writer w;
    w.pod<uint32_t>((uint32_t)m.categories.size());
    for (const auto& cats : m.categories) {
      w.pod<uint32_t>((uint32_t)cats.size());
      for (const std::string& c : cats) w.str(c);
    }
    out.emplace_back(kSectionCategories, std::move(w.buf));
  }
  if (!m.class_names.empty()) {
    Writer w;
    w.pod<uint32_t>((uint32_t)m.class_names.size());
    for (const std::string& c : m.class_names) w.str(c);
    out.emplace_back(kSectionClassNames, std::move(w.buf));
  }
  if (any_categorical_split(m)) {
    Writer w;
    for (const Tree& t : m.trees) {
      w.vec(t.split_type);
      w.vec(t.cat_offset);
      w.vec(t.cat_bits);
    }
    out.emplace_back(kSectionCatSplits, std::move(w.buf));
  }
  if (m.num_parallel_tree != 1) {
    Writer w;
    w.pod<uint32_t>((uint32_t)m.num_parallel_tree);
    out.emplace_back(kSectionParallelTrees, std::move(w.buf));
  }
  const TrainingDistribution& td = m.training_dist;
  if (!td.empty()) {
    Writer w;
    w.pod<uint64_t>(td.rows);
    w.vec(td.bin_counts);
    w.vec(td.pred_edges);
    w.vec(td.pred_counts);
    out.emplace_back(kSectionTrainingDist, std::move(w.buf));
  }
  return out;
}

void read_section(uint32_t tag, Reader& r, Model* m, MemoryBudget* budget) {
  switch (tag) {
    case kSectionCategories: {
      uint32_t nf = r.pod<uint32_t>("categories");
      if (nf != m->feature_names.size()) bad("category lists do not match the features");
      m->categories.resize(nf);
      for (uint32_t f = 0; f < nf; ++f) {
        uint32_t nc = r.pod<uint32_t>("categories");
        if (nc > (uint32_t)kMaxCategories)
          bad("feature " + std::to_string(f) + " has " + std::to_string(nc) +
              " categories, more than the limit of " + std::to_string(kMaxCategories));
        r.need((size_t)nc * 4, "categories");
        if (budget)
          budget->charge((double)nc * 2 * (sizeof(std::string) + 16), "the model's category names",
                         "score a model with fewer categories");
        m->categories[f].reserve(nc);
        for (uint32_t c = 0; c < nc; ++c) m->categories[f].push_back(r.str("category"));
      }
      break;
    }
    case kSectionClassNames: {
      uint32_t n = r.pod<uint32_t>("class names");
      if (n > (uint32_t)kMaxClasses)
        bad(std::to_string(n) + " class names exceed the limit of " + std::to_string(kMaxClasses));
      r.need((size_t)n * 4, "class names");
      for (uint32_t i = 0; i < n; ++i) m->class_names.push_back(r.str("class name"));
      break;
    }
    case kSectionCatSplits:
      for (Tree& t : m->trees) {
        r.vec(&t.split_type, "categorical splits", kMaxTreeNodes);
        r.vec(&t.cat_offset, "categorical splits", kMaxTreeNodes + 1);
        r.vec(&t.cat_bits, "categorical splits");
      }
      break;
    case kSectionParallelTrees: {
      const uint32_t npt = r.pod<uint32_t>("num_parallel_tree");
      if (npt < 2 || npt > (uint32_t)kMaxParallelTrees)
        bad("bad num_parallel_tree " + std::to_string(npt));
      m->num_parallel_tree = (int32_t)npt;
      break;
    }
    case kSectionTrainingDist: {
      // Sizes are bounded here (by the cuts' slots and the limits) before
      // anything is allocated; validate_model checks that they match.
      TrainingDistribution& td = m->training_dist;
      td.rows = r.pod<uint64_t>("training distribution");
      if (td.rows == 0) bad("training distribution of 0 rows");
      r.vec(&td.bin_counts, "training bin counts", m->cuts.values.size() + m->feature_names.size());
      r.vec(&td.pred_edges, "training prediction edges", kMaxPredictionBins);
      r.vec(&td.pred_counts, "training prediction counts", kMaxPredictionBins + 1);
      break;
    }
    default:
      bad("unsupported model section " + std::to_string(tag) +
          " (written by a newer version of gbdt?)");
  }
}

}  // namespace

namespace {

// A categorical node's set holds codes of its feature's categories only:
// a bit field of at most max(kCatSetWords, ceil(n / 32)) words (what
// training writes for n categories) without a bit at n or past it, or a
// code list (kCatList) strictly increasing below n.  So a model's sets take
// no more than its categories allow, whatever the bytes claim.
void validate_category_set(const Model& m, const Tree& t, int32_t n, const std::string& at) {
  const int f = t.feature[n];
  const size_t ncat = (size_t)f < m.categories.size() ? m.categories[f].size() : 0;
  const uint32_t lo = t.cat_offset[n], hi = t.cat_offset[n + 1];
  const std::string node = at + " node " + std::to_string(n) + " (feature \"" +
                           printable(m.feature_names[f]) + "\", " + std::to_string(ncat) +
                           " categories)";
  if (t.split_type[n] == kCatList) {
    if (hi - lo > ncat) bad(node + ": more codes in its category set than categories");
    for (uint32_t i = lo; i < hi; ++i)
      if (t.cat_bits[i] >= ncat || (i > lo && t.cat_bits[i] <= t.cat_bits[i - 1]))
        bad(node + ": category list not increasing below the number of categories");
    return;
  }
  const size_t max_words = std::max<size_t>((size_t)kCatSetWords, (ncat + 31) / 32);
  if (hi - lo > max_words)
    bad(node + ": category set of " + std::to_string(hi - lo) + " words, more than " +
        std::to_string(max_words) + " for its categories");
  for (uint32_t w = lo; w < hi; ++w) {
    const size_t first = (size_t)(w - lo) * 32;  // the code of the word's bit 0
    if (first + 32 <= ncat) continue;
    const uint32_t allowed = first >= ncat ? 0u : (uint32_t)((1ull << (ncat - first)) - 1);
    if (t.cat_bits[w] & ~allowed)
      bad(node + ": category set holds a code past its categories");
  }
}

// The checks of validate_model, in the order it runs them; each throws
// CorruptModel (through bad) at the first fault.

// The training distribution (if any) against the cuts (already checked):
// one slot per bin and feature, each feature's slots adding up to the rows,
// finite ascending prediction edges, no more predictions than rows.
void validate_training_dist(const Model& m) {
  const TrainingDistribution& td = m.training_dist;
  if (td.empty()) {
    if (!td.bin_counts.empty() || !td.pred_edges.empty() || !td.pred_counts.empty())
      bad("training distribution without rows");
    return;
  }
  const Cuts& c = m.cuts;
  if (td.bin_counts.size() != (size_t)c.total_hist_bins())
    bad("training bin counts do not match the bins (" + std::to_string(td.bin_counts.size()) +
        " for " + std::to_string(c.total_hist_bins()) + ")");
  for (int f = 0; f < c.n_features(); ++f) {
    uint64_t sum = 0;
    for (int b = 0; b <= c.nbins(f); ++b) {
      const uint64_t v = td.bin_counts[c.hist_offset(f) + (uint32_t)b];
      if (v > td.rows - sum) bad("training bin counts of feature " + std::to_string(f) + " exceed the rows");
      sum += v;
    }
    if (sum != td.rows) bad("training bin counts of feature " + std::to_string(f) + " do not add up to the rows");
  }
  if (td.pred_edges.size() > kMaxPredictionBins || td.pred_counts.size() != td.pred_edges.size() + 1)
    bad("training prediction histogram has " + std::to_string(td.pred_counts.size()) +
        " counts for " + std::to_string(td.pred_edges.size()) + " edges");
  for (size_t i = 0; i < td.pred_edges.size(); ++i)
    if (!std::isfinite(td.pred_edges[i]) || (i > 0 && !(td.pred_edges[i] > td.pred_edges[i - 1])))
      bad("training prediction edge " + std::to_string(i) + " is not finite and ascending");
  uint64_t sum = 0;
  for (uint64_t v : td.pred_counts) {
    if (v > td.rows - sum) bad("training prediction counts exceed the rows");
    sum += v;
  }
}

// Objective, number of output groups and the intercepts.
void validate_header(const Model& m) {
  int obj = (int)m.objective;
  if (obj < 0 || obj >= kNumObjectives) bad("unknown objective code " + std::to_string(obj));
  const int K = m.num_output_group;
  const bool multiclass = objective_info(m.objective).multiclass;
  // reg:quantileerror has one output per quantile.
  if (K < 1 || (!multiclass && K != 1 && !(m.objective == Objective::kQuantile && K <= kMaxQuantiles)))
    bad("bad number of output groups " + std::to_string(K));
  if (K > kMaxClasses)
    bad("num_class " + std::to_string(K) + " exceeds the limit of " + std::to_string(kMaxClasses));
  if (!std::isfinite(m.base_score)) bad("base score is not finite");
  if ((int)m.base_margin.size() != K) bad("base margin count does not match output groups");
  for (int k = 0; k < K; ++k)
    if (!std::isfinite(m.base_margin[k]))
      bad("base margin of output group " + std::to_string(k) + " is not finite");
}

// Number of features, their types and the category names of the
// categorical ones.
void validate_features(const Model& m) {
  const int d = m.n_features();
  if (d < 1) bad("model has no features");
  if (d > kMaxFeatures)
    bad("num_feature " + std::to_string(d) + " exceeds the limit of " +
        std::to_string(kMaxFeatures));
  if ((int)m.feature_types.size() != d) bad("feature type count does not match features");
  for (FeatureType t : m.feature_types)
    if ((int)t >= kNumFeatureTypes) bad("unknown feature type");
  if (!m.categories.empty() && (int)m.categories.size() != d)
    bad("category lists do not match the features");
  for (int f = 0; f < (int)m.categories.size(); ++f) {
    const bool cat = m.feature_types[f] == FeatureType::kCategorical;
    if (cat != !m.categories[f].empty())
      bad("feature " + std::to_string(f) +
          (cat ? " is categorical without categories" : " has categories but is not categorical"));
    if (m.categories[f].size() > (size_t)kMaxCategories)
      bad("feature " + std::to_string(f) + " has more than " + std::to_string(kMaxCategories) +
          " categories");
    for (const std::string& c : m.categories[f])
      if (c.size() > kMaxStringBytes || !valid_utf8(c))
        bad("category \"" + printable(c) + "\" of feature " + std::to_string(f) +
            " is not valid UTF-8 (or holds a NUL byte or is too long)");
  }
  if (m.categories.empty())
    for (FeatureType t : m.feature_types)
      if (t == FeatureType::kCategorical) bad("categorical feature without categories");
}

// Class names, feature names and class labels.
void validate_names_and_labels(const Model& m) {
  const int K = m.num_output_group;
  const int d = m.n_features();
  if (!m.class_names.empty() && m.class_names.size() != m.class_labels.size())
    bad("class name count does not match the classes");
  for (const std::string& c : m.class_names)
    if (c.size() > kMaxStringBytes || !valid_utf8(c))
      bad("class name \"" + printable(c) + "\" is not valid UTF-8 (or holds a NUL byte or is too long)");
  for (int f = 0; f < d; ++f) {
    const std::string& n = m.feature_names[f];
    if (n.size() > kMaxStringBytes || !valid_utf8(n))
      bad("feature name " + std::to_string(f) + " \"" + printable(n) +
          "\" is not valid UTF-8 (or holds a NUL byte or is too long)");
  }
  if (objective_info(m.objective).multiclass && (int)m.class_labels.size() != K)
    bad("class label count does not match num_class");
  if (m.class_labels.size() > (size_t)std::max(K, 2)) bad("more class labels than classes");
  for (double v : m.class_labels)
    if (!std::isfinite(v)) bad("class label is not finite");
}

// The bin boundaries: one run per feature, within its bin limit.
void validate_cuts(const Model& m) {
  const int d = m.n_features();
  const Cuts& c = m.cuts;
  if ((int)c.ptr.size() != d + 1 || c.ptr[0] != 0 || c.ptr[d] != c.values.size())
    bad("bin boundaries do not match the features");
  if (c.min_values.size() != (size_t)d) bad("bin minimum count does not match the features");
  for (int f = 0; f < d; ++f) {
    // a categorical feature has one bin per category, up to kMaxCatBins.
    const bool cat = f < (int)m.feature_types.size() && m.feature_types[f] == FeatureType::kCategorical;
    if (c.ptr[f + 1] <= c.ptr[f] ||
        c.ptr[f + 1] - c.ptr[f] > (uint32_t)(cat ? kMaxCatBins : kMaxValueBins))
      bad("bad bin count for feature " + std::to_string(f));
  }
  for (size_t i = 0; i < c.values.size(); ++i)
    if (std::isnan(c.values[i]) || c.values[i] == -INFINITY)
      bad("bin boundary " + std::to_string(i) + " is NaN or -Infinity");
  validate_training_dist(m);
}

// The recorded parameters and the training report.
void validate_params_and_report(const Model& m) {
  if (m.params.size() > kMaxModelParams)
    bad(std::to_string(m.params.size()) + " params exceed the limit of " +
        std::to_string(kMaxModelParams));
  for (const auto& kv : m.params)
    for (const std::string* s : {&kv.first, &kv.second})
      if (s->size() > kMaxStringBytes || !valid_utf8(*s))
        bad("param \"" + printable(*s) + "\" is not valid UTF-8 (or holds a NUL byte or is too long)");
  const TrainingReport& r = m.report;
  if (r.eval_metric.size() > kMaxStringBytes || !valid_utf8(r.eval_metric))
    bad("eval_metric \"" + printable(r.eval_metric) + "\" is not valid UTF-8");
  for (const std::vector<double>* h : {&r.train_metric, &r.validation_metric})
    for (double v : *h)
      if (std::isinf(v)) bad("metric history holds an infinite value");
  if (r.best_iteration < -1) bad("bad best iteration " + std::to_string(r.best_iteration));
}

// The tree list as a whole: one group per tree, whole rounds, the limits.
void validate_tree_list(const Model& m) {
  const int K = m.num_output_group;
  if (m.tree_group.size() != m.trees.size()) bad("tree group count does not match trees");
  if (m.trees.size() % (size_t)K != 0) bad("tree count is not a multiple of output groups");
  if (m.num_parallel_tree < 1 || m.num_parallel_tree > kMaxParallelTrees)
    bad("bad num_parallel_tree " + std::to_string(m.num_parallel_tree));
  if (m.trees.size() % (size_t)m.trees_per_round() != 0)
    bad("tree count is not a multiple of output groups x num_parallel_tree");
  if (m.trees.size() > kMaxTrees)
    bad(std::to_string(m.trees.size()) + " trees exceed the limit of " + std::to_string(kMaxTrees));
}

// A tree's split types and category sets: sets only on categorical splits
// of categorical features, each valid for its feature.
void validate_tree_categories(const Model& m, const Tree& t, const std::string& at) {
  const int d = m.n_features();
  const size_t nn = t.left.size();
  if (t.has_categorical()) {
    if (t.split_type.size() != nn || t.cat_offset.size() != nn + 1 || t.cat_offset[0] != 0 ||
        t.cat_offset[nn] != t.cat_bits.size())
      bad(at + ": categorical split arrays do not match the nodes");
    for (size_t n = 0; n < nn; ++n) {
      if (t.split_type[n] > kCatList) bad(at + ": bad split type");
      if (t.cat_offset[n + 1] < t.cat_offset[n]) bad(at + ": bad category set of node " + std::to_string(n));
      if (t.split_type[n] == 0) {
        if (t.cat_offset[n + 1] != t.cat_offset[n])
          bad(at + ": numeric split of node " + std::to_string(n) + " has a category set");
        continue;
      }
      if (t.left[n] < 0 || t.feature[n] < 0 || t.feature[n] >= d ||
          m.feature_types[t.feature[n]] != FeatureType::kCategorical)
        bad(at + ": categorical split of node " + std::to_string(n) +
            " is not on a categorical feature");
      validate_category_set(m, t, (int32_t)n, at);
    }
  } else if (!t.cat_offset.empty() || !t.cat_bits.empty()) {
    bad(at + ": category sets without categorical splits");
  }
}

// Every node reachable from the root exactly once (no cycles, no sharing),
// with finite values and splits on a feature, bin and threshold that exist.
void validate_tree_nodes(const Model& m, const Tree& t, const std::string& at) {
  const int d = m.n_features();
  const Cuts& c = m.cuts;
  const size_t nn = t.left.size();
  std::vector<uint8_t> seen(nn, 0);
  std::vector<int32_t> stack{0};
  size_t visited = 0;
  while (!stack.empty()) {
    int32_t n = stack.back();
    stack.pop_back();
    if (n < 0 || (size_t)n >= nn) bad(at + ": child index out of range");
    if (seen[n]) bad(at + ": node " + std::to_string(n) + " reached twice (cycle)");
    seen[n] = 1;
    ++visited;
    const std::string node = at + " node " + std::to_string(n);
    if (!std::isfinite(t.value[n])) bad(node + ": leaf/node value is not finite");
    if (!std::isfinite(t.gain[n])) bad(node + ": gain is not finite");
    if (!std::isfinite(t.cover[n])) bad(node + ": cover is not finite");
    if (t.left[n] < 0) {
      if (t.right[n] >= 0) bad(at + ": node with one child");
      continue;
    }
    if (t.right[n] < 0) bad(at + ": node with one child");
    int32_t f = t.feature[n];
    if (f < 0 || f >= d) bad(at + ": split feature out of range");
    if (t.split_bin[n] < 0 || t.split_bin[n] >= c.nbins(f)) bad(at + ": split bin out of range");
    if (std::isnan(t.threshold[n]) || t.threshold[n] == -INFINITY)
      bad(node + ": split threshold is NaN or -Infinity");
    if (t.default_left[n] > 1) bad(at + ": bad default direction");
    stack.push_back(t.left[n]);
    stack.push_back(t.right[n]);
  }
  if (visited != nn) bad(at + ": unreachable nodes");
}

// Tree i: its group, node count (also counted into *total_nodes against
// the limit for all trees), node arrays, category sets and nodes.
void validate_tree(const Model& m, size_t i, size_t* total_nodes) {
  const int K = m.num_output_group;
  const Tree& t = m.trees[i];
  const std::string at = "tree " + std::to_string(i);
  if (m.tree_group[i] < 0 || m.tree_group[i] >= K) bad(at + ": bad output group");
  const size_t nn = t.left.size();
  if (nn < 1 || nn > kMaxTreeNodes) bad(at + ": bad node count " + std::to_string(nn));
  *total_nodes += nn;
  if (*total_nodes > kMaxTotalNodes)
    bad("more than " + std::to_string(kMaxTotalNodes) + " nodes in all trees");
  if (t.right.size() != nn || t.parent.size() != nn || t.feature.size() != nn ||
      t.split_bin.size() != nn || t.threshold.size() != nn || t.default_left.size() != nn ||
      t.value.size() != nn || t.gain.size() != nn || t.cover.size() != nn)
    bad(at + ": node arrays differ in length");
  validate_tree_categories(m, t, at);
  validate_tree_nodes(m, t, at);
}

}  // namespace

// Which stored floats may be non-finite (everything else must be finite):
//  - cut values and split thresholds may be +Infinity: the last cut lies
//    above a feature's maximum, which is +Infinity (or FLT_MAX, whose next
//    float is +Infinity) when the training data held such values, and a
//    threshold is a cut.  -Infinity and NaN never occur there.
//  - min_values is NaN for a feature without values and may be +-Infinity
//    (the smallest value seen); it is only recorded, never computed with.
//  - the metric history may hold NaN (AUC of rows of one class is
//    undefined); it is only displayed (as JSON null).
void validate_model(const Model& m) {
  validate_header(m);
  validate_features(m);
  validate_names_and_labels(m);
  validate_cuts(m);
  validate_params_and_report(m);
  validate_tree_list(m);
  size_t total_nodes = 0;
  for (size_t i = 0; i < m.trees.size(); ++i) validate_tree(m, i, &total_nodes);
}

std::vector<uint8_t> serialize_model(const Model& m) {
  if (m.partitions) return serialize_partitioned(*m.partitions);
  Writer p;
  p.pod<int32_t>((int32_t)m.objective);
  p.pod<int32_t>(m.num_output_group);
  p.pod<double>(m.base_score);
  p.vec(m.base_margin);
  p.pod<uint32_t>((uint32_t)m.feature_names.size());
  for (size_t i = 0; i < m.feature_names.size(); ++i) {
    p.str(m.feature_names[i]);
    p.pod<uint8_t>((uint8_t)m.feature_types[i]);
  }
  p.vec(m.class_labels);
  p.vec(m.cuts.ptr);
  p.vec(m.cuts.values);
  p.vec(m.cuts.min_values);
  p.pod<uint32_t>((uint32_t)m.trees.size());
  p.vec(m.tree_group);
  for (const Tree& t : m.trees) write_tree(p, t);
  p.pod<uint32_t>((uint32_t)m.params.size());
  for (const auto& kv : m.params) {
    p.str(kv.first);
    p.str(kv.second);
  }
  const TrainingReport& r = m.report;
  p.pod<uint64_t>(r.rows_used);
  p.pod<uint64_t>(r.rows_skipped);
  p.pod<uint64_t>(r.rows_validation);
  p.str(r.eval_metric);
  p.vec(r.train_metric);
  p.vec(r.validation_metric);
  p.pod<int32_t>(r.best_iteration);
  // Timings and the backend name stay out of the bytes: the same inputs give
  // the same model whatever the thread count or device.
  const auto sections = model_sections(m);
  if (!sections.empty()) {
    p.pod<uint32_t>((uint32_t)sections.size());
    for (const auto& sec : sections) {
      p.pod<uint32_t>(sec.first);
      p.pod<uint64_t>((uint64_t)sec.second.size());
      p.buf.insert(p.buf.end(), sec.second.begin(), sec.second.end());
    }
  }

  Writer w;
  w.buf.insert(w.buf.end(), kMagic, kMagic + 8);
  w.pod<uint32_t>(sections.empty()             ? 1u
                  : !m.training_dist.empty()  ? 4u
                  : any_category_list(m)      ? 3u
                                              : 2u);
  w.pod<uint64_t>((uint64_t)p.buf.size());
  w.buf.insert(w.buf.end(), p.buf.begin(), p.buf.end());
  w.pod<uint64_t>(fnv1a(w.buf.data(), w.buf.size()));
  return w.buf;
}

Model deserialize_model(const uint8_t* data, size_t len) { return deserialize_model(data, len, nullptr); }

Model deserialize_model(const uint8_t* data, size_t len, MemoryBudget* budget) {
  if (len < 8 + 4 + 8 + 8) bad("model data too short (" + std::to_string(len) + " bytes)");
  if (budget) budget->charge((double)len, "the decoded model", "score a smaller model");
  if (is_partitioned_bytes(data, len)) {  // partitioned.h: its sub-models decoded and checked
    Model m;
    m.partitions = std::make_shared<const PartitionedModel>(deserialize_partitioned(data, len, budget));
    return m;
  }
  if (std::memcmp(data, kMagic, 8) != 0) bad("not a gbdt model (bad magic)");
  Reader h(data + 8, len - 8);
  uint32_t version = h.pod<uint32_t>("version");
  if (version < 1 || version > kFormatVersion)
    bad("unsupported model format version " + std::to_string(version));
  uint64_t plen = h.pod<uint64_t>("length");
  if (plen != len - 28) bad("model length field does not match the data");
  const uint64_t sum = get_le<uint64_t>(data + len - 8);
  if (sum != fnv1a(data, len - 8)) bad("model checksum mismatch");

  Reader r(data + 20, (size_t)plen);
  Model m;
  int32_t obj = r.pod<int32_t>("objective");
  if (obj < 0 || obj >= kNumObjectives) bad("unknown objective code " + std::to_string(obj));
  m.objective = (Objective)obj;
  m.num_output_group = r.pod<int32_t>("groups");
  if (m.num_output_group > kMaxClasses)
    bad("num_class " + std::to_string(m.num_output_group) + " exceeds the limit of " +
        std::to_string(kMaxClasses));
  m.base_score = r.pod<double>("base score");
  r.vec(&m.base_margin, "base margin", (size_t)kMaxClasses);
  uint32_t nf = r.pod<uint32_t>("features");
  if (nf > (uint32_t)kMaxFeatures)
    bad("num_feature " + std::to_string(nf) + " exceeds the limit of " +
        std::to_string(kMaxFeatures));
  r.need((size_t)nf * 5, "features");
  for (uint32_t i = 0; i < nf; ++i) {
    m.feature_names.push_back(r.str("feature name"));
    m.feature_types.push_back((FeatureType)r.pod<uint8_t>("feature type"));
  }
  r.vec(&m.class_labels, "classes", (size_t)kMaxClasses);
  r.vec(&m.cuts.ptr, "cuts");
  r.vec(&m.cuts.values, "cuts");
  r.vec(&m.cuts.min_values, "cuts");
  uint32_t nt = r.pod<uint32_t>("trees");
  if (nt > kMaxTrees)
    bad(std::to_string(nt) + " trees exceed the limit of " + std::to_string(kMaxTrees));
  r.need((size_t)nt * 40, "trees");
  r.vec(&m.tree_group, "tree groups");
  m.trees.resize(nt);
  for (uint32_t i = 0; i < nt; ++i) read_tree(r, &m.trees[i]);
  uint32_t np = r.pod<uint32_t>("params");
  if (np > kMaxModelParams)
    bad(std::to_string(np) + " params exceed the limit of " + std::to_string(kMaxModelParams));
  r.need((size_t)np * 8, "params");
  for (uint32_t i = 0; i < np; ++i) {
    std::string k = r.str("param name");
    std::string v = r.str("param value");
    m.params.emplace_back(std::move(k), std::move(v));
  }
  TrainingReport& rep = m.report;
  rep.rows_used = r.pod<uint64_t>("report");
  rep.rows_skipped = r.pod<uint64_t>("report");
  rep.rows_validation = r.pod<uint64_t>("report");
  rep.eval_metric = r.str("eval_metric");
  r.vec(&rep.train_metric, "report");
  r.vec(&rep.validation_metric, "report");
  rep.best_iteration = r.pod<int32_t>("report");
  if (version >= 2) {
    uint32_t ns = r.pod<uint32_t>("sections");
    if (ns == 0 || ns > 64) bad("bad section count " + std::to_string(ns));
    uint32_t last_tag = 0;
    for (uint32_t i = 0; i < ns; ++i) {
      uint32_t tag = r.pod<uint32_t>("section tag");
      if (tag <= last_tag) bad("model sections out of order");
      last_tag = tag;
      uint64_t slen = r.pod<uint64_t>("section length");
      r.need((size_t)slen, "section");
      Reader sr(r.here(), (size_t)slen);
      read_section(tag, sr, &m, budget);
      if (sr.left() != 0) bad("trailing bytes in model section " + std::to_string(tag));
      r.skip((size_t)slen);
    }
  }
  if (r.left() != 0) bad("trailing bytes after the model");
  if (version < 4 && !m.training_dist.empty())
    bad("training distribution in a model of format version " + std::to_string(version));
  if (version < 3 && any_category_list(m)) bad("category lists in a model of format version " + std::to_string(version));
  validate_model(m);
  return m;
}

void reseal_model_bytes(uint8_t* data, size_t len) {
  if (len < 28) return;
  put_le<uint64_t>(data + 12, (uint64_t)(len - 28));
  put_le<uint64_t>(data + len - 8, fnv1a(data, len - 8));
}

// ---- text form ----
namespace {
const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

std::string model_to_text(const Model& m) {
  std::vector<uint8_t> b = serialize_model(m);
  return bytes_to_text(b.data(), b.size());
}

std::string bytes_to_text(const uint8_t* b, size_t n) {
  std::string s(kTextPrefix);
  s.reserve(s.size() + (n + 2) / 3 * 4);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)b[i] << 16;
    if (i + 1 < n) v |= (uint32_t)b[i + 1] << 8;
    if (i + 2 < n) v |= b[i + 2];
    s += kB64[(v >> 18) & 63];
    s += kB64[(v >> 12) & 63];
    s += i + 1 < n ? kB64[(v >> 6) & 63] : '=';
    s += i + 2 < n ? kB64[v & 63] : '=';
  }
  return s;
}

std::vector<uint8_t> text_to_bytes(const std::string& text) {
  size_t pl = std::strlen(kTextPrefix);
  if (text.compare(0, pl, kTextPrefix) != 0)
    bad("model text must start with \"gbdt1:\"");
  int8_t dec[256];
  std::memset(dec, -1, sizeof(dec));
  for (int i = 0; i < 64; ++i) dec[(uint8_t)kB64[i]] = (int8_t)i;
  size_t n = text.size() - pl;
  if (n % 4 != 0) bad("model text has a bad length (base64 expected)");
  std::vector<uint8_t> out;
  out.reserve(n / 4 * 3);
  for (size_t i = pl; i < text.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      char ch = text[i + j];
      if (ch == '=' && i + 4 == text.size() && j >= 2) {
        ++pad;
        v <<= 6;
        continue;
      }
      if (pad) bad("model text has bad base64 padding");
      int8_t dv = dec[(uint8_t)ch];
      if (dv < 0) bad("model text has a character that is not base64");
      v = (v << 6) | (uint32_t)dv;
    }
    out.push_back((uint8_t)(v >> 16));
    if (pad < 2) out.push_back((uint8_t)(v >> 8));
    if (pad < 1) out.push_back((uint8_t)v);
  }
  return out;
}

}  // namespace gbdt
