#!/usr/bin/env python3
"""Times `import torch` on one core of this machine: the CPU work a PyTorch function's runtime does in its cold
start (INIT) before the handler runs. Writes calibration/kernels/import_torch.txt, the source of the profile's
function_service/cold_start/@runtime_import_s_on_reference_cpu, which p2psim scales to a function's CPU like any
other work measured here (its speed factor, then its CPU share below one vCPU).

Each sample is a fresh interpreter pinned to one core that times its own `import torch` (the interpreter's start
is not part of it). One untimed run first, so that the library is in the page cache: the samples are the CPU's
work, not this machine's disk. A sample during which other processes took more than 10 % of the CPUs (from
/proc/stat, less the child's own CPU time) is measured again, up to 10 times.

Needs Debian's python3-torch (the LibTorch p2psim's calibration uses). Run on an otherwise idle machine; about
20 seconds:
  /usr/bin/python3 calibration/python/import_torch.py [--out calibration/kernels/import_torch.txt] [--samples 21]
"""
import argparse
import datetime
import os
import resource
import statistics
import subprocess
import sys

from cpu_identity import cpu_identity

MAX_FOREIGN_SHARE = 0.10
CHILD = "import time; t = time.perf_counter(); import torch; print(time.perf_counter() - t, torch.__version__)"


def cpu_ticks():
    """(busy, total) jiffies of all CPUs."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def one_sample(core):
    """(seconds, torch version, foreign CPU share) of one pinned interpreter's `import torch`."""
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    own_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy_before, total_before = cpu_ticks()
    out = subprocess.run([sys.executable, "-c", CHILD], check=True, capture_output=True, text=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    busy_after, total_after = cpu_ticks()
    own_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_ticks = (own_after.ru_utime + own_after.ru_stime - own_before.ru_utime - own_before.ru_stime) * ticks_per_s
    total = max(1, total_after - total_before)
    foreign = max(0.0, (busy_after - busy_before - own_ticks) / total)
    seconds, version = out.stdout.split()
    return float(seconds), version, foreign


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="calibration/kernels/import_torch.txt")
    parser.add_argument("--samples", type=int, default=21)
    args = parser.parse_args()
    core = max(os.sched_getaffinity(0))
    one_sample(core)  # untimed: the page cache
    samples, retried = [], 0
    for _ in range(args.samples):
        for attempt in range(11):
            seconds, version, foreign = one_sample(core)
            if foreign <= MAX_FOREIGN_SHARE or attempt == 10:
                break
            retried += 1
        samples.append((seconds, foreign))
    values = sorted(s for s, _ in samples)
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    with open(args.out, "w") as f:
        f.write("# `import torch` on one core of the calibration CPU: calibration/python/import_torch.py, "
                f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\n")
        f.write(f"# cpu_identity: {cpu_identity()}\n# torch {version}, Python {sys.version.split()[0]}, core {core}, "
                f"page cache warm; {retried} samples measured again for other processes' CPU\n")
        f.write("# seconds foreign_cpu_share\n")
        for seconds, foreign in samples:
            f.write(f"{seconds:.4f} {foreign:.3f}\n")
        f.write(f"median {statistics.median(values):.3f} s (p10 {deciles[0]:.3f}, p90 {deciles[-1]:.3f}, "
                f"{len(values)} samples)\n")
    print(open(args.out).read().splitlines()[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
