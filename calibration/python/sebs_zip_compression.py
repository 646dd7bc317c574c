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
import os
import shutil
import sys
import tempfile
import zlib

from pinned_sample import quiet_sample, write_timing_file

DATASET = "acmart-master"
DATASET_BYTES = 10063841  # SeBS's functions' measurement.download_size: the whole directory arrived

# SeBS's handler, from the download on: archive the download directory into itself, then (here) report and delete.
CHILD = """
import os, shutil, time
download_path = os.getcwd()
t = time.perf_counter()
shutil.make_archive(os.path.join(download_path, {key!r}), 'zip', root_dir=download_path)
seconds = time.perf_counter() - t
archive = os.path.join(download_path, {key!r} + '.zip')
print(seconds, os.path.getsize(archive))
os.remove(archive)
""".format(key=DATASET)


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="the acmart-master directory of serverless-benchmarks-data")
    parser.add_argument("--out", default="calibration/kernels/sebs_zip_compression.txt")
    parser.add_argument("--samples", type=int, default=41)
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
