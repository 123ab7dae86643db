// Columnar files (see Columnar.h).
#include "frontend/recsys/Columnar.h"

#include "frontend/Error.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace loom::recsys {
namespace {

constexpr char kMagic[8] = {'L', 'O', 'O', 'M', 'C', 'O', 'L', '1'};

template <typename T> const char *dtypeName();
template <> const char *dtypeName<int32_t>() { return "i32"; }
template <> const char *dtypeName<float>() { return "f32"; }

size_t lengthOf(const Column &c) {
  return std::visit([](const auto &v) { return v.size(); }, c);
}

} // namespace

size_t Table::rows() const { return columns.empty() ? 0 : lengthOf(columns.front()); }

template <typename T> const std::vector<T> &Table::get(const std::string &name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) {
      if (const auto *v = std::get_if<std::vector<T>>(&columns[i]))
        return *v;
      throw Error("column " + name + " is not " + dtypeName<T>());
    }
  throw Error("no column " + name);
}

template <typename T> std::vector<T> &Table::get(const std::string &name) {
  return const_cast<std::vector<T> &>(static_cast<const Table *>(this)->get<T>(name));
}

template <typename T> std::vector<T> &Table::add(const std::string &name) {
  names.push_back(name);
  columns.emplace_back(std::vector<T>());
  return std::get<std::vector<T>>(columns.back());
}

template const std::vector<int32_t> &Table::get(const std::string &) const;
template const std::vector<float> &Table::get(const std::string &) const;
template std::vector<int32_t> &Table::get(const std::string &);
template std::vector<float> &Table::get(const std::string &);
template std::vector<int32_t> &Table::add(const std::string &);
template std::vector<float> &Table::add(const std::string &);

void writeTable(const std::string &path, const Table &table) {
  nlohmann::json header;
  header["rows"] = table.rows();
  size_t offset = 0;
  for (size_t i = 0; i < table.names.size(); ++i) {
    if (lengthOf(table.columns[i]) != table.rows())
      throw Error(path + ": column " + table.names[i] + " has " +
                  std::to_string(lengthOf(table.columns[i])) + " rows, the table " +
                  std::to_string(table.rows()));
    bool isInt = std::holds_alternative<std::vector<int32_t>>(table.columns[i]);
    header["columns"].push_back(
        {{"name", table.names[i]}, {"dtype", isInt ? "i32" : "f32"}, {"offset", offset}});
    offset += table.rows() * 4;
  }
  std::string text = header.dump();
  uint64_t length = text.size();
  std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(kMagic, sizeof kMagic);
    out.write(reinterpret_cast<const char *>(&length), sizeof length);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const Column &c : table.columns)
      std::visit(
          [&](const auto &v) {
            out.write(reinterpret_cast<const char *>(v.data()),
                      static_cast<std::streamsize>(v.size() * 4));
          },
          c);
    if (!out.flush())
      throw Error(path + ": cannot write the file");
  }
  std::filesystem::rename(temporary, path);
}

Table readTable(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(path + ": cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  uint64_t length = 0;
  if (bytes.size() < 16 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw Error(path + ": not a Loom columnar file (no LOOMCOL1 magic)");
  std::memcpy(&length, bytes.data() + 8, 8);
  if (length > bytes.size() - 16)
    throw Error(path + ": the header runs past the end of the file");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 16, bytes.begin() + 16 + length);
  } catch (const nlohmann::json::exception &e) {
    throw Error(path + ": the header is not JSON: " + e.what());
  }
  size_t rows = header.value("rows", size_t(0)), base = 16 + length;
  Table table;
  for (const auto &column : header["columns"]) {
    std::string name = column["name"], dtype = column["dtype"];
    size_t offset = column["offset"];
    if (base + offset + rows * 4 > bytes.size())
      throw Error(path + ": column " + name + " runs past the end of the file (truncated?)");
    const char *data = bytes.data() + base + offset;
    if (dtype == "i32")
      table.add<int32_t>(name).assign(reinterpret_cast<const int32_t *>(data),
                                      reinterpret_cast<const int32_t *>(data) + rows);
    else if (dtype == "f32")
      table.add<float>(name).assign(reinterpret_cast<const float *>(data),
                                    reinterpret_cast<const float *>(data) + rows);
    else
      throw Error(path + ": column " + name + " has unknown dtype " + dtype);
  }
  return table;
}

} // namespace loom::recsys
