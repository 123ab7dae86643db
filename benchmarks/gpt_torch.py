"""The GPT decoder of frontend/nn/Gpt.h written in PyTorch, to time its training step in the
same run as Loom's (benchmarks/gpt_benchmark.cpp). Prints one line: tokens per second, and
the growth of the resident memory from before the parameters exist to its peak in training
(parameters, gradients, optimizer state, activations and the allocator's slack), in bytes.
AdamW is the foreach one.
With an 8th argument "cuda" it trains on the GPU instead (f32, as Loom's GPU path), timing each
step to its end on the device; the memory figure is then the GPU's peak allocation. A 9th
argument "bf16" runs the forward pass under torch.autocast in bf16 (mixed precision, as Loom's
GptConfig::precision = bf16: products in bf16 on the tensor cores, f32 parameters)."""
import contextlib
import math
import os
import resource
import sys
import time

import torch

torch.set_num_threads(2)
torch.manual_seed(0)
V, C, L, H, T, B = (int(a) for a in sys.argv[1:7])
DEVICE = sys.argv[7] if len(sys.argv) > 7 else "cpu"
AUTOCAST = sys.argv[8] if len(sys.argv) > 8 else "f32"
if DEVICE == "cuda":
    torch.set_default_device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 products, as Loom's cuBLAS calls
D = C // H
with open("/proc/self/statm") as statm:
    resident_before = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def param(*shape, fan_in=1.0):
    return torch.nn.Parameter(torch.randn(*shape) / math.sqrt(fan_in))


params = {"in_kernel": param(V, C), "pos_embed": param(T, C),
          "out_kernel": param(C, V, fan_in=C), "out_bias": torch.nn.Parameter(torch.zeros(V)),
          "lnf_s": torch.nn.Parameter(torch.ones(C)), "lnf_b": torch.nn.Parameter(torch.zeros(C))}
for i in range(L):
    params.update({f"{i}.qkv": param(3, C, H, D, fan_in=C), f"{i}.out": param(H, D, C, fan_in=C),
                   f"{i}.mlp_in": param(C, 4 * C, fan_in=C), f"{i}.mlp_out": param(4 * C, C, fan_in=4 * C),
                   f"{i}.ln1_s": torch.nn.Parameter(torch.ones(C)), f"{i}.ln1_b": torch.nn.Parameter(torch.zeros(C)),
                   f"{i}.ln2_s": torch.nn.Parameter(torch.ones(C)), f"{i}.ln2_b": torch.nn.Parameter(torch.zeros(C))})
mask = torch.tril(torch.ones(T, T, dtype=torch.bool))


def loss_fn(ids, targets):
    x = params["in_kernel"][ids] + params["pos_embed"]
    for i in range(L):
        h = torch.nn.functional.layer_norm(x, (C,), params[f"{i}.ln1_s"], params[f"{i}.ln1_b"])
        q, k, v = torch.einsum("btc,kchd->kbhtd", h, params[f"{i}.qkv"])
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D)
        s = s.masked_fill(~mask, -1e9).softmax(-1)
        x = x + torch.einsum("bhtd,hdc->btc", s @ v, params[f"{i}.out"])
        h = torch.nn.functional.layer_norm(x, (C,), params[f"{i}.ln2_s"], params[f"{i}.ln2_b"])
        x = x + torch.nn.functional.gelu(h @ params[f"{i}.mlp_in"], approximate="tanh") @ params[f"{i}.mlp_out"]
    x = torch.nn.functional.layer_norm(x, (C,), params["lnf_s"], params["lnf_b"])
    logits = x @ params["out_kernel"] + params["out_bias"]
    return torch.nn.functional.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))


# foreach: one kernel per update step over all parameters, as a careful user sets it on the CPU
# (this PyTorch's default there is a loop over the parameters; on CUDA foreach is the default).
opt = torch.optim.AdamW(params.values(), lr=1e-3, weight_decay=0.01,
                        foreach=True if DEVICE == "cpu" else None)
times = []
for step in range(23):
    ids = torch.randint(0, V, (B, T))
    start = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    with (torch.autocast(DEVICE, dtype=torch.bfloat16) if AUTOCAST == "bf16"
          else contextlib.nullcontext()):
        loss = loss_fn(ids, ids.roll(-1, 1))
    loss.backward()
    opt.step()
    if DEVICE == "cuda":
        torch.cuda.synchronize()
    if step >= 3:
        times.append(time.perf_counter() - start)
times.sort()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
if DEVICE == "cuda":
    peak = torch.cuda.max_memory_allocated()
    resident_before = 0
print(B * T / times[len(times) // 2], peak - resident_before)
