// "[0, 2, 5]": how messages show a list of devices, ranks or coordinates.
#ifndef LOOM_RUNTIME_LISTOF_H
#define LOOM_RUNTIME_LISTOF_H

#include <string>
#include <vector>

namespace loom::rt {

template <typename Int> std::string listOf(const std::vector<Int> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out.append(i ? ", " : "").append(std::to_string(values[i]));
  return out + "]";
}

} // namespace loom::rt

#endif // LOOM_RUNTIME_LISTOF_H
