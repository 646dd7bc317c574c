#!/usr/bin/env python3
"""Two p2psim binaries on one sweep, rounds alternating A and B: wall time, CPU (user + system) and page faults of
each, their medians and the ratio, and whether the two wrote the same files.

The machine is shared and noisy: a ratio means something only between runs close in time, hence the alternation.
Every round writes into a fresh folder of its own (all removed at the end), so neither binary finds the other's runs.
Usage: bench/grid_ab.py --a OLD_P2PSIM --b NEW_P2PSIM [--experiment experiments/paper_grid.xml] [--rounds 3]
                        [--jobs 2] [--no-memo] [--a-data DIR] [--b-data DIR]
Each binary reads its profile, prices and calibration from this checkout unless --a-data / --b-data name another
(an old binary may not read today's files: give it a checkout of its own commit).
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sweep(binary, experiment, out, jobs, no_memo, data_dir):
    args = [binary, "sweep", experiment, "--out", out, "-j", str(jobs)] + (["--no-memo"] if no_memo else [])
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=dict(os.environ, P2PSIM_DATA_DIR=data_dir))
    _, status, usage = os.wait4(proc.pid, 0)  # the sweep and every process it waited for
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{binary} sweep {experiment} failed (status {status})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_minflt


def same_files(a, b):
    """True when the two folders hold the same files with the same bytes (the memo folder is gone after a sweep)."""
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(same_files(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--a", required=True, help="the baseline binary")
    parser.add_argument("--b", required=True, help="the binary compared with it")
    parser.add_argument("--experiment", default=os.path.join(ROOT, "experiments", "paper_grid.xml"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-memo", action="store_true")
    parser.add_argument("--a-data", default=ROOT, help="the data folder of the baseline binary (default: this checkout)")
    parser.add_argument("--b-data", default=ROOT, help="the data folder of the other binary (default: this checkout)")
    opts = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}; {opts.experiment}, -j {opts.jobs}, {opts.rounds} rounds")
    runs = {"a": [], "b": []}
    identical = True
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(opts.rounds):
            outs = {}
            for name in ("a", "b"):
                outs[name] = os.path.join(tmp, f"{name}{r}")
                runs[name].append(sweep(getattr(opts, name), opts.experiment, outs[name], opts.jobs, opts.no_memo,
                                        getattr(opts, name + "_data")))
                wall, cpu, faults = runs[name][-1]
                print(f"round {r + 1} {name}: {wall:7.2f} s wall {cpu:7.2f} s CPU {faults / 1000:8.0f} k page faults")
            identical = identical and same_files(outs["a"], outs["b"])
            # Kept until the end: on ext4 every file created after thousands were deleted scans past their inodes
            # (recently_deleted(): a fifth of the grid's CPU in `perf` when each round removed the last one's).
    med = {n: [statistics.median(x[i] for x in runs[n]) for i in range(3)] for n in runs}
    print(f"medians a: {med['a'][0]:.2f} s wall, {med['a'][1]:.2f} s CPU, {med['a'][2] / 1000:.0f} k faults")
    print(f"medians b: {med['b'][0]:.2f} s wall, {med['b'][1]:.2f} s CPU, {med['b'][2] / 1000:.0f} k faults")
    print(f"a / b: {med['a'][0] / med['b'][0]:.2f}x wall, {med['a'][1] / med['b'][1]:.2f}x CPU")
    print("outputs: " + ("identical, every round" if identical else "DIFFERENT"))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
