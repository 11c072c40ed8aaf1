// The engine's side of one training in this backend, set up the same way
// for one server and for shards: the parameters completed from the
// settings (device, threads), and the hooks that connect the engine to the
// backend (cancel on an interrupt, NOTICEs through the relay, the
// gbdt.max_memory budget).  Built inside catch_engine (it holds C++
// objects); the relay and the memory limit live outside it.
#pragma once

#include <functional>
#include <string>

#include "notice_relay.h"
#include "train/train_steps.h"

#include "gbdt/train.h"

namespace gbdt_pg {

struct TrainSetup {
  gbdt::TrainParams params;
  gbdt::MemoryBudget budget;
  gbdt::TrainHooks hooks;
  // Sends one line as a NOTICE; a cancel noticed by the relay stops the
  // training (gbdt::Cancelled), re-raised by the relay afterwards.
  std::function<void(const std::string&)> relay_line;

  TrainSetup(const EnginePlan& plan, NoticeRelay* relay, double memory_limit, const char* device);
  TrainSetup(const TrainSetup&) = delete;
  TrainSetup& operator=(const TrainSetup&) = delete;
};

}  // namespace gbdt_pg
