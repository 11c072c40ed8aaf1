// Backend entry points for a build without CUDA (make CUDA=off or no nvcc).
#include "tree/tree_backend.h"

namespace gbdt {

bool cuda_compiled() { return false; }
int cuda_device_count() { return 0; }
std::string cuda_build_info_json() {
  return "{\"cuda_compiled\": false, \"cuda_version\": null, \"devices\": []}";
}
std::unique_ptr<TreeBackend> make_cuda_backend(const BoostData&) {
  throw ResourceError("this gbdt library was built without CUDA (make CUDA=on needs nvcc)");
}

}  // namespace gbdt
