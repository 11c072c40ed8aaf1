// Pieces shared by the XGBoost JSON reader/writer (xgb_json.cpp) and its
// categorical parts (xgb_json_categorical.cpp).  Internal to those two.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "../common/common.h"

namespace gbdt {
namespace xgb_json_detail {

[[noreturn]] inline void malformed(const std::string& what) {
  throw InvalidInput("invalid XGBoost JSON model: " + what);
}

// "name":[1,2,3]
template <class T>
void write_int_array(std::ostringstream& o, const char* name, const std::vector<T>& v) {
  o << '"' << name << "\":[";
  for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << (long long)v[i];
  o << ']';
}

}  // namespace xgb_json_detail
}  // namespace gbdt
