#!/usr/bin/python3
"""PyTorch DDP reference for `tapas bench run`: the zoo GPT trained data-parallel, eager mode.

The model mirrors core/zoo/zoo_transformer.cpp's GPT-2 (learned positions, pre-LayerNorm blocks,
packed QKV, causal mask, erf GELU MLP, tied LM head) and the step mirrors tapas-worker train-plan:
MSE of the logits against seeded targets, Adam, gradients all-reduced by DDP (gloo, 25 MB buckets,
overlapped with backward). Launch one process per rank under mpirun:

  mpirun -np 2 /usr/bin/python3 scripts/ddp_gpt_step.py --layers 2 --hidden 256 --heads 4 \
      --seq 64 --batch 8 --vocab 512 --steps 12 --warmup 2

Rank 0 prints one JSON line: {"median_step_ms": ..., "steps": [...], "ranks": N, "threads": T}.
Run it with Debian's /usr/bin/python3 (python3-torch).
"""
import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, hidden, heads, positions):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(hidden, eps=1e-5)
        self.c_attn = nn.Linear(hidden, 3 * hidden)
        self.c_proj = nn.Linear(hidden, hidden)
        self.ln_2 = nn.LayerNorm(hidden, eps=1e-5)
        self.c_fc = nn.Linear(hidden, 4 * hidden)
        self.mlp_proj = nn.Linear(4 * hidden, hidden)
        # A constant, not a buffer: gloo cannot broadcast bool tensors, and DDP broadcasts buffers.
        self.bias = torch.tril(torch.ones(positions, positions, dtype=torch.bool)).view(1, 1, positions, positions)

    def forward(self, x):
        b, s, h = x.shape
        d = h // self.heads
        q, k, v = self.c_attn(self.ln_1(x)).split(h, dim=2)
        q = q.view(b, s, self.heads, d).transpose(1, 2)
        k = k.view(b, s, self.heads, d).permute(0, 2, 3, 1)
        v = v.view(b, s, self.heads, d).transpose(1, 2)
        scores = torch.matmul(q, k) / math.sqrt(d)
        scores = torch.where(self.bias[:, :, :s, :s], scores, torch.tensor(torch.finfo(scores.dtype).min))
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, s, h)
        mid = x + self.c_proj(ctx)
        return mid + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(mid))))


class Gpt(nn.Module):
    def __init__(self, layers, hidden, heads, vocab, positions):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(positions, hidden)
        self.h = nn.ModuleList(Block(hidden, heads, positions) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return torch.matmul(self.ln_f(x), self.wte.weight.t())  # tied head


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in [("layers", 2), ("hidden", 256), ("heads", 4), ("seq", 64), ("batch", 8), ("vocab", 512),
                          ("steps", 12), ("warmup", 2), ("threads", 1)]:
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--lr", type=float, default=1e-3)
    a = p.parse_args()
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    if a.batch % world:
        sys.exit(f"ddp_gpt_step.py: --batch {a.batch} does not divide over {world} ranks")
    if a.steps <= a.warmup:
        sys.exit("ddp_gpt_step.py: --steps must exceed --warmup")
    torch.set_num_threads(a.threads)
    # A rendezvous file beside the job: every rank of one mpirun sees the same job id.
    job = os.environ.get("OMPI_MCA_ess_base_jobid", os.environ.get("PMIX_NAMESPACE", "local")).replace("/", "_")
    store = os.path.join(tempfile.gettempdir(), f"tapas-ddp-{job}")
    dist.init_process_group("gloo", init_method="file://" + store, rank=rank, world_size=world)
    torch.manual_seed(1234)
    positions = max(1024, a.seq)
    model = Gpt(a.layers, a.hidden, a.heads, a.vocab, positions)
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(ddp.parameters(), lr=a.lr)
    local = a.batch // world
    gen = torch.Generator().manual_seed(99 + rank)
    times = []
    for step in range(a.steps):
        ids = torch.randint(0, a.vocab, (local, a.seq), generator=gen)
        target = torch.randn(local, a.seq, a.vocab, generator=gen)
        dist.barrier()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=False)
        logits = ddp(ids)
        # Sum of squares over the global element count, as train-plan normalises its loss.
        loss = ((logits - target) ** 2).sum() / (a.batch * a.seq * a.vocab)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    dist.barrier()
    if rank == 0:
        measured = times[a.warmup:]
        print(json.dumps({"median_step_ms": statistics.median(measured) * 1e3,
                          "steps": [round(t * 1e3, 3) for t in times], "ranks": world,
                          "threads": torch.get_num_threads(), "torch": torch.__version__}))
    dist.destroy_process_group()
    if rank == 0 and os.path.exists(store):
        os.remove(store)


if __name__ == "__main__":
    main()
