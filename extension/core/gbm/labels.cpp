#include "labels.h"

#include <cmath>
#include <cstdio>

#include "../common/interruptible.h"
#include "../model/model_limits.h"

namespace gbdt {

namespace {

std::string fmt_g(double v) {
  char b[64];
  snprintf(b, sizeof b, "%g", v);
  return b;
}

bool classifies(Objective o) {
  const ObjectiveInfo& oi = objective_info(o);
  return oi.binary || oi.multiclass;
}

// "'a', 'b', 'c'" (the first `max` names, then ", ...").
std::string quote_names(const std::vector<std::string>& names, size_t max) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > max) s += ", ...";
  return s;
}

LabelPlan fault(LabelFault kind, std::string message, std::string hint = std::string()) {
  LabelPlan p;
  p.fault = kind;
  p.message = std::move(message);
  p.hint = std::move(hint);
  return p;
}

// A text target: two classes train binary:logistic, more multi:softprob
// (a continued training keeps the init model's objective).
LabelPlan decide_text(const LabelRequest& r) {
  const int k = (int)r.class_names.size();
  const std::string& t = r.target;
  if (k < 2)
    return fault(LabelFault::kInvalidValue,
                 "target column \"" + t + "\" has " +
                     (k == 0 ? std::string("no values")
                             : "the single value '" + r.class_names[0] + "'") +
                     ": classification needs at least 2 distinct values");
  const std::string list = quote_names(r.class_names, 10);
  if (r.objective_given && objective_info(r.objective).binary && k != 2)
    return fault(LabelFault::kInvalidValue,
                 "target column \"" + t + "\" has " + std::to_string(k) + " distinct values (" +
                     list + "): " + objective_name(r.objective) + " needs exactly 2",
                 "Pass objective => 'multi:softprob' for " + std::to_string(k) + " classes.");
  if (objective_info(r.objective).multiclass && r.num_class > 0 && r.num_class != k)
    return fault(LabelFault::kInvalidValue,
                 "parameter \"num_class\" = " + std::to_string(r.num_class) +
                     " but target column \"" + t + "\" has " + std::to_string(k) +
                     " distinct values",
                 "Leave num_class out: the classes are the target's values.");
  LabelPlan p;
  p.objective = r.objective;
  if (!r.objective_given) {
    p.objective = k == 2 ? Objective::kLogistic : Objective::kSoftprob;
    if (r.continued) p.objective = r.init_objective;
    p.objective_decided = true;
  }
  if (objective_info(p.objective).multiclass) p.num_class = k;
  p.reason = "target \"" + t + "\" (" + r.type_name + ") has " + std::to_string(k) +
             " distinct values (" + list + ")";
  if (objective_info(p.objective).binary)
    p.reason += "; the positive class is '" + r.class_names[1] + "'";
  return p;
}

// A classification on labels of one value on every row (given, or
// binary:logistic inferred from labels 0/1): XGBoost trains it without a
// word (a model that predicts that class everywhere), which is nearly
// always a mistake upstream.  A continued training may add rows of one class.
LabelPlan check_two_classes(const LabelRequest& r, Objective objective, const float* y,
                            size_t n) {
  if (n == 0 || r.continued) return LabelPlan();
  const float first = y[0];
  CancelPoller poll(r.cancel);
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    if (y[i] != first) return LabelPlan();
  }
  const bool classify = classifies(objective);
  if (!classify && (r.objective_given || !(first == 0.0f || first == 1.0f))) return LabelPlan();
  const std::string value = r.type == TargetType::kBool ? (first != 0.0f ? "true" : "false")
                                                        : fmt_g((double)first);
  return fault(LabelFault::kInvalidValue,
               "target column \"" + r.target + "\" has the single value " + value +
                   " on every row: " +
                   (classify ? objective_name(objective) : "binary:logistic") +
                   " needs at least 2 classes",
               "A model of one class predicts it for every row; check the rows the relation "
               "returns (a filter or join that kept one class?).");
}

// Maps labels in place to their rank among the distinct values (unless
// they are 0 .. K-1 already); whether they changed.
bool map_to_classes(float* y, size_t n, const LabelSummary& s, const CancelFn& cancel) {
  const int k = (int)s.distinct;
  bool identity = true;
  for (int i = 0; i < k; ++i)
    if (s.values[(size_t)i] != (double)i) identity = false;
  if (identity) return false;
  CancelPoller poll(cancel);
  for (size_t r = 0; r < n; ++r) {
    poll.tick();
    const double v = y[r];
    int lo = 0, hi = k - 1;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (s.values[(size_t)mid] < v) lo = mid + 1; else hi = mid;
    }
    y[r] = (float)lo;
  }
  return true;
}

// Numeric labels without an init model's classes: the reason of an
// objective inferred, or the classes of a classification objective.
LabelPlan decide_numeric_values(const LabelRequest& r, float* y, size_t n) {
  const std::string& t = r.target;
  const LabelSummary ls = summarize_labels(y, n, r.cancel);
  const std::string values = format_label_values(ls, 10);
  const bool zero_one = ls.distinct <= 2 && ls.min >= 0 && ls.max <= 1 && ls.all_integer;
  LabelPlan p;
  p.objective = r.objective;
  if (!r.objective_given) {
    if (zero_one) {
      p.objective = Objective::kLogistic;  // as infer_objective decides it
      p.reason = "target \"" + t + "\" has only the values " + values;
    } else if (ls.all_integer && !ls.capped && ls.distinct <= 20) {
      p.reason = "target \"" + t + "\" is numeric with " + std::to_string(ls.distinct) +
                 " distinct integer values " + fmt_g(ls.min) + ".." + fmt_g(ls.max) +
                 "; pass objective => 'multi:softprob' to classify";
    } else {
      p.reason = "target \"" + t + "\" is numeric with " + (ls.capped ? "more than " : "") +
                 std::to_string(ls.capped ? ls.distinct - 1 : ls.distinct) + " distinct values";
    }
    return p;
  }
  if (ls.capped)
    return fault(LabelFault::kTooManyClasses,
                 "target column \"" + t + "\" has more than " + std::to_string(kMaxClasses) +
                     " distinct values: too many classes for " + objective_name(r.objective) +
                     " (at most " + std::to_string(kMaxClasses) + ")");
  const bool binary = objective_info(r.objective).binary;
  // binary:* with more than 2 values: the trainer's label check names one.
  if (!binary || ls.distinct == 2) {
    const bool dense = ls.min == 0 && ls.max == (double)ls.distinct - 1 && ls.all_integer;
    if (!binary && r.num_class > 0 && ls.distinct > 0 && !dense &&
        r.num_class != (int)ls.distinct)
      return fault(LabelFault::kInvalidValue,
                   "parameter \"num_class\" = " + std::to_string(r.num_class) +
                       " but target column \"" + t + "\" has " + std::to_string(ls.distinct) +
                       " distinct values (" + values + ")",
                   "Leave num_class out: the classes are the target's values.");
    p.remapped = map_to_classes(y, n, ls, r.cancel);
    if (p.remapped) p.class_values = ls.values;
  }
  p.reason = "target \"" + t + "\" has " + std::to_string(ls.distinct) + " distinct values (" +
             values + ")" + (p.remapped ? ", classes in this order" : "");
  return p;
}

// Numeric and boolean labels, read.
LabelPlan decide_read_labels(const LabelRequest& r, float* y, size_t n) {
  const std::string& t = r.target;
  const bool is_bool = r.type == TargetType::kBool;
  Objective objective = r.objective;
  if (is_bool && !r.objective_given) objective = Objective::kLogistic;
  LabelPlan single = check_two_classes(r, objective, y, n);
  if (!single.ok()) return single;
  LabelPlan p;
  p.objective = objective;
  if (!r.init_class_values.empty()) {
    p.objective = r.init_objective;
    p.remapped = true;  // the model keeps the init model's label values
    p.class_values = r.init_class_values;
    p.reason = "target \"" + t + "\" holds the " + std::to_string(r.init_class_values.size()) +
               " class label values of init_model";
  } else if (r.continued && !r.objective_given && !is_bool) {
    p.objective = r.init_objective;  // the init model's, not one inferred
    p.reason = "init_model's objective; target \"" + t + "\" is numeric";
  } else if (is_bool) {
    p.objective_decided = !r.objective_given;
    p.reason = "target \"" + t + "\" is boolean (classes false, true)";
  } else if (r.objective_given && !classifies(r.objective)) {
    p.reason = "target \"" + t + "\" is numeric";
  } else {
    return decide_numeric_values(r, y, n);
  }
  if (is_bool && classifies(p.objective)) p.class_names = {"false", "true"};
  return p;
}

}  // namespace

LabelPlan check_label_type(const LabelRequest& r) {
  if (r.type == TargetType::kText && r.objective_given && !classifies(r.objective))
    return fault(LabelFault::kTypeMismatch,
                 "target column \"" + r.target + "\" is " + r.type_name + ": objective " +
                     objective_name(r.objective) + " needs a numeric target",
                 "A text target is a class label: pass objective => 'binary:logistic' (two "
                 "classes) or 'multi:softprob', or leave the objective out; for a regression, "
                 "cast the target to a number in a view.");
  return LabelPlan();
}

LabelPlan decide_labels(const LabelRequest& req, float* labels, size_t n) {
  if (req.type == TargetType::kText) {
    LabelPlan p = check_label_type(req);
    return p.ok() ? decide_text(req) : p;
  }
  return decide_read_labels(req, labels, n);
}

Objective infer_objective(const float* y, size_t n, const CancelFn& cancel) {
  CancelPoller poll(cancel);
  bool binary = n > 0;
  for (size_t i = 0; i < n && binary; ++i) {
    poll.tick();
    binary = y[i] == 0.0f || y[i] == 1.0f;
  }
  return binary ? Objective::kLogistic : Objective::kSquaredError;
}

LabelSummary summarize_labels(const float* y, size_t n, const CancelFn& cancel) {
  // The distinct values in a sorted array of at most kMaxClasses + 1
  // entries (no copy of the labels); past that only min, max and
  // integrality are tracked.
  const size_t cap = (size_t)kMaxClasses + 1;
  LabelSummary s;
  std::vector<double>& v = s.values;
  v.reserve(16);
  bool capped = false, all_integer = true;
  double mn = 0, mx = 0;
  if (n > 0) mn = mx = y[0];
  CancelPoller poll(cancel);
  for (size_t i = 0; i < n; ++i) {
    poll.tick();
    const double x = y[i];
    mn = std::min(mn, x);
    mx = std::max(mx, x);
    // Every double of magnitude 2^52 or more is an integer (no call to
    // floor per row).
    all_integer &= std::fabs(x) >= 0x1p52 || (double)(int64_t)x == x;
    if (capped) continue;
    const size_t d = v.size();
    if (d <= 8) {
      // A few classes: compared with each, without a branch per class
      // (labels of a classification come in random order).
      bool seen = false;
      for (size_t j = 0; j < d; ++j) seen |= v[j] == x;
      if (seen) continue;
    }
    size_t lo = 0, hi = d;  // first entry >= x
    while (lo < hi) {
      const size_t mid = (lo + hi) >> 1;
      if (v[mid] < x) lo = mid + 1; else hi = mid;
    }
    if (lo < d && v[lo] == x) continue;
    if (d == cap) {
      capped = true;
      continue;
    }
    v.insert(v.begin() + (std::ptrdiff_t)lo, x);
  }
  s.distinct = v.size();
  s.capped = capped || s.distinct > (size_t)kMaxClasses;
  s.all_integer = all_integer;
  s.min = mn;
  s.max = mx;
  return s;
}

std::string format_label_values(const LabelSummary& s, int max) {
  std::string b;
  for (size_t i = 0; i < s.distinct && (int)i < max; ++i) b += (i ? ", " : "") + fmt_g(s.values[i]);
  if ((int)s.distinct > max || s.capped) b += ", ...";
  return b;
}

}  // namespace gbdt
