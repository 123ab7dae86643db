"""The MLP of benchmarks/mlp_benchmark.cpp (784-512-512-10, ReLU, softmax cross-entropy) in
PyTorch, to time its training step in the same run as Loom's. Arguments: batch size and
optimizer ("sgd": momentum 0.9, or "adamw"), both with foreach=True (one kernel per update
step over all parameters: 1.4x to 3x faster than the default loop on this PyTorch). Prints
one line: samples per second, the median of STEPS steps (a third argument, default 50) after 10
of warm-up."""
import sys
import time

import torch

torch.set_num_threads(2)
torch.manual_seed(0)
batch, optimizer = int(sys.argv[1]), sys.argv[2]
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 50
model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                            torch.nn.ReLU(), torch.nn.Linear(512, 10))
if optimizer == "sgd":
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=True)
else:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, foreach=True)
x = torch.randn(batch, 784)
y = torch.randint(0, 10, (batch,))
times = []
for step in range(10 + steps):
    start = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
    if step >= 10:
        times.append(time.perf_counter() - start)
times.sort()
print(batch / times[len(times) // 2])
