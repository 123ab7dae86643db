#!/usr/bin/env python3
"""How close the partitioner's reshard plans come to the least a device must receive.

For every ordered pair of distinct shardings of a square f32 matrix on a mesh, runs
`loom-opt --loom-propagate-sharding --loom-partition` on a function that takes the matrix with
one sharding and returns it with the other, sums the bytes its collectives say each device
receives (a collective_permute's only at the targets of its pairs that are not their own
source), takes the busiest device's, and compares that with the bound: the most any device must receive, its piece under the
target sharding less what it already holds. Prints the pairs at the bound, those above 1.5x,
the total over the bound, and the worst pairs.

With --partial AXES the value is instead a product contracting a dim split over AXES (a sum
pending over them) returned under each sharding: propagation chooses how the product runs, and
the script prints the bytes of each case and their total (no bound).

  benchmarks/reshard_audit.py --build build --mesh a=2,b=4 --size 1024 [--worst 10]
  benchmarks/reshard_audit.py --build build --mesh a=2,b=4 --partial a,b
"""
import argparse
import itertools
import os
import re
import subprocess
import sys
import tempfile


def all_specs(axes, rank=2):
    """Every sharding of a rank-2 tensor: each axis on no dim or one, in every order."""
    specs = []
    for assign in itertools.product([None] + list(range(rank)), repeat=len(axes)):
        dims = [[a for a, d in zip(axes, assign) if d == k] for k in range(rank)]
        for orders in itertools.product(*[itertools.permutations(d) for d in dims]):
            specs.append([list(o) for o in orders])
    return specs


def block(spec, coords, sizes, n):
    """The rows and columns a device holds under `spec`."""
    out = []
    for dim_axes in spec:
        index, count = 0, 1
        for a in dim_axes:
            index, count = index * sizes[a] + coords[a], count * sizes[a]
        length = n // count
        out.append((index * length, index * length + length))
    return out


def busiest(body, mesh):
    """The most bytes any device receives by the collectives of a function's IR."""
    names = [a for a, _ in mesh]
    sizes = dict(mesh)
    got = {}
    for line in body.splitlines():
        m = re.search(r"loom\.(all_gather|all_to_all|collective_permute|all_reduce|"
                      r"reduce_scatter)\b.*axes = \[([^\]]*)\]", line)
        b = re.search(r"bytes = (\d+)", line)
        if not m or not b:
            continue
        axes = re.findall(r'"([^"]+)"', m.group(2))
        pairs = re.search(r"pairs = \[([^\]]*)\]", line)
        flat = [int(x) for x in pairs.group(1).split(",")] if pairs else []
        targets = {t for s_, t in zip(flat[::2], flat[1::2]) if s_ != t}
        for point in itertools.product(*[range(s_) for _, s_ in mesh]):
            coords = dict(zip(names, point))
            position = 0
            for a in axes:
                position = position * sizes[a] + coords[a]
            if m.group(1) != "collective_permute" or position in targets:
                got[point] = got.get(point, 0) + int(b.group(1))
    return max(got.values(), default=0)


def bound(source, target, mesh, n):
    """The most bytes a device must receive to hold its piece of `target`."""
    names = [a for a, _ in mesh]
    sizes = dict(mesh)
    worst = 0
    for point in itertools.product(*[range(s) for _, s in mesh]):
        coords = dict(zip(names, point))
        need, have = block(target, coords, sizes, n), block(source, coords, sizes, n)
        size, kept = 1, 1
        for (s, e), (hs, he) in zip(need, have):
            size *= e - s
            kept *= max(0, min(e, he) - max(s, hs))
        worst = max(worst, (size - kept) * 4)
    return worst


def attr(spec):
    dims = ", ".join("[" + ", ".join(f'"{a}"' for a in d) + "]" for d in spec)
    return f"#loom.sharding<@mesh, [{dims}]>"


def run_loom_opt(build, lines):
    """loom-opt's partitioned output for the module of `lines`."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as source:
        source.write("\n".join(lines) + "\n")
    try:
        run = subprocess.run([os.path.join(build, "bin", "loom-opt"), source.name,
                              "--loom-propagate-sharding", "--loom-partition"],
                             capture_output=True, text=True)
    finally:
        os.unlink(source.name)
    if run.returncode != 0:
        errors = [line for line in run.stderr.splitlines() if "error:" in line]
        sys.exit("loom-opt refused the audit's module: " + (errors[0] if errors else run.stderr))
    return run.stdout


def mesh_line(mesh):
    return ("loom.mesh @mesh axes = [" + ", ".join(f'"{a}"' for a, _ in mesh) +
            "] shape = [" + ", ".join(str(s) for _, s in mesh) + "]")


def partial_products(args, mesh, specs):
    """x [n, n] split on dim 1 over the axes, w split on dim 0 alike, x.w returned per spec."""
    axes = args.partial.split(",")
    n, tensor = args.size, f"tensor<{args.size}x{args.size}xf32>"
    lines = [mesh_line(mesh)]
    for i, t in enumerate(specs):
        lines.append(
            f"func.func @p{i}(%x: {tensor} {{loom.sharding = {attr([[], axes])}}}, "
            f"%w: {tensor} {{loom.sharding = {attr([axes, []])}}}) -> "
            f"({tensor} {{loom.sharding = {attr(t)}}}) {{\n"
            f"  %y = loom.dot_general %x, %w, batching_dims = [] x [], contracting_dims = [1] x [0]"
            f" : ({tensor}, {tensor}) -> {tensor}\n  return %y : {tensor}\n}}")
    out = run_loom_opt(args.build, lines)
    total = 0
    for body in re.split(r"func\.func @p", out)[1:]:
        i = int(re.match(r"\d+", body).group(0))
        sent = busiest(body, mesh)
        total += sent
        steps = re.findall(r"loom\.(all_gather|all_to_all|collective_permute|shard_slice|"
                           r"all_reduce|reduce_scatter)", body)
        print(f"  {sent:>9} bytes  -> {specs[i]}: " + ", ".join(steps))
    print(f"mesh {args.mesh}, {n}x{n} f32 contracted over {axes}: {len(specs)} results, "
          f"{total} bytes in all")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--mesh", default="a=2,b=4", help="axes and sizes, major first")
    parser.add_argument("--size", type=int, default=1024, help="rows and columns")
    parser.add_argument("--worst", type=int, default=10, help="worst pairs to print")
    parser.add_argument("--partial", help="contracted axes, comma-separated")
    args = parser.parse_args()
    mesh = [(a, int(s)) for a, s in (item.split("=") for item in args.mesh.split(","))]
    n = args.size
    devices = 1
    for _, size in mesh:
        devices *= size
    if n % devices != 0:  # every axis may split one dim
        sys.exit(f"reshard_audit.py: --size {n} does not divide by the mesh's {devices} devices "
                 f"({args.mesh}); take a multiple of {devices}")
    specs = all_specs([a for a, _ in mesh])
    if args.partial:
        return partial_products(args, mesh, specs)
    pairs = [(f, t) for f in specs for t in specs if f != t]
    tensor = f"tensor<{n}x{n}xf32>"
    lines = [mesh_line(mesh)]
    for i, (f, t) in enumerate(pairs):
        lines.append(f"func.func @p{i}(%x: {tensor} {{loom.sharding = {attr(f)}}}) -> "
                     f"({tensor} {{loom.sharding = {attr(t)}}}) {{\n  return %x : {tensor}\n}}")
    out = run_loom_opt(args.build, lines)
    rows = []
    for body in re.split(r"func\.func @p", out)[1:]:
        i = int(re.match(r"\d+", body).group(0))
        sent = busiest(body, mesh)
        steps = re.findall(r"loom\.(all_gather|all_to_all|collective_permute|shard_slice|"
                           r"all_reduce|reduce_scatter)", body)
        least = bound(*pairs[i], mesh, n)
        rows.append((sent / least if least else float(sent > 0), sent, least, i, steps))
    rows.sort(key=lambda r: -r[0])
    at = sum(1 for r in rows if r[1] <= r[2])
    over = sum(1 for r in rows if r[0] > 1.5)
    total = sum(r[1] for r in rows) / max(1, sum(r[2] for r in rows))
    print(f"mesh {args.mesh}, {n}x{n} f32: {len(rows)} reshards, {at} at the bound, "
          f"{over} above 1.5x; all together {total:.2f}x the bound")
    for ratio, sent, least, i, steps in rows[:args.worst]:
        f, t = pairs[i]
        print(f"  {ratio:5.2f}x  {sent:>9} bytes (bound {least:>9})  {f} -> {t}: "
              + ", ".join(steps))


if __name__ == "__main__":
    main()
