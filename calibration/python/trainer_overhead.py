#!/usr/bin/env python3
"""What a Python trainer pays per step beyond the LibTorch kernels p2psim calibrates (docs/accuracy.md,
"Biggest known sources of error"). Not a calibration p2psim reads: a measurement of the gap, on one thread.

Trains the network of Ray's torch_benchmark.py (PyTorch's Quickstart MLP, = p2psim's quickstart_mlp) on
Fashion-MNIST with batches of 16, as each of its 4 workers does, and times per step:
  load_only   the DataLoader alone (16 ToTensor conversions and a collate);
  step_only   forward, loss, zero_grad, backward and an SGD step on one premade batch;
  full        both, as the benchmark runs them.
Needs Debian's python3-torch, python3-torchvision and dataset-fashion-mnist (not installed by scripts/setup.sh):
  FASHION_MNIST=/usr/share/datasets/fashion-mnist /usr/bin/python3 calibration/python/trainer_overhead.py
"""
import gzip
import os
import shutil
import statistics
import sys
import tempfile
import time

import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import datasets
from torchvision.transforms import ToTensor

BATCH, STEPS, REPEATS = 16, 938, 5  # one worker's epoch of Ray's benchmark


class QuickstartMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.stack = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                   nn.Linear(512, 10), nn.ReLU())

    def forward(self, x):
        return self.stack(self.flatten(x))


def fashion_mnist(source_dir, root):
    """torchvision's FashionMNIST reads raw/*-ubyte under root/FashionMNIST; Debian ships them gzipped."""
    raw = os.path.join(root, "FashionMNIST", "raw")
    os.makedirs(raw)
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte"):
        with gzip.open(os.path.join(source_dir, name + ".gz"), "rb") as src, open(os.path.join(raw, name), "wb") as dst:
            shutil.copyfileobj(src, dst)
    return datasets.FashionMNIST(root=root, train=True, download=False, transform=ToTensor())


def seconds_per_step(kind, data, model, loss_fn, optimizer):
    loader = DataLoader(data, batch_size=BATCH)
    premade = next(iter(loader))
    batches = loader if kind != "step_only" else (premade for _ in range(STEPS))
    start = time.perf_counter()
    for _, (x, y) in zip(range(STEPS), batches):
        if kind == "load_only":
            continue
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return (time.perf_counter() - start) / STEPS


def main():
    torch.set_num_threads(1)  # the benchmark's workers ran with OMP_NUM_THREADS=1
    torch.manual_seed(1)
    source = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
    with tempfile.TemporaryDirectory() as root:
        data = fashion_mnist(source, root)
        model = QuickstartMlp()
        loss_fn, optimizer = nn.CrossEntropyLoss(), torch.optim.SGD(model.parameters(), lr=1e-3)
        times = {kind: [] for kind in ("load_only", "step_only", "full")}
        for _ in range(REPEATS):
            for kind in times:
                times[kind].append(seconds_per_step(kind, data, model, loss_fn, optimizer))
    print(f"torch {torch.__version__}, batch {BATCH}, {STEPS} steps, median of {REPEATS}:")
    for kind, values in times.items():
        print(f"  {kind:9s} {statistics.median(values) * 1e3:.3f} ms a step "
              f"(runs {', '.join(f'{v * 1e3:.3f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
