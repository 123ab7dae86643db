#!/usr/bin/env python3
"""A mutation fuzzer for loom-opt.

Seeds: every case of the lit tests (split at `// -----`) and the sharded GPT train steps that
gpt_sharded_ir prints (dp, fsdp, tp, fsdp_tp). Each run mutates a seed a few times (numbers,
shapes, dtypes, sharding attributes, names, lines, bytes) and runs loom-opt on it under one of
the project's pipelines. A run is a finding when loom-opt

  - dies on a signal or aborts ("crash"),
  - does not finish within the timeout ("hang"),
  - exits 1 without an `error:` line ("silent failure"),
  - exits with another status ("bad exit"),
  - succeeds but prints IR that loom-opt cannot parse back ("round trip").

A crash with no frame of Loom's code in its stack (all frames in the system's MLIR/LLVM) is
reported as upstream: README.md lists those under known limits. Every other finding fails the
run (exit status 1). Findings are written to OUT as reproducers, each with the command line.

  tests/fuzz/fuzz_loom_opt.py --build build --runs 300 --seed 1        # the bounded run of ctest
  tests/fuzz/fuzz_loom_opt.py --build build --minutes 30 --jobs 2      # a long run
"""
import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PIPELINES = [
    [],
    ["--canonicalize"],
    ["--loom-autodiff"],
    ["--loom-propagate-sharding"],
    ["--loom-propagate-sharding", "--loom-partition"],
    ["--loom-propagate-sharding", "--loom-partition=keep-gathered=true"],
    ["--loom-spmd"],
    ["--loom-autodiff", "--inline", "--symbol-dce", "--canonicalize",
     "--loom-propagate-sharding", "--loom-partition"],
    ["--loom-cpu-to-linalg"],
    ["--loom-lower-to-linalg", "--cse", "--loom-cpu-bufferize"],
    ["--loom-cpu-pipeline"],
    ["--pass-pipeline=builtin.module(func.func(loom-overlap-collectives))"],
    ["--loom-fuse-elementwise"],
    ["--loom-privatize-inits"],
    ["--loom-elementwise-in-place"],
    ["--pass-pipeline=builtin.module(func.func(loom-tile-transposed-loops))"],
    ["--loom-donate-arguments"],
    ["--loom-distinct-results"],
    ["--loom-emit-entry"],
]

INTERESTING = [0, 1, 2, 3, 4, 7, 8, 16, -1, -2, 2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**40,
               2**62, 2**63 - 1, 2**63, 2**64]
DTYPES = ["f32", "f64", "f16", "bf16", "i1", "i8", "i32", "i64", "index", "complex<f32>"]
SEPARATOR = re.compile(r"^// -----\s*$", re.M)


def lit_seeds():
    seeds = []
    for directory, _, files in os.walk(os.path.join(ROOT, "tests", "lit")):
        for name in sorted(files):
            if not name.endswith(".mlir"):
                continue
            with open(os.path.join(directory, name)) as f:
                text = f.read()
            for case in SEPARATOR.split(text):
                case = "\n".join(l for l in case.splitlines()
                                 if not l.lstrip().startswith("// RUN")
                                 and "CHECK" not in l)
                if case.strip():
                    seeds.append((name, case))
    return seeds


def gpt_seeds(build):
    seeds = []
    tool = os.path.join(build, "bin", "gpt_sharded_ir")
    for strategy in ["dp", "fsdp", "tp", "fsdp_tp"]:
        out = subprocess.run([tool, "--strategy", strategy], capture_output=True, text=True,
                             timeout=120)
        if out.returncode == 0:
            seeds.append(("gpt-" + strategy, out.stdout))
    return seeds


class Mutator:
    def __init__(self, rng, corpus):
        self.rng = rng
        self.shardings = sorted(set(re.findall(r"#loom\.sharding<[^>]*>", corpus)))
        self.lists = sorted(set(re.findall(r"\[[^\[\]\n]{0,60}\]", corpus)))
        self.strings = sorted(set(re.findall(r'"[A-Za-z_0-9]{0,12}"', corpus))) + ['""']
        self.ops = sorted(set(re.findall(r"\bloom\.[a-z_]+\b", corpus)))
        self.attrs = ["loom.sharding", "loom.factors", "loom.shardings", "loom.mesh",
                      "loom.aliased_output", "loom.output_aliases", "loom.bogus"]

    def pick(self, items):
        return items[self.rng.randrange(len(items))] if items else None

    def replace_match(self, text, pattern, make):
        matches = list(re.finditer(pattern, text))
        if not matches:
            return text
        m = self.pick(matches)
        return text[:m.start()] + make(m) + text[m.end():]

    def number(self, text):
        def make(m):
            if self.rng.random() < 0.7:
                return str(self.pick(INTERESTING))
            return str(int(m.group(0)) + self.rng.choice([-1, 1]))
        return self.replace_match(text, r"(?<![\w.#%@])\d+(?![\w.])", make)

    def shape(self, text):
        def make(m):
            dims = m.group(1).split("x")
            i = self.rng.randrange(len(dims))
            dims[i] = str(self.pick(INTERESTING[:9] + [2**32, 2**62]))
            return "tensor<" + "x".join(dims) + "x"
        return self.replace_match(text, r"tensor<((?:\d+x)+)", lambda m: make(m))

    def dtype(self, text):
        return self.replace_match(text, r"\b(f32|f64|i32|i64|i1|bf16)\b",
                                  lambda m: self.pick(DTYPES))

    def sharding(self, text):
        if self.rng.random() < 0.5 and self.shardings:
            return self.replace_match(text, r"#loom\.sharding<[^>]*>",
                                      lambda m: self.pick(self.shardings))
        # Aimed at the attribute's inside: an axis, a dim list, the mesh name.
        return self.replace_match(
            text, r"#loom\.sharding<[^>]*>",
            lambda m: self.rng.choice([
                lambda s: s.replace('"', '"x', 1),
                lambda s: s.replace("[]", '["' + self.rng.choice(["data", "fsdp", "a"]) + '"]', 1),
                lambda s: s.replace("@", "@no", 1),
                lambda s: s.replace("[[", "[[], [", 1),
                lambda s: s.replace("], [", ", ", 1),
                lambda s: re.sub(r'\["\w+"\]', '["fsdp", "fsdp"]', s, count=1),
            ])(m.group(0)))

    def attribute(self, text):
        return self.replace_match(text, r"\bloom\.(sharding|factors|shardings|mesh|aliased_output|"
                                        r"output_aliases)\b(?= =)",
                                  lambda m: self.pick(self.attrs))

    def add_attribute(self, text):
        extra = self.rng.choice([
            "{loom.factors = [1]}", "{loom.factors = [[0, 1]]}", "{loom.shardings = [1]}",
            "{loom.sharding = #loom.sharding<@mesh, [[\"data\"]]>}", "{loom.mesh = \"m\"}",
            "{loom.output_aliases = [-5]}"])
        return self.replace_match(text, r"(%\w+(?::\d+)? = loom\.[a-z_]+ [^:{\n]*)(?= :)",
                                  lambda m: m.group(1) + " " + extra)

    def op_name(self, text):
        return self.replace_match(text, r"\bloom\.[a-z_]+\b", lambda m: self.pick(self.ops))

    def value(self, text):
        names = re.findall(r"%[\w#]+", text)
        return self.replace_match(text, r"%[\w#]+", lambda m: self.pick(names))

    def list_(self, text):
        return self.replace_match(text, r"\[[^\[\]\n]{0,60}\]", lambda m: self.pick(self.lists))

    def string(self, text):
        return self.replace_match(text, r'"[A-Za-z_0-9]{0,12}"', lambda m: self.pick(self.strings))

    def lines(self, text):
        lines = text.split("\n")
        if len(lines) < 2:
            return text
        i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        kind = self.rng.randrange(3)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)

    def bytes_(self, text):
        if not text:
            return text
        i = self.rng.randrange(len(text))
        kind = self.rng.randrange(3)
        if kind == 0:
            return text[:i]
        if kind == 1:
            return text[:i] + text[i + 1:]
        return text[:i] + self.rng.choice("{}[]<>()%@#\"0x,:=-") + text[i:]

    def mutate(self, text):
        ops = [(self.number, 4), (self.shape, 3), (self.dtype, 1), (self.sharding, 4),
               (self.attribute, 2), (self.add_attribute, 2), (self.op_name, 1), (self.value, 2),
               (self.list_, 2), (self.string, 2), (self.lines, 2), (self.bytes_, 1)]
        total = sum(w for _, w in ops)
        for _ in range(1 + self.rng.randrange(3)):
            r = self.rng.randrange(total)
            for fn, w in ops:
                if r < w:
                    text = fn(text)
                    break
                r -= w
        return text


def has_loom_frame(stderr, opt):
    """Whether a stack dump has a frame in Loom's code (loom-opt itself, not main/_start)."""
    if "runtime error:" in stderr:  # UBSan: only Loom's code is instrumented
        return True
    frames = [l for l in stderr.splitlines() if re.match(r"\s*#\d+ 0x", l)]
    for frame in frames:
        if "mlir::loom::" in frame or "loom::" in frame:
            return True
        if os.path.basename(opt) + "+" in frame and not re.search(r"\b(main|_start)\b", frame):
            return True
    return False


def run_case(opt, text, args, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        command = [opt, path] + args
        try:
            out = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                 errors="replace")
        except subprocess.TimeoutExpired:
            return "hang", "", args
        stderr = out.stderr
        # Sanitizer reports count as crashes (UBSan that does not recover exits with 1).
        crashed = (out.returncode < 0 or "Stack dump:" in stderr or "LLVM ERROR" in stderr
                   or "Assertion" in stderr or "Sanitizer" in stderr
                   or "runtime error:" in stderr)
        if crashed:
            return ("crash" if has_loom_frame(stderr, opt) else "upstream crash"), stderr, args
        if out.returncode == 1:
            return ("rejected" if "error:" in stderr else "silent failure"), stderr, args
        if out.returncode != 0:
            return "bad exit", stderr, args
        # Round trip: what loom-opt printed must parse again.
        back = subprocess.run([opt, "-"], input=out.stdout, capture_output=True, text=True,
                              timeout=timeout, errors="replace")
        if back.returncode != 0:
            return "round trip", back.stderr, args
        return "accepted", "", args
    finally:
        os.unlink(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=0, help="stop after this many runs")
    parser.add_argument("--minutes", type=float, default=0, help="stop after this long")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=20, help="seconds per run (a hang)")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "loom-fuzz"))
    args = parser.parse_args()
    if args.runs <= 0 and args.minutes <= 0:
        parser.error("give --runs N or --minutes M")
    opt = os.path.join(args.build, "bin", "loom-opt")
    if not os.access(opt, os.X_OK):
        parser.error(f"no loom-opt in {args.build}/bin: build first (scripts/build.sh)")
    os.makedirs(args.out, exist_ok=True)
    # For a sanitizer build (scripts/sanitize.sh says why user poisoning is off).
    os.environ.setdefault("ASAN_OPTIONS", "allow_user_poisoning=0:detect_leaks=0")

    seeds = lit_seeds() + gpt_seeds(args.build)
    rng = random.Random(args.seed)
    mutator = Mutator(rng, "\n".join(text for _, text in seeds))
    deadline = time.time() + args.minutes * 60 if args.minutes > 0 else None
    counts, findings, done = {}, {}, 0
    start = time.time()

    def cases():
        n = 0
        while (args.runs <= 0 or n < args.runs) and (deadline is None or time.time() < deadline):
            name, seed = seeds[rng.randrange(len(seeds))]
            # The GPT steps are large; the whole CPU pipeline on them is slow: use the front.
            pipelines = PIPELINES[:7] if name.startswith("gpt-") else PIPELINES
            yield name, mutator.mutate(seed), pipelines[rng.randrange(len(pipelines))]
            n += 1

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        for name, text, pipeline in cases():
            pending.add(pool.submit(lambda t=text, p=pipeline, n=name: (n, t) +
                                    run_case(opt, t, p, args.timeout)))
            if len(pending) >= 2 * args.jobs:
                finished, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    done += 1
                    record(future.result(), counts, findings, args.out, opt)
        for future in concurrent.futures.as_completed(pending):
            done += 1
            record(future.result(), counts, findings, args.out, opt)

    elapsed = time.time() - start
    print(f"{done} runs in {elapsed:.0f} s (seed {args.seed}): " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for kind, files in sorted(findings.items()):
        for path in files:
            print(f"  {kind}: {path}")
    failing = sum(len(v) for k, v in findings.items() if k != "upstream crash")
    if failing:
        print(f"{failing} finding(s) in Loom: reproducers and their stderr in {args.out}")
    return 1 if failing else 0


def record(result, counts, findings, out, opt):
    name, text, kind, stderr, args = result
    counts[kind] = counts.get(kind, 0) + 1
    if kind in ("accepted", "rejected"):
        return
    digest = hashlib.sha1(text.encode()).hexdigest()[:12]
    path = os.path.join(out, f"{kind.replace(' ', '-')}-{digest}.mlir")
    with open(path, "w") as f:
        f.write(f"// {kind} (seed case from {name}): loom-opt FILE {' '.join(args)}\n")
        f.write(text)
    with open(path + ".txt", "w") as f:
        f.write(stderr)
    findings.setdefault(kind, []).append(path)


if __name__ == "__main__":
    sys.exit(main())
