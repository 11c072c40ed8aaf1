// Rows handed over as raw bytes: copies of the data area of
// PostgreSQL-style tuples, decoded to floats by whichever thread takes them
// (batch scoring, predict.h; the training loader's raw pass,
// relation_reader.h), exactly as the backend's own conversion does
// (value -> double -> float; bool -> 0/1; a missing value -> NaN).
#pragma once
#include <cstddef>
#include <cstdint>

namespace gbdt {

// Storage of one raw feature value.
enum class RawKind : uint8_t { kFloat8 = 0, kFloat4, kInt2, kInt4, kInt8, kBool };

struct RawColumn {
  uint32_t offset;  // byte offset within a raw row
  RawKind kind;
};

// Rows given as raw bytes, a copy of the data area of a PostgreSQL-style
// tuple: row i is the `stride` bytes at data + i * stride, its values
// starting at data_offset.  pending[i]:
//   0: the row is already in x;
//   1: no missing values: feature f is at byte cols[f].offset (from data_offset);
//   2: some values missing: the row's first bytes are a presence bitmap
//      (bit a set = attribute a stored), attributes 0 .. natts-1 are laid
//      out one after another, each stored one aligned to att_align[a] bytes
//      (relative to data_offset) and att_len[a] bytes long; attribute a is
//      feature att_feature[a] (-1: not a feature); a missing feature is NaN.
struct RawRows {
  const uint8_t* data = nullptr;
  size_t stride = 0;
  size_t data_offset = 0;
  const RawColumn* cols = nullptr;   // n_features entries
  const uint8_t* pending = nullptr;  // per row
  int natts = 0;
  const int16_t* att_len = nullptr;
  const uint8_t* att_align = nullptr;
  const int32_t* att_feature = nullptr;
};

// One raw value as float, converted as the caller's own path does.
inline float raw_value(const uint8_t* p, RawKind k) {
  switch (k) {
    case RawKind::kFloat8: { double v; __builtin_memcpy(&v, p, 8); return (float)v; }
    case RawKind::kFloat4: { float v; __builtin_memcpy(&v, p, 4); return (float)(double)v; }
    case RawKind::kInt2: { int16_t v; __builtin_memcpy(&v, p, 2); return (float)(double)v; }
    case RawKind::kInt4: { int32_t v; __builtin_memcpy(&v, p, 4); return (float)(double)v; }
    case RawKind::kInt8: { int64_t v; __builtin_memcpy(&v, p, 8); return (float)(double)v; }
    case RawKind::kBool: return *p != 0 ? 1.0f : 0.0f;
  }
  return __builtin_nanf("");
}

// What decode_raw_rows may assume about a RawRows layout (raw_shape).
struct RawShape {
  bool all_f8 = false;     // every column is a float8
  bool uniform8 = false;   // and every attribute 0 .. natts-1 is 8 bytes, 8-aligned
  int contig_first = -1;   // uniform8, and column f is attribute contig_first + f
                           // (the attributes before and after them not columns)
};
RawShape raw_shape(const RawRows& raw, int d);

// Which decoder of consecutive float8 features (RawShape::contig_first)
// decode_raw_rows may use: the widest the CPU has (AVX-512, else AVX2),
// AVX2 where the CPU has it, or the scalar loop (tests pick each).
enum class RawDecode : uint8_t { kBest, kAvx2, kScalar };

// Rows [begin, end) of raw with pending[i] != 0 into x (row-major, d floats
// per row; rows with pending 0 are left as they are).  Every decoder gives
// the same floats.
void decode_raw_rows(const RawRows& raw, const RawShape& sh, int d, size_t begin, size_t end,
                     float* x, RawDecode isa = RawDecode::kBest);

// One row of consecutive float8 features (attribute first + f is feature
// f, every attribute before them 8 bytes) straight from a tuple's bytes,
// as decode_raw_rows decodes a copy of it: bm its presence bitmap (nullptr
// when no value is missing), data where its data starts, end where its
// bytes end (nothing at or past end is read).
void decode_contig_f8_row(const uint8_t* bm, const uint8_t* data, const uint8_t* end, int first,
                          int d, float* x, RawDecode isa = RawDecode::kBest);

}  // namespace gbdt
