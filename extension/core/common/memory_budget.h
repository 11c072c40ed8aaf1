// A training's memory limit, charged by the engine as it allocates its large
// buffers (data, gradients, margins, row indices, histograms as the trees
// grow, split candidates per level, the model).  Exceeding it throws
// MemoryLimitExceeded (a ResourceError) before the allocation is made, with
// what needed the memory and which parameter to lower.  Charged on the
// calling thread only (not thread-safe).
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>

#include "common.h"

namespace gbdt {

class MemoryLimitExceeded : public ResourceError {
 public:
  using ResourceError::ResourceError;
};

// "12 MB" style text.
inline std::string format_bytes(double b) {
  char s[64];
  if (b < 10.0 * 1024) snprintf(s, sizeof s, "%.0f bytes", b);
  else if (b < 10.0 * 1024 * 1024) snprintf(s, sizeof s, "%.0f kB", b / 1024);
  else if (b < 10.0 * 1024 * 1024 * 1024) snprintf(s, sizeof s, "%.0f MB", b / (1024.0 * 1024));
  else snprintf(s, sizeof s, "%.1f GB", b / (1024.0 * 1024 * 1024));
  return s;
}

class MemoryBudget {
 public:
  // limit 0 = unlimited; limit_name names the setting in messages, activity
  // what is charged ("gbdt training", "gbdt_import").
  MemoryBudget(double limit, std::string limit_name, std::string activity = "gbdt training")
      : limit_(limit), name_(std::move(limit_name)), activity_(std::move(activity)) {}

  // Whether `bytes` more fit (then they are counted).
  bool try_charge(double bytes) {
    if (limit_ > 0 && used_ + bytes > limit_) return false;
    used_ += bytes;
    if (used_ > peak_) peak_ = used_;
    return true;
  }
  // Counts `bytes` or throws: "<what> brings it to <total>; <hint>".
  void charge(double bytes, const std::string& what, const std::string& hint) {
    if (try_charge(bytes)) return;
    throw MemoryLimitExceeded(activity_ + " needs more memory than " + name_ + " = " +
                              format_bytes(limit_) + ": " + what + " (" + format_bytes(bytes) +
                              ") brings it to " + format_bytes(used_ + bytes) + "; " + hint);
  }
  void release(double bytes) { used_ = used_ > bytes ? used_ - bytes : 0; }
  double used() const { return used_; }
  double peak() const { return peak_; }
  double limit() const { return limit_; }

 private:
  double limit_;
  std::string name_;
  std::string activity_;
  double used_ = 0, peak_ = 0;
};

// Counts bytes for the lifetime of the object (null budget: nothing).
class BudgetCharge {
 public:
  BudgetCharge() = default;
  BudgetCharge(MemoryBudget* b, double bytes, const std::string& what, const std::string& hint) {
    if (b) {
      b->charge(bytes, what, hint);
      b_ = b;
      n_ = bytes;
    }
  }
  BudgetCharge(const BudgetCharge&) = delete;
  BudgetCharge& operator=(const BudgetCharge&) = delete;
  ~BudgetCharge() {
    if (b_) b_->release(n_);
  }

 private:
  MemoryBudget* b_ = nullptr;
  double n_ = 0;
};

}  // namespace gbdt
