#!/usr/bin/env python3
"""Times SeBS's 311.compression kernel on one core of this machine: `shutil.make_archive(..., 'zip')` of the
acmart-master directory (39 files, 10,063,841 bytes) as SeBS's function does it after downloading the directory to
its /tmp. SeBS timed the same call (`compute_time`) on AWS Lambda in 2020, so the two medians give the speed of a
Lambda x86 vCPU relative to the calibration CPU (calibration/python/lambda_cpu_speed.py), the source of the
profile's function_service/@cpu_speed_factor_x86.

The data: spcl/serverless-benchmarks-data at 6a17a460f289e166abb47ea6298fb939e80e8beb (the commit SeBS's artifact
pins), directory 300.utilities/311.compression/acmart-master. Get it with
  git clone https://github.com/spcl/serverless-benchmarks-data && git -C serverless-benchmarks-data checkout 6a17a46
The directory is copied once to a fresh temporary directory laid out as the function's (<tmp>/acmart-master/...);
one untimed run first, so that its files are in the page cache as a function's are right after their download.
Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py). Run on an otherwise
idle machine; about 30 seconds:
  /usr/bin/python3 calibration/python/sebs_zip_compression.py --data DIR/300.utilities/311.compression/acmart-master \
      [--out calibration/kernels/sebs_zip_compression.txt] [--samples 41]
"""
import argparse
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import zlib

from cpu_identity import cpu_identity
from pinned_sample import quiet_sample, write_timing_file

DATASET = "acmart-master"
DATASET_BYTES = 10063841  # SeBS's functions' measurement.download_size: the whole directory arrived

# SeBS's handler, from the download on: archive the download directory into itself, then (here) report and delete.
# zipfile is imported before the timer: shutil imports it lazily on the first make_archive, and SeBS's functions
# had it loaded (their cold and warm calls' medians are alike), so the import is no part of the timed work.
CHILD = """
import os, shutil, time, zipfile
download_path = os.getcwd()
t = time.perf_counter()
shutil.make_archive(os.path.join(download_path, {key!r}), 'zip', root_dir=download_path)
seconds = time.perf_counter() - t
archive = os.path.join(download_path, {key!r} + '.zip')
print(seconds, os.path.getsize(archive))
os.remove(archive)
""".format(key=DATASET)
# The same without zipfile imported first, as this script timed it until 2026-12-05: the timed call then also
# imports zipfile. With the import timed alone (CHILD_ZIPFILE_IMPORT, --lazy-import-ratio), it converts a timing file
# made that way: the import is a few milliseconds, too little to see reliably as the difference of two kernels' medians.
CHILD_LAZY_IMPORT = CHILD.replace("import os, shutil, time, zipfile", "import os, shutil, time")
assert CHILD_LAZY_IMPORT != CHILD, "CHILD's import line changed: CHILD_LAZY_IMPORT would time the same thing"
CHILD_ZIPFILE_IMPORT = """
import os, shutil, time
t = time.perf_counter()
import zipfile
print(time.perf_counter() - t)
"""


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


def write_lazy_import_ratio(path, core, download_path, pairs):
    """Times the kernel as it was timed until 2026-12-05 (zipfile imported inside the timer) and zipfile's import
    alone, alternately, `pairs` times each, and writes 1 - import / kernel: what a timing file made that way is
    multiplied by to leave the import out."""
    lazy, imports = [], []
    for _ in range(pairs):
        lazy.append(float(quiet_sample(CHILD_LAZY_IMPORT, core, cwd=download_path)[0].split()[0]))
        imports.append(float(quiet_sample(CHILD_ZIPFILE_IMPORT, core, cwd=download_path)[0].split()[0]))
    ratio = 1 - statistics.median(imports) / statistics.median(lazy)
    with open(path, "w") as f:
        f.write("# zipfile's import inside SeBS 311.compression's timer as this script timed it until 2026-12-05, timed "
                "alone and with the kernel, alternately on one core: calibration/python/sebs_zip_compression.py "
                f"--lazy-import-ratio, {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\n")
        f.write(f"# cpu_identity: {cpu_identity()}\n")
        f.write(f"# Python {sys.version.split()[0]}, core {core}, {pairs} pairs; the kernel with the import inside: "
                f"median {statistics.median(lazy):.4f} s; the import alone (after os, shutil, time): median "
                f"{statistics.median(imports) * 1e3:.2f} ms\n")
        f.write(f"ratio {ratio:.4f}\n")
    print(f"ratio {ratio:.4f}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="the acmart-master directory of serverless-benchmarks-data")
    parser.add_argument("--out", default="calibration/kernels/sebs_zip_compression.txt")
    parser.add_argument("--samples", type=int, default=41)
    parser.add_argument("--lazy-import-ratio", metavar="OUT",
                        help="instead: time zipfile's import alone and the kernel with it inside the timer, in pairs, "
                             "and write 1 - import / kernel (their medians) to OUT")
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        print(f"error: --data {args.data}: no such directory", file=sys.stderr)
        return 2
    size = directory_bytes(args.data)
    if size != DATASET_BYTES:
        print(f"error: --data {args.data}: {size} bytes, SeBS's functions downloaded {DATASET_BYTES}: "
              "another version of the data", file=sys.stderr)
        return 2
    core = max(os.sched_getaffinity(0))
    with tempfile.TemporaryDirectory(prefix="sebs-311-") as download_path:
        shutil.copytree(args.data, os.path.join(download_path, DATASET))
        quiet_sample(CHILD, core, cwd=download_path)  # untimed: the page cache
        if args.lazy_import_ratio:
            return write_lazy_import_ratio(args.lazy_import_ratio, core, download_path, args.samples)
        samples, retried, archive_bytes = [], 0, set()
        for _ in range(args.samples):
            stdout, foreign, again = quiet_sample(CHILD, core, cwd=download_path)
            seconds, archive = stdout.split()
            retried += again
            archive_bytes.add(int(archive))
            samples.append((float(seconds), foreign))
    print(write_timing_file(
        args.out, "SeBS 311.compression's kernel (shutil.make_archive zip of acmart-master, 10,063,841 bytes) on one core "
        "of the calibration CPU: calibration/python/sebs_zip_compression.py",
        f"Python {sys.version.split()[0]}, zlib {zlib.ZLIB_RUNTIME_VERSION}, core {core}, page cache warm; archive "
        f"{sorted(archive_bytes)} bytes (SeBS's functions uploaded 9,324,799)", samples, retried, digits=4))
    return 0


if __name__ == "__main__":
    sys.exit(main())
