// Status construction and printing, kept out of the header so that the names
// of the codes live in one place.
#include "runtime/Status.h"

namespace loom::rt {

std::string_view name(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "Ok";
  case StatusCode::InvalidArgument:
    return "InvalidArgument";
  case StatusCode::Internal:
    return "Internal";
  case StatusCode::DeadlineExceeded:
    return "DeadlineExceeded";
  case StatusCode::Cancelled:
    return "Cancelled";
  case StatusCode::Unavailable:
    return "Unavailable";
  case StatusCode::FailedPrecondition:
    return "FailedPrecondition";
  }
  return "Unknown";
}

Status Status::error(StatusCode code, std::string message) {
  if (code == StatusCode::Ok)
    return Status();
  return Status(code, std::move(message));
}

std::string Status::toString() const {
  if (isOk())
    return "Ok";
  std::string result(name(statusCode));
  result += ": ";
  result += text;
  return result;
}

} // namespace loom::rt
