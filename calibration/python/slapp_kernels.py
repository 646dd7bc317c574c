#!/usr/bin/env python3
"""Times two of the CPU-bound functions of pacslab's SLAppMdlOpt performance profile on one core of this machine:
f1, the factorial of 28,000 by a Python loop of big-integer products, and f6, pi to 10,000 digits with Python's
decimal module (libmpdec), as optimization/profile-functions/functions/f1 and f6/lambda_function.py at
https://github.com/pacslab/SLAppMdlOpt/tree/d9fbd2e5681cb24046ad908ced50c32cfb8295be do (written again here from
them: each is a dozen lines). SLAppMdlOpt ran them on AWS Lambda (python3.7, x86_64) at 43 memory sizes from 128 to
10,240 MB in 2022-01; the time here, brought to the calibration CPU, is the stand-in step of the validation cases
validation/slappmdlopt/slapp_{factorial,decimal_pi}_*. Both are one thread of scalar work: integer limbs in CPython's
long objects and in libmpdec, no vector kernels. Its other CPU functions, f2 and f5, are PBKDF2 with HMAC-SHA-512 in
OpenSSL, whose time depends on the OpenSSL version (1.0.2 in Lambda's python3.7 of 2022, 3.0 here), so they are not
stand-ins.

Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py) that runs the kernel once,
as a warm call does (its modules imported):
  /usr/bin/python3 calibration/python/slapp_kernels.py --kernel factorial|decimal_pi \
      --zip-data DIR/300.utilities/311.compression/acmart-master [--out FILE] [--samples 61] [--quiet-zip-s 0.2171]
This host need not be the calibration CPU: each sample is paired with one of SeBS's zip kernel
(calibration/python/paired_stand_in.py), and the file's last line is the median of the pairs' ratios, kernel over zip.
"""
import argparse
import platform
import sys

import paired_stand_in

# Each kernel prints its seconds and a check that it computed what was asked: 28,000!'s bit length (math.factorial
# gives the same: the test holds them together), and pi's first eleven digits.
CHILDREN = {
    "factorial": """
import time
def factorial(n):
    result = 1
    for i in range(1, n + 1):
        result *= i
    return result
begin = time.perf_counter()
value = factorial(28000)
print(time.perf_counter() - begin, value.bit_length())
""",
    "decimal_pi": """
import time
from decimal import Decimal, getcontext
def pi(digits):
    getcontext().prec = digits
    getcontext().prec += 2
    three = Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    getcontext().prec -= 2
    return +s
begin = time.perf_counter()
value = pi(10000)
print(time.perf_counter() - begin, str(value)[:12], len(str(value)))
""",
}
TITLES = {
    "factorial": "SLAppMdlOpt's f1 (the factorial of 28,000 by a Python loop of big-integer products)",
    "decimal_pi": "SLAppMdlOpt's f6 (pi to 10,000 digits with Python's decimal module)",
}
DEFAULT_OUT = "calibration/kernels/slapp_{kernel}.txt"


def write_pairs_file(path, kernel, pairs, retried):
    """paired_stand_in.write_pairs_file with this kernel's title. Returns its last line."""
    return paired_stand_in.write_pairs_file(
        path, kernel, TITLES[kernel], "slapp_kernels.py",
        f"Python {platform.python_version()} here (the benchmark ran on Lambda's python3.7, 2020-01 and 2022-01)", pairs, retried)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernel", required=True, choices=sorted(CHILDREN))
    paired_stand_in.add_common_options(parser, out=None)
    args = parser.parse_args()
    if args.out is None:
        args.out = DEFAULT_OUT.format(kernel=args.kernel)
    error = paired_stand_in.option_error(args)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return paired_stand_in.run(args, CHILDREN[args.kernel],
                               lambda pairs, retried: write_pairs_file(args.out, args.kernel, pairs, retried))


if __name__ == "__main__":
    sys.exit(main())
