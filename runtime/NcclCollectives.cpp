// The NCCL collectives backend (see NcclCollectives.h).
#include "runtime/NcclCollectives.h"

#include "runtime/CollectivePieces.h"

#include <algorithm>
#include <thread>

namespace loom::rt {

namespace {
using Clock = std::chrono::steady_clock;

/// NCCL's type for reductions over `dtype` (validate() admits only these six).
ncclDataType_t reduceType(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return ncclFloat64;
  case DType::BF16:
    return ncclBfloat16;
  case DType::F16:
    return ncclFloat16;
  case DType::I32:
    return ncclInt32;
  case DType::I64:
    return ncclInt64;
  default:
    return ncclFloat32;
  }
}

/// The copies of `copies` from `source` to `destination` on `stream` of `gpu`.
Status copyPitched(CudaPlatform &gpu, CUstream stream, const std::vector<PitchedCopy> &copies,
                   CUdeviceptr source, CUdeviceptr destination) {
  for (const PitchedCopy &c : copies) {
    CUDA_MEMCPY2D p{};
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE, p.srcDevice = source + c.srcOffset;
    p.srcPitch = c.srcPitch;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE, p.dstDevice = destination + c.dstOffset;
    p.dstPitch = c.dstPitch;
    p.WidthInBytes = c.width, p.Height = c.height;
    if (Status s = gpu.driver().check(gpu.driver().memcpy2DAsync(&p, stream),
                                      "rearranging a collective's pieces");
        !s.isOk())
      return s;
  }
  return Status::ok();
}

/// Scratch memory used on `stream` of `gpu` (the platform's stream-ordered allocations),
/// freed in that stream's order when it goes.
struct Scratch {
  CudaPlatform &gpu;
  CUstream stream;
  CUdeviceptr pointer;
  Scratch(CudaPlatform &gpu, CUstream stream, int64_t bytes)
      : gpu(gpu), stream(stream),
        pointer(bytes > 0 ? reinterpret_cast<CUdeviceptr>(
                                gpu.allocateOn(stream, static_cast<size_t>(bytes)))
                          : 0) {}
  ~Scratch() {
    if (pointer)
      gpu.releaseOn(stream, reinterpret_cast<void *>(pointer));
  }
};

CUdeviceptr device(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }

} // namespace

StatusOr<std::unique_ptr<NcclCollectives>>
NcclCollectives::create(std::vector<std::shared_ptr<CudaPlatform>> gpus, int perProcess,
                        MpiCollectives *host) {
  auto timeout = collectiveTimeoutFromEnv();
  if (!timeout.ok())
    return timeout.status();
  if (perProcess <= 0)
    perProcess = static_cast<int>(gpus.size());
  return std::unique_ptr<NcclCollectives>(
      new NcclCollectives(std::move(gpus), perProcess, host, *timeout));
}

NcclCollectives::NcclCollectives(std::vector<std::shared_ptr<CudaPlatform>> gpus,
                                 int perProcess, MpiCollectives *host,
                                 std::chrono::milliseconds timeout)
    : Collectives(timeout), gpus(std::move(gpus)) {
  auto library = NcclLibrary::get();
  if (!library.ok()) {
    missing = library.status();
    return;
  }
  loaded = *library;
  communicators = std::make_unique<NcclCommunicators>(*loaded, this->gpus, perProcess, host);
}

Status NcclCollectives::prepare(const MeshTopology &mesh) {
  if (!communicators) // collectives fail later, saying why
    return Status::ok();
  return communicators->prepare(mesh, timeout(), mutex);
}

Status NcclCollectives::enqueue(const CollectiveRequest &r, CudaPlatform &gpu,
                                ncclComm_t comm, const std::vector<int> &ranks) {
  const NcclLibrary &nccl = *loaded;
  CUstream on = gpu.collectiveStream();
  cudaStream_t stream = reinterpret_cast<cudaStream_t>(on);
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
  // Whether NCCL's ranks are the group's (ascending devices: the mesh's axis order).
  const bool ranked = std::is_sorted(r.group.devices.begin(), r.group.devices.end());
  // Sends each member p `block` bytes (from's p-th block, or from's first where sendWhole)
  // and receives member p's into into + p * block, as one NCCL group.
  auto exchange = [&](CUdeviceptr from, CUdeviceptr into, int64_t block, bool sendWhole) {
    Status status = ok(nccl.groupStart());
    for (int64_t p = 0; p < n && status.isOk(); ++p) {
      const void *sent = reinterpret_cast<void *>(from + (sendWhole ? 0 : p * block));
      status = ok(nccl.send(sent, block, ncclUint8, ranks[p], comm, stream));
      if (status.isOk())
        status = ok(nccl.recv(reinterpret_cast<void *>(into + p * block), block, ncclUint8,
                              ranks[p], comm, stream));
    }
    if (Status end = ok(nccl.groupEnd()); status.isOk())
      status = end;
    return status;
  };
  switch (r.kind) {
  case CollectiveKind::AllReduce:
    return ok(nccl.allReduce(r.input, r.output, r.inputElements(), reduceType(r.dtype), op, comm,
                             stream));
  case CollectiveKind::AllGather: {
    const bool inPlace = piecesOuter(r.shape, r.dim) == 1; // the output's blocks are pieces
    if (inPlace && ranked)
      return ok(nccl.allGather(r.input, r.output, inBytes, ncclUint8, comm, stream));
    Scratch blocks(gpu, on, inPlace ? 0 : outBytes);
    if (!inPlace && !blocks.pointer)
      return scratchFailed();
    CUdeviceptr into = inPlace ? device(r.output) : blocks.pointer;
    if (Status s = ranked ? ok(nccl.allGather(r.input, reinterpret_cast<void *>(into), inBytes,
                                              ncclUint8, comm, stream))
                          : exchange(device(r.input), into, inBytes, true);
        !s.isOk() || inPlace)
      return s;
    return copyPitched(gpu, on, blocksToConcatenation(r.shape, r.dim, n, element),
                       blocks.pointer, device(r.output));
  }
  case CollectiveKind::ReduceScatter: {
    if (!ranked) { // the sum of all pieces, of which this member keeps its own
      Scratch sum(gpu, on, inBytes);
      if (!sum.pointer)
        return scratchFailed();
      if (Status s = ok(nccl.allReduce(r.input, reinterpret_cast<void *>(sum.pointer),
                                       r.inputElements(), reduceType(r.dtype), op, comm,
                                       stream));
          !s.isOk())
        return s;
      return copyPitched(gpu, on, {pieceCopy(r.shape, r.dim, n, me, element)}, sum.pointer,
                         device(r.output));
    }
    if (piecesOuter(r.shape, r.dim) == 1)
      return ok(nccl.reduceScatter(r.input, r.output, r.outputElements(), reduceType(r.dtype),
                                   op, comm, stream));
    Scratch blocks(gpu, on, inBytes);
    if (!blocks.pointer)
      return scratchFailed();
    if (Status s = copyPitched(gpu, on, piecesToBlocks(r.shape, r.dim, n, element),
                               device(r.input), blocks.pointer);
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
    Scratch sends(gpu, on, packSends ? inBytes : 0);
    Scratch received(gpu, on, unpackReceived ? inBytes : 0);
    if ((packSends && !sends.pointer) || (unpackReceived && !received.pointer))
      return scratchFailed();
    CUdeviceptr from = packSends ? sends.pointer : device(r.input);
    CUdeviceptr into = unpackReceived ? received.pointer : device(r.output);
    if (packSends)
      if (Status s = copyPitched(gpu, on, piecesToBlocks(r.shape, r.dim, n, element),
                                 device(r.input), from);
          !s.isOk())
        return s;
    Status status = exchange(from, into, inBytes / n, false);
    if (!status.isOk() || !unpackReceived)
      return status;
    return copyPitched(gpu, on, blocksToConcatenation(pieceShape, r.concatDim, n, element), into,
                       device(r.output));
  }
  case CollectiveKind::CollectivePermute: {
    bool received = false;
    Status status = ok(nccl.groupStart());
    for (auto [source, target] : r.pairs) {
      if (status.isOk() && source == me)
        status = ok(nccl.send(r.input, inBytes, ncclUint8, ranks[target], comm, stream));
      if (status.isOk() && target == me)
        status = ok(nccl.recv(r.output, inBytes, ncclUint8, ranks[source], comm, stream)),
        received = true;
    }
    if (Status end = ok(nccl.groupEnd()); status.isOk())
      status = end;
    if (status.isOk() && !received) // no pair targets this rank: zeros
      status = gpu.driver().check(
          gpu.driver().memsetD8Async(device(r.output), 0, outBytes, on), what);
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
  const std::vector<int> ranks = ncclRanks(r.group);
  const int myRank = ranks[r.group.rank];
  {
    std::lock_guard lock(mutex);
    auto found = communicators->find(r.group.devices);
    if (!found.ok())
      return Status::error(found.status().code(), r.describe() + ": " + found.status().message());
    group = *found;
    if (!group->failure.isOk())
      return Status::error(group->failure.code(), r.describe() + ": an earlier collective of " +
                                                      "the group failed: " +
                                                      group->failure.message());
  }
  // The collective runs on the device's collective stream once the kernels enqueued before
  // it (its input's producers) are done, beside the kernels enqueued after it; the host
  // waits for it in wait().
  const CudaDriver &cuda = gpu.driver();
  CUevent ready = nullptr, done = nullptr;
  for (CUevent *event : {&ready, &done})
    if (Status s = cuda.check(cuda.eventCreate(event, CU_EVENT_DISABLE_TIMING), r.describe());
        !s.isOk())
      return s;
  cuda.eventRecord(ready, gpu.stream());
  cuda.streamWaitEvent(gpu.collectiveStream(), ready, 0);
  cuda.eventDestroy(ready); // released once the stream has passed it
  if (Status s = enqueue(r, gpu, group->comms[myRank], ranks); !s.isOk()) {
    cuda.eventDestroy(done);
    return Status::error(s.code(), r.describe() + ": " + s.message());
  }
  cuda.eventRecord(done, gpu.collectiveStream());
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
  pending[id] = {me, done, group, group->comms[myRank], r.describe(), received};
  return CollectiveHandle{id};
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
      status = nccl.check(async, p.what), communicators->abort(*p.group, status);
    else if (!p.group->failure.isOk())
      status = p.group->failure;
    else if (Clock::now() > deadline)
      communicators->abort(*p.group, status = Status::error(
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
  return copyPitched(*gpu, gpu->stream(), {pieceCopy(shape, dim, pieces, rank, elementBytes)},
                     device(input),
                     device(output));
}

} // namespace loom::rt
