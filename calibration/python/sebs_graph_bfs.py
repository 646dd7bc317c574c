#!/usr/bin/env python3
"""Times SeBS 503.graph-bfs's handler on one core of this machine: python-igraph's Graph.Barabasi(size, 10) (the
psumtree generator, igraph's default then and now) and a breadth-first search from vertex 0, what the handler runs
between its first timer and its return. SeBS timed it on one EC2 t2.micro in its local deployment and on AWS Lambda
in 2020 (python-igraph 0.7.1, size 10,000); the time here, brought to the calibration CPU, is the stand-in step of
the validation cases validation/sebs/sebs_graph_bfs_*.

Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py) that calls the handler
ten times as SeBS's harness did, in one process, and prints the median of the last five: the harness called it
200 times in one process, and a process's first calls are slower (its heap grows):
  /usr/bin/python3 calibration/python/sebs_graph_bfs.py --zip-data DIR/300.utilities/311.compression/acmart-master \
      [--size 10000] [--out calibration/kernels/sebs_graph_bfs.txt] [--samples 61]
This host need not be the calibration CPU: each bfs sample is paired with a sample of SeBS's zip kernel
(calibration/python/sebs_zip_compression.py, whose time on the calibration CPU is in
calibration/kernels/lambda_x86_cpu_speed.txt), one after the other, and the file's last line is the median of the
pairs' ratios, bfs over zip: a ratio in the same minute, which a shared machine's drift between runs does not move.
Needs Debian's python3-igraph.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

from pinned_sample import quiet_sample, timing_file_header
import sebs_zip_compression as zip_kernel

# SeBS's handler (spcl/serverless-benchmarks, benchmarks/500.scientific/503.graph-bfs/python/function.py, 2020-11).
CHILD = """
import os
import time
import igraph
def handler(size):
    graph = igraph.Graph.Barabasi(size, 10)
    return graph.bfs(0)
times = []
for call in range(10):  # as SeBS's harness (docker/local/python/time-in-proc.py): the result kept until the next
    t = time.perf_counter()  # call, and written out between the timers
    result = handler({size})
    times.append(time.perf_counter() - t)
    print(result, file=open(os.devnull, "w"))
print(sorted(times[5:])[2])
"""


def median_ratio(pairs):
    """The median of the pairs' ratios, bfs over zip: each ratio taken within one minute of the machine's drift."""
    return statistics.median(pair[0] / pair[1] for pair in pairs)


def write_pairs_file(path, size, igraph_version, pairs, retried):
    """`bfs_seconds zip_seconds bfs_foreign_cpu_share zip_foreign_cpu_share` a pair, then the medians and the median
    of the pairs' ratios. Returns that line."""
    summary = (f"bfs median {statistics.median(p[0] for p in pairs):.4f} s, zip median "
               f"{statistics.median(p[1] for p in pairs):.4f} s, bfs over zip (median of {len(pairs)} pairs) "
               f"{median_ratio(pairs):.4f}")
    with open(path, "w") as f:
        f.write(timing_file_header(
            f"SeBS 503.graph-bfs's handler (Graph.Barabasi({size}, 10) and bfs(0)), each sample paired with one of SeBS "
            "311.compression's zip kernel, on one core of this host (cpu_identity below): calibration/python/sebs_graph_bfs.py",
            f"Python {sys.version.split()[0]}, python-igraph {igraph_version} (SeBS's: 0.7.1.post6, Python 3.6)", retried))
        f.write("# bfs_seconds zip_seconds bfs_foreign_cpu_share zip_foreign_cpu_share\n")
        for bfs, zip_s, bfs_foreign, zip_foreign in pairs:
            f.write(f"{bfs:.4f} {zip_s:.4f} {bfs_foreign:.3f} {zip_foreign:.3f}\n")
        f.write(summary + "\n")
    return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--zip-data", required=True, help="the acmart-master directory of serverless-benchmarks-data")
    parser.add_argument("--size", type=int, default=10000, help="vertices (SeBS's 'small' input, its IaaS runs')")
    parser.add_argument("--out", default="calibration/kernels/sebs_graph_bfs.txt")
    parser.add_argument("--samples", type=int, default=61)
    args = parser.parse_args()
    if args.size < 1:
        print(f"error: --size {args.size}: at least 1 vertex", file=sys.stderr)
        return 2
    if args.samples < 3:
        print(f"error: --samples {args.samples}: at least 3, for a median", file=sys.stderr)
        return 2
    if not os.path.isdir(args.zip_data) or zip_kernel.directory_bytes(args.zip_data) != zip_kernel.DATASET_BYTES:
        print(f"error: --zip-data {args.zip_data}: not SeBS's {zip_kernel.DATASET_BYTES:,}-byte acmart-master directory",
              file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        print(f"error: --out {args.out}: no such directory", file=sys.stderr)
        return 2
    try:
        import igraph
    except ImportError:
        print("error: python-igraph is missing (Debian: apt-get install python3-igraph)", file=sys.stderr)
        return 2
    core = max(os.sched_getaffinity(0))
    code = CHILD.format(size=args.size)
    pairs, retried = [], 0
    with tempfile.TemporaryDirectory(prefix="sebs-311-") as download_path:
        shutil.copytree(args.zip_data, os.path.join(download_path, zip_kernel.DATASET))
        quiet_sample(zip_kernel.CHILD, core, cwd=download_path)  # untimed: the page cache
        quiet_sample(code, core)
        for _ in range(args.samples):
            bfs, bfs_foreign, again_bfs = quiet_sample(code, core)
            zip_out, zip_foreign, again_zip = quiet_sample(zip_kernel.CHILD, core, cwd=download_path)
            retried += again_bfs + again_zip
            pairs.append((float(bfs.split()[0]), float(zip_out.split()[0]), bfs_foreign, zip_foreign))
    print(write_pairs_file(args.out, args.size, igraph.__version__, pairs, retried))
    return 0


if __name__ == "__main__":
    sys.exit(main())
