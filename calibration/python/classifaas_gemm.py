#!/usr/bin/env python3
"""Times ClassiFaaS's gemm benchmark on one core of this machine: Node.js multiplies two n x n matrices of numbers
held as arrays of arrays, m[i][j] = (i + 1)(j + 1) + seed (seeds 42 and 99), with the naive i-j-k loop, the
multiplication alone timed with performance.now(), as deployment/shared/benchmarks/gemm.js at
https://github.com/Persists/ClassiFaaS-Benchmark/tree/4922644606048ffd73d2ceb6787705fba8b95bfb does (written again
here from its description, the same arrays built the same way: V8's array kinds set the speed). ClassiFaaS ran it on
AWS Lambda (nodejs20.x, x86_64) at 128, 512 and 2,048 MB in 2025-11 with n = 400; the time here, brought to the
calibration CPU, is the stand-in step of the validation cases validation/classifaas/classifaas_gemm_*.

Each sample is a fresh Node process, one call, as a Lambda instance's first call is (its later calls were no faster:
611 and 615 ms at 2,048 MB), started from a fresh interpreter pinned to one core (calibration/python/pinned_sample.py):
  /usr/bin/python3 calibration/python/classifaas_gemm.py --zip-data DIR/300.utilities/311.compression/acmart-master \
      [--size 400] [--out calibration/kernels/classifaas_gemm.txt] [--samples 61] [--quiet-zip-s 0.2171]
This host need not be the calibration CPU: each sample is paired with one of SeBS's zip kernel
(calibration/python/paired_stand_in.py), and the file's last line is the median of the pairs' ratios, gemm over zip.
Needs Debian's nodejs.
"""
import argparse
import shutil
import subprocess
import sys

import paired_stand_in

# The benchmark's kernel, in Node.js: prints the multiplication's seconds and the product's last entry (a check that
# it multiplied n x n matrices: a bad n would time nothing, in no time).
GEMM_JS = """
const { performance } = require("perf_hooks");
const n = Number(process.argv[1]);
if (!Number.isInteger(n) || n < 1) throw new Error("the matrices' order must be a positive integer, not " + process.argv[1]);
function filled(seed) {
  const rows = [];
  for (let i = 0; i < n; i++) {
    rows[i] = [];
    for (let j = 0; j < n; j++) rows[i][j] = (i + 1) * (j + 1) + seed;
  }
  return rows;
}
function product(a, b) {
  const c = [];
  for (let i = 0; i < a.length; i++) {
    c[i] = [];
    for (let j = 0; j < b[0].length; j++) {
      c[i][j] = 0;
      for (let k = 0; k < a[0].length; k++) c[i][j] += a[i][k] * b[k][j];
    }
  }
  return c;
}
const a = filled(42), b = filled(99);
const begin = performance.now();
const c = product(a, b);
console.log(((performance.now() - begin) / 1000).toFixed(6), c[n - 1][n - 1]);
"""

# The pinned child: Node's output, the kernel's seconds.
CHILD = """
import subprocess
print(subprocess.run([{node!r}, "-e", {js!r}, "{size}"], check=True, capture_output=True, text=True).stdout)
"""


def node_version(node):
    return subprocess.run([node, "--version"], check=True, capture_output=True, text=True).stdout.strip()


def write_pairs_file(path, size, version, pairs, retried):
    """paired_stand_in.write_pairs_file with this kernel's title. Returns its last line."""
    return paired_stand_in.write_pairs_file(
        path, "gemm",
        f"ClassiFaaS's gemm (Node.js, {size} x {size}, the naive i-j-k loop over arrays of arrays)", "classifaas_gemm.py",
        f"Node.js {version} (ClassiFaaS's: Lambda's nodejs20.x of 2025-11)", pairs, retried)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=400, help="the matrices' order (ClassiFaaS's: 400)")
    paired_stand_in.add_common_options(parser, out="calibration/kernels/classifaas_gemm.txt")
    args = parser.parse_args()
    error = paired_stand_in.option_error(args, [(args.size < 1, f"--size {args.size}: at least 1")])
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        print("error: Node.js is missing (Debian: apt-get install nodejs)", file=sys.stderr)
        return 2
    return paired_stand_in.run(args, CHILD.format(node=node, js=GEMM_JS, size=args.size), lambda pairs, retried:
                               write_pairs_file(args.out, args.size, node_version(node), pairs, retried))


if __name__ == "__main__":
    sys.exit(main())
