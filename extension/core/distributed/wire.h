// The bytes of the messages between a distributed training's coordinator
// and its shards: fixed-width little-endian numbers and arrays, appended by
// ByteWriter and read back by ByteReader.  Every read is bounds-checked: a
// message can come from any role that calls the shard function, so a short
// or malformed one is an InvalidInput error, never a read past its end.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "../common/common.h"

namespace gbdt {

static_assert(sizeof(float) == 4 && sizeof(double) == 8, "IEEE floats on the wire");

class ByteWriter {
 public:
  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    const size_t o = out_.size();
    out_.resize(o + sizeof(T));
    std::memcpy(&out_[o], &v, sizeof(T));
  }
  template <typename T>
  void put_array(const T* v, size_t n) {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    put<uint64_t>(n);
    put_raw(v, n * sizeof(T));
  }
  template <typename T>
  void put_vector(const std::vector<T>& v) {
    put_array(v.data(), v.size());
  }
  void put_string(const std::string& s) { put_array(s.data(), s.size()); }
  void put_raw(const void* p, size_t bytes) {
    if (bytes == 0) return;
    const size_t o = out_.size();
    out_.resize(o + bytes);
    std::memcpy(&out_[o], p, bytes);
  }
  std::string take() { return std::move(out_); }
  size_t size() const { return out_.size(); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  ByteReader(const std::string& bytes, const char* what) : p_(bytes.data()), n_(bytes.size()), what_(what) {}

  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_ + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  // An array of at most max_count entries (its count is read first).
  template <typename T>
  std::vector<T> get_vector(size_t max_count) {
    const uint64_t n = get<uint64_t>();
    if (n > max_count || n > (n_ - at_) / sizeof(T)) fail("an array longer than the message allows");
    std::vector<T> v((size_t)n);
    if (n) std::memcpy(v.data(), p_ + at_, (size_t)n * sizeof(T));
    at_ += (size_t)n * sizeof(T);
    return v;
  }
  std::string get_string(size_t max_bytes) {
    std::vector<char> v = get_vector<char>(max_bytes);
    return std::string(v.begin(), v.end());
  }
  // `bytes` raw bytes, borrowed from the message.
  const char* get_raw(size_t bytes) {
    need(bytes);
    const char* p = p_ + at_;
    at_ += bytes;
    return p;
  }
  size_t left() const { return n_ - at_; }
  // The whole message was read.
  void done() const {
    if (at_ != n_) fail("bytes after its end");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw InvalidInput(std::string("malformed gbdt shard message (") + what_ + "): " + why);
  }

 private:
  void need(size_t bytes) const {
    if (bytes > n_ - at_) fail("it ends too early");
  }
  const char* p_;
  size_t n_;
  size_t at_ = 0;
  const char* what_;
};

}  // namespace gbdt
