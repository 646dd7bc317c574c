#!/usr/bin/env python3
"""Times a PyTorch trainer's input pipeline on this machine: torchvision's dataset step for one sample (a uint8
image turned into a PIL image, as torchvision's MNIST, Fashion-MNIST and CIFAR datasets do in __getitem__), the
ToTensor transform, and the DataLoader's default collate of a batch, in the main process (num_workers=0), on one
thread. Writes calibration/kernels/input_pipeline.csv (kernel "input_pipeline", model "to_tensor"), which an
experiment charges per step with workload/@input_pipeline="to_tensor" (docs/experiment_schema.md).

Needs Debian's python3-torch and python3-torchvision (not installed by scripts/setup.sh: the shipped CSV is what
p2psim reads). Run on an otherwise idle machine; about 5 minutes:
  /usr/bin/python3 calibration/python/input_pipeline.py [--out calibration/kernels/input_pipeline.csv]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.transforms import ToTensor

from cpu_identity import cpu_identity

SHAPES = ("1x28x28", "3x32x32", "3x21x21", "3x29x29", "3x224x224")  # the shipped experiments' inputs
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
REPEATS = 5
BUDGET_S = 1.0  # timed work per sample, at least: small batches are timed over many of them


class Images(Dataset):
    """As torchvision's datasets hold and serve them: one channel as MNIST and Fashion-MNIST (a uint8 torch tensor,
    .numpy() then a PIL image of mode L per item), three as CIFAR-10 (a uint8 numpy array, HWC, a PIL image); then
    the transform, and the label as an int."""

    def __init__(self, shape, count, seed):
        channels, height, width = (int(v) for v in shape.split("x"))
        rng = np.random.default_rng(seed)
        if channels == 1:
            self.data = torch.from_numpy(rng.integers(0, 256, size=(count, height, width), dtype=np.uint8))
        else:
            self.data = rng.integers(0, 256, size=(count, height, width, channels), dtype=np.uint8)
        self.labels = torch.from_numpy(rng.integers(0, 10, size=count))
        self.one_channel = channels == 1
        self.transform = ToTensor()

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.labels[index])
        img = Image.fromarray(img.numpy(), mode="L") if self.one_channel else Image.fromarray(img)
        return self.transform(img), target


def seconds_per_batch(dataset, batch):
    """One timed sample: as many batches as fill BUDGET_S (at least one), the mean per batch."""
    loader = DataLoader(dataset, batch_size=batch, shuffle=False)
    next(iter(loader))  # warm-up
    batches, start = 0, time.perf_counter()
    while True:
        for _ in loader:
            batches += 1
            if time.perf_counter() - start >= BUDGET_S:
                return (time.perf_counter() - start) / batches


# As run_shipped_calibration.sh times the steps: glibc keeps freed memory mapped, so that a batch's tensors do not
# cost this host's page faults (about 22 us each on the shipped calibration machine, calibration/README.md).
ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "4294967296",
             "MALLOC_TOP_PAD_": "536870912"}


def main():
    if any(os.environ.get(k) != v for k, v in ALLOCATOR.items()):  # glibc reads them at start: start again
        os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **ALLOCATOR})
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="calibration/kernels/input_pipeline.csv")
    args = parser.parse_args()
    torch.set_num_threads(1)
    started = time.time()
    rows = []
    for shape in SHAPES:
        dataset = Images(shape, 2048, seed=1)
        for batch in BATCHES:
            for repeat in range(REPEATS):
                rows.append((shape, batch, repeat, seconds_per_batch(dataset, batch)))
            print(f"{shape} batch {batch}: median "
                  f"{statistics.median(r[3] for r in rows[-REPEATS:]) * 1e3:.3f} ms", file=sys.stderr)
    with open(args.out, "w") as f:
        f.write("kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds\n")
        for shape, batch, repeat, seconds in rows:
            values = 1
            for v in shape.split("x"):
                values *= int(v)  # elements: float32 values one sample becomes
            f.write(f"input_pipeline,to_tensor,10,{shape},{batch},1,0,{values},{4 * values},{repeat},{seconds:.9g}\n")
    meta = {
        "csv": os.path.basename(args.out),
        "command": "python3 calibration/python/input_pipeline.py " + " ".join(sys.argv[1:]),
        "date_utc": datetime.datetime.utcfromtimestamp(started).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu_identity": cpu_identity(),
        "logical_cores": os.cpu_count(),
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "load_average_1min_at_end": os.getloadavg()[0],
        "allocator": "glibc malloc, " + ", ".join(f"{k}={v}" for k, v in ALLOCATOR.items()),
        "wall_time_s": round(time.time() - started, 1),
        "what": "seconds per batch of torchvision's dataset step (uint8 -> PIL image), ToTensor and the default "
                "collate, main process, one thread; each sample the mean over at least "
                f"{BUDGET_S} s of batches, {REPEATS} samples per shape and batch size",
    }
    with open(args.out + ".meta.json", "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
