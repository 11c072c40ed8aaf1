// UTF-8 validation of the strings a model carries (feature names, params,
// metric name): they reach text and jsonb results and dumps, which
// PostgreSQL requires to be valid in the database encoding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace gbdt {

// True when s[0..n) is well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) and holds no NUL byte.
inline bool valid_utf8(const char* s, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    if (c == 0) return false;
    if (c < 0x80) { ++i; continue; }
    int len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return false;  // continuation byte first, C0/C1 overlong, F5..FF
    if (n - i < (size_t)len) return false;
    for (int k = 1; k < len; ++k) {
      const unsigned cc = p[i + k];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += (size_t)len;
  }
  return true;
}

inline bool valid_utf8(const std::string& s) { return valid_utf8(s.data(), s.size()); }

// s with every byte outside printable ASCII written as \xNN, for error
// messages that must themselves stay valid UTF-8; at most 64 bytes shown.
inline std::string printable(const std::string& s) {
  static const char* hex = "0123456789abcdef";
  std::string o;
  for (size_t i = 0; i < s.size() && i < 64; ++i) {
    const unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      o += (char)c;
    } else {
      o += "\\x";
      o += hex[c >> 4];
      o += hex[c & 15];
    }
  }
  if (s.size() > 64) o += "...";
  return o;
}

}  // namespace gbdt
