#!/usr/bin/env python3
"""Wall time of `p2psim run` as the number of peers doubles (issue: 128 peers x 10 iterations in < 30 s).

Runs the serverless VGG-11 scenario (experiments/vgg11_cifar.xml, serverless only, 10 iterations) at 4..128
peers, and the default experiment as shipped; prints the median of --repeats runs and the growth per doubling.
Usage: bench/scaling.py [--p2psim build/p2psim] [--repeats 3] [--peers 4,8,16,32,64,128]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXPERIMENT = """<experiment name="bench_{peers}" seed="1">
  <workload model="vgg11" input_shape="3x32x32" dataset="cifar10" batch_size="1024" iterations="10"/>
  <peers count="{peers}" instance_type="t2.large"/>
  <architectures run="serverless"/>
</experiment>
"""


def median_wall(cmd, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--p2psim", default=os.path.join(ROOT, "build", "p2psim"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peers", default="4,8,16,32,64,128")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    default = os.path.join(ROOT, "experiments", "vgg11_cifar.xml")
    print(f"default experiment (vgg11_cifar.xml, both architectures): "
          f"{median_wall([args.p2psim, 'run', '-q', default], args.repeats):.3f} s (median of {args.repeats})")
    print(f"{'peers':>6} {'wall_s':>9} {'x per doubling':>15}")
    previous = None
    with tempfile.TemporaryDirectory() as tmp:
        for peers in (int(p) for p in args.peers.split(",")):
            path = os.path.join(tmp, f"bench_{peers}.xml")
            with open(path, "w") as f:
                f.write(EXPERIMENT.format(peers=peers))
            wall = median_wall([args.p2psim, "run", "-q", path], args.repeats)
            growth = f"{wall / previous:.2f}" if previous else "-"
            print(f"{peers:>6} {wall:>9.3f} {growth:>15}")
            sys.stdout.flush()
            previous = wall
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
