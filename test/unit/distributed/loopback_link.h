// Shards in one process for tests and the benchmark: each shard is a
// ShardWorker over a slice of a test data set's rows, behind a ShardLink
// that hands every request's bytes to the workers one after another (the
// same encoded messages the PostgreSQL transport carries).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gbdt/distributed.h"
#include "test_util.h"

namespace gbdt_test {

// One batch over a slice [b, e) of a data set's rows (and weights).
class SliceSource final : public gbdt::RowBatchSource {
 public:
  SliceSource(const Data& D, size_t b, size_t e, const std::vector<float>* w) : D_(D), b_(b), e_(e), w_(w) {}
  double estimated_rows() const override { return (double)(e_ - b_); }
  void reset() override { done_ = false; }
  bool can_rescan() const override { return true; }
  bool next(gbdt::RowBatch* out) override {
    if (done_) return false;
    done_ = true;
    out->n_rows = e_ - b_;
    out->columns.clear();
    for (int f = 0; f < D_.d; ++f) out->columns.push_back(D_.cols[f].data() + b_);
    out->labels = D_.y.data() + b_;
    out->roles.clear();
    if (w_) out->roles.push_back(w_->data() + b_);
    return true;
  }

 private:
  const Data& D_;
  size_t b_, e_;
  const std::vector<float>* w_;
  bool done_ = false;
};

// Shards over consecutive row ranges of D.
class LoopbackLink final : public gbdt::ShardLink {
 public:
  LoopbackLink(const Data& D, std::vector<size_t> bounds, const std::vector<float>* w)
      : D_(D), bounds_(std::move(bounds)), w_(w), workers_(bounds_.size() - 1) {}
  size_t shard_count() const override { return workers_.size(); }
  std::string shard_name(size_t i) const override { return "shard" + std::to_string(i); }
  std::vector<std::string> call_all(const std::string& name, const std::vector<std::string>& payloads) override {
    std::vector<std::string> out;
    for (size_t i = 0; i < workers_.size(); ++i) {
      if (name == "open") {
        const gbdt::ShardOpenRequest r = gbdt::decode_open_request(payloads[i]);
        SliceSource src(D_, bounds_[i], bounds_[i + 1], w_);
        workers_[i] = gbdt::open_shard_worker(src, r, gbdt::CancelFn());
        out.push_back(workers_[i]->describe());
      } else if (name == "close") {
        workers_[i].reset();
        out.push_back(std::string());
      } else {
        if (name == "split" || name == "root") ++hist_requests;
        out.push_back(workers_[i]->step(name, payloads[i], gbdt::CancelFn()));
      }
    }
    return out;
  }
  size_t hist_requests = 0;

 private:
  const Data& D_;
  std::vector<size_t> bounds_;
  const std::vector<float>* w_;
  std::vector<std::unique_ptr<gbdt::ShardWorker>> workers_;
};

// Trains on the rows of D split at `bounds` (shard i: rows [bounds[i],
// bounds[i + 1])), as the coordinator trains on foreign partitions.
inline gbdt::Model train_shards(const Data& D, const gbdt::TrainParams& p, std::vector<size_t> bounds,
                         const std::vector<float>* w, gbdt::ShardTraffic* traffic = nullptr) {
  LoopbackLink link(D, std::move(bounds), w);
  gbdt::DistributedTrainSpec spec;
  for (size_t i = 0; i < link.shard_count(); ++i) {
    gbdt::ShardOpenRequest r;
    r.relation = "public.part" + std::to_string(i);
    r.target = "label";
    r.features = D.names;
    if (w) r.weight = "w";
    r.nthread = p.nthread;
    spec.requests.push_back(r);
  }
  spec.feature_names = D.names;
  spec.feature_types.assign((size_t)D.d, gbdt::FeatureType::kFloat);
  spec.target_name = "label";
  gbdt::TrainHooks hooks;
  hooks.default_device = "cpu";
  return gbdt::train_distributed(link, spec, p, hooks, traffic);
}

}  // namespace gbdt_test
