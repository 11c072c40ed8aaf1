// Shared basics of the engine: host/device annotations, error types, cancellation.
// The engine never includes PostgreSQL headers.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#if defined(__CUDACC__)
#define GBDT_HD __host__ __device__ __forceinline__
#else
#define GBDT_HD inline
#endif

namespace gbdt {

// Bad input or parameters: the message names the parameter, column or value at fault.
class InvalidInput : public std::runtime_error {
 public:
  explicit InvalidInput(const std::string& m) : std::runtime_error(m) {}
};

// A serialized model that does not decode.
class CorruptModel : public std::runtime_error {
 public:
  explicit CorruptModel(const std::string& m) : std::runtime_error(m) {}
};

// Resources (memory, device) not available.
class ResourceError : public std::runtime_error {
 public:
  explicit ResourceError(const std::string& m) : std::runtime_error(m) {}
};

// A shard of a distributed training failed: its error, a lost connection
// or a timeout (gbdt/distributed.h's ShardLink throws it after cancelling
// the other shards' requests).
class ShardError : public std::runtime_error {
 public:
  explicit ShardError(const std::string& what) : std::runtime_error(what) {}
};

// Thrown when the cancel callback reported a pending cancel; the caller
// (the PostgreSQL glue) then raises the real cancel error itself.
class Cancelled : public std::exception {
 public:
  const char* what() const noexcept override { return "training cancelled"; }
};

// Polled by long loops on the calling thread only; returns true when the
// operation must stop.  Must not throw or longjmp.
using CancelFn = std::function<bool()>;

inline void check_cancel(const CancelFn& fn) {
  if (fn && fn()) throw Cancelled();
}

// Optional progress/notice sink (called on the calling thread only).
using LogFn = std::function<void(const std::string&)>;

}  // namespace gbdt
