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
      [--size 10000] [--out calibration/kernels/sebs_graph_bfs.txt] [--samples 61] [--quiet-zip-s 0.2171]
This host need not be the calibration CPU: each sample is paired with one of SeBS's zip kernel
(calibration/python/paired_stand_in.py), and the file's last line is the median of the pairs' ratios, bfs over zip.
Needs Debian's python3-igraph.
"""
import argparse
import sys

import paired_stand_in

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


def write_pairs_file(path, size, igraph_version, pairs, retried):
    """paired_stand_in.write_pairs_file with this kernel's title. Returns its last line."""
    return paired_stand_in.write_pairs_file(
        path, "bfs",
        f"SeBS 503.graph-bfs's handler (Graph.Barabasi({size}, 10) and bfs(0))", "sebs_graph_bfs.py",
        f"Python {sys.version.split()[0]}, python-igraph {igraph_version} (SeBS's: 0.7.1.post6, Python 3.6)", pairs, retried)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10000, help="vertices (SeBS's 'small' input, its IaaS runs')")
    paired_stand_in.add_common_options(parser, out="calibration/kernels/sebs_graph_bfs.txt")
    args = parser.parse_args()
    error = paired_stand_in.option_error(args, [(args.size < 1, f"--size {args.size}: at least 1 vertex")])
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        import igraph
    except ImportError:
        print("error: python-igraph is missing (Debian: apt-get install python3-igraph)", file=sys.stderr)
        return 2
    return paired_stand_in.run(args, CHILD.format(size=args.size), lambda pairs, retried: write_pairs_file(
        args.out, args.size, igraph.__version__, pairs, retried))


if __name__ == "__main__":
    sys.exit(main())
