// gbdt::decide_labels: the one rule of a training's objective and classes
// (text -> classes, bool -> logistic, 0/1 -> binary:logistic, the
// num_class checks, a continued training's objective and classes).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gbm/labels.h"
#include "model/model_limits.h"
#include "test_util.h"

using namespace gbdt;
using namespace gbdt_test;

namespace {

LabelRequest numeric(const char* target = "y") {
  LabelRequest r;
  r.target = target;
  return r;
}

LabelRequest given(Objective o, TargetType t = TargetType::kNumeric) {
  LabelRequest r = numeric();
  r.type = t;
  r.objective_given = true;
  r.objective = o;
  return r;
}

LabelRequest text(std::vector<std::string> classes) {
  LabelRequest r = numeric("species");
  r.type = TargetType::kText;
  r.type_name = "text";
  r.class_names = std::move(classes);
  return r;
}

}  // namespace

TEST(DecideLabels, ZeroOneInfersLogistic) {
  std::vector<float> y = {0, 1, 1, 0};
  LabelPlan p = decide_labels(numeric(), y.data(), y.size());
  ASSERT_TRUE(p.ok()) << p.message;
  EXPECT_EQ(p.objective, Objective::kLogistic);
  EXPECT_FALSE(p.objective_decided);  // the trainer infers it by the same rule
  EXPECT_EQ(p.reason, "target \"y\" has only the values 0, 1");
  EXPECT_EQ(infer_objective(y.data(), y.size()), Objective::kLogistic);
}

TEST(DecideLabels, OtherNumbersAreRegression) {
  std::vector<float> y = {0, 1, 2, 3, 2};
  LabelPlan p = decide_labels(numeric(), y.data(), y.size());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.objective, Objective::kSquaredError);
  EXPECT_EQ(p.reason,
            "target \"y\" is numeric with 4 distinct integer values 0..3; pass objective => "
            "'multi:softprob' to classify");
  EXPECT_EQ(infer_objective(y.data(), y.size()), Objective::kSquaredError);
  std::vector<float> r = {0.5f, 1.25f};
  EXPECT_EQ(decide_labels(numeric(), r.data(), r.size()).reason,
            "target \"y\" is numeric with 2 distinct values");
  EXPECT_EQ(infer_objective(nullptr, 0), Objective::kSquaredError);
}

TEST(DecideLabels, BoolIsLogisticWithNamedClasses) {
  LabelRequest r = numeric("ok");
  r.type = TargetType::kBool;
  std::vector<float> y = {0, 1, 1};
  LabelPlan p = decide_labels(r, y.data(), y.size());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.objective, Objective::kLogistic);
  EXPECT_TRUE(p.objective_decided);
  EXPECT_EQ(p.class_names, (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(p.reason, "target \"ok\" is boolean (classes false, true)");
  // a regression on a bool target keeps no class names.
  LabelPlan q = decide_labels(given(Objective::kSquaredError, TargetType::kBool), y.data(), 3);
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q.objective_decided);
  EXPECT_TRUE(q.class_names.empty());
}

TEST(DecideLabels, TextTargetsAreClasses) {
  LabelPlan two = decide_labels(text({"no", "yes"}), nullptr, 0);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two.objective, Objective::kLogistic);
  EXPECT_TRUE(two.objective_decided);
  EXPECT_EQ(two.num_class, 0);
  EXPECT_EQ(two.reason,
            "target \"species\" (text) has 2 distinct values ('no', 'yes'); the positive class "
            "is 'yes'");
  LabelPlan three = decide_labels(text({"a", "b", "c"}), nullptr, 0);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three.objective, Objective::kSoftprob);
  EXPECT_EQ(three.num_class, 3);
  // a continued training keeps the init model's objective.
  LabelRequest c = text({"a", "b", "c"});
  c.continued = true;
  c.init_objective = Objective::kSoftmax;
  EXPECT_EQ(decide_labels(c, nullptr, 0).objective, Objective::kSoftmax);
}

TEST(DecideLabels, TextTargetErrors) {
  LabelRequest reg = text({"a", "b"});
  reg.objective_given = true;
  reg.objective = Objective::kSquaredError;
  LabelPlan t = check_label_type(reg);
  EXPECT_EQ(t.fault, LabelFault::kTypeMismatch);
  EXPECT_EQ(t.message,
            "target column \"species\" is text: objective reg:squarederror needs a numeric target");
  EXPECT_EQ(decide_labels(reg, nullptr, 0).fault, LabelFault::kTypeMismatch);

  EXPECT_EQ(decide_labels(text({}), nullptr, 0).message,
            "target column \"species\" has no values: classification needs at least 2 distinct "
            "values");
  EXPECT_EQ(decide_labels(text({"x"}), nullptr, 0).message,
            "target column \"species\" has the single value 'x': classification needs at least "
            "2 distinct values");

  LabelRequest bin = text({"a", "b", "c"});
  bin.objective_given = true;
  bin.objective = Objective::kLogistic;
  LabelPlan b = decide_labels(bin, nullptr, 0);
  EXPECT_EQ(b.fault, LabelFault::kInvalidValue);
  EXPECT_EQ(b.message,
            "target column \"species\" has 3 distinct values ('a', 'b', 'c'): binary:logistic "
            "needs exactly 2");
  EXPECT_EQ(b.hint, "Pass objective => 'multi:softprob' for 3 classes.");

  LabelRequest nc = text({"a", "b", "c"});
  nc.objective_given = true;
  nc.objective = Objective::kSoftprob;
  nc.num_class = 4;
  EXPECT_EQ(decide_labels(nc, nullptr, 0).message,
            "parameter \"num_class\" = 4 but target column \"species\" has 3 distinct values");
}

TEST(DecideLabels, SingleValueIsAnError) {
  std::vector<float> y = {1, 1, 1};
  LabelPlan p = decide_labels(numeric(), y.data(), y.size());
  EXPECT_EQ(p.fault, LabelFault::kInvalidValue);
  EXPECT_EQ(p.message,
            "target column \"y\" has the single value 1 on every row: binary:logistic needs at "
            "least 2 classes");
  // a regression given on constant labels trains.
  EXPECT_TRUE(decide_labels(given(Objective::kSquaredError), y.data(), 3).ok());
  // a constant 7 not given is a regression.
  std::vector<float> s = {7, 7};
  EXPECT_TRUE(decide_labels(numeric(), s.data(), 2).ok());
  LabelRequest b = numeric("ok");
  b.type = TargetType::kBool;
  EXPECT_EQ(decide_labels(b, y.data(), 3).message,
            "target column \"ok\" has the single value true on every row: binary:logistic needs "
            "at least 2 classes");
  // a continued training may add rows of one class.
  LabelRequest c = numeric();
  c.continued = true;
  c.init_objective = Objective::kLogistic;
  LabelPlan cp = decide_labels(c, y.data(), 3);
  ASSERT_TRUE(cp.ok());
  EXPECT_EQ(cp.objective, Objective::kLogistic);
  EXPECT_EQ(cp.reason, "init_model's objective; target \"y\" is numeric");
}

TEST(DecideLabels, ClassificationMapsValuesToClasses) {
  std::vector<float> y = {20, 0, 10, 10};
  LabelPlan p = decide_labels(given(Objective::kSoftprob), y.data(), y.size());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p.remapped);
  EXPECT_EQ(p.class_values, (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(y, (std::vector<float>{2, 0, 1, 1}));
  EXPECT_EQ(p.reason, "target \"y\" has 3 distinct values (0, 10, 20), classes in this order");
  // labels 0..K-1 stay as they are.
  std::vector<float> d = {0, 2, 1};
  LabelPlan q = decide_labels(given(Objective::kSoftprob), d.data(), d.size());
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q.remapped);
  EXPECT_EQ(d, (std::vector<float>{0, 2, 1}));
}

TEST(DecideLabels, NumClassMustMatchTheValues) {
  std::vector<float> y = {5, 6, 7};
  LabelRequest r = given(Objective::kSoftprob);
  r.num_class = 4;
  LabelPlan p = decide_labels(r, y.data(), y.size());
  EXPECT_EQ(p.fault, LabelFault::kInvalidValue);
  EXPECT_EQ(p.message,
            "parameter \"num_class\" = 4 but target column \"y\" has 3 distinct values (5, 6, 7)");
  EXPECT_EQ(p.hint, "Leave num_class out: the classes are the target's values.");
  EXPECT_EQ(y, (std::vector<float>{5, 6, 7}));  // not mapped on an error
  // dense labels 0..K-1 may leave classes unseen (num_class above the count).
  std::vector<float> d = {0, 1, 2};
  EXPECT_TRUE(decide_labels(r, d.data(), d.size()).ok());
}

TEST(DecideLabels, TooManyClasses) {
  std::vector<float> y((size_t)kMaxClasses + 5);
  for (size_t i = 0; i < y.size(); ++i) y[i] = (float)i;
  LabelPlan p = decide_labels(given(Objective::kSoftprob), y.data(), y.size());
  EXPECT_EQ(p.fault, LabelFault::kTooManyClasses);
  EXPECT_EQ(p.message, "target column \"y\" has more than 10000 distinct values: too many "
                       "classes for multi:softprob (at most 10000)");
  LabelPlan r = decide_labels(numeric(), y.data(), y.size());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.reason, "target \"y\" is numeric with more than 10000 distinct values");
}

TEST(DecideLabels, BinaryKeepsLabelsForTheTrainersCheck) {
  // binary:logistic on three values: left to the objective's label check.
  std::vector<float> y = {0, 1, 2};
  LabelPlan p = decide_labels(given(Objective::kLogistic), y.data(), y.size());
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p.remapped);
  // two values other than 0/1 are mapped to 0/1.
  std::vector<float> t = {3, 5, 5};
  LabelPlan q = decide_labels(given(Objective::kLogistic), t.data(), t.size());
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q.remapped);
  EXPECT_EQ(t, (std::vector<float>{0, 1, 1}));
}

TEST(DecideLabels, InitModelClassValues) {
  LabelRequest r = numeric();
  r.continued = true;
  r.init_objective = Objective::kSoftprob;
  r.init_class_values = {0, 10, 20};
  std::vector<float> y = {0, 2, 1};  // mapped by the caller
  LabelPlan p = decide_labels(r, y.data(), y.size());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.objective, Objective::kSoftprob);
  EXPECT_TRUE(p.remapped);
  EXPECT_EQ(p.class_values, (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(p.reason, "target \"y\" holds the 3 class label values of init_model");
}

TEST(DecideLabels, CancelIsPolled) {
  std::vector<float> y((size_t)1 << 18, 0.0f);
  y[1] = 1.0f;
  LabelRequest r = numeric();
  r.cancel = [] { return true; };
  EXPECT_THROW(decide_labels(r, y.data(), y.size()), Cancelled);
}

// The trainer infers an objective not given by the same rule as the label
// decision: the model's objective is the one decide_labels reports.
TEST(DecideLabels, TrainerInfersTheSameObjective) {
  for (Task task : {Task::kBinary, Task::kMulticlass, Task::kRegression}) {
    Data D = make_data(300, 3, task);
    TrainParams p = params_for(task, 2);
    p.objective_set = false;
    p.objective = Objective::kSquaredError;
    std::vector<float> y = D.y;
    const LabelPlan lp = decide_labels(numeric("label"), y.data(), y.size());
    ASSERT_TRUE(lp.ok()) << lp.message;
    EXPECT_EQ(train(D, p).objective, lp.objective);
    EXPECT_EQ(lp.objective, task == Task::kBinary ? Objective::kLogistic : Objective::kSquaredError);
  }
}
