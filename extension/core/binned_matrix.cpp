#include "binned_matrix.h"

#include "thread_pool.h"

namespace gbdt {

BinnedMatrix bin_matrix(const ColumnInput& in, const Cuts& cuts, int nthread,
                        const std::vector<uint32_t>* rows) {
  BinnedMatrix m;
  m.n_rows = rows ? rows->size() : in.n_rows;
  m.n_features = (int)in.columns.size();
  m.bins.resize(m.n_rows * (size_t)m.n_features);
  const int d = m.n_features;
  ThreadPool pool(nthread);
  const size_t block = 4096;
  size_t nblocks = (m.n_rows + block - 1) / block;
  pool.run(nblocks, [&](size_t b, int) {
    size_t begin = b * block, end = std::min(m.n_rows, begin + block);
    for (int f = 0; f < d; ++f) {
      const float* col = in.columns[f];
      uint8_t* out = m.bins.data() + f;
      for (size_t i = begin; i < end; ++i) {
        size_t r = rows ? (*rows)[i] : i;
        out[i * d] = cuts.bin_of(f, col[r]);
      }
    }
  });
  return m;
}

}  // namespace gbdt
