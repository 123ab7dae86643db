// Sharding from explicit rules (see ShardingRules.h).
#include "frontend/train/ShardingRules.h"

#include "frontend/Error.h"
#include "frontend/train/Checkpoint.h"

#include <fnmatch.h>

#include <algorithm>
#include <sstream>

namespace loom::train {

namespace {
std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

struct Rule {
  std::string text, pattern;
  std::vector<MeshAxes> dims;
  bool used = false;
};

/// "PATTERN = [a, _, b+c]".
Rule parseRule(const std::string &text, const Mesh &mesh, const std::string &where) {
  auto fail = [&](const std::string &why) -> Rule {
    throw Error(where + ": rule \"" + text + "\": " + why);
  };
  size_t eq = text.find('=');
  if (eq == std::string::npos)
    return fail("expected PATTERN = [dim, ...] (a dim: an axis, axes joined by +, or _)");
  Rule rule{text, trim(text.substr(0, eq)), {}};
  std::string spec = trim(text.substr(eq + 1));
  if (rule.pattern.empty())
    return fail("no parameter pattern before =");
  if (spec.size() < 2 || spec.front() != '[' || spec.back() != ']')
    return fail("the spec \"" + spec + "\" is not a bracketed list like [fsdp, _]");
  std::istringstream entries(spec.substr(1, spec.size() - 2));
  for (std::string entry; std::getline(entries, entry, ',');) {
    entry = trim(entry);
    if (entry == "_" || entry == "None") {
      rule.dims.emplace_back(std::nullopt);
      continue;
    }
    std::vector<std::string> axes;
    std::istringstream names(entry);
    for (std::string axis; std::getline(names, axis, '+');) {
      axis = trim(axis);
      if (!mesh.hasAxis(axis)) {
        std::string known;
        for (const std::string &a : mesh.axisNames())
          known += (known.empty() ? "" : ", ") + a;
        return fail("\"" + axis + "\" is not an axis of the mesh (" + known + "; _ for none)");
      }
      axes.push_back(axis);
    }
    rule.dims.emplace_back(axes);
  }
  return rule;
}

bool matches(const std::string &pattern, const std::string &path) {
  // Dots as slashes: with FNM_PATHNAME, * and ? stay inside one component.
  std::string p = pattern, s = path;
  std::replace(p.begin(), p.end(), '.', '/');
  std::replace(s.begin(), s.end(), '.', '/');
  return fnmatch(p.c_str(), s.c_str(), FNM_PATHNAME) == 0;
}
/// The parameters' paths with list indices as * ("layers.*.ln1.scale"), each once, in order:
/// what a rule can name.
std::string pathPatterns(const std::vector<std::pair<std::string, Shape>> &params) {
  std::vector<std::string> seen;
  for (const auto &[path, shape] : params) {
    std::string pattern, component;
    std::istringstream parts(path);
    while (std::getline(parts, component, '.')) {
      bool index = !component.empty() &&
                   std::all_of(component.begin(), component.end(), ::isdigit);
      pattern += (pattern.empty() ? "" : ".") + (index ? std::string("*") : component);
    }
    if (std::find(seen.begin(), seen.end(), pattern) == seen.end())
      seen.push_back(pattern);
  }
  std::string text;
  for (const std::string &pattern : seen)
    text += (text.empty() ? "" : ", ") + pattern;
  return text;
}
} // namespace

RuleShardings shardingsFromRules(const Config &c, const Tree<Shape> &shapes) {
  const std::vector<std::string> &axes = c.texts("mesh.axes");
  const std::vector<int64_t> &sizes = c.integers("mesh.shape");
  if (axes.size() != sizes.size())
    throw Error(c.describe("mesh.axes") + " names " + std::to_string(axes.size()) +
                " axes but " + c.describe("mesh.shape") + " gives " +
                std::to_string(sizes.size()) + " sizes");
  std::vector<std::pair<std::string, int64_t>> meshAxes;
  for (size_t i = 0; i < axes.size(); ++i)
    meshAxes.emplace_back(axes[i], sizes[i]);
  Mesh mesh = [&] {
    try {
      return Mesh(meshAxes);
    } catch (const Error &e) {
      throw Error(c.describe("mesh.axes") + ": " + e.what());
    }
  }();
  std::vector<Rule> rules;
  for (const std::string &text : c.texts("mesh.rules"))
    rules.push_back(parseRule(text, mesh, c.describe("mesh.rules")));
  for (const std::string &axis : c.texts("mesh.batch_axes"))
    if (!mesh.hasAxis(axis))
      throw Error(c.describe("mesh.batch_axes") + ": \"" + axis + "\" is not an axis of " +
                  mesh.describe());
  NamedSharding batch(mesh, PartitionSpec::of({c.texts("mesh.batch_axes").empty()
                                                   ? MeshAxes(std::nullopt)
                                                   : MeshAxes(c.texts("mesh.batch_axes"))}));
  std::vector<std::pair<std::string, Shape>> params;
  namedLeaves(shapes, "", params);
  std::vector<NamedSharding> placements;
  for (const auto &[path, shape] : params) {
    auto rule = std::find_if(rules.begin(), rules.end(),
                             [&](const Rule &r) { return matches(r.pattern, path); });
    if (rule == rules.end()) {
      placements.emplace_back(mesh, P());
      continue;
    }
    rule->used = true;
    std::string where = c.describe("mesh.rules") + ": rule \"" + rule->text + "\" on " + path +
                        " " + loom::describe(DType::F32, shape);
    if (rule->dims.size() > shape.size())
      throw Error(where + ": the spec has " + std::to_string(rule->dims.size()) +
                  " dims, the parameter " + std::to_string(shape.size()));
    NamedSharding sharding = [&] {
      try {
        NamedSharding s(mesh, PartitionSpec::of(rule->dims));
        s.check(shape, path);
        return s;
      } catch (const Error &e) {
        throw Error(where + ": " + e.what());
      }
    }();
    placements.push_back(sharding);
  }
  for (const Rule &r : rules) {
    if (r.used)
      continue;
    auto shadowing = std::find_if(params.begin(), params.end(), [&](const auto &p) {
      return matches(r.pattern, p.first);
    });
    if (shadowing != params.end())
      throw Error(c.describe("mesh.rules") + ": rule \"" + r.text + "\" is never used: an "
                  "earlier rule takes every parameter it matches (the first match wins)");
    throw Error(c.describe("mesh.rules") + ": rule \"" + r.text +
                "\" matches no parameter (the parameters: " + pathPatterns(params) + ")");
  }
  return {mesh, shapes.unflattenLike(placements), batch};
}

} // namespace loom::train
