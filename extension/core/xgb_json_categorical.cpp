#include "xgb_json_categorical.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common.h"
#include "model_limits.h"
#include "utf8.h"
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

void write_xgb_tree_categories(std::ostringstream& o, const Tree& t) {
  std::vector<int32_t> cats, nodes, segments, sizes;
  if (t.has_categorical())
    for (int32_t n = 0; n < t.num_nodes(); ++n) {
      if (t.is_leaf(n) || t.split_type[n] != 1) continue;
      nodes.push_back(n);
      segments.push_back((int32_t)cats.size());
      for (uint32_t w = t.cat_offset[n]; w < t.cat_offset[n + 1]; ++w)
        for (int b = 0; b < 32; ++b)
          if ((t.cat_bits[w] >> b) & 1u) cats.push_back((int32_t)((w - t.cat_offset[n]) * 32 + b));
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
                                                           const std::string& at) {
  std::vector<std::vector<int32_t>> sets(nn);
  JsonRef cn = tj.get("categories_nodes");
  if (!cn.valid() || !cn.is_array() || cn.size() == 0) return sets;
  JsonRef cs = tj.get("categories_segments");
  JsonRef cz = tj.get("categories_sizes");
  JsonRef cc = tj.get("categories");
  if (!cs.valid() || !cz.valid() || !cc.valid() || !cs.is_array() || !cz.is_array() ||
      !cc.is_array() || cs.size() != cn.size() || cz.size() != cn.size())
    malformed(at + ": categories_nodes, categories_segments and categories_sizes do not match");
  for (size_t i = 0; i < cn.size(); ++i) {
    const long long n = int_of(cn.at(i), at + " categories_nodes");
    const long long beg = int_of(cs.at(i), at + " categories_segments");
    const long long size = int_of(cz.at(i), at + " categories_sizes");
    if (n < 0 || n >= (long long)nn) malformed(at + ": categories_nodes entry out of range");
    if (beg < 0 || size < 0 || beg + size > (long long)cc.size())
      malformed(at + ": category segment of node " + std::to_string(n) + " out of range");
    for (long long k = beg; k < beg + size; ++k) {
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

void set_tree_category_sets(Tree* t, const std::vector<std::vector<int32_t>>& sets) {
  bool any = false;
  for (const auto& s : sets) any = any || !s.empty();
  if (!any) return;
  const int32_t nn = t->num_nodes();
  t->split_type.assign((size_t)nn, 0);
  t->cat_offset.assign(1, 0);
  t->cat_bits.clear();
  for (int32_t n = 0; n < nn; ++n) {
    if (n < (int32_t)sets.size() && !sets[n].empty()) {
      t->split_type[n] = 1;
      int32_t mx = -1;
      for (int32_t c : sets[n]) mx = std::max(mx, c);
      const size_t base = t->cat_bits.size();
      t->cat_bits.resize(base + (size_t)(mx / 32 + 1), 0u);
      for (int32_t c : sets[n])
        if (c >= 0) t->cat_bits[base + (size_t)c / 32] |= 1u << (c % 32);
    }
    t->cat_offset.push_back((uint32_t)t->cat_bits.size());
  }
}

void finish_imported_categories(Model* m, const std::vector<uint8_t>& categorical,
                                std::vector<std::vector<std::string>> names) {
  const int d = m->n_features();
  std::vector<int32_t> max_code((size_t)d, -1);
  for (const Tree& t : m->trees)
    if (t.has_categorical())
      for (int32_t n = 0; n < t.num_nodes(); ++n) {
        if (t.is_leaf(n) || t.split_type[n] != 1) continue;
        const int f = t.feature[n];
        if (f < 0 || f >= d) continue;
        if (!categorical[f])
          malformed("tree node splits feature \"" + m->feature_names[f] +
                    "\" by categories, but its feature type is not \"c\"");
        for (uint32_t w = t.cat_offset[n]; w < t.cat_offset[n + 1]; ++w)
          for (int b = 0; b < 32; ++b)
            if ((t.cat_bits[w] >> b) & 1u)
              max_code[f] = std::max(max_code[f], (int32_t)((w - t.cat_offset[n]) * 32 + b));
      }
  bool any = false;
  for (int f = 0; f < d; ++f) any = any || categorical[f];
  if (!any) return;
  m->categories.assign((size_t)d, {});
  for (int f = 0; f < d; ++f) {
    if (!categorical[f]) continue;
    m->feature_types[f] = FeatureType::kCategorical;
    std::vector<std::string>& out = m->categories[f];
    out = std::move(names[f]);
    // Codes without a stored name (no encoder, or splits past it): decimal codes.
    const size_t need = std::max<size_t>((size_t)(max_code[f] + 1), 1);
    for (size_t c = out.size(); c < need; ++c) out.push_back(std::to_string(c));
  }
}

}  // namespace gbdt
