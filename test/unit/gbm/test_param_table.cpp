// The table of parameters declares each parameter's default and bounds once:
// the TrainParams defaults, the range texts of the errors and the README,
// and the checks apply_params makes are tested against it here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "common/common.h"
#include "gbm/params.h"

using namespace gbdt;

namespace {

// A bound as the range texts write it (2^53 for the seed's).
std::string bound_text(double v);

std::string num(double v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

std::string bound_text(double v) { return v == 9007199254740992.0 ? "2^53" : num(v); }

// The default's leading number ("0 (0.7 for ...)" -> 0); booleans 1/0.
bool default_value(const std::string& text, double* out) {
  if (text.rfind("true", 0) == 0) return *out = 1, true;
  if (text.rfind("false", 0) == 0) return *out = 0, true;
  const char* s = text.c_str();
  char* end = nullptr;
  *out = std::strtod(s, &end);
  return end != s && (*end == '\0' || *end == ' ');
}

// The start of the range text the bounds say.
std::string range_text(const ParamInfo& r) {
  const ParamRange& b = r.range;
  if (std::string(r.type) == "integer")
    return "an integer in [" + bound_text(b.lo) + ", " + bound_text(b.hi) + "]";
  if (b.hi >= 1e300) return std::string(b.lo_open ? "> " : ">= ") + bound_text(b.lo);
  return std::string("in ") + (b.lo_open ? "(" : "[") + bound_text(b.lo) + ", " + bound_text(b.hi) +
         (b.hi_open ? ")" : "]");
}

bool accepted(const std::string& key, double v) {
  TrainParams p;
  try {
    apply_params({{key, num(v), false}}, &p);
  } catch (const InvalidInput&) {
    return false;
  }
  return true;
}

}  // namespace

TEST(ParamTable, TrainParamsDefaultsAreTheTables) {
  const TrainParams fresh;
  int checked = 0;
  for (const ParamInfo& r : param_table()) {
    if (r.get == nullptr) continue;
    double v = 0;
    ASSERT_TRUE(default_value(r.default_text, &v))
        << r.name << ": default \"" << r.default_text << "\" is not a number or boolean";
    EXPECT_EQ(r.get(fresh), v) << r.name << ": TrainParams default differs from the table's "
                               << r.default_text;
    ++checked;
  }
  EXPECT_GE(checked, 30);  // the numbers and booleans of the table
}

TEST(ParamTable, DefaultAppliedKeepsTheDefault) {
  for (const ParamInfo& r : param_table()) {
    if (r.get == nullptr) continue;
    double v = 0;
    ASSERT_TRUE(default_value(r.default_text, &v)) << r.name;
    TrainParams p;
    const std::string text = std::string(r.type) == "boolean" ? (v != 0 ? "true" : "false") : num(v);
    apply_params({{r.name, text, false}}, &p);
    EXPECT_EQ(r.get(p), v) << r.name;
  }
}

TEST(ParamTable, RangeTextSaysTheBounds) {
  int checked = 0;
  for (const ParamInfo& r : param_table()) {
    const std::string type = r.type;
    if (type != "number" && type != "integer") continue;
    if (!r.range.has_bounds) continue;
    const std::string want = range_text(r);
    EXPECT_EQ(std::string(r.range.text).rfind(want, 0), 0u)
        << r.name << ": range text \"" << r.range.text << "\" does not start with \"" << want
        << "\"";
    ++checked;
  }
  EXPECT_GE(checked, 25);
}

TEST(ParamTable, EveryNumberHasBounds) {
  // numbers without bounds: base_score (its range depends on the objective)
  // and the parameters whose apply checks their own form.
  for (const ParamInfo& r : param_table()) {
    const std::string type = r.type, name = r.name;
    if (type != "number" && type != "integer") continue;
    if (r.get == nullptr) continue;  // not a plain TrainParams number
    EXPECT_TRUE(r.range.has_bounds) << name << " has a default but no bounds";
  }
}

TEST(ParamTable, ApplyChecksTheDeclaredBounds) {
  for (const ParamInfo& r : param_table()) {
    if (!r.range.has_bounds) continue;
    const ParamRange& b = r.range;
    const bool integer = std::string(r.type) == "integer";
    const double step = integer ? 1.0 : 1e-9;
    EXPECT_EQ(accepted(r.name, b.lo), !b.lo_open) << r.name << " at its lower bound " << b.lo;
    // max_depth 0 and -1 mean no limit, which needs lossguide (refused alone).
    EXPECT_FALSE(accepted(r.name, b.lo - step)) << r.name << " below " << b.lo;
    if (b.hi < 1e300) {
      EXPECT_EQ(accepted(r.name, b.hi), !b.hi_open) << r.name << " at its upper bound " << b.hi;
      if (b.hi + step != b.hi) {
        EXPECT_FALSE(accepted(r.name, b.hi + step)) << r.name << " above";
      }
    }
  }
}
