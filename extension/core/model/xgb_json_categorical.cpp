#include "xgb_json_categorical.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "../common/common.h"
#include "model_limits.h"
#include "../common/utf8.h"
#include "xgb_json_detail.h"

namespace gbdt {

namespace {

using xgb_json_detail::malformed;

using xgb_json_detail::write_int_array;

long long int_of(const JsonRef& v, const std::string& what) {
  if (!v.is_number()) malformed(what + " is not a number");
  double x = v.number();
  if (!(x == std::floor(x)) || std::fabs(x) > 9e15) malformed(what + " is not an integer");
  return (long long)x;
}

}  // namespace

bool xgb_mirrored_node(const Tree& t, int32_t n) {
  return !t.is_leaf(n) && t.is_categorical(n) && t.default_left[n] == 0;
}

void check_xgb_export_size(const Model& m) {
  size_t total = 0;
  for (const Tree& t : m.trees)
    for (int32_t n = 0; t.has_categorical() && n < t.num_nodes(); ++n) {
      if (t.is_leaf(n) || !t.is_categorical(n)) continue;
      size_t size = 0;
      t.for_each_cat_code(n, [&size](uint32_t) { ++size; });
      const int f = t.feature[n];
      const size_t nf = f >= 0 && (size_t)f < m.categories.size() ? m.categories[f].size() : 0;
      total += xgb_mirrored_node(t, n) ? (nf > size ? nf - size : 0) : size;
    }
  if (total > kMaxExportCategoryCodes)
    throw ResourceError("gbdt_export: the model's categorical splits would write " +
                        std::to_string(total) + " category codes, more than the limit of " +
                        std::to_string(kMaxExportCategoryCodes) +
                        " (splits whose missing values go right are written with the "
                        "complement of their set)");
}

void write_xgb_tree_categories(std::ostringstream& o, const Tree& t,
                               const std::vector<uint32_t>& ncat) {
  std::vector<int32_t> cats, nodes, segments, sizes;
  if (t.has_categorical())
    for (int32_t n = 0; n < t.num_nodes(); ++n) {
      if (t.is_leaf(n) || !t.is_categorical(n)) continue;
      nodes.push_back(n);
      segments.push_back((int32_t)cats.size());
      if (xgb_mirrored_node(t, n)) {
        // The complement in [0, n_f): the codes that go left in gbdt.
        const int f = t.feature[n];
        const uint32_t nf = f >= 0 && (size_t)f < ncat.size() ? ncat[(size_t)f] : 0;
        uint32_t next = 0;
        t.for_each_cat_code(n, [&](uint32_t c) {
          for (; next < c && next < nf; ++next) cats.push_back((int32_t)next);
          next = std::max(next, c + 1);
        });
        for (; next < nf; ++next) cats.push_back((int32_t)next);
      } else {
        t.for_each_cat_code(n, [&cats](uint32_t c) { cats.push_back((int32_t)c); });
      }
      sizes.push_back((int32_t)cats.size() - segments.back());
    }
  o << ',';
  write_int_array(o, "categories", cats);
  o << ',';
  write_int_array(o, "categories_nodes", nodes);
  o << ',';
  write_int_array(o, "categories_segments", segments);
  o << ',';
  write_int_array(o, "categories_sizes", sizes);
  o << ',';
}

void write_xgb_cats(std::ostringstream& o, const Model& m) {
  if (!m.has_categorical()) return;
  // XGBoost 3.2 measures the string offsets of a DataFrame's categories in
  // characters, not bytes, so an encoder with non-ASCII categories would not
  // match its own reading of the same DataFrame: then no encoder, and
  // XGBoost takes the DataFrame's codes as they are.
  for (const auto& names : m.categories)
    for (const std::string& s : names)
      for (unsigned char c : s)
        if (c >= 0x80) return;
  const int d = m.n_features();
  std::vector<size_t> segments{0};
  std::vector<size_t> sorted_idx;
  o << ",\"cats\":{\"enc\":[";
  for (int f = 0; f < d; ++f) {
    const std::vector<std::string>& names = m.categories[f];
    o << (f ? "," : "") << "{\"offsets\":[";
    if (!names.empty()) {
      size_t off = 0;
      o << 0;
      for (const std::string& s : names) o << ',' << (off += s.size());
    }
    o << "],\"values\":[";
    bool first = true;
    for (const std::string& s : names)
      for (unsigned char c : s) {
        o << (first ? "" : ",") << (int)c;
        first = false;
      }
    o << "]}";
    std::vector<size_t> idx(names.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(),
                     [&names](size_t a, size_t b) { return names[a] < names[b]; });
    sorted_idx.insert(sorted_idx.end(), idx.begin(), idx.end());
    segments.push_back(segments.back() + names.size());
  }
  o << "],";
  write_int_array(o, "feature_segments", segments);
  o << ',';
  write_int_array(o, "sorted_idx", sorted_idx);
  o << '}';
}

std::vector<std::vector<int32_t>> read_xgb_tree_categories(const JsonRef& tj, size_t nn,
                                                           const std::string& at,
                                                           CancelPoller* poll) {
  std::vector<std::vector<int32_t>> sets(nn);
  JsonRef cn = tj.get("categories_nodes");
  if (!cn.valid() || !cn.is_array() || cn.size() == 0) return sets;
  JsonRef cs = tj.get("categories_segments");
  JsonRef cz = tj.get("categories_sizes");
  JsonRef cc = tj.get("categories");
  if (!cs.valid() || !cz.valid() || !cc.valid() || !cs.is_array() || !cz.is_array() ||
      !cc.is_array() || cs.size() != cn.size() || cz.size() != cn.size())
    malformed(at + ": categories_nodes, categories_segments and categories_sizes do not match");
  // Every listed code is read once: segments may not overlap (else a few
  // bytes of segments would make the same codes count many times).
  size_t listed = 0;
  for (size_t i = 0; i < cn.size(); ++i) {
    const long long n = int_of(cn.at(i), at + " categories_nodes");
    const long long beg = int_of(cs.at(i), at + " categories_segments");
    const long long size = int_of(cz.at(i), at + " categories_sizes");
    if (n < 0 || n >= (long long)nn) malformed(at + ": categories_nodes entry out of range");
    if (beg < 0 || size < 0 || beg + size > (long long)cc.size())
      malformed(at + ": category segment of node " + std::to_string(n) + " out of range");
    if (!sets[n].empty()) malformed(at + ": node " + std::to_string(n) + " has two category sets");
    listed += (size_t)size;
    if (listed > cc.size())
      malformed(at + ": category segments list more codes than \"categories\" holds");
    sets[n].reserve((size_t)size);
    for (long long k = beg; k < beg + size; ++k) {
      if (poll) poll->tick();
      const long long c = int_of(cc.at((size_t)k), at + " categories");
      if (c < 0 || c >= kMaxCategories)
        malformed(at + ": category " + std::to_string(c) + " of node " + std::to_string(n) +
                  " is out of range [0, " + std::to_string(kMaxCategories) + ")");
      sets[n].push_back((int32_t)c);
    }
    if (sets[n].empty()) sets[n].push_back(-1);  // an empty set: marks the node categorical
  }
  return sets;
}

std::vector<std::vector<std::string>> read_xgb_cats(const JsonRef& gm, int d) {
  std::vector<std::vector<std::string>> names((size_t)d);
  JsonRef cats = gm.get("cats");
  if (!cats.valid() || !cats.is_object()) return names;
  JsonRef enc = cats.get("enc");
  if (!enc.valid() || !enc.is_array() || enc.size() == 0) return names;
  if ((int)enc.size() != d)
    malformed("cats.enc has " + std::to_string(enc.size()) + " entries for " +
              std::to_string(d) + " features");
  for (int f = 0; f < d; ++f) {
    JsonRef e = enc.at((size_t)f);
    JsonRef values = e.get("values");
    if (!values.valid() || !values.is_array()) malformed("cats.enc entry without values");
    JsonRef offsets = e.get("offsets");
    if (offsets.valid() && offsets.is_array()) {
      // Strings: UTF-8 bytes of all values, split at offsets.
      std::string bytes;
      for (size_t i = 0; i < values.size(); ++i) {
        long long b = int_of(values.at(i), "cats.enc values");
        if (b < 0 || b > 255) malformed("cats.enc string byte out of range");
        bytes.push_back((char)b);
      }
      for (size_t i = 0; i + 1 < offsets.size(); ++i) {
        long long a = int_of(offsets.at(i), "cats.enc offsets");
        long long b = int_of(offsets.at(i + 1), "cats.enc offsets");
        if (a < 0 || b < a || b > (long long)bytes.size()) malformed("cats.enc offsets out of range");
        std::string s = bytes.substr((size_t)a, (size_t)(b - a));
        if (s.size() > kMaxStringBytes || !valid_utf8(s))
          malformed("category \"" + printable(s) + "\" of feature " + std::to_string(f) +
                    " is not valid UTF-8 (or too long)");
        names[f].push_back(std::move(s));
      }
    } else {
      // Numbers: their decimal text.
      for (size_t i = 0; i < values.size(); ++i) {
        JsonRef v = values.at(i);
        if (!v.is_number()) malformed("cats.enc value is not a number");
        names[f].push_back(v.number_text());
      }
    }
    if (names[f].size() > (size_t)kMaxCategories)
      malformed("feature " + std::to_string(f) + " has more than " +
                std::to_string(kMaxCategories) + " categories");
  }
  return names;
}

void set_tree_category_sets(Tree* t, const std::vector<std::vector<int32_t>>& sets,
                            const XgbImportLimits& lim, CancelPoller* poll) {
  bool any = false;
  for (const auto& s : sets) any = any || !s.empty();
  if (!any) return;
  const int32_t nn = t->num_nodes();
  // Each node's codes sorted and distinct, and the words of its set: a bit
  // field up to the largest code, or the codes themselves when fewer.
  std::vector<std::vector<uint32_t>> codes((size_t)nn);
  std::vector<uint8_t> kind((size_t)nn, 0);
  size_t total = 0;
  for (int32_t n = 0; n < nn && n < (int32_t)sets.size(); ++n) {
    if (sets[n].empty()) continue;
    std::vector<uint32_t>& c = codes[(size_t)n];
    for (int32_t v : sets[n]) {
      if (poll) poll->tick();
      if (v >= 0) c.push_back((uint32_t)v);
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    const size_t dense = c.empty() ? 1 : (size_t)(c.back() / 32 + 1);
    kind[(size_t)n] = dense <= c.size() ? 1 : kCatList;
    total += kind[(size_t)n] == 1 ? dense : c.size();
  }
  if (lim.budget)
    lim.budget->charge((double)total * sizeof(uint32_t) + (double)nn * (sizeof(uint8_t) + sizeof(uint32_t)),
                       "the imported trees' category sets", "import a smaller model");
  t->split_type.assign((size_t)nn, 0);
  t->cat_offset.assign(1, 0);
  t->cat_offset.reserve((size_t)nn + 1);
  t->cat_bits.clear();
  t->cat_bits.reserve(total);
  for (int32_t n = 0; n < nn; ++n) {
    if (kind[(size_t)n] != 0) {
      const std::vector<uint32_t>& c = codes[(size_t)n];
      t->split_type[n] = kind[(size_t)n];
      if (kind[(size_t)n] == kCatList) {
        t->cat_bits.insert(t->cat_bits.end(), c.begin(), c.end());
      } else {
        const size_t base = t->cat_bits.size();
        t->cat_bits.resize(base + (c.empty() ? 1 : (size_t)(c.back() / 32 + 1)), 0u);
        for (uint32_t v : c) t->cat_bits[base + v / 32] |= 1u << (v % 32);
      }
    }
    t->cat_offset.push_back((uint32_t)t->cat_bits.size());
  }
}

void finish_imported_categories(Model* m, const std::vector<uint8_t>& categorical,
                                std::vector<std::vector<std::string>> names,
                                const XgbImportLimits& lim, CancelPoller* poll) {
  const int d = m->n_features();
  std::vector<int32_t> max_code((size_t)d, -1);
  for (size_t ti = 0; ti < m->trees.size(); ++ti) {
    const Tree& t = m->trees[ti];
    if (!t.has_categorical()) continue;
    for (int32_t n = 0; n < t.num_nodes(); ++n) {
      if (poll) poll->tick();
      if (t.is_leaf(n) || !t.is_categorical(n)) continue;
      const int f = t.feature[n];
      if (f < 0 || f >= d) continue;
      if (!categorical[f])
        malformed("tree node splits feature \"" + m->feature_names[f] +
                  "\" by categories, but its feature type is not \"c\"");
      int32_t mx = -1;
      t.for_each_cat_code(n, [&mx](uint32_t c) { mx = std::max(mx, (int32_t)c); });
      // The encoder lists the feature's categories: a code past them is no
      // category of the model (XGBoost recodes every DataFrame into them).
      if (!names[f].empty() && mx >= (int32_t)names[f].size())
        malformed("tree " + std::to_string(ti) + " node " + std::to_string(n) + ": category " +
                  std::to_string(mx) + " of feature \"" + m->feature_names[f] +
                  "\" is past its " + std::to_string(names[f].size()) +
                  " categories in the model's encoder (cats)");
      max_code[f] = std::max(max_code[f], mx);
    }
  }
  bool any = false;
  for (int f = 0; f < d; ++f) any = any || categorical[f];
  if (!any) return;
  // Decimal names for the codes without one: charged before they are made
  // (a split with code 65535 on each of many features would be millions).
  double synth = 0;
  for (int f = 0; f < d; ++f)
    if (categorical[f] && names[f].empty()) synth += (double)std::max(max_code[f] + 1, 1);
  if (lim.budget)
    lim.budget->charge(synth * (sizeof(std::string) + 8), "the imported model's category names",
                       "import a model with fewer categories");
  m->categories.assign((size_t)d, {});
  for (int f = 0; f < d; ++f) {
    if (!categorical[f]) continue;
    m->feature_types[f] = FeatureType::kCategorical;
    std::vector<std::string>& out = m->categories[f];
    out = std::move(names[f]);
    // Codes without a stored name (no encoder): decimal codes.
    const size_t need = std::max<size_t>((size_t)(max_code[f] + 1), 1);
    out.reserve(need);
    for (size_t c = out.size(); c < need; ++c) {
      if (poll) poll->tick();
      out.push_back(std::to_string(c));
    }
  }
}

}  // namespace gbdt
