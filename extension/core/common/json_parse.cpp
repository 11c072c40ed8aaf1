#include "json_parse.h"

#include "utf8.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace gbdt {

namespace {
const std::string kEmpty;
}

// ---- JsonRef ----

JsonType JsonRef::type() const { return doc_ ? doc_->nodes_[idx_].type : JsonType::kNull; }

size_t JsonRef::size() const {
  if (!doc_) return 0;
  const auto& n = doc_->nodes_[idx_];
  return (n.type == JsonType::kArray || n.type == JsonType::kObject) ? n.b : 0;
}

JsonRef JsonRef::at(size_t i) const {
  const auto& n = doc_->nodes_[idx_];
  if ((n.type != JsonType::kArray && n.type != JsonType::kObject) || i >= n.b)
    throw InvalidInput("JSON index out of range");
  return JsonRef(doc_, doc_->kids_[n.a + i]);
}

const std::string& JsonRef::key(size_t i) const {
  const auto& n = doc_->nodes_[idx_];
  if (n.type != JsonType::kObject || i >= n.b) throw InvalidInput("JSON index out of range");
  return doc_->strings_[doc_->keys_[n.a + i]];
}

JsonRef JsonRef::get(const std::string& k) const {
  if (!doc_) return JsonRef();
  const auto& n = doc_->nodes_[idx_];
  if (n.type != JsonType::kObject) return JsonRef();
  // Last occurrence wins (as in most JSON readers).
  for (size_t i = n.b; i-- > 0;)
    if (doc_->strings_[doc_->keys_[n.a + i]] == k) return JsonRef(doc_, doc_->kids_[n.a + i]);
  return JsonRef();
}

double JsonRef::number() const {
  if (!doc_ || doc_->nodes_[idx_].type != JsonType::kNumber) throw InvalidInput("JSON value is not a number");
  return doc_->nodes_[idx_].num;
}

float JsonRef::number_f() const {
  if (!doc_ || doc_->nodes_[idx_].type != JsonType::kNumber) throw InvalidInput("JSON value is not a number");
  const auto& n = doc_->nodes_[idx_];
  double d = n.num;
  if (!std::isfinite(d)) return (float)d;
  std::string t(doc_->src_, n.a, n.b);
  return std::strtof(t.c_str(), nullptr);
}

bool JsonRef::boolean() const {
  if (!doc_ || doc_->nodes_[idx_].type != JsonType::kBool) throw InvalidInput("JSON value is not a boolean");
  return doc_->nodes_[idx_].flag != 0;
}

const std::string& JsonRef::str() const {
  if (!doc_ || doc_->nodes_[idx_].type != JsonType::kString) throw InvalidInput("JSON value is not a string");
  return doc_->strings_[doc_->nodes_[idx_].a];
}

std::string JsonRef::number_text() const {
  if (!doc_ || doc_->nodes_[idx_].type != JsonType::kNumber) return kEmpty;
  const auto& n = doc_->nodes_[idx_];
  return std::string(doc_->src_, n.a, n.b);
}

// ---- parser ----

JsonDoc::JsonDoc(std::string text, const CancelFn& cancel) : src_(std::move(text)) {
  if (src_.size() >= 0xFFFFFFF0u) throw InvalidInput("JSON text too large");
  CancelPoller poll(cancel);
  poll_ = &poll;
  nodes_.reserve(src_.size() / 8 + 16);
  skip_ws();
  uint32_t r = parse_value(0);
  (void)r;  // root is node 0
  poll_ = nullptr;
  skip_ws();
  if (pos_ != src_.size()) fail("unexpected text after the JSON value");
}

void JsonDoc::fail(const std::string& what) const {
  throw InvalidInput("invalid JSON at offset " + std::to_string(pos_) + ": " + what);
}

void JsonDoc::skip_ws() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') ++pos_;
    else break;
  }
}

uint32_t JsonDoc::add_node(JsonType t) {
  if (poll_ != nullptr) poll_->tick();
  if (nodes_.size() >= 0xFFFFFFF0u) fail("too many values");
  nodes_.push_back(Node{t, 0, 0, 0, 0.0});
  return (uint32_t)nodes_.size() - 1;
}

namespace {
void put_utf8(std::string& o, uint32_t cp) {
  if (cp < 0x80) {
    o += (char)cp;
  } else if (cp < 0x800) {
    o += (char)(0xC0 | (cp >> 6));
    o += (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    o += (char)(0xE0 | (cp >> 12));
    o += (char)(0x80 | ((cp >> 6) & 0x3F));
    o += (char)(0x80 | (cp & 0x3F));
  } else {
    o += (char)(0xF0 | (cp >> 18));
    o += (char)(0x80 | ((cp >> 12) & 0x3F));
    o += (char)(0x80 | ((cp >> 6) & 0x3F));
    o += (char)(0x80 | (cp & 0x3F));
  }
}
int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string JsonDoc::parse_string_raw() {
  // at '"'
  ++pos_;
  std::string o;
  for (;;) {
    if (pos_ >= src_.size()) fail("unterminated string");
    char c = src_[pos_++];
    if (c == '"') {
      if (!valid_utf8(o)) fail("string is not valid UTF-8");
      return o;
    }
    if ((unsigned char)c < 0x20) fail("control character in string");
    if (c != '\\') {
      o += c;
      continue;
    }
    if (pos_ >= src_.size()) fail("unterminated string");
    char e = src_[pos_++];
    switch (e) {
      case '"': o += '"'; break;
      case '\\': o += '\\'; break;
      case '/': o += '/'; break;
      case 'b': o += '\b'; break;
      case 'f': o += '\f'; break;
      case 'n': o += '\n'; break;
      case 'r': o += '\r'; break;
      case 't': o += '\t'; break;
      case 'u': {
        auto hex4 = [&]() -> uint32_t {
          if (pos_ + 4 > src_.size()) fail("bad \\u escape");
          uint32_t v = 0;
          for (int i = 0; i < 4; ++i) {
            int h = hexval(src_[pos_ + i]);
            if (h < 0) fail("bad \\u escape");
            v = v * 16 + (uint32_t)h;
          }
          pos_ += 4;
          return v;
        };
        uint32_t cp = hex4();
        if (cp >= 0xD800 && cp < 0xDC00) {
          if (pos_ + 2 <= src_.size() && src_[pos_] == '\\' && src_[pos_ + 1] == 'u') {
            pos_ += 2;
            uint32_t lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else {
            fail("lone surrogate in \\u escape");
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail("lone surrogate in \\u escape");
        }
        if (cp == 0) fail("\\u0000 is not supported");
        put_utf8(o, cp);
        break;
      }
      default:
        fail("bad escape in string");
    }
  }
}

uint32_t JsonDoc::parse_value(int depth) {
  if (depth > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
  if (pos_ >= src_.size()) fail("unexpected end of input");
  char c = src_[pos_];
  auto match = [&](const char* w) {
    size_t n = std::strlen(w);
    if (src_.compare(pos_, n, w) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  };
  if (c == '{' || c == '[') {
    const bool obj = c == '{';
    uint32_t id = add_node(obj ? JsonType::kObject : JsonType::kArray);
    ++pos_;
    std::vector<uint32_t> kids, keys;
    skip_ws();
    const char close = obj ? '}' : ']';
    if (pos_ < src_.size() && src_[pos_] == close) {
      ++pos_;
    } else {
      for (;;) {
        skip_ws();
        if (obj) {
          if (pos_ >= src_.size() || src_[pos_] != '"') fail("expected a member name");
          strings_.push_back(parse_string_raw());
          keys.push_back((uint32_t)strings_.size() - 1);
          skip_ws();
          if (pos_ >= src_.size() || src_[pos_] != ':') fail("expected ':'");
          ++pos_;
          skip_ws();
        }
        kids.push_back(parse_value(depth + 1));
        skip_ws();
        if (pos_ >= src_.size()) fail("unexpected end of input");
        if (src_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (src_[pos_] == close) {
          ++pos_;
          break;
        }
        fail(obj ? "expected ',' or '}'" : "expected ',' or ']'");
      }
    }
    nodes_[id].a = (uint32_t)kids_.size();
    nodes_[id].b = (uint32_t)kids.size();
    kids_.insert(kids_.end(), kids.begin(), kids.end());
    if (obj) {
      keys_.resize(nodes_[id].a);
      keys_.insert(keys_.end(), keys.begin(), keys.end());
    } else {
      keys_.resize(kids_.size(), 0);
    }
    return id;
  }
  if (c == '"') {
    uint32_t id = add_node(JsonType::kString);
    strings_.push_back(parse_string_raw());
    nodes_[id].a = (uint32_t)strings_.size() - 1;
    return id;
  }
  if (match("true") || match("false")) {
    uint32_t id = add_node(JsonType::kBool);
    nodes_[id].flag = src_[pos_ - 1] == 'e' && src_[pos_ - 2] == 'u';
    return id;
  }
  if (match("null")) return add_node(JsonType::kNull);
  // Numbers (and NaN / Infinity / -Infinity).
  size_t start = pos_;
  double v;
  if (match("NaN")) {
    v = NAN;
  } else if (match("Infinity")) {
    v = INFINITY;
  } else if (match("-Infinity")) {
    v = -INFINITY;
  } else {
    size_t p = pos_;
    if (p < src_.size() && src_[p] == '-') ++p;
    if (p >= src_.size() || !(src_[p] >= '0' && src_[p] <= '9')) fail("unexpected character");
    if (src_[p] == '0') {
      ++p;
    } else {
      while (p < src_.size() && src_[p] >= '0' && src_[p] <= '9') ++p;
    }
    if (p < src_.size() && src_[p] == '.') {
      ++p;
      if (p >= src_.size() || !(src_[p] >= '0' && src_[p] <= '9')) fail("bad number");
      while (p < src_.size() && src_[p] >= '0' && src_[p] <= '9') ++p;
    }
    if (p < src_.size() && (src_[p] == 'e' || src_[p] == 'E')) {
      ++p;
      if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p >= src_.size() || !(src_[p] >= '0' && src_[p] <= '9')) fail("bad number");
      while (p < src_.size() && src_[p] >= '0' && src_[p] <= '9') ++p;
    }
    std::string t(src_, start, p - start);
    v = std::strtod(t.c_str(), nullptr);
    pos_ = p;
  }
  uint32_t id = add_node(JsonType::kNumber);
  nodes_[id].a = (uint32_t)start;
  nodes_[id].b = (uint32_t)(pos_ - start);
  nodes_[id].num = v;
  return id;
}

}  // namespace gbdt
