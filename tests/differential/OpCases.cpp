// The differential tester's programs (see OpCases.h).
#include "tests/differential/OpCases.h"

#include <functional>
#include <random>
#include <set>

namespace loom::difftest {

HostTensor randomTensor(std::vector<int64_t> shape, std::string elem, Gen gen, std::mt19937 &rng,
                        int64_t indexLimit) {
  HostTensor t{std::move(shape), std::move(elem), {}};
  t.values.resize(t.numElements());
  for (double &v : t.values) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    if (indexLimit)
      v = pick(0, static_cast<int>(indexLimit) - 1);
    else if (gen == Gen::Signed)
      v = pick(-16, 16) / 8.0;
    else if (gen == Gen::Positive)
      v = pick(1, 32) / 8.0;
    else if (gen == Gen::Int)
      v = pick(-50, 50);
    else if (gen == Gen::Shift)
      v = pick(0, 7);
    else
      v = pick(0, 1);
  }
  return t;
}

namespace {
const std::string F = "tensor<8x8xf32>";
const std::string I = "tensor<8x8xi32>";

/// Builds the table: each entry names its arguments' generators.
class Table {
public:
  void add(std::string name, std::vector<std::pair<std::vector<int64_t>, std::string>> args,
           std::vector<Gen> gens, std::vector<HostTensor> results, std::string body,
           std::string prelude = "", std::vector<int64_t> indexLimits = {}) {
    std::mt19937 rng(static_cast<uint32_t>(std::hash<std::string>()(name)));
    Program p{name, {}, std::move(results), std::move(body), std::move(prelude)};
    for (size_t i = 0; i < args.size(); ++i)
      p.args.push_back(randomTensor(args[i].first, args[i].second, gens[i], rng,
                              i < indexLimits.size() ? indexLimits[i] : 0));
    programs.push_back(std::move(p));
  }
  std::vector<Program> programs;
};
} // namespace

HostTensor shapeOnly(std::vector<int64_t> shape, std::string elem) {
  return {std::move(shape), std::move(elem), {}};
}

std::string Program::module(const MeshAxes &mesh, const std::vector<Spec> &argSpecs,
                            const std::vector<Spec> &resultSpecs, const Spec *middle) const {
  bool sharded = !mesh.empty();
  std::string text = sharded ? meshOp(mesh) + "\n" : "";
  text += prelude;
  text += "func.func @main(";
  for (size_t i = 0; i < args.size(); ++i) {
    text += (i ? ", %a" : "%a") + std::to_string(i) + ": " + args[i].mlirType();
    if (sharded)
      text += " {loom.sharding = " + shardingAttr(argSpecs[i], args[i].shape.size()) + "}";
  }
  text += ") -> (";
  for (size_t j = 0; j < results.size(); ++j) {
    text += (j ? ", " : "") + results[j].mlirType();
    if (sharded)
      text += " {loom.sharding = " + shardingAttr(resultSpecs[j], results[j].shape.size()) + "}";
  }
  text += ") {\n" + body + "\n";
  std::string returned = "%r0";
  if (sharded && middle) {
    text += "  %constrained = loom.sharding_constraint %r0 : " + results[0].mlirType() + " to " +
            shardingAttr(*middle, results[0].shape.size()) + "\n";
    returned = "%constrained";
  }
  text += "  return " + returned;
  for (size_t j = 1; j < results.size(); ++j)
    text += ", %r" + std::to_string(j);
  text += " : ";
  for (size_t j = 0; j < results.size(); ++j)
    text += (j ? ", " : "") + results[j].mlirType();
  return text + "\n}\n";
}

std::vector<Program> opCases() {
  Table t;
  using G = Gen;
  auto sq = std::vector<int64_t>{8, 8};
  // Elementwise, float.
  for (std::string op : {"neg", "abs", "exp", "tanh", "logistic", "sin", "cos"})
    t.add(op, {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "f32")},
          "  %r0 = loom." + op + " %a0 : " + F);
  for (std::string op : {"log", "sqrt", "rsqrt"})
    t.add(op, {{sq, "f32"}}, {G::Positive}, {shapeOnly(sq, "f32")},
          "  %r0 = loom." + op + " %a0 : " + F);
  for (std::string op : {"add", "sub", "mul", "max", "min"})
    t.add(op, {{sq, "f32"}, {sq, "f32"}}, {G::Signed, G::Signed}, {shapeOnly(sq, "f32")},
          "  %r0 = loom." + op + " %a0, %a1 : " + F);
  t.add("div", {{sq, "f32"}, {sq, "f32"}}, {G::Signed, G::Positive}, {shapeOnly(sq, "f32")},
        "  %r0 = loom.div %a0, %a1 : " + F);
  t.add("pow", {{sq, "f32"}, {sq, "f32"}}, {G::Positive, G::Signed}, {shapeOnly(sq, "f32")},
        "  %r0 = loom.pow %a0, %a1 : " + F);
  // Elementwise, integer and boolean.
  for (std::string op : {"and", "or", "xor", "add", "mul"})
    t.add(op + "_i32", {{sq, "i32"}, {sq, "i32"}}, {G::Int, G::Int}, {shapeOnly(sq, "i32")},
          "  %r0 = loom." + op + " %a0, %a1 : " + I);
  t.add("shift_left", {{sq, "i32"}, {sq, "i32"}}, {G::Int, G::Shift}, {shapeOnly(sq, "i32")},
        "  %r0 = loom.shift_left %a0, %a1 : " + I);
  t.add("compare", {{sq, "f32"}, {sq, "f32"}}, {G::Signed, G::Signed}, {shapeOnly(sq, "i1")},
        "  %r0 = loom.compare lt, %a0, %a1 : " + F + " -> tensor<8x8xi1>");
  t.add("select", {{sq, "i1"}, {sq, "f32"}, {sq, "f32"}}, {G::Bool, G::Signed, G::Signed},
        {shapeOnly(sq, "f32")}, "  %r0 = loom.select %a0, %a1, %a2 : tensor<8x8xi1>, " + F);
  t.add("convert", {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "i32")},
        "  %r0 = loom.convert %a0 : " + F + " -> " + I);
  t.add("bitcast_convert", {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "i32")},
        "  %r0 = loom.bitcast_convert %a0 : " + F + " -> " + I);
  t.add("stop_gradient", {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "f32")},
        "  %r0 = loom.stop_gradient %a0 : " + F);
  // Creation: constants, iota, and random bits hashed from global indices.
  {
    std::string dense = "dense<[";
    for (int i = 0; i < 8; ++i) {
      dense += i ? ", [" : "[";
      for (int j = 0; j < 8; ++j)
        dense += (j ? ", " : "") + std::to_string(i * 8 + j) + ".0";
      dense += "]";
    }
    dense += "]>";
    t.add("constant", {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "f32")},
          "  %c = loom.constant " + dense + " : " + F + "\n  %r0 = loom.add %a0, %c : " + F);
    t.add("constant_splat", {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "f32")},
          "  %c = loom.constant dense<1.5> : " + F + "\n  %r0 = loom.mul %a0, %c : " + F);
  }
  for (int dim : {0, 1})
    t.add("iota_dim" + std::to_string(dim), {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "f32")},
          "  %i = loom.iota dim = " + std::to_string(dim) + " : " + F +
              "\n  %r0 = loom.add %a0, %i : " + F);
  t.add("random_bits", {{sq, "i32"}}, {G::Int}, {shapeOnly(sq, "i32")},
        "  %i = loom.iota dim = 0 : " + I + "\n  %j = loom.iota dim = 1 : " + I +
            "\n  %c8 = loom.constant dense<8> : " + I + "\n  %c13 = loom.constant dense<13> : " +
            I + "\n  %row = loom.mul %i, %c8 : " + I + "\n  %x = loom.add %row, %j : " + I +
            "\n  %k = loom.add %x, %a0 : " + I + "\n  %s = loom.shift_left %k, %c13 : " + I +
            "\n  %r0 = loom.xor %s, %k : " + I);
  // Shapes.
  for (int dim : {0, 1})
    t.add("broadcast_to_dim" + std::to_string(dim), {{{8}, "f32"}}, {G::Signed},
          {shapeOnly(sq, "f32")},
          "  %r0 = loom.broadcast_in_dim %a0, dims = [" + std::to_string(dim) +
              "] : tensor<8xf32> -> " + F);
  // A vector broadcast onto a matrix split another way: its result may be made again from
  // the vector moved (Rebroadcast.h) rather than moved itself.
  for (int dim : {0, 1})
    t.add("scale_by_broadcast" + std::to_string(dim), {{sq, "f32"}, {{8}, "f32"}},
          {G::Signed, G::Signed}, {shapeOnly(sq, "f32")},
          "  %b = loom.broadcast_in_dim %a1, dims = [" + std::to_string(dim) +
              "] : tensor<8xf32> -> " + F + "\n  %r0 = loom.mul %a0, %b : " + F);
  t.add("reshape_flatten", {{sq, "f32"}}, {G::Signed}, {shapeOnly({64}, "f32")},
        "  %r0 = loom.reshape %a0 : " + F + " -> tensor<64xf32>");
  t.add("reshape_split", {{sq, "f32"}}, {G::Signed}, {shapeOnly({2, 4, 8}, "f32")},
        "  %r0 = loom.reshape %a0 : " + F + " -> tensor<2x4x8xf32>");
  t.add("reshape_regroup", {{sq, "f32"}}, {G::Signed}, {shapeOnly({4, 16}, "f32")},
        "  %r0 = loom.reshape %a0 : " + F + " -> tensor<4x16xf32>");
  t.add("transpose", {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "f32")},
        "  %r0 = loom.transpose %a0, permutation = [1, 0] : " + F + " -> " + F);
  t.add("transpose_3d", {{{4, 4, 8}, "f32"}}, {G::Signed}, {shapeOnly({8, 4, 4}, "f32")},
        "  %r0 = loom.transpose %a0, permutation = [2, 0, 1] : tensor<4x4x8xf32> -> "
        "tensor<8x4x4xf32>");
  t.add("slice", {{sq, "f32"}}, {G::Signed}, {shapeOnly({4, 8}, "f32")},
        "  %r0 = loom.slice %a0, start = [2, 0], limit = [6, 8], strides = [1, 1] : " + F +
            " -> tensor<4x8xf32>");
  t.add("slice_strided", {{sq, "f32"}}, {G::Signed}, {shapeOnly({8, 4}, "f32")},
        "  %r0 = loom.slice %a0, start = [0, 1], limit = [8, 8], strides = [1, 2] : " + F +
            " -> tensor<8x4xf32>");
  for (int dim : {0, 1})
    t.add("concatenate_dim" + std::to_string(dim), {{sq, "f32"}, {sq, "f32"}},
          {G::Signed, G::Signed}, {shapeOnly(dim ? std::vector<int64_t>{8, 16}
                                                 : std::vector<int64_t>{16, 8}, "f32")},
          "  %r0 = loom.concatenate(%a0, %a1) dim = " + std::to_string(dim) + " : (" + F + ", " +
              F + ") -> " + (dim ? "tensor<8x16xf32>" : "tensor<16x8xf32>"));
  t.add("pad", {{sq, "f32"}, {{}, "f32"}}, {G::Signed, G::Signed}, {shapeOnly({16, 8}, "f32")},
        "  %r0 = loom.pad %a0, %a1, low = [4, 0], high = [4, 0], interior = [0, 0] : (" + F +
            ", tensor<f32>) -> tensor<16x8xf32>");
  t.add("pad_interior", {{sq, "f32"}, {{}, "f32"}}, {G::Signed, G::Signed},
        {shapeOnly({16, 8}, "f32")},
        "  %r0 = loom.pad %a0, %a1, low = [1, 0], high = [0, 0], interior = [1, 0] : (" + F +
            ", tensor<f32>) -> tensor<16x8xf32>");
  // Contractions and reductions.
  t.add("dot_matmul", {{sq, "f32"}, {sq, "f32"}}, {G::Signed, G::Signed}, {shapeOnly(sq, "f32")},
        "  %r0 = loom.dot_general %a0, %a1, batching_dims = [] x [], contracting_dims = [1] x "
        "[0] : (" + F + ", " + F + ") -> " + F);
  t.add("dot_contract_rows", {{sq, "f32"}, {sq, "f32"}}, {G::Signed, G::Signed},
        {shapeOnly(sq, "f32")},
        "  %r0 = loom.dot_general %a0, %a1, batching_dims = [] x [], contracting_dims = [0] x "
        "[0] : (" + F + ", " + F + ") -> " + F);
  t.add("dot_batched", {{{4, 8, 8}, "f32"}, {{4, 8, 8}, "f32"}}, {G::Signed, G::Signed},
        {shapeOnly({4, 8, 8}, "f32")},
        "  %r0 = loom.dot_general %a0, %a1, batching_dims = [0] x [0], contracting_dims = [2] x "
        "[1] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>");
  for (std::string kind : {"sum", "max"}) {
    t.add("reduce_" + kind + "_dim0", {{sq, "f32"}}, {G::Signed}, {shapeOnly({8}, "f32")},
          "  %r0 = loom.reduce " + kind + " %a0, dims = [0] : " + F + " -> tensor<8xf32>");
    t.add("reduce_" + kind + "_dim1", {{sq, "f32"}}, {G::Signed}, {shapeOnly({8}, "f32")},
          "  %r0 = loom.reduce " + kind + " %a0, dims = [1] : " + F + " -> tensor<8xf32>");
    t.add("reduce_" + kind + "_all", {{sq, "f32"}}, {G::Signed}, {shapeOnly({}, "f32")},
          "  %r0 = loom.reduce " + kind + " %a0, dims = [0, 1] : " + F + " -> tensor<f32>");
  }
  // 16-bit floats: reductions over a split dim reduce bf16 or f16 partial results across
  // devices; a product contracting a split dim sums bf16 partial products.
  for (std::string elem : {"bf16", "f16"}) {
    std::string H = "tensor<8x8x" + elem + ">", row = "tensor<8x" + elem + ">";
    for (std::string kind : {"sum", "max"})
      for (int dim : {0, 1})
        t.add("reduce_" + kind + "_dim" + std::to_string(dim) + "_" + elem, {{sq, elem}},
              {G::Signed}, {shapeOnly({8}, elem)},
              "  %r0 = loom.reduce " + kind + " %a0, dims = [" + std::to_string(dim) + "] : " +
                  H + " -> " + row);
    t.add("dot_" + elem, {{sq, elem}, {sq, elem}}, {G::Signed, G::Signed}, {shapeOnly(sq, elem)},
          "  %r0 = loom.dot_general %a0, %a1, batching_dims = [] x [], contracting_dims = [1] x "
          "[0] : (" + H + ", " + H + ") -> " + H);
  }
  t.add("reduce_sum_i32", {{sq, "i32"}}, {G::Int}, {shapeOnly({8}, "i32")},
        "  %r0 = loom.reduce sum %a0, dims = [1] : " + I + " -> tensor<8xi32>");
  // A max pending through a max of maxes, then broadcast back (softmax's stabiliser).
  t.add("softmax_rows", {{sq, "f32"}}, {G::Signed}, {shapeOnly(sq, "f32")},
        "  %m = loom.reduce max %a0, dims = [1] : " + F + " -> tensor<8xf32>\n"
        "  %mb = loom.broadcast_in_dim %m, dims = [0] : tensor<8xf32> -> " + F + "\n"
        "  %z = loom.sub %a0, %mb : " + F + "\n  %e = loom.exp %z : " + F + "\n"
        "  %s = loom.reduce sum %e, dims = [1] : " + F + " -> tensor<8xf32>\n"
        "  %sb = loom.broadcast_in_dim %s, dims = [0] : tensor<8xf32> -> " + F + "\n"
        "  %r0 = loom.div %e, %sb : " + F);
  // An LM head whose vocabulary split comes from its weight, then the max over the vocabulary.
  t.add("lm_head_max", {{sq, "f32"}, {{8, 16}, "f32"}}, {G::Signed, G::Signed},
        {shapeOnly({8}, "f32")},
        "  %l = loom.dot_general %a0, %a1, batching_dims = [] x [], contracting_dims = [1] x [0] "
        ": (" + F + ", tensor<8x16xf32>) -> tensor<8x16xf32>\n"
        "  %r0 = loom.reduce max %l, dims = [1] : tensor<8x16xf32> -> tensor<8xf32>");
  // Indexing.
  t.add("gather", {{{16, 8}, "f32"}, {{8}, "i32"}}, {G::Signed, G::Int}, {shapeOnly(sq, "f32")},
        "  %r0 = loom.gather %a0[%a1] : (tensor<16x8xf32>, tensor<8xi32>) -> " + F, "", {0, 16});
  t.add("scatter_add", {{sq, "f32"}, {{8}, "i32"}}, {G::Signed, G::Int},
        {shapeOnly({16, 8}, "f32")},
        "  %r0 = loom.scatter_add %a0[%a1] : (" + F + ", tensor<8xi32>) -> tensor<16x8xf32>", "",
        {0, 16});
  // Differentiated programs: a layer's loss and gradient, and the gradient of a max.
  t.add("value_and_grad", {{sq, "f32"}, {sq, "f32"}}, {G::Signed, G::Signed},
        {shapeOnly({}, "f32"), shapeOnly(sq, "f32")},
        "  %r0, %r1 = loom.value_and_grad @loss(%a0, %a1) wrt = [0] : (" + F + ", " + F +
            ") -> (tensor<f32>, " + F + ")",
        "func.func private @loss(%w: " + F + ", %x: " + F + ") -> tensor<f32> {\n"
        "  %h = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0] : (" +
            F + ", " + F + ") -> " + F + "\n  %t = loom.mul %h, %h : " + F +
            "\n  %l = loom.reduce sum %t, dims = [0, 1] : " + F + " -> tensor<f32>\n"
            "  return %l : tensor<f32>\n}\n");
  t.add("grad_of_max", {{sq, "f32"}, {sq, "f32"}}, {G::Signed, G::Signed},
        {shapeOnly({}, "f32"), shapeOnly(sq, "f32")},
        "  %r0, %r1 = loom.value_and_grad @peak(%a0, %a1) wrt = [0] : (" + F + ", " + F +
            ") -> (tensor<f32>, " + F + ")",
        "func.func private @peak(%w: " + F + ", %x: " + F + ") -> tensor<f32> {\n"
        "  %p = loom.mul %w, %x : " + F + "\n"
        "  %m = loom.reduce max %p, dims = [1] : " + F + " -> tensor<8xf32>\n"
        "  %l = loom.reduce sum %m, dims = [0] : tensor<8xf32> -> tensor<f32>\n"
        "  return %l : tensor<f32>\n}\n");
  return t.programs;
}

std::vector<Spec> allSpecs(const std::vector<int64_t> &shape, const MeshAxes &mesh) {
  // Per dim: no axis, or an ordered list of distinct axes.
  std::vector<Axes> lists = {{}};
  for (const auto &[a, size] : mesh) {
    std::vector<Axes> longer;
    for (const Axes &l : lists)
      if (std::find(l.begin(), l.end(), a) == l.end()) {
        Axes grown = l;
        grown.push_back(a);
        longer.push_back(grown);
      }
    lists.insert(lists.end(), longer.begin(), longer.end());
  }
  // All orders of each subset.
  std::set<Axes> ordered;
  for (Axes l : lists) {
    std::sort(l.begin(), l.end());
    do
      ordered.insert(l);
    while (std::next_permutation(l.begin(), l.end()));
  }
  std::vector<Spec> specs = {{}};
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<Spec> next;
    for (const Spec &s : specs)
      for (const Axes &axes : ordered) {
        Spec grown = s;
        grown.push_back(axes);
        if (validSpec(grown, shape, mesh))
          next.push_back(grown);
      }
    specs = next;
  }
  return specs;
}

} // namespace loom::difftest
