// The text of a random program, printed when Loom's result differs from the reference.
#include "tests/programs/RandomProgram.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace loom::programs {

std::string describe(const Dims &dims) { return fmt::format("[{}]", fmt::join(dims, ",")); }

std::string describe(const Spec &spec) {
  std::vector<std::string> dims;
  for (const auto &axes : spec)
    dims.push_back(axes.empty() ? "-" : fmt::format("{}", fmt::join(axes, "+")));
  return fmt::format("P({})", fmt::join(dims, ", "));
}

namespace {
const char *name(Unary u) {
  static const char *names[] = {"tanh",        "neg",         "abs",        "sigmoid",
                                "relu",        "gelu",        "sin",        "sqrt(|x|+1)",
                                "exp(tanh x)", "log(1+x^2)",  "cos",        "rsqrt(|x|+1)",
                                "(|x|+1)^1.5"};
  return names[static_cast<int>(u)];
}
const char *name(Binary b) {
  static const char *names[] = {"add", "sub", "mul", "max", "min", "a/(|b|+1)", "a>b?a:b/2"};
  return names[static_cast<int>(b)];
}
const char *name(Reduce r) {
  static const char *names[] = {"sum", "max", "mean"};
  return names[static_cast<int>(r)];
}

const char *name(Collective c) {
  static const char *names[] = {"psum",      "pmean",      "pmax",     "all_gather",
                                "psum_scatter", "all_to_all", "ppermute", "x + axis_index"};
  return names[static_cast<int>(c)];
}

/// A shard_map's body: "tanh, then all_to_all over y+x split 1 concat 0".
std::string bodyText(const Node &n) {
  std::string text = n.unaryFirst ? fmt::format("{}, then ", name(n.unary)) : "";
  text += fmt::format("{} over {}", name(n.collective), fmt::join(n.axes, "+"));
  if (n.collective == Collective::AllGather || n.collective == Collective::PsumScatter)
    text += fmt::format(" dim {}", n.axis);
  if (n.collective == Collective::AllToAll)
    text += fmt::format(" split {} concat {}", n.axis, n.axis2);
  if (n.collective == Collective::Ppermute) {
    std::vector<std::string> pairs;
    for (auto [s, t] : n.pairs)
      pairs.push_back(fmt::format("{}->{}", s, t));
    text += fmt::format(" pairs [{}]", fmt::join(pairs, " "));
  }
  return text;
}

/// An IntChain's ops: "(v * 3) >> 2 & 7" as "*3 >>2 &7".
std::string intOpsText(const Node &n) {
  static const char *names[] = {"+", "*", "&", "|", "^", "<<", "&1023 >>>", "/", ">?"};
  std::vector<std::string> ops;
  for (auto [op, c] : n.intOps)
    ops.push_back(fmt::format("{}{}", names[static_cast<int>(op)], c));
  return fmt::format("{}", fmt::join(ops, " "));
}

std::string nodeText(const Node &n) {
  std::vector<std::string> args;
  for (int a : n.args)
    args.push_back(fmt::format("v{}", a));
  std::string operands = fmt::format("{}", fmt::join(args, ", "));
  switch (n.kind) {
  case OpKind::Input:
    return fmt::format("arg{}", n.index);
  case OpKind::Unary:
    return fmt::format("{} {}", name(n.unary), operands);
  case OpKind::Binary:
    return fmt::format("{} {}", name(n.binary), operands);
  case OpKind::Transpose:
    return fmt::format("transpose {} {}", operands, describe(n.perm));
  case OpKind::Reshape:
    return fmt::format("reshape {}", operands);
  case OpKind::Broadcast:
    return fmt::format("broadcast_in_dim {} dims {}", operands, describe(n.dims));
  case OpKind::Slice:
    return fmt::format("slice {} {}:{}:{}", operands, describe(n.start), describe(n.limit),
                       describe(n.strides));
  case OpKind::Pad:
    return fmt::format("pad {} low {} high {} with 0.25", operands, describe(n.start),
                       describe(n.limit));
  case OpKind::Concat:
    return fmt::format("concatenate {} axis {}", operands, n.axis);
  case OpKind::Reduce:
    return fmt::format("{} {} dims {}{}", name(n.reduce), operands, describe(n.dims),
                       n.keepdims ? " keepdims" : "");
  case OpKind::Dot:
    return fmt::format("dot {} batch {}x{} contract {}x{}", operands, describe(n.aBatch),
                       describe(n.bBatch), describe(n.aContract), describe(n.bContract));
  case OpKind::Softmax:
    return fmt::format("{} {} axis {}", n.keepdims ? "log_softmax" : "softmax", operands, n.axis);
  case OpKind::Take:
    return fmt::format("take {}", operands);
  case OpKind::ScatterAdd:
    return fmt::format("scatter_add {} rows {}", operands, n.rows);
  case OpKind::Mask:
    return fmt::format("mask {}: iota({}) <= iota({}) + {} ? x : -0.5", operands, n.axis, n.axis2,
                       n.offset);
  case OpKind::Convert:
    return fmt::format("round {} to bf16 (f32 programs) or f32 (f64)", operands);
  case OpKind::Attention:
    return fmt::format("attention {}{}", operands, n.causal ? " causal" : "");
  case OpKind::DynamicSlice:
    return fmt::format("dynamic_slice {}", operands);
  case OpKind::DynamicUpdateSlice:
    return fmt::format("dynamic_update_slice {}", operands);
  case OpKind::Constraint:
    return fmt::format("constraint {} {}", operands, describe(n.spec));
  case OpKind::IntChain:
    return fmt::format("v{} + i32({} {}) / 16", n.args[0],
                       n.axis == -1   ? fmt::format("v{}", n.args[1])
                       : n.axis == -2 ? fmt::format("trunc(4 v{})", n.args[0])
                                      : fmt::format("iota({})", n.axis),
                       intOpsText(n));
  case OpKind::ShardMap:
    return fmt::format("shard_map {} in {} out {}: {}", operands, describe(n.spec),
                       describe(n.outSpec), bodyText(n));
  }
  return "?";
}
} // namespace

std::string describe(const Program &program) {
  std::string out;
  for (size_t i = 0; i < program.nodes.size(); ++i) {
    const Node &n = program.nodes[i];
    std::string type = describe(n.shape);
    if (n.kind == OpKind::Input && program.inputs[n.index].index)
      type +=
          fmt::format(" i32 in [{}, {}]", program.inputs[n.index].lo, program.inputs[n.index].hi);
    out += fmt::format("  v{} = {} : {}\n", i, nodeText(n), type);
  }
  std::vector<std::string> outs;
  for (int o : program.outputs)
    outs.push_back(fmt::format("v{}", o));
  return out + fmt::format("  return {}\n", fmt::join(outs, ", "));
}

} // namespace loom::programs
