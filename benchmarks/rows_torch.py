"""PyTorch's own fused CPU kernels for a layer norm, the cross-entropy loss and the GELU (tanh
form), forward and backward, and its transposing copy, to time them in the same run as Loom's
(benchmarks/jit_benchmarks.cpp). Arguments: "layernorm", "xent", "gelu" or "transpose", the
rows, the row width (features, or the vocabulary), repetitions, and for "transpose" the batch
(the [batch, rows, width] tensor's last two dims swapped). Prints one line: the median seconds
of a forward and backward (a transpose), after 3 of warm-up."""
import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(2)
torch.manual_seed(0)
kind, rows, width, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
batch = int(sys.argv[5]) if len(sys.argv) > 5 else 1
x = torch.rand(batch, rows, width).squeeze(0) * 2 - 1
if kind == "transpose":
    def step():
        x.transpose(-1, -2).contiguous()
elif kind == "layernorm":
    x.requires_grad_(True)
    scale = torch.ones(width, requires_grad=True)
    bias = torch.zeros(width, requires_grad=True)
    weights = torch.rand(rows, width)

    def step():
        (F.layer_norm(x, (width,), scale, bias) * weights).sum().backward()
elif kind == "gelu":
    x.requires_grad_(True)
    weights = torch.rand(rows, width)

    def step():
        (F.gelu(x, approximate="tanh") * weights).sum().backward()
else:
    x.requires_grad_(True)
    targets = torch.randint(0, width, (rows,))

    def step():
        F.cross_entropy(x, targets).backward()

times = []
for i in range(3 + reps):
    start = time.perf_counter()
    x.grad = None
    step()
    if i >= 3:
        times.append(time.perf_counter() - start)
times.sort()
print(times[len(times) // 2])
