// libFuzzer target: the requests of a distributed training as a shard
// receives them (any role can call the shard function with any bytes), and
// the replies as the coordinator decodes them.  Input: a first byte
// choosing the side, then messages of (step byte, 2-byte length, payload).
//  - shard side: a worker over 64 fixed rows, brought to an open tree by
//    well-formed requests, then every fuzzed request; each must be answered
//    or refused with InvalidInput, never crash, hang or grow memory;
//  - coordinator side: every decoder of a reply on the fuzzed payloads.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/common.h"
#include "data/quantile.h"
#include "distributed/shard_protocol.h"
#include "gbdt/distributed.h"

namespace {

constexpr int kFeatures = 3;
constexpr size_t kRows = 64;

class FixedRows final : public gbdt::RowBatchSource {
 public:
  FixedRows() {
    cols_.assign(kFeatures, std::vector<float>(kRows));
    y_.resize(kRows);
    for (size_t r = 0; r < kRows; ++r) {
      for (int f = 0; f < kFeatures; ++f) cols_[f][r] = (r * 7 + f * 13) % 11 == 0 ? NAN : (float)((r * (f + 3)) % 17);
      y_[r] = (float)(r % 2);
    }
  }
  double estimated_rows() const override { return kRows; }
  void reset() override { done_ = false; }
  bool can_rescan() const override { return true; }
  bool next(gbdt::RowBatch* b) override {
    if (done_) return false;
    done_ = true;
    b->n_rows = kRows;
    b->columns.clear();
    for (int f = 0; f < kFeatures; ++f) b->columns.push_back(cols_[f].data());
    b->labels = y_.data();
    b->roles.clear();
    return true;
  }
  gbdt::ColumnInput input() const {
    gbdt::ColumnInput in;
    in.n_rows = kRows;
    for (int f = 0; f < kFeatures; ++f) in.columns.push_back(cols_[f].data());
    return in;
  }

 private:
  std::vector<std::vector<float>> cols_;
  std::vector<float> y_;
  bool done_ = false;
};

const char* const kSteps[] = {"labels", "sample", "bin", "setup", "grad", "quantize",
                              "root", "split", "finish", "margins", "bin_counts", "nope"};

// The worker at an open tree of round 0 (so the fuzzed requests reach the
// tree steps, not only the order checks).
std::unique_ptr<gbdt::ShardWorker> worker_at_root(const FixedRows& rows_proto) {
  FixedRows src = rows_proto;
  gbdt::ShardOpenRequest r;
  r.relation = "t";
  r.target = "y";
  r.features = {"a", "b", "c"};
  r.nthread = 1;
  auto w = gbdt::open_shard_worker(src, r, gbdt::CancelFn(), 0, 64e6);
  const gbdt::CancelFn none;
  gbdt::BinRequest b;
  b.cuts = gbdt::compute_cuts(src.input(), 16, 1);
  b.validation_fraction = 0.2;
  w->step("bin", gbdt::encode(b), none);
  gbdt::SetupRequest s;
  s.objective = (int32_t)gbdt::Objective::kLogistic;
  s.base_margins = {0.0f};
  s.max_depth = 3;
  s.subsample = 0.8;
  w->step("setup", gbdt::encode(s), none);
  gbdt::QuantizeRequest q;
  q.maxima = gbdt::decode_grad_maxima(w->step("grad", gbdt::encode_u64(0), none));
  q.n_total = kRows;
  w->step("quantize", gbdt::encode(q), none);
  w->step("root", gbdt::encode_u64(0), none);
  return w;
}

void decode_all(const std::string& p) {
  gbdt::Cuts cuts;
  cuts.ptr = {0, 2, 4, 6};
  cuts.values = {1.f, 2.f, 1.f, 2.f, 1.f, 2.f};
  cuts.min_values = {0.f, 0.f, 0.f};
  std::vector<gbdt::GradSum> acc(4 * 9);
  std::vector<uint64_t> n_left;
  auto quiet = [](auto fn) {
    try {
      fn();
    } catch (const gbdt::InvalidInput&) {
    }
  };
  quiet([&] { gbdt::decode_describe(p); });
  quiet([&] { gbdt::decode_labels(p); });
  quiet([&] { gbdt::decode_sample(p); });
  quiet([&] { gbdt::decode_validation_bins(p); });
  quiet([&] { gbdt::decode_grad_maxima(p); });
  quiet([&] { gbdt::decode_root_sums(p); });
  quiet([&] { gbdt::add_histograms(p, 9, 4, 4, acc.data(), &n_left); });
  quiet([&] { gbdt::decode_finish_request(p, cuts); });
  quiet([&] { gbdt::decode_open_request(p); });
  quiet([&] { gbdt::decode_bin_request(p); });
  quiet([&] { gbdt::decode_setup_request(p); });
  quiet([&] { gbdt::decode_split_request(p); });
  quiet([&] { gbdt::decode_quantize_request(p); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const FixedRows rows;
  const bool shard_side = data[0] & 1;
  std::unique_ptr<gbdt::ShardWorker> w;
  if (shard_side) w = worker_at_root(rows);
  size_t at = 1;
  for (int msgs = 0; msgs < 64 && at + 3 <= size; ++msgs) {
    const uint8_t step = data[at];
    const size_t len = (size_t)data[at + 1] | ((size_t)data[at + 2] << 8);
    at += 3;
    const size_t take = len < size - at ? len : size - at;
    const std::string payload(reinterpret_cast<const char*>(data + at), take);
    at += take;
    if (!shard_side) {
      decode_all(payload);
      continue;
    }
    try {
      w->step(kSteps[step % (sizeof kSteps / sizeof kSteps[0])], payload, gbdt::CancelFn());
    } catch (const gbdt::InvalidInput&) {
    }
  }
  return 0;
}
