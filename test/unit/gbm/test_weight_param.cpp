// weight_column: a string naming the column, recorded in the
// model's params only when given (so other trainings keep their bytes).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/common.h"
#include "gbm/params.h"

using namespace gbdt;

namespace {
bool has_key(const std::vector<std::pair<std::string, std::string>>& kv, const std::string& k,
             std::string* v) {
  for (const auto& e : kv)
    if (e.first == k) {
      *v = e.second;
      return true;
    }
  return false;
}
}  // namespace

TEST(WeightParam, RecordedOnlyWhenGiven) {
  TrainParams plain;
  std::string v;
  EXPECT_FALSE(has_key(params_to_kv(plain), "weight_column", &v));

  TrainParams p;
  apply_params({{"weight_column", "w", true}}, &p);
  EXPECT_EQ(p.weight_column, "w");
  ASSERT_TRUE(has_key(params_to_kv(p), "weight_column", &v));
  EXPECT_EQ(v, "w");

  TrainParams q;
  apply_params({{"weight", "sample w", true}}, &q);
  EXPECT_EQ(q.weight_column, "sample w");
}

TEST(WeightParam, MustBeAColumnName) {
  for (const ParamKV& kv : std::vector<ParamKV>{{"weight_column", "3", false},
                                                {"weight_column", "", true},
                                                {"weight", "true", false}}) {
    TrainParams p;
    try {
      apply_params({kv}, &p);
      ADD_FAILURE() << kv.key << " = " << kv.value << " was accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("\"" + kv.key + "\" must name a column"),
                std::string::npos)
          << e.what();
    }
  }
}
