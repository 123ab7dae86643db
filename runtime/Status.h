// The one error type of the Loom runtime: every fallible call returns a Status
// or a StatusOr<T>, so failures reach the caller instead of ending the process.
#ifndef LOOM_RUNTIME_STATUS_H
#define LOOM_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace loom::rt {

/// What kind of failure a Status reports.
enum class StatusCode {
  Ok,
  InvalidArgument,
  Internal,
  DeadlineExceeded,
  Cancelled,
  Unavailable,
  FailedPrecondition,
};

/// The name of `code` as written by Status::toString ("InvalidArgument").
std::string_view name(StatusCode code);

/// Either ok or an error code with a human-readable message.
class [[nodiscard]] Status {
public:
  /// An ok status.
  Status() = default;

  /// An ok status.
  static Status ok() { return Status(); }
  /// An error with `code` and `message`. An Ok code yields an ok status and
  /// drops the message.
  static Status error(StatusCode code, std::string message);

  /// True when no error is reported.
  bool isOk() const { return statusCode == StatusCode::Ok; }
  /// The error code (Ok for an ok status).
  StatusCode code() const { return statusCode; }
  /// The error message (empty for an ok status).
  const std::string &message() const { return text; }
  /// "Ok", or "<Code>: <message>".
  std::string toString() const;

  friend bool operator==(const Status &, const Status &) = default;

private:
  Status(StatusCode code, std::string message)
      : statusCode(code), text(std::move(message)) {}

  StatusCode statusCode = StatusCode::Ok;
  std::string text;
};

/// A value of type T, or the error that prevented computing it.
template <typename T> class [[nodiscard]] StatusOr {
public:
  /// Holds `value`.
  StatusOr(T value) : held(std::move(value)) {}
  /// Holds the error `status`. An ok status carries no value, so it is turned
  /// into an Internal error rather than left as an ok StatusOr without value.
  StatusOr(Status status) : st(std::move(status)) {
    if (st.isOk())
      st = Status::error(StatusCode::Internal,
                         "StatusOr constructed from an ok Status");
  }

  /// True when a value is held.
  bool ok() const { return held.has_value(); }
  /// Ok when a value is held, the error otherwise.
  const Status &status() const { return st; }

  /// The held value. Precondition: ok(); otherwise std::bad_optional_access
  /// is thrown (never an abort).
  T &value() & { return held.value(); }
  const T &value() const & { return held.value(); }
  T &&value() && { return std::move(held.value()); }

  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  Status st;
  std::optional<T> held;
};

} // namespace loom::rt

#endif // LOOM_RUNTIME_STATUS_H
