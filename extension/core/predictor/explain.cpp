#include "explain.h"
#include "../objective/objective.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "../common/common.h"
#include "../common/interruptible.h"

namespace gbdt {

std::string json_escape(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += (char)c;
        }
    }
  }
  return o + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  // Prefer the shortest form that round-trips.
  for (int prec = 6; prec < 17; ++prec) {
    char t[40];
    std::snprintf(t, sizeof t, "%.*g", prec, v);
    if (std::strtod(t, nullptr) == v) return t;
  }
  return b;
}

std::vector<double> feature_importance(const Model& m, const std::string& kind,
                                       const CancelFn& cancel) {
  const int d = m.n_features();
  std::vector<double> gain(d, 0), cover(d, 0), weight(d, 0);
  CancelPoller poll(cancel);
  for (const Tree& t : m.trees)
    for (int32_t n = 0; n < t.num_nodes(); ++n) {
      poll.tick();
      if (t.is_leaf(n)) continue;
      int f = t.feature[n];
      gain[f] += t.gain[n];
      cover[f] += t.cover[n];
      weight[f] += 1;
    }
  std::vector<double> r(d, 0);
  for (int f = 0; f < d; ++f) {
    if (kind == "weight") r[f] = weight[f];
    else if (kind == "gain") r[f] = weight[f] ? gain[f] / weight[f] : 0;
    else if (kind == "total_gain") r[f] = gain[f];
    else if (kind == "cover") r[f] = weight[f] ? cover[f] / weight[f] : 0;
    else if (kind == "total_cover") r[f] = cover[f];
    else
      throw InvalidInput("importance kind \"" + kind +
                         "\" is not supported: must be gain, total_gain, weight, cover or "
                         "total_cover");
  }
  return r;
}

std::string model_info_json(const Model& m) {
  static const char* types[] = {"float", "int", "bool", "categorical"};
  std::ostringstream o;
  o << "{\"objective\": " << json_escape(objective_name(m.objective));
  o << ", \"num_class\": " << (objective_info(m.objective).multiclass ? m.num_output_group : (objective_info(m.objective).binary ? 2 : 0));
  o << ", \"classes\": [";
  for (size_t i = 0; i < m.class_labels.size(); ++i)
    o << (i ? ", " : "") << json_number(m.class_labels[i]);
  o << "], \"features\": [";
  for (int f = 0; f < m.n_features(); ++f)
    o << (f ? ", " : "") << "{\"name\": " << json_escape(m.feature_names[f])
      << ", \"type\": \"" << types[(int)m.feature_types[f]] << "\""
      << ((size_t)f < m.categories.size() && !m.categories[f].empty()  // category count
              ? ", \"categories\": " + std::to_string(m.categories[f].size())
              : std::string())
      << "}";
  size_t nodes = 0;
  for (const Tree& t : m.trees) nodes += t.num_nodes();
  o << "], \"rounds\": " << m.num_rounds() << ", \"trees\": " << m.trees.size()
    << ", \"nodes\": " << nodes;
  if (m.num_parallel_tree > 1) o << ", \"num_parallel_tree\": " << m.num_parallel_tree;  // parallel trees
  o << ", \"base_score\": " << json_number(m.base_score);
  o << ", \"params\": {";
  for (size_t i = 0; i < m.params.size(); ++i) {
    const std::string& v = m.params[i].second;
    char* end = nullptr;
    double num = std::strtod(v.c_str(), &end);
    bool numeric = !v.empty() && end && *end == '\0' && std::isfinite(num);
    o << (i ? ", " : "") << json_escape(m.params[i].first) << ": "
      << (numeric ? json_number(num) : json_escape(v));
  }
  const TrainingReport& r = m.report;
  o << "}, \"rows_used\": " << r.rows_used << ", \"rows_skipped\": " << r.rows_skipped
    << ", \"rows_validation\": " << r.rows_validation;
  o << ", \"eval_metric\": " << json_escape(r.eval_metric);
  o << ", \"train_metric\": "
    << (r.train_metric.empty() ? std::string("null") : json_number(r.train_metric.back()));
  o << ", \"validation_history\": [";
  for (size_t i = 0; i < r.validation_metric.size(); ++i)
    o << (i ? ", " : "") << json_number(r.validation_metric[i]);
  o << "], \"best_iteration\": ";
  if (r.best_iteration >= 0) o << r.best_iteration; else o << "null";
  o << "}";
  return o.str();
}

}  // namespace gbdt
