#!/usr/bin/env python3
"""Sweep throughput and per-scenario overhead.

- throughput: `p2psim sweep -j 2` over N small scenarios (SqueezeNet 1.1 on MNIST, 4 peers, 1 iteration, both
  architectures), scenarios per second;
- per-scenario overhead: the wall time of `p2psim run` on one such scenario (median of --repeats): process
  start, parsing, calibration loading, the fork per architecture and the simulation itself.
The sweep's scenarios differ only in function memory, so by default the instance-based system is simulated once
and reused by the others (docs/architecture.md, "Scale"); --no-memo times simulating both systems of every one,
as this benchmark did before the memo.
Usage: bench/sweep_throughput.py [--p2psim build/p2psim] [--scenarios 40] [--repeats 5] [--no-memo]
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SWEEP = """<experiment name="throughput" seed="1">
  <workload model="squeezenet1_1" input_shape="3x21x21" dataset="mnist" batch_size="1024" iterations="1"/>
  <peers count="4" instance_type="t2.medium"/>
  <sweep><axis select="functions/@memory_mb" values="{values}"/></sweep>
</experiment>
"""

SINGLE = """<experiment name="single" seed="1">
  <workload model="squeezenet1_1" input_shape="3x21x21" dataset="mnist" batch_size="1024" iterations="1"/>
  <peers count="4" instance_type="t2.medium"/>
</experiment>
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--p2psim", default=os.path.join(ROOT, "build", "p2psim"))
    parser.add_argument("--scenarios", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-memo", action="store_true", help="pass --no-memo to the sweep")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        single = os.path.join(tmp, "single.xml")
        with open(single, "w") as f:
            f.write(SINGLE)
        runs = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            subprocess.run([args.p2psim, "run", "-q", single], check=True)
            runs.append(time.perf_counter() - start)
        print(f"one 4-peer, 1-iteration scenario with `p2psim run`: {statistics.median(runs) * 1000:.1f} ms "
              f"(median of {args.repeats})")
        rates = []
        for r in range(args.repeats):
            sweep = os.path.join(tmp, f"sweep{r}.xml")
            with open(sweep, "w") as f:
                f.write(SWEEP.format(values=" ".join(str(1024 + i) for i in range(args.scenarios))))
            start = time.perf_counter()
            subprocess.run([args.p2psim, "sweep", sweep, "--out", os.path.join(tmp, f"out{r}"), "-j", "2"] +
                           (["--no-memo"] if args.no_memo else []), check=True, stderr=subprocess.DEVNULL)
            rates.append(args.scenarios / (time.perf_counter() - start))
        print(f"sweep of {args.scenarios} such scenarios, -j 2: {statistics.median(rates):.1f} scenarios/s "
              f"(median of {args.repeats}); {1000 / statistics.median(rates):.1f} ms per scenario")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
