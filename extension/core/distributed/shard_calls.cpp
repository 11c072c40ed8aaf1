#include "shard_calls.h"

namespace gbdt {

std::vector<std::string> ShardCalls::all(const std::string& name, const std::vector<std::string>& payloads) {
  std::vector<std::string> replies;
  try {
    replies = link_.call_all(name, payloads);
  } catch (const ShardError& e) {
    const std::string when = round_ >= 0 ? "in round " + std::to_string(round_ + 1) : "while loading the rows";
    throw ShardError(std::string(e.what()) + " (training across servers, " + when + ", request \"" + name + "\")");
  }
  if (replies.size() != payloads.size())
    throw ShardError("the shard link answered " + std::to_string(replies.size()) + " of " +
                     std::to_string(payloads.size()) + " shards");
  if (traffic_) {
    ++traffic_->requests;
    uint64_t bytes = 0;
    for (const std::string& r : replies) bytes += r.size();
    (round_ >= 0 ? traffic_->bytes_trees : traffic_->bytes_open) += bytes;
    if (name == "root" || name == "split") traffic_->histogram_bytes += bytes;
  }
  return replies;
}

}  // namespace gbdt
