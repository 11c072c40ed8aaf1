// The engine's side of one training in this backend (train_setup.h).
#include "train/train_setup.h"

#include "guard.h"

namespace gbdt_pg {

TrainSetup::TrainSetup(const EnginePlan& plan, NoticeRelay* relay, double memory_limit,
                       const char* device)
    : params(*plan.params), budget(memory_limit, "gbdt.max_memory") {
  if (params.device.empty()) params.device = device;
  params.nthread = plan.nthread;
  // NOTICEs go out from this (the backend's) thread as the engine calls
  // back; an error raised by one (a cancel noticed by ereport) stops the
  // training and is re-raised by the relay.
  relay_line = [relay](const std::string& m) {
    if (!relay->emit(m.c_str())) throw gbdt::Cancelled();
  };
  hooks.cancel = [] { return interrupt_pending(); };
  if (params.verbose) hooks.log = relay_line;
  hooks.notice = relay_line;
  hooks.default_device = device;
  hooks.budget = &budget;
}

}  // namespace gbdt_pg
