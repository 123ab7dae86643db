// Loading NCCL at run time (see NcclLibrary.h).
#include "runtime/NcclLibrary.h"

#include <cstdlib>
#include <vector>
#include <dlfcn.h>

namespace loom::rt {

namespace {
StatusOr<const NcclLibrary *> load() {
  static NcclLibrary nccl;
  std::vector<std::string> candidates = {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"};
  if (const char *path = std::getenv("LOOM_NCCL"); path && *path)
    candidates.insert(candidates.begin(), path);
  void *lib = nullptr;
  std::string file;
  for (const std::string &name : candidates)
    if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      file = name;
      break;
    }
  if (!lib)
    return Status::error(StatusCode::Unavailable,
                         std::string("no NCCL (libnccl.so.2; LOOM_NCCL may name the file): ") +
                             dlerror());
  std::string missing;
  auto resolve = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn)
      missing += std::string(missing.empty() ? "" : ", ") + name;
  };
  resolve(nccl.getVersion, "ncclGetVersion");
  resolve(nccl.getErrorString, "ncclGetErrorString");
  resolve(nccl.commInitAll, "ncclCommInitAll");
  resolve(nccl.getUniqueId, "ncclGetUniqueId");
  resolve(nccl.commInitRank, "ncclCommInitRank");
  resolve(nccl.commDestroy, "ncclCommDestroy");
  resolve(nccl.commAbort, "ncclCommAbort");
  resolve(nccl.commGetAsyncError, "ncclCommGetAsyncError");
  resolve(nccl.allReduce, "ncclAllReduce");
  resolve(nccl.allGather, "ncclAllGather");
  resolve(nccl.reduceScatter, "ncclReduceScatter");
  resolve(nccl.send, "ncclSend");
  resolve(nccl.recv, "ncclRecv");
  resolve(nccl.groupStart, "ncclGroupStart");
  resolve(nccl.groupEnd, "ncclGroupEnd");
  if (!missing.empty())
    return Status::error(StatusCode::Unavailable,
                         file + " lacks " + missing + " (NCCL older than 2.7?)");
  return &nccl;
}
} // namespace

StatusOr<const NcclLibrary *> NcclLibrary::get() {
  static StatusOr<const NcclLibrary *> loaded = load();
  return loaded;
}

std::string NcclLibrary::version() const {
  int code = 0;
  getVersion(&code);
  // NCCL_VERSION(X, Y, Z): X * 10000 + Y * 100 + Z since 2.9, X * 1000 + Y * 100 + Z before.
  int major = code >= 10000 ? code / 10000 : code / 1000;
  int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

Status NcclLibrary::check(ncclResult_t result, const std::string &what) const {
  if (result == ncclSuccess)
    return Status::ok();
  return Status::error(StatusCode::Internal, what + ": NCCL error " + std::to_string(result) +
                                                 " (" + getErrorString(result) + ")");
}

} // namespace loom::rt
