// lane_compress.h: the table, built once.
#include "lane_compress.h"

namespace gbdt {

namespace {

LaneCompressTable build() {
  LaneCompressTable t{};  // lanes not filled below stay 0
  for (unsigned m = 0; m < 256; ++m) {
    unsigned nl = 0, nr = 0;
    for (unsigned j = 0; j < 8; ++j) {
      if (m & (1u << j))
        t.left[m][nl++] = j;
      else
        t.right[m][7 - nr++] = j;
    }
  }
  return t;
}

}  // namespace

const LaneCompressTable& lane_compress_table() {
  static const LaneCompressTable t = build();
  return t;
}

}  // namespace gbdt
