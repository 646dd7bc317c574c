#!/usr/bin/env python3
"""Times the imports of the paper's function on one core of this machine: the CPU work its runtime does in a cold
start (INIT) before the handler runs. Writes calibration/kernels/function_imports.txt, the source of the profile's
function_service/cold_start/@runtime_import_s_on_reference_cpu, which p2psim scales to a function's CPU like any
other work measured here (its speed factor, then its CPU share below one vCPU).

The modules are those at the top of the paper's Lambda function (MODULES below, in its order; its handler creates
its boto3 clients and broker connection per call, not at import). Until 2026-12-05 only `import torch` was timed,
which left out torchvision, boto3 and pika (about a quarter of the whole).

Each sample is a fresh interpreter pinned to one core that times its own imports (the interpreter's start is not
part of it), measured again while other processes take CPU (calibration/python/pinned_sample.py). One untimed run
first, so that the libraries are in the page cache: the samples are the CPU's work, not this machine's disk.

Needs Debian's python3-torch, python3-torchvision, python3-boto3, python3-pika and python3-dill. Run on an
otherwise idle machine; about 30 seconds:
  /usr/bin/python3 calibration/python/function_imports.py [--out calibration/kernels/function_imports.txt] [--samples 41]
"""
import argparse
import os
import sys

from pinned_sample import quiet_sample, write_timing_file

# https://github.com/AmineBarrak/PeerToPeerServerless/blob/4be5e4a67afaf607cffdbd81c8b0ae66e537018e/With_Serverless/Lambda_serverless/lambda_function.py
MODULES = ("uuid", "random", "pika", "ssl", "torch", "torch.optim", "torch.nn", "torch.nn.functional", "torchvision",
           "boto3", "dill", "json")
CHILD = ("import importlib, time\n"
         "t = time.perf_counter()\n"
         f"for name in {MODULES!r}: importlib.import_module(name)\n"
         "import torch\n"
         "print(time.perf_counter() - t, torch.__version__)\n")


def one_sample(core):
    """(seconds, torch version, foreign CPU share, attempts measured again) of one pinned run of the imports."""
    stdout, foreign, again = quiet_sample(CHILD, core)
    seconds, version = stdout.split()
    return float(seconds), version, foreign, again


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="calibration/kernels/function_imports.txt")
    parser.add_argument("--samples", type=int, default=41)
    args = parser.parse_args()
    core = max(os.sched_getaffinity(0))
    one_sample(core)  # untimed: the page cache
    samples, retried = [], 0
    for _ in range(args.samples):
        seconds, version, foreign, again = one_sample(core)
        retried += again
        samples.append((seconds, foreign))
    print(write_timing_file(
        args.out, "the paper's function's imports on one core of the calibration CPU: calibration/python/function_imports.py",
        f"modules: {' '.join(MODULES)}; torch {version}, Python {sys.version.split()[0]}, core {core}, page cache warm",
        samples, retried))
    return 0


if __name__ == "__main__":
    sys.exit(main())
