#!/usr/bin/env python3
"""A check, not a calibration (docs/research/cpu_speed_factors.md, section 10): does a second numpy kernel from the
runs that set Lambda x86's vector factor fall behind this host as much as the GEMM did? gumeter's Mandelbrot
(gumeter/benchmarks/mandelbrot/mandelbrot.py at the commit below, written again here: each block 301 iterations of
element-wise complex64 arithmetic with boolean masks), its first stage's nine 256 x 256 blocks, each timed here on one
pinned core against the median of its warm calls on Lambda (worker_func_exec_time, five replicas).
  /usr/bin/python3 docs/research/gumeter_mandelbrot_check.py MIRROR
MIRROR: a git clone (bare or not) of https://github.com/GEizaguirre/gumeter holding the commit below."""
import json
import os
import statistics
import subprocess
import sys
from math import sqrt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "calibration", "python"))
from pinned_sample import quiet_sample  # noqa: E402  (a sample measured again while other processes take the CPU)

COMMIT = "c0e677438001e2fe1381a693f76080e2307550b0"
X_TARGET, Y_TARGET = -0.7436438870, 0.1318259042  # mandelbrot.py's XTARGET, YTARGET
WIDTH, DELTA, MAXITER, BLOCKS = 768, 1.0, 300, 9  # its first stage
CHILD = '''
import os
os.environ["OPENBLAS_NUM_THREADS"] = "1"
import time
import numpy as np
limit, maxiter, n = %r, %d, %d
begin = time.perf_counter()
rx = np.linspace(limit[0], limit[1], n)
ry = np.linspace(limit[2], limit[3], n)
c = rx + ry[:, None] * 1j
output = np.zeros((n, n))
z = np.zeros((n, n), np.complex64)
for it in range(maxiter + 1):
    notdone = np.less(z.real * z.real + z.imag * z.imag, 4.0)
    output[notdone] = it
    z[notdone] = z[notdone] ** 2 + c[notdone]
print(time.perf_counter() - begin)
'''


def main(mirror):
    per_row = int(sqrt(BLOCKS))
    step = 2 * DELTA / per_row
    size = WIDTH // per_row
    limits = [(X_TARGET - DELTA + i * step, X_TARGET - DELTA + (i + 1) * step,
               Y_TARGET - DELTA + j * step, Y_TARGET - DELTA + (j + 1) * step)
              for i in range(per_row) for j in range(per_row)]
    on_lambda = {k: [] for k in range(BLOCKS)}
    for replica in range(5):
        data = json.loads(subprocess.check_output(
            ["git", "-C", mirror, "show", f"{COMMIT}:benchmark_results/mandelbrot_aws_lambda_replica{replica}.json"]))
        if len(data["stage0"]) != BLOCKS:
            sys.exit(f"replica {replica}: {len(data['stage0'])} calls in stage0, expected {BLOCKS}")
        for k, stats in enumerate(data["stage0"]):  # the futures' order, which is the blocks' order
            if not stats["worker_cold_start"]:
                on_lambda[k].append(stats["worker_func_exec_time"])
    core = max(os.sched_getaffinity(0))
    here = {k: [] for k in range(BLOCKS)}
    for _ in range(5):
        for k in range(BLOCKS):
            here[k].append(float(quiet_sample(CHILD % (limits[k], MAXITER, size), core)[0]))
    ratios = []
    for k in range(BLOCKS):
        lam, loc = statistics.median(on_lambda[k]), statistics.median(here[k])
        ratios.append(loc / lam)
        print(f"block {k}: Lambda {lam:.4f} s ({len(on_lambda[k])} warm calls), here {loc:.4f} s, here/Lambda {loc / lam:.3f}")
    print(f"median here/Lambda over the blocks {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
