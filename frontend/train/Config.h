// The configuration of a loom-train run: a TOML file over a schema of known keys with their
// types, defaults and accepted values, then `--set section.key=value` overrides. Every key is
// checked before anything compiles; an error names the file and line (or the override), the
// key, and what is accepted.
#ifndef LOOM_FRONTEND_TRAIN_CONFIG_H
#define LOOM_FRONTEND_TRAIN_CONFIG_H

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace loom::train {

using ConfigValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                                 std::vector<std::string>>;

/// One key of the schema.
struct ConfigKey {
  std::string path; ///< "section.key"
  ConfigValue defaultValue;
  std::string help;
  /// For strings: the accepted values (empty: any).
  std::vector<std::string> choices = {};
  /// For numbers: the smallest accepted value.
  double minimum = -1e300;
  /// The model.kind the key belongs to (empty: every kind); setting it for another kind is
  /// an error.
  std::string kind = {};
  /// For numbers: accepted values are below this.
  double below = 1e300;
};

/// Every key loom-train knows, by section: model, data, optimizer, mesh, training.
const std::vector<ConfigKey> &configSchema();

class Config {
public:
  /// The defaults of the schema.
  Config();
  /// `path` (TOML) over the defaults, then `overrides` ("section.key=value", the value in
  /// TOML syntax or a bare string). Throws loom::Error naming the file and line, or the
  /// override, and the key.
  static Config load(const std::string &path, const std::vector<std::string> &overrides = {});
  /// Applies one override; throws loom::Error naming it.
  void set(const std::string &assignment);

  int64_t integer(const std::string &key) const;
  double number(const std::string &key) const;
  bool flag(const std::string &key) const;
  const std::string &text(const std::string &key) const;
  const std::vector<int64_t> &integers(const std::string &key) const;
  const std::vector<std::string> &texts(const std::string &key) const;
  /// Where `key` got its value: "configs/gpt-tiny.toml:12", "--set", or "default".
  const std::string &origin(const std::string &key) const;
  /// `key`, its value and its origin, for messages: "mesh.shape = [2, 2] (x.toml:9)".
  std::string describe(const std::string &key) const;

  /// The value of `key` as JSON text ("[128, 128]", "\"mlp\"", "2").
  std::string valueJson(const std::string &key) const;

  /// The resolved config as TOML, every key with its value (for --print-config and
  /// checkpoints' metadata).
  std::string toToml() const;

private:
  const ConfigValue &get(const std::string &key) const;
  /// Throws if a key set in the file or by --set belongs to another model.kind.
  void checkKind() const;
  std::map<std::string, ConfigValue> values;
  std::map<std::string, std::string> origins;
};

} // namespace loom::train

#endif // LOOM_FRONTEND_TRAIN_CONFIG_H
