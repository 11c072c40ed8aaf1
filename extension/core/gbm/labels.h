// The label decision of a training: which objective the target's labels
// get when none is given, whether they fit the objective, and the classes
// a classification trains on.  The one home of these rules for the glue
// (gbdt_train) and the trainer:
//  - a text (or enum) target is a class label: two classes train
//    binary:logistic, more multi:softprob; a regression objective is refused;
//  - a boolean target trains binary:logistic (classes false, true);
//  - numeric labels that are only 0 and 1 train binary:logistic, any other
//    numeric labels reg:squarederror;
//  - a classification objective on numeric labels trains on the distinct
//    values as classes 0 .. K-1 (ascending), with the num_class checks;
//  - a continued training keeps the init model's objective and classes.
// Errors are returned (LabelPlan::fault), not thrown, so that the caller
// reports each with its own error code and hint.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../common/common.h"
#include "../objective/objective.h"

namespace gbdt {

// How the target column is read.
enum class TargetType : uint8_t { kNumeric, kBool, kText };

struct LabelRequest {
  std::string target;             // the column's name, for the messages
  TargetType type = TargetType::kNumeric;
  std::string type_name;          // a text target's SQL type, for the messages
  bool objective_given = false;   // by the objective argument or parameter
  Objective objective = Objective::kSquaredError;  // as the parameters set it
  int num_class = 0;              // the parameter (0: not given)
  // Continued training (init_model) and the init model's objective.
  bool continued = false;
  Objective init_objective = Objective::kSquaredError;
  // A text target's classes in class order (as the caller reads them).
  std::vector<std::string> class_names;
  // A numeric target continuing a model trained on numeric class values:
  // those values, in class order (the caller has mapped the labels to
  // their class indices); empty otherwise.
  std::vector<double> init_class_values;
  CancelFn cancel;                // polled over the labels
};

enum class LabelFault : uint8_t {
  kNone,
  kInvalidValue,    // the labels do not fit the objective or num_class
  kTypeMismatch,    // a text target with a regression objective
  kTooManyClasses,  // more distinct values than classes are allowed
};

struct LabelPlan {
  Objective objective = Objective::kSquaredError;
  // The objective is decided here for a target the trainer cannot infer it
  // from (text, bool): the caller passes it on as given.  Numeric labels
  // leave an objective not given to the trainer (infer_objective), which
  // applies the same rule after its ranking and init-model checks.
  bool objective_decided = false;
  // Output groups the classes need (text targets of a multiclass
  // objective), 0 when the parameters tell.
  int num_class = 0;
  // Why the objective is what it is, for the training's NOTICE.
  std::string reason;
  // Numeric class values (class order) when the labels were mapped to
  // their class indices (remapped), stored as the model's class labels.
  bool remapped = false;
  std::vector<double> class_values;
  // A boolean target's class names ("false", "true") for a classification.
  std::vector<std::string> class_names;
  LabelFault fault = LabelFault::kNone;
  std::string message, hint;
  bool ok() const { return fault == LabelFault::kNone; }
};

// Whether the objective fits the target's type; checked before a text
// target's classes are read.  Only `fault`, `message` and `hint` are set.
LabelPlan check_label_type(const LabelRequest& req);

// The decision for the target's labels.  A text target is decided on its
// classes (labels unused: they are read as class indices afterwards); a
// numeric or boolean one on its `n` labels, which a classification maps in
// place to class indices (LabelPlan::remapped).
LabelPlan decide_labels(const LabelRequest& req, float* labels, size_t n);

// The objective of labels when none is given: binary:logistic for labels
// that are all 0 or 1 (at least one row), else reg:squarederror.
Objective infer_objective(const float* y, size_t n, const CancelFn& cancel = CancelFn());

// The distinct values of numeric labels (at most kMaxClasses + 1 kept).
struct LabelSummary {
  size_t distinct = 0;  // capped at kMaxClasses + 1
  bool capped = false;
  bool all_integer = true;
  double min = 0, max = 0;
  std::vector<double> values;  // ascending, `distinct` of them
};
LabelSummary summarize_labels(const float* y, size_t n, const CancelFn& cancel = CancelFn());

// "0, 1, 2" (the first `max` values, then ", ...").
std::string format_label_values(const LabelSummary& s, int max);

}  // namespace gbdt
