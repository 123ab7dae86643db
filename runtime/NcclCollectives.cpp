// The NCCL collectives backend (see NcclCollectives.h).
#include "runtime/NcclCollectives.h"

#include "runtime/CollectivePieces.h"

#include <thread>

namespace loom::rt {

namespace {
using Clock = std::chrono::steady_clock;

/// NCCL's type for reductions over `dtype` (validate() admits only these four).
ncclDataType_t reduceType(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return ncclFloat64;
  case DType::I32:
    return ncclInt32;
  case DType::I64:
    return ncclInt64;
  default:
    return ncclFloat32;
  }
}

/// The copies of `copies` from `source` to `destination` on `gpu`'s stream.
Status copyPitched(CudaPlatform &gpu, const std::vector<PitchedCopy> &copies,
                   CUdeviceptr source, CUdeviceptr destination) {
  for (const PitchedCopy &c : copies) {
    CUDA_MEMCPY2D p{};
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE, p.srcDevice = source + c.srcOffset;
    p.srcPitch = c.srcPitch;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE, p.dstDevice = destination + c.dstOffset;
    p.dstPitch = c.dstPitch;
    p.WidthInBytes = c.width, p.Height = c.height;
    if (Status s = gpu.driver().check(gpu.driver().memcpy2DAsync(&p, gpu.stream()),
                                      "rearranging a collective's pieces");
        !s.isOk())
      return s;
  }
  return Status::ok();
}

/// Stream-ordered scratch memory on `gpu` (the platform's own allocations), freed in stream
/// order when it goes.
struct Scratch {
  CudaPlatform &gpu;
  size_t bytes;
  CUdeviceptr pointer;
  Scratch(CudaPlatform &gpu, int64_t bytes)
      : gpu(gpu), bytes(static_cast<size_t>(bytes)),
        pointer(bytes > 0 ? reinterpret_cast<CUdeviceptr>(gpu.allocate(this->bytes)) : 0) {}
  ~Scratch() {
    if (pointer)
      gpu.release(reinterpret_cast<void *>(pointer), bytes);
  }
};

CUdeviceptr device(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }

} // namespace

StatusOr<std::unique_ptr<NcclCollectives>>
NcclCollectives::create(std::vector<std::shared_ptr<CudaPlatform>> gpus) {
  auto timeout = collectiveTimeoutFromEnv();
  if (!timeout.ok())
    return timeout.status();
  return std::unique_ptr<NcclCollectives>(new NcclCollectives(std::move(gpus), *timeout));
}

NcclCollectives::NcclCollectives(std::vector<std::shared_ptr<CudaPlatform>> gpus,
                                 std::chrono::milliseconds timeout)
    : Collectives(timeout), gpus(std::move(gpus)) {
  auto library = NcclLibrary::get();
  if (library.ok())
    loaded = *library;
  else
    missing = library.status();
}

NcclCollectives::~NcclCollectives() {
  for (auto &[devices, group] : groups)
    if (group.failure.isOk()) // a failed group's communicators are aborted (freed) already
      for (ncclComm_t comm : group.comms)
        loaded->commDestroy(comm);
}

StatusOr<NcclCollectives::Group *> NcclCollectives::groupFor(const DeviceGroup &members) {
  auto found = groups.find(members.devices);
  if (found != groups.end())
    return &found->second;
  std::vector<int> ordinals;
  for (int d : members.devices) {
    if (d < 0 || d >= static_cast<int>(gpus.size()) || !gpus[d])
      return Status::error(StatusCode::InvalidArgument,
                           "device " + std::to_string(d) + " is not a GPU of this process");
    ordinals.push_back(gpus[d]->ordinal());
  }
  const NcclLibrary &nccl = *loaded;
  Group group;
  group.comms.resize(members.devices.size());
  // The caller's message names the collective and its devices.
  if (Status s = nccl.check(nccl.commInitAll(group.comms.data(), members.size(), ordinals.data()),
                            "creating the group's NCCL communicators");
      !s.isOk())
    return s;
  return &groups.emplace(members.devices, std::move(group)).first->second;
}

Status NcclCollectives::enqueue(const CollectiveRequest &r, CudaPlatform &gpu,
                                ncclComm_t comm) {
  const NcclLibrary &nccl = *loaded;
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(gpu.stream());
  const int64_t n = r.group.size(), me = r.group.rank;
  const size_t element = byteSize(r.dtype);
  const int64_t inBytes = r.inputElements() * static_cast<int64_t>(element);
  const int64_t outBytes = r.outputElements() * static_cast<int64_t>(element);
  const std::string what = std::string(name(r.kind));
  auto ok = [&](ncclResult_t result) { return nccl.check(result, what); };
  auto scratchFailed = [&] {
    return Status::error(StatusCode::Unavailable,
                         what + ": no GPU memory for its pieces (" + std::to_string(inBytes) +
                             " bytes)");
  };
  const ncclRedOp_t op = r.reduce == ReduceKind::Max ? ncclMax : ncclSum;
  switch (r.kind) {
  case CollectiveKind::AllReduce:
    return ok(nccl.allReduce(r.input, r.output, r.inputElements(), reduceType(r.dtype), op, comm,
                             stream));
  case CollectiveKind::AllGather: {
    if (piecesOuter(r.shape, r.dim) == 1) // the pieces are the output's blocks already
      return ok(nccl.allGather(r.input, r.output, inBytes, ncclUint8, comm, stream));
    Scratch blocks(gpu, outBytes);
    if (!blocks.pointer)
      return scratchFailed();
    if (Status s = ok(nccl.allGather(r.input, reinterpret_cast<void *>(blocks.pointer), inBytes,
                                     ncclUint8, comm, stream));
        !s.isOk())
      return s;
    return copyPitched(gpu, blocksToConcatenation(r.shape, r.dim, n, element), blocks.pointer,
                       device(r.output));
  }
  case CollectiveKind::ReduceScatter: {
    if (piecesOuter(r.shape, r.dim) == 1)
      return ok(nccl.reduceScatter(r.input, r.output, r.outputElements(), reduceType(r.dtype),
                                   op, comm, stream));
    Scratch blocks(gpu, inBytes);
    if (!blocks.pointer)
      return scratchFailed();
    if (Status s = copyPitched(gpu, piecesToBlocks(r.shape, r.dim, n, element), device(r.input),
                               blocks.pointer);
        !s.isOk())
      return s;
    return ok(nccl.reduceScatter(reinterpret_cast<void *>(blocks.pointer), r.output,
                                 r.outputElements(), reduceType(r.dtype), op, comm, stream));
  }
  case CollectiveKind::AllToAll: {
    std::vector<int64_t> pieceShape = r.shape;
    pieceShape[r.dim] /= n;
    const bool packSends = piecesOuter(r.shape, r.dim) != 1;
    const bool unpackReceived = piecesOuter(pieceShape, r.concatDim) != 1;
    Scratch sends(gpu, packSends ? inBytes : 0), received(gpu, unpackReceived ? inBytes : 0);
    if ((packSends && !sends.pointer) || (unpackReceived && !received.pointer))
      return scratchFailed();
    CUdeviceptr from = packSends ? sends.pointer : device(r.input);
    CUdeviceptr into = unpackReceived ? received.pointer : device(r.output);
    if (packSends)
      if (Status s = copyPitched(gpu, piecesToBlocks(r.shape, r.dim, n, element),
                                 device(r.input), from);
          !s.isOk())
        return s;
    const int64_t block = inBytes / n;
    Status status = ok(nccl.groupStart());
    for (int64_t peer = 0; peer < n && status.isOk(); ++peer) {
      status = ok(nccl.send(reinterpret_cast<void *>(from + peer * block), block, ncclUint8,
                            static_cast<int>(peer), comm, stream));
      if (status.isOk())
        status = ok(nccl.recv(reinterpret_cast<void *>(into + peer * block), block, ncclUint8,
                              static_cast<int>(peer), comm, stream));
    }
    if (Status end = ok(nccl.groupEnd()); status.isOk())
      status = end;
    if (!status.isOk() || !unpackReceived)
      return status;
    return copyPitched(gpu, blocksToConcatenation(pieceShape, r.concatDim, n, element), into,
                       device(r.output));
  }
  case CollectiveKind::CollectivePermute: {
    bool received = false;
    Status status = ok(nccl.groupStart());
    for (auto [source, target] : r.pairs) {
      if (status.isOk() && source == me)
        status = ok(nccl.send(r.input, inBytes, ncclUint8, target, comm, stream));
      if (status.isOk() && target == me)
        status = ok(nccl.recv(r.output, inBytes, ncclUint8, source, comm, stream)),
        received = true;
    }
    if (Status end = ok(nccl.groupEnd()); status.isOk())
      status = end;
    if (status.isOk() && !received) // no pair targets this rank: zeros
      status = gpu.driver().check(
          gpu.driver().memsetD8Async(device(r.output), 0, outBytes, gpu.stream()), what);
    return status;
  }
  }
  return Status::error(StatusCode::InvalidArgument, what + ": not a collective NCCL runs");
}

StatusOr<CollectiveHandle> NcclCollectives::startValidated(const CollectiveRequest &r) {
  if (!loaded)
    return Status::error(missing.code(), r.describe() + ": GPUs need NCCL for collectives: " +
                                             missing.message());
  const int me = r.group.devices[r.group.rank];
  if (me >= static_cast<int>(gpus.size()) || !gpus[me])
    return Status::error(StatusCode::InvalidArgument,
                         r.describe() + ": device " + std::to_string(me) + " is not a GPU");
  CudaPlatform &gpu = *gpus[me];
  Group *group = nullptr;
  {
    std::lock_guard lock(mutex);
    auto found = groupFor(r.group);
    if (!found.ok())
      return Status::error(found.status().code(), r.describe() + ": " + found.status().message());
    group = *found;
    if (!group->failure.isOk())
      return Status::error(group->failure.code(), r.describe() + ": an earlier collective of " +
                                                      "the group failed: " +
                                                      group->failure.message());
  }
  if (Status s = enqueue(r, gpu, group->comms[r.group.rank]); !s.isOk())
    return Status::error(s.code(), r.describe() + ": " + s.message());
  CUevent done = nullptr;
  const CudaDriver &cuda = gpu.driver();
  if (Status s = cuda.check(cuda.eventCreate(&done, CU_EVENT_DISABLE_TIMING), r.describe());
      !s.isOk())
    return s;
  cuda.eventRecord(done, gpu.stream());
  const int64_t n = r.group.size();
  const uint64_t in = r.inputElements() * byteSize(r.dtype);
  uint64_t received = 0;
  switch (r.kind) {
  case CollectiveKind::AllGather:
    received = (n - 1) * in;
    break;
  case CollectiveKind::ReduceScatter:
    received = (n - 1) * (in / n);
    break;
  case CollectiveKind::AllReduce: // NCCL's ring: reduce_scatter then all_gather
    received = 2 * (n - 1) * in / n;
    break;
  case CollectiveKind::AllToAll:
    received = (n - 1) * in / n;
    break;
  case CollectiveKind::CollectivePermute:
    for (auto [source, target] : r.pairs)
      if (target == r.group.rank && source != r.group.rank)
        received = in;
    break;
  }
  std::lock_guard lock(mutex);
  uint64_t id = nextHandle++;
  pending[id] = {me, done, group, group->comms[r.group.rank], r.describe(), received};
  return CollectiveHandle{id};
}

void NcclCollectives::abort(Group &group, Status why) {
  if (!group.failure.isOk())
    return;
  group.failure = std::move(why);
  for (ncclComm_t comm : group.comms)
    loaded->commAbort(comm);
}

Status NcclCollectives::wait(CollectiveHandle handle, std::chrono::milliseconds timeout) {
  Pending p;
  {
    std::lock_guard lock(mutex);
    auto found = pending.find(handle.id);
    if (found == pending.end())
      return Status::error(StatusCode::InvalidArgument,
                           "no collective started with handle " + std::to_string(handle.id));
    p = found->second;
    pending.erase(found);
  }
  const NcclLibrary &nccl = *loaded;
  const CudaDriver &cuda = gpus[p.device]->driver();
  const auto deadline = Clock::now() + timeout;
  Status status;
  for (;;) {
    CUresult r = cuda.eventQuery(p.done);
    if (r == CUDA_SUCCESS)
      break;
    if (r != CUDA_ERROR_NOT_READY) {
      status = cuda.check(r, p.what);
      break;
    }
    ncclResult_t async = ncclSuccess;
    nccl.commGetAsyncError(p.comm, &async);
    std::lock_guard lock(mutex);
    if (async != ncclSuccess && async != ncclInProgress)
      status = nccl.check(async, p.what), abort(*p.group, status);
    else if (!p.group->failure.isOk())
      status = p.group->failure;
    else if (Clock::now() > deadline)
      abort(*p.group, status = Status::error(
                          StatusCode::DeadlineExceeded,
                          p.what + ": not complete after " +
                              std::to_string(timeout.count() / 1000.0) +
                              " s (a peer did not take part, or a link failed); the group's "
                              "NCCL communicators are aborted"));
    if (!status.isOk())
      break;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  cuda.eventDestroy(p.done);
  std::lock_guard lock(mutex);
  if (status.isOk()) {
    CollectiveStats &s = statistics[p.device];
    ++s.collectives, s.bytesReceived += p.bytesReceived;
  }
  return status;
}

CollectiveStats NcclCollectives::stats(int device) const {
  std::lock_guard lock(mutex);
  auto found = statistics.find(device);
  return found == statistics.end() ? CollectiveStats{} : found->second;
}

Status NcclCollectives::slicePiece(const void *input, void *output,
                                   const std::vector<int64_t> &shape, int64_t dim,
                                   int64_t pieces, int64_t rank, size_t elementBytes) {
  CudaPlatform *gpu = CudaPlatform::current();
  if (!gpu)
    return Status::error(StatusCode::FailedPrecondition,
                         "shard_slice on a GPU outside a launch");
  return copyPitched(*gpu, {pieceCopy(shape, dim, pieces, rank, elementBytes)}, device(input),
                     device(output));
}

} // namespace loom::rt
