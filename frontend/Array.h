// loom::Array: concrete data with a shape and dtype, living in a device buffer. Arrays come
// from host data or from jitted calls; a call returns its arrays at once, and reading one on
// the host (to_host, item) waits until it has been computed.
#ifndef LOOM_FRONTEND_ARRAY_H
#define LOOM_FRONTEND_ARRAY_H

#include "frontend/Error.h"
#include "frontend/Sharding.h"
#include "frontend/Tensor.h"
#include "runtime/Buffer.h"

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace loom {

/// The dtype that holds C++ type T (bool is i1, stored one byte per element).
template <typename T> constexpr DType dtypeFor();
template <> constexpr DType dtypeFor<float>() { return DType::F32; }
template <> constexpr DType dtypeFor<double>() { return DType::F64; }
template <> constexpr DType dtypeFor<int32_t>() { return DType::I32; }
template <> constexpr DType dtypeFor<int64_t>() { return DType::I64; }
template <> constexpr DType dtypeFor<bool>() { return DType::I1; }

class Array {
public:
  Array() = default;
  Array(std::shared_ptr<rt::Buffer> buffer, Shape shape, DType dtype);
  /// A global array split as `sharding` says: device i of the default client (device i of
  /// the mesh, row-major) holds `shards[i]`, its local part.
  Array(std::vector<std::shared_ptr<rt::Buffer>> shards, Shape shape, DType dtype,
        NamedSharding sharding);

  /// Places `bytes` of host data (the global value) on the devices of `sharding`'s mesh, each
  /// device receiving its part. The job needs as many devices as the mesh (LOOM_CPU_DEVICES
  /// per process); with several processes, each places its own devices' parts.
  static Array device_put(const void *data, size_t bytes, const Shape &shape, DType dtype,
                          const NamedSharding &sharding);
  template <typename T>
  static Array device_put(const std::vector<T> &data, const Shape &shape,
                          const NamedSharding &sharding) {
    return device_put(data.data(), data.size() * sizeof(T), shape, dtypeFor<T>(), sharding);
  }
  /// Fills the box of the global array at `start` (per dim) of shape `box`, row-major,
  /// into `out`.
  using BoxCallback = std::function<void(const std::vector<int64_t> &start, const Shape &box,
                                         char *out)>;
  /// JAX's make_array_from_callback: a `shape` array split as `sharding`, each of this
  /// process's devices filled by `callback` with its part (and nothing else read: a
  /// checkpoint restores each device's part without the global value in host memory).
  static Array make_array_from_callback(const Shape &shape, DType dtype,
                                        const NamedSharding &sharding,
                                        const BoxCallback &callback);
  /// The cookbook's data loading: each process passes the rows of the batch its devices
  /// hold parts of (processRowSpan(): with the batch dim split over the processes, its
  /// contiguous share; with a replicated batch, all of it) and gets the global array, split
  /// as `sharding` says. With one process the local batch is the whole batch.
  static Array fromProcessLocal(const NamedSharding &sharding, const void *localData,
                                size_t bytes, const Shape &globalShape, DType dtype);
  template <typename T>
  static Array make_array_from_process_local_data(const NamedSharding &sharding,
                                                  const std::vector<T> &localData,
                                                  const Shape &globalShape) {
    return fromProcessLocal(sharding, localData.data(), localData.size() * sizeof(T),
                            globalShape, dtypeFor<T>());
  }
  /// The rows [first, first + count) of dim 0 of a `globalShape` array split as `sharding`
  /// that this process's devices hold parts of. Error if they are not one contiguous range.
  static std::pair<int64_t, int64_t> processRowSpan(const NamedSharding &sharding,
                                                    const Shape &globalShape);
  /// This process's rows (processRowSpan) of a global row-major batch, for loaders that
  /// read the whole batch.
  template <typename T>
  static std::vector<T> processRows(const NamedSharding &sharding, const std::vector<T> &global,
                                    const Shape &globalShape) {
    auto [first, count] = processRowSpan(sharding, globalShape);
    size_t row = globalShape.empty() || globalShape[0] == 0 ? 0 : global.size() / globalShape[0];
    return std::vector<T>(global.begin() + first * row, global.begin() + (first + count) * row);
  }

  /// Copies `bytes` of host data into a new array on device `device` of this process.
  static Array fromBytes(const void *data, size_t bytes, const Shape &shape, DType dtype,
                         int device = 0);
  template <typename T>
  static Array from(const std::vector<T> &data, const Shape &shape, int device = 0) {
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(data.begin(), data.end());
      return fromBytes(bytes.data(), bytes.size(), shape, DType::I1, device);
    } else {
      return fromBytes(data.data(), data.size() * sizeof(T), shape, dtypeFor<T>(), device);
    }
  }
  /// A rank-0 array.
  template <typename T> static Array scalar(T value, int device = 0) {
    return from(std::vector<T>{value}, {}, device);
  }

  const Shape &shape() const { return state().dims; }
  DType dtype() const { return state().type; }
  int64_t numElements() const;
  /// "f32[2,3]".
  std::string describe() const { return loom::describe(dtype(), shape()); }
  /// The buffer of an array on one device (null for a sharded array).
  const std::shared_ptr<rt::Buffer> &buffer() const { return state().data; }
  bool valid() const { return state().data != nullptr || !state().shards.empty(); }
  /// Whether the array is split over the devices of a mesh (see shardBuffers).
  bool isSharded() const { return !state().shards.empty(); }
  /// Per mesh device, its part (empty for an array on one device); null for devices of
  /// other processes.
  const std::vector<std::shared_ptr<rt::Buffer>> &shardBuffers() const {
    return state().shards;
  }
  /// The sharding of a sharded array (unspecified otherwise).
  const NamedSharding &sharding() const { return state().layout; }

  /// Whether the value has been computed (or failed); never blocks.
  bool is_ready() const;
  /// Waits until the value is computed; throws Error if computing it failed.
  void block_until_ready() const;

  /// The values, row-major; waits for them. T must match the dtype. Across processes, every
  /// part must have a copy on this process's devices (a replicated value); otherwise an
  /// error names the part and the process holding it.
  template <typename T> std::vector<T> to_host() const {
    checkHostType(dtypeFor<T>(), "to_host");
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(numElements());
      copyOut(bytes.data(), bytes.size());
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> values(numElements());
      copyOut(values.data(), values.size() * sizeof(T));
      return values;
    }
  }
  /// Copies the values (row-major, `bytes` of them) to `dst`; waits for them.
  void copyTo(void *dst, size_t bytes) const { copyOut(dst, bytes); }
  /// The single value of a one-element array.
  template <typename T> T item() const {
    if (numElements() != 1)
      throw Error("item: array " + describe() + " has " + std::to_string(numElements()) +
                  " elements, not 1");
    return to_host<T>()[0];
  }

private:
  /// Each of this process's devices' part of a `shape` array split as `sharding` (checked by
  /// the caller), from `callback`; `what` names the caller in errors.
  static Array fillShards(const char *what, const Shape &shape, DType dtype,
                          const NamedSharding &sharding, const BoxCallback &callback);
  void checkHostType(DType wanted, const char *what) const;
  void copyOut(void *dst, size_t bytes) const;

  /// What an array is, fixed when it is made and shared by its copies: an Array is a handle,
  /// so that passing trees of arrays to a call copies one pointer per leaf (the fields below
  /// lie in several allocations, cold in cache by the next step's call).
  struct State {
    std::shared_ptr<rt::Buffer> data;
    std::vector<std::shared_ptr<rt::Buffer>> shards;
    NamedSharding layout;
    Shape dims;
    DType type = DType::F32;
  };
  /// The array's state; an empty one for a default-constructed array.
  const State &state() const { return impl ? *impl : emptyState(); }
  static const State &emptyState();

  std::shared_ptr<const State> impl;
};

} // namespace loom

#endif // LOOM_FRONTEND_ARRAY_H
