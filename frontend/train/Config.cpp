// The loom-train configuration (see Config.h), parsed with toml++.
#include "frontend/train/Config.h"

#include "frontend/Error.h"

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace loom::train {

namespace {
const ConfigKey *findKey(const std::string &path) {
  for (const ConfigKey &k : configSchema())
    if (k.path == path)
      return &k;
  return nullptr;
}

std::string typeName(const ConfigValue &v) {
  static const char *names[] = {"an integer", "a number", "a boolean", "a string",
                                "a list of integers", "a list of strings"};
  return names[v.index()];
}

std::string keysOf(const std::string &section) {
  std::string keys;
  for (const ConfigKey &k : configSchema())
    if (k.path.substr(0, k.path.find('.')) == section)
      keys += (keys.empty() ? "" : ", ") + k.path.substr(k.path.find('.') + 1);
  return keys;
}

std::string sections() {
  std::string text;
  for (const ConfigKey &k : configSchema()) {
    std::string section = k.path.substr(0, k.path.find('.'));
    if (text.find(section) == std::string::npos)
      text += (text.empty() ? "" : ", ") + section;
  }
  return text;
}

/// The node as the schema's type of `key`, or an error naming what it is.
ConfigValue convert(const toml::node &node, const ConfigKey &key, const std::string &where) {
  auto fail = [&](const std::string &got) -> ConfigValue {
    throw Error(where + ": " + key.path + ": expected " + typeName(key.defaultValue) + ", got " +
                got);
  };
  auto describe = [&](const toml::node &n) -> std::string {
    if (n.is_integer())
      return "an integer";
    if (n.is_floating_point())
      return "a number";
    if (n.is_boolean())
      return "a boolean";
    if (n.is_string())
      return "the string \"" + std::string(*n.value<std::string>()) + "\"";
    if (n.is_array())
      return "a list";
    return "a table";
  };
  ConfigValue value;
  switch (key.defaultValue.index()) {
  case 0:
    if (!node.is_integer())
      return fail(describe(node));
    value = *node.value<int64_t>();
    break;
  case 1:
    if (!node.is_number())
      return fail(describe(node));
    value = *node.value<double>();
    break;
  case 2:
    if (!node.is_boolean())
      return fail(describe(node));
    value = *node.value<bool>();
    break;
  case 3:
    if (!node.is_string())
      return fail(describe(node));
    value = std::string(*node.value<std::string>());
    break;
  case 4: {
    std::vector<int64_t> list;
    if (!node.is_array())
      return fail(describe(node));
    for (const toml::node &e : *node.as_array()) {
      if (!e.is_integer())
        return fail("a list holding " + describe(e));
      list.push_back(*e.value<int64_t>());
    }
    value = list;
    break;
  }
  default: {
    std::vector<std::string> list;
    if (!node.is_array())
      return fail(describe(node));
    for (const toml::node &e : *node.as_array()) {
      if (!e.is_string())
        return fail("a list holding " + describe(e));
      list.push_back(std::string(*e.value<std::string>()));
    }
    value = list;
  }
  }
  // Accepted values and bounds.
  if (auto *s = std::get_if<std::string>(&value); s && !key.choices.empty() &&
                                                  std::find(key.choices.begin(), key.choices.end(),
                                                            *s) == key.choices.end()) {
    std::string accepted;
    for (const std::string &c : key.choices)
      accepted += (accepted.empty() ? "" : ", ") + c;
    throw Error(where + ": " + key.path + ": \"" + *s + "\" is not one of " + accepted);
  }
  double number = std::holds_alternative<int64_t>(value)  ? double(std::get<int64_t>(value))
                  : std::holds_alternative<double>(value) ? std::get<double>(value)
                                                          : 0;
  if (auto *d = std::get_if<double>(&value); d && !std::isfinite(*d))
    throw Error(where + ": " + key.path + ": must be a finite number, not " +
                (std::isnan(*d) ? "nan" : *d > 0 ? "inf" : "-inf"));
  if ((value.index() <= 1) && number < key.minimum) {
    std::ostringstream min;
    min << key.minimum;
    throw Error(where + ": " + key.path + ": must be at least " + min.str());
  }
  if ((value.index() <= 1) && !(number < key.below)) {
    std::ostringstream bound;
    bound << key.below;
    throw Error(where + ": " + key.path + ": must be below " + bound.str());
  }
  if (auto *list = std::get_if<std::vector<int64_t>>(&value))
    for (int64_t n : *list)
      if (n < 1)
        throw Error(where + ": " + key.path + ": every entry must be at least 1");
  return value;
}

const ConfigKey &known(const std::string &path, const std::string &where) {
  if (const ConfigKey *key = findKey(path))
    return *key;
  std::string section = path.substr(0, path.find('.'));
  std::string keys = keysOf(section);
  if (keys.empty())
    throw Error(where + ": unknown section [" + section + "]; the sections are " + sections());
  throw Error(where + ": " + path + ": unknown key; [" + section + "] has " + keys);
}
} // namespace

Config::Config() {
  for (const ConfigKey &k : configSchema()) {
    values[k.path] = k.defaultValue;
    origins[k.path] = "default";
  }
}

Config Config::load(const std::string &path, const std::vector<std::string> &overrides) {
  Config config;
  // toml++ reads a directory as an empty file: a run of every default, not the one asked for.
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path, error);
  if (error)
    throw Error(path + ": cannot read the config: " + error.message());
  if (std::filesystem::is_directory(status))
    throw Error(path + ": is a directory, not a TOML config file");
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error &e) {
    throw Error(path + ":" + std::to_string(e.source().begin.line) + ": " +
                std::string(e.description()));
  }
  for (auto &&[section, node] : table) {
    std::string name(section.str());
    std::string where = path + ":" + std::to_string(node.source().begin.line);
    if (!node.is_table())
      throw Error(where + ": " + name + ": top-level keys belong in a section; the sections are " +
                  sections());
    for (auto &&[key, value] : *node.as_table()) {
      std::string full = name + "." + std::string(key.str());
      std::string at = path + ":" + std::to_string(value.source().begin.line);
      const ConfigKey &spec = known(full, at);
      config.values[full] = convert(value, spec, at);
      config.origins[full] = at;
    }
  }
  for (const std::string &o : overrides)
    config.set(o);
  config.checkKind();
  return config;
}

void Config::checkKind() const {
  const std::string &kind = text("model.kind");
  for (const ConfigKey &k : configSchema())
    if (!k.kind.empty() && k.kind != kind && origin(k.path) != "default")
      throw Error(origin(k.path) + ": " + k.path + " belongs to model.kind = \"" + k.kind +
                  "\", not " + describe("model.kind"));
}

void Config::set(const std::string &assignment) {
  std::string where = "--set " + assignment;
  size_t eq = assignment.find('=');
  if (eq == std::string::npos)
    throw Error(where + ": expected section.key=value");
  std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  const ConfigKey &spec = known(path, where);
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + text);
  } catch (const toml::parse_error &) {
    // A bare word is a string.
    parsed = toml::table{{"v", text}};
  }
  if (spec.defaultValue.index() == 3 && !parsed["v"].is_string())
    parsed = toml::table{{"v", text}};
  values[path] = convert(*parsed.get("v"), spec, where);
  origins[path] = "--set";
}

const ConfigValue &Config::get(const std::string &key) const {
  auto it = values.find(key);
  if (it == values.end())
    throw Error("config: no key " + key);
  return it->second;
}

int64_t Config::integer(const std::string &key) const { return std::get<int64_t>(get(key)); }
double Config::number(const std::string &key) const { return std::get<double>(get(key)); }
bool Config::flag(const std::string &key) const { return std::get<bool>(get(key)); }
const std::string &Config::text(const std::string &key) const {
  return std::get<std::string>(get(key));
}
const std::vector<int64_t> &Config::integers(const std::string &key) const {
  return std::get<std::vector<int64_t>>(get(key));
}
const std::vector<std::string> &Config::texts(const std::string &key) const {
  return std::get<std::vector<std::string>>(get(key));
}
const std::string &Config::origin(const std::string &key) const { return origins.at(key); }

std::string Config::describe(const std::string &key) const {
  std::string value = std::visit(
      [](const auto &v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return "\"" + v + "\"";
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<std::string>>) {
          std::ostringstream text;
          text << "[";
          for (size_t i = 0; i < v.size(); ++i)
            text << (i ? ", " : "") << v[i];
          return text.str() + "]";
        } else {
          std::ostringstream text;
          text << v;
          return text.str();
        }
      },
      get(key));
  return key + " = " + value + " (" + origin(key) + ")";
}

std::string Config::valueJson(const std::string &key) const {
  return std::visit(
      [](const auto &v) {
        nlohmann::json j = v;
        return j.dump();
      },
      get(key));
}

std::string Config::toToml() const {
  toml::table root;
  for (const ConfigKey &k : configSchema()) {
    if (!k.kind.empty() && k.kind != text("model.kind"))
      continue; // another model's key
    std::string section = k.path.substr(0, k.path.find('.'));
    std::string name = k.path.substr(k.path.find('.') + 1);
    if (!root.contains(section))
      root.insert(section, toml::table{});
    toml::table &t = *root[section].as_table();
    std::visit(
        [&](const auto &v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                        std::is_same_v<T, std::vector<std::string>>) {
            toml::array a;
            for (const auto &e : v)
              a.push_back(e);
            t.insert(name, a);
          } else {
            t.insert(name, v);
          }
        },
        values.at(k.path));
  }
  std::ostringstream out;
  // Shortest round-tripping floats: 0.1, not 0.10000000000000001.
  out << toml::toml_formatter(root, toml::toml_formatter::default_flags |
                                        toml::format_flags::relaxed_float_precision)
      << "\n";
  return out.str();
}

} // namespace loom::train
