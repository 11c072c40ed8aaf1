// A small, self-contained JSON reader (RFC 8259, plus the NaN/Infinity
// tokens some writers emit).  Compact storage: one 24-byte node per value,
// children stored contiguously, so multi-million-number model files parse
// without a per-value heap allocation.  Number nodes keep their source text
// so callers can convert them to float (strtof) without double rounding.
//
// Strings must be valid UTF-8 (RFC 8259) without NUL.
// Errors (syntax, nesting deeper than kMaxDepth, trailing text) throw
// gbdt::InvalidInput with the byte offset.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common.h"
#include "interruptible.h"

namespace gbdt {

enum class JsonType : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };

class JsonDoc;

// A read-only reference to one value of a JsonDoc (the doc must outlive it).
class JsonRef {
 public:
  JsonRef() = default;
  JsonRef(const JsonDoc* d, uint32_t i) : doc_(d), idx_(i) {}

  bool valid() const { return doc_ != nullptr; }
  JsonType type() const;
  bool is_null() const { return type() == JsonType::kNull; }
  bool is_number() const { return type() == JsonType::kNumber; }
  bool is_string() const { return type() == JsonType::kString; }
  bool is_array() const { return type() == JsonType::kArray; }
  bool is_object() const { return type() == JsonType::kObject; }
  bool is_bool() const { return type() == JsonType::kBool; }

  // Arrays and objects: number of elements / members.
  size_t size() const;
  // Array element i (objects: the value of member i).
  JsonRef at(size_t i) const;
  // Object member i's key.
  const std::string& key(size_t i) const;
  // Object member by key; an invalid JsonRef when absent (or not an object).
  JsonRef get(const std::string& key) const;

  double number() const;              // kNumber (NaN/inf tokens included)
  float number_f() const;             // correctly rounded float of the source text
  bool boolean() const;
  const std::string& str() const;     // kString
  std::string number_text() const;    // kNumber: the source text

 private:
  const JsonDoc* doc_ = nullptr;
  uint32_t idx_ = 0;
};

class JsonDoc {
 public:
  static constexpr int kMaxDepth = 256;
  // Parses text (copied); throws InvalidInput on malformed JSON.  cancel
  // is polled through a CancelPoller, one unit per value (throws Cancelled).
  explicit JsonDoc(std::string text, const CancelFn& cancel = CancelFn());
  JsonRef root() const { return JsonRef(this, 0); }

 private:
  friend class JsonRef;
  struct Node {
    JsonType type;
    uint8_t flag;     // bool value
    uint32_t a;       // number: source offset; string: index in strings_; container: first kid
    uint32_t b;       // number: source length; container: count
    double num;
  };
  std::string src_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> kids_;       // child node ids, contiguous per container
  std::vector<uint32_t> keys_;       // objects: parallel to kids_ (string index), else unused
  std::vector<std::string> strings_;

  size_t pos_ = 0;
  CancelPoller* poll_ = nullptr;  // while parsing
  [[noreturn]] void fail(const std::string& what) const;
  void skip_ws();
  uint32_t parse_value(int depth);
  std::string parse_string_raw();
  uint32_t add_node(JsonType t);
};

}  // namespace gbdt
