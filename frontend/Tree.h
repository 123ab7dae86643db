// loom::Tree: nested, named containers of leaves (arrays outside jit, tensors inside), like
// a JAX pytree: model parameters and optimizer state are Trees of the same structure.
// A node is a leaf, a dict (keys kept sorted, so flattening order is deterministic) or a
// list. flatten/unflatten convert to and from the leaves in depth-first order.
#ifndef LOOM_FRONTEND_TREE_H
#define LOOM_FRONTEND_TREE_H

#include "frontend/Error.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom {

template <typename Leaf> class Tree {
public:
  enum class Kind { Value, Dict, List };

  /// An empty dict.
  Tree() : kind(Kind::Dict) {}
  /// A leaf.
  Tree(Leaf leaf) : kind(Kind::Value), value(std::move(leaf)) {}
  static Tree list(std::vector<Tree> items) {
    Tree t;
    t.kind = Kind::List;
    t.items = std::move(items);
    return t;
  }

  Kind nodeKind() const { return kind; }
  bool isLeaf() const { return kind == Kind::Value; }

  /// The child named `key` of a dict, created (as an empty dict) if absent.
  Tree &operator[](const std::string &key) {
    expect(Kind::Dict, "operator[]");
    return children[key];
  }
  Tree &operator[](const char *key) { return (*this)[std::string(key)]; }
  /// The child named `key`; an Error if there is none.
  const Tree &at(const std::string &key) const {
    expect(Kind::Dict, "at");
    auto it = children.find(key);
    if (it == children.end())
      throw Error("Tree::at: no key '" + key + "'");
    return it->second;
  }
  const Tree &at(size_t i) const {
    expect(Kind::List, "at");
    return items.at(i);
  }
  const std::map<std::string, Tree> &dict() const { return children; }
  const std::vector<Tree> &list() const { return items; }

  const Leaf &leaf() const {
    expect(Kind::Value, "leaf");
    return *value;
  }
  /// Implicit read of a leaf (so `params["w"]` can be passed where a Leaf is expected).
  operator const Leaf &() const { return leaf(); }

  /// The leaves, depth first (dict keys in sorted order).
  std::vector<Leaf> flatten() const {
    std::vector<Leaf> out;
    visit([&](const Leaf &l) { out.push_back(l); });
    return out;
  }
  size_t numLeaves() const {
    size_t n = 0;
    visit([&](const Leaf &) { ++n; });
    return n;
  }

  /// A tree of this structure whose leaves are `leaves` in flatten() order.
  template <typename Other> Tree<Other> unflattenLike(const std::vector<Other> &leaves) const {
    size_t next = 0;
    Tree<Other> result = rebuild<Other>(leaves, next);
    if (next != leaves.size())
      throw Error("Tree::unflatten: " + std::to_string(leaves.size()) +
                  " leaves for a tree of " + std::to_string(next));
    return result;
  }

  /// "{b:{w:*},w:*}": the structure without the leaves.
  std::string structure() const {
    std::string out;
    appendStructure(out);
    return out;
  }
  /// Appends structure() to `out` (one string for a whole tree, not one per node).
  void appendStructure(std::string &out) const {
    switch (kind) {
    case Kind::Value:
      out += '*';
      return;
    case Kind::List:
      out += '[';
      for (size_t i = 0; i < items.size(); ++i) {
        if (i)
          out += ',';
        items[i].appendStructure(out);
      }
      out += ']';
      return;
    case Kind::Dict: {
      out += '{';
      bool first = true;
      for (const auto &[k, v] : children) {
        if (!first)
          out += ',';
        out += k;
        out += ':';
        v.appendStructure(out);
        first = false;
      }
      out += '}';
      return;
    }
    }
  }

  void visit(const std::function<void(const Leaf &)> &fn) const {
    if (kind == Kind::Value)
      return fn(*value);
    for (const auto &[k, v] : children)
      v.visit(fn);
    for (const Tree &t : items)
      t.visit(fn);
  }

private:
  template <typename> friend class Tree;

  void expect(Kind wanted, const char *what) const {
    static const char *names[] = {"a leaf", "a dict", "a list"};
    if (kind != wanted)
      throw Error(std::string("Tree::") + what + ": node is " + names[int(kind)] +
                  ", not " + names[int(wanted)]);
  }

  template <typename Other>
  Tree<Other> rebuild(const std::vector<Other> &leaves, size_t &next) const {
    switch (kind) {
    case Kind::Value:
      if (next >= leaves.size())
        throw Error("Tree::unflatten: too few leaves");
      return Tree<Other>(leaves[next++]);
    case Kind::List: {
      std::vector<Tree<Other>> out;
      for (const Tree &t : items)
        out.push_back(t.template rebuild<Other>(leaves, next));
      return Tree<Other>::list(std::move(out));
    }
    case Kind::Dict: {
      Tree<Other> out;
      for (const auto &[k, v] : children)
        out[k] = v.template rebuild<Other>(leaves, next);
      return out;
    }
    }
    return {};
  }

  Kind kind;
  std::optional<Leaf> value;
  std::map<std::string, Tree> children;
  std::vector<Tree> items;
};

/// Applies `fn` to the leaves of `first` and the matching leaves of `rest` (trees of the same
/// structure), giving a tree of that structure.
template <typename Fn, typename Leaf, typename... Rest>
auto tree_map(Fn fn, const Tree<Leaf> &first, const Tree<Rest> &...rest) {
  std::string structure = first.structure();
  if (((rest.structure() != structure) || ...))
    throw Error("tree_map: trees differ in structure: " + structure + " vs " +
                (std::string() + ... + (rest.structure() + " ")));
  std::vector<Leaf> leaves = first.flatten();
  auto others = std::make_tuple(rest.flatten()...);
  using Out = std::decay_t<decltype(fn(leaves[0], std::declval<const Rest &>()...))>;
  std::vector<Out> out;
  for (size_t i = 0; i < leaves.size(); ++i)
    out.push_back(std::apply([&](const auto &...o) { return fn(leaves[i], o[i]...); }, others));
  return first.unflattenLike(out);
}

} // namespace loom

#endif // LOOM_FRONTEND_TREE_H
