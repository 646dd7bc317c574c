#!/usr/bin/env python3
"""Times gumeter's flops benchmark on one core of this machine: numpy multiplies two 1,024 x 1,024 float64 matrices
(np.arange(1024**2).reshape(1024, 1024), both) ten times, each product summed with np.sum, and the loop alone is
timed, as gumeter/benchmarks/flops/flops.py (compute_flops) at
https://github.com/GEizaguirre/gumeter/tree/c0e677438001e2fe1381a693f76080e2307550b0 does (written again here from
it: a dozen lines). gumeter ran it on AWS Lambda (x86_64, 1,769 MB: one vCPU's share, 2025-07-21) in 1,000 calls; the
time here, against that, is the x86 Lambda's speed on vector work (a BLAS GEMM), the calibration case
validation/calibration/gumeter_dgemm_1769mb.case.xml and function_service/@cpu_speed_factor_x86 in
platforms/aws_us_east_1.xml.

One thread here (OpenBLAS's, Debian's numpy); on Lambda numpy's OpenBLAS ran two threads on the two cores a 1,769 MB
function sees, within one vCPU's quota (the calls' CPU use summed to 101 %), so both are one vCPU of work.

Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py) that runs the kernel once,
as a call does (numpy imported, the matrices built outside the timer):
  /usr/bin/python3 calibration/python/gumeter_flops.py \
      --zip-data DIR/300.utilities/311.compression/acmart-master [--out FILE] [--samples 61] [--quiet-zip-s 0.2171]
This host need not be the calibration CPU: each sample is paired with one of SeBS's zip kernel
(calibration/python/paired_stand_in.py), and the file's last line is the median of the pairs' ratios, kernel over zip.
The zip carries scalar work to the calibration CPU and a LibTorch step's correction carries vector work
(docs/research/cpu_speed_factors.md, sections 8 and 10).
"""
import argparse
import importlib.metadata
import sys

import paired_stand_in

MATRIX_ORDER = 1024
LOOPS = 10

# The benchmark's kernel: prints the loop's seconds, the matrices' order and the loop count, and the last product's
# sum (a check that it multiplied what gumeter did: sum_ij (AB)_ij = (column sums of A) . (row sums of B)).
CHILD = f"""
import os
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"
import time
import numpy as np
n, loops = {MATRIX_ORDER}, {LOOPS}
A = np.arange(n**2, dtype=np.float64).reshape(n, n)
B = np.arange(n**2, dtype=np.float64).reshape(n, n)
begin = time.perf_counter()
for i in range(loops):
    total = np.sum(np.dot(A, B))
print(time.perf_counter() - begin, n, loops, repr(float(total)))
"""
TITLE = (f"gumeter's flops kernel ({LOOPS} x np.dot of two {MATRIX_ORDER} x {MATRIX_ORDER} float64 matrices, each "
         "summed, one OpenBLAS thread)")


def numpy_version():
    """numpy's version as installed for this interpreter, without importing it (the timed children import their own)."""
    try:
        return importlib.metadata.version("numpy")
    except importlib.metadata.PackageNotFoundError:
        return "(not found)"


def write_pairs_file(path, pairs, retried):
    """paired_stand_in.write_pairs_file with this kernel's title. Returns its last line."""
    return paired_stand_in.write_pairs_file(
        path, "dgemm", TITLE, "gumeter_flops.py",
        f"numpy {numpy_version()} here with Debian's OpenBLAS (the benchmark ran numpy from PyPI, unpinned, on "
        "Python 3.10 in a python:3.10-slim-buster image on Lambda, 2025-07)", pairs, retried)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    paired_stand_in.add_common_options(parser, out="calibration/kernels/gumeter_flops.txt")
    args = parser.parse_args()
    error = paired_stand_in.option_error(args)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return paired_stand_in.run(args, CHILD, lambda pairs, retried: write_pairs_file(args.out, pairs, retried))


if __name__ == "__main__":
    sys.exit(main())
