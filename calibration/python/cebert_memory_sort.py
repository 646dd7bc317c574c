#!/usr/bin/env python3
"""Times the memory-intensive workload of C. Ebert's AWS Lambda ARM vs x86 benchmark on one core of this machine:
13,107,200 random 30-bit integers into an array of signed 64-bit integers (100 MiB), sorted into a new array, and
the SHA-256 of the first 1,000, as lambdas/python/memory-intensive/handler.py's _memory_sort at
https://github.com/cebert/aws-lambda-performance-benchmarks/tree/c8c9c66 does (written again here from its
description). The benchmark ran it on Lambda, Python 3.11 among others, x86_64 and arm64, at 1,024 to 10,240 MB in
2025-11; the time here, brought to the calibration CPU, is the stand-in step of the validation cases
validation/cebert/cebert_sort_*.

Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py) that runs the workload
once, as a warm call does (its modules imported; each call allocates its own arrays):
  /usr/bin/python3 calibration/python/cebert_memory_sort.py --zip-data DIR/300.utilities/311.compression/acmart-master \
      [--mib 100] [--out calibration/kernels/cebert_memory_sort.txt] [--samples 21] [--quiet-zip-s 0.2171]
This host need not be the calibration CPU: each sample is paired with one of SeBS's zip kernel
(calibration/python/paired_stand_in.py), and the file's last line is the median of the pairs' ratios, sort over zip.
A sample takes about 8.5 s here, so the default is 21 pairs.
"""
import argparse
import platform
import sys

import paired_stand_in

# The benchmark's workload: prints its seconds and how many integers it sorted (a check that it sorted the array it
# was asked for).
CHILD = """
import array
import hashlib
import random
import time
count = {mib} * 1024 * 1024 // 8
begin = time.perf_counter()
data = array.array("q", (random.getrandbits(30) for _ in range(count)))
ordered = array.array("q", sorted(data))
digest = hashlib.sha256(ordered[:1000].tobytes()).hexdigest()
print(time.perf_counter() - begin, len(ordered), all(ordered[i] <= ordered[i + 1] for i in range(999)))
"""


def write_pairs_file(path, mib, pairs, retried):
    """paired_stand_in.write_pairs_file with this kernel's title. Returns its last line."""
    return paired_stand_in.write_pairs_file(
        path, "sort",
        f"C. Ebert's memory-intensive workload ({mib} MiB of random integers into an array, sorted)",
        "cebert_memory_sort.py",
        f"Python {platform.python_version()} (the benchmark's: Lambda's python3.11 of 2025-11)", pairs, retried)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=100, help="the array's size (the benchmark's: 100 MiB)")
    paired_stand_in.add_common_options(parser, out="calibration/kernels/cebert_memory_sort.txt", samples=21)
    args = parser.parse_args()
    error = paired_stand_in.option_error(args, [(args.mib < 1, f"--mib {args.mib}: at least 1")])
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return paired_stand_in.run(args, CHILD.format(mib=args.mib),
                               lambda pairs, retried: write_pairs_file(args.out, args.mib, pairs, retried))


if __name__ == "__main__":
    sys.exit(main())
