"""The two-tower recommender of loom-train's model.kind = "two_tower" (frontend/train/
TwoTowerTask.cpp) in PyTorch, to time its training step in the same run as Loom's: user tower
(embedding -> linear -> swish -> linear), item tower (item, language, is_ebook, format,
publisher and decade embeddings with two numbers -> linear -> swish -> linear), dot-product
logit, binary cross-entropy with logits, AdamW (lr 3e-4, weight decay 1e-4, foreach).
Arguments: batch, embedding dim, hidden width, then the seven table sizes (users, items,
language, is_ebook, format, publisher, decade). Prints one line: examples per second (the
median of 50 steps after warm-up, on random ids)."""
import sys
import time

import torch

torch.set_num_threads(2)
torch.manual_seed(0)
batch, dim, hidden = (int(a) for a in sys.argv[1:4])
sizes = [int(a) for a in sys.argv[4:11]]


class Tower(torch.nn.Module):
    def __init__(self, inputs):
        super().__init__()
        self.first, self.second = torch.nn.Linear(inputs, hidden), torch.nn.Linear(hidden, dim)

    def forward(self, x):
        return self.second(torch.nn.functional.silu(self.first(x)))


tables = torch.nn.ModuleList(torch.nn.Embedding(n, dim) for n in sizes)
user_tower, item_tower = Tower(dim), Tower(dim * 6 + 2)
params = list(tables.parameters()) + list(user_tower.parameters()) + list(item_tower.parameters())
opt = torch.optim.AdamW(params, lr=3e-4, weight_decay=1e-4, foreach=True)
ids = [torch.randint(0, n, (batch,)) for n in sizes]
numbers = torch.rand(batch, 2)
labels = torch.randint(0, 2, (batch,)).float()
times = []
for step in range(60):
    start = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    user = user_tower(tables[0](ids[0]))
    item = item_tower(torch.cat([tables[k](ids[k]) for k in range(1, 7)] + [numbers], dim=1))
    logits = (user * item).sum(-1)
    torch.nn.functional.binary_cross_entropy_with_logits(logits, labels).backward()
    opt.step()
    if step >= 10:
        times.append(time.perf_counter() - start)
times.sort()
print(batch / times[len(times) // 2])
