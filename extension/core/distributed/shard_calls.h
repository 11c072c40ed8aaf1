// The coordinator's requests to every shard of a ShardLink: the bytes
// received counted (ShardTraffic), and a shard's failure reported with the
// step of the training it broke (the request and the round).
#pragma once
#include <string>
#include <vector>

#include "../include/gbdt/distributed.h"

namespace gbdt {

class ShardCalls {
 public:
  ShardCalls(ShardLink& link, ShardTraffic* traffic) : link_(link), traffic_(traffic) {}
  size_t shards() const { return link_.shard_count(); }
  // payloads[i] to shard i; the replies in shard order.
  std::vector<std::string> all(const std::string& name, const std::vector<std::string>& payloads);
  // The same payload to every shard.
  std::vector<std::string> all_same(const std::string& name, const std::string& payload) {
    return all(name, std::vector<std::string>(shards(), payload));
  }
  // The boosting round the next requests belong to (-1: before the rounds).
  void set_round(int round) { round_ = round; }

 private:
  ShardLink& link_;
  ShardTraffic* traffic_;
  int round_ = -1;
};

}  // namespace gbdt
