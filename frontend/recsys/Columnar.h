// A columnar binary file of equal-length columns with its schema, for the recommender's
// preprocessed examples: "LOOMCOL1", the header's length (u64, little-endian), the header
// (JSON: {"rows": N, "columns": [{"name", "dtype": "i32"|"f32", "offset"}]}, offsets from the
// end of the header), then each column's N values in turn. A file is one part of a split:
// readers hold one part at a time.
#ifndef LOOM_FRONTEND_RECSYS_COLUMNAR_H
#define LOOM_FRONTEND_RECSYS_COLUMNAR_H

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace loom::recsys {

/// A column's values: i32 (ids, labels) or f32 (numeric features).
using Column = std::variant<std::vector<int32_t>, std::vector<float>>;

/// Named columns of one length.
struct Table {
  std::vector<std::string> names;
  std::deque<Column> columns; ///< a deque: add() keeps earlier columns in place

  size_t rows() const;
  /// The column called `name`; throws loom::Error naming it if there is none or it has
  /// another type.
  template <typename T> const std::vector<T> &get(const std::string &name) const;
  template <typename T> std::vector<T> &get(const std::string &name);
  /// Appends column `name` (empty); references to earlier columns stay valid.
  template <typename T> std::vector<T> &add(const std::string &name);
};

/// Writes `table` to `path` (through a temporary file renamed into place). Throws
/// loom::Error naming the file if the columns differ in length or the write fails.
void writeTable(const std::string &path, const Table &table);

/// Reads the table in `path`; throws loom::Error naming the file if it is not one (bad
/// magic, header, sizes).
Table readTable(const std::string &path);

} // namespace loom::recsys

#endif // LOOM_FRONTEND_RECSYS_COLUMNAR_H
