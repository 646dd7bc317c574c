#!/usr/bin/env python3
"""When the branches of a Step Functions fan-out start, from one public source: SeBS-Flow's 630.parallel-sleep.

SeBS-Flow (https://github.com/spcl/sebs-flow-artifact) ran a workflow whose Map state fans out to N functions that
sleep, and committed every function's start timestamp (`perf-cost/630.parallel-sleep/aws_20t_1s/warm_{128,256,512}.csv`:
50 branches an execution, 2022-06-13, 104 executions at three memory sizes). In the executions whose branches were
all warm, sorted by start and taken from the first one's start, the branches start in a burst (a dozen within
0.15 s), then one at a time, each interval longer than the one before (0.09 s at first, 0.25-0.3 s from the 40th
branch on): a 20-branch fan-out takes 0.84 s to start its last branch, a 50-branch one 7.6 s.

p2psim's model (sim/inputs/cloud_profile.cpp, WorkflowServiceParams::branch_start_delay_s): branches 0 to B - 1
start together; branch i >= B starts the sum of i - B + 1 intervals after them, interval k (from 0) being
min(max_interval, first_interval + growth x k). This fits its four parameters to each memory size's median start
offset by branch index (least squares over a grid, every index), and writes the fits: the profile's values are the
fit to all three sizes' executions together, their spread the three sizes' fits' least and largest.
Cold branches are left out: p2psim adds a cold start to a branch's start on its own.

Usage: step_functions_fan_out.py --repo GIT_DIR [--commit C] [--out FILE]
GIT_DIR: a clone (bare or not) of spcl/sebs-flow-artifact holding commit C.
"""
import argparse
import csv
import io
import subprocess
import sys

COMMIT = "7dfd498c5059e1df4030d85aca02508e9d6438a5"
FILES = [f"perf-cost/630.parallel-sleep/aws_20t_1s/warm_{mb}.csv" for mb in (128, 256, 512)]
# The grid searched (s): every value to the 3 decimals a start timestamp's spread supports.
BURSTS = range(1, 30)
FIRST_INTERVALS = [i / 1000 for i in range(10, 300, 5)]
GROWTHS = [i / 1000 for i in range(0, 31)]
MAX_INTERVALS = [i / 1000 for i in range(100, 600, 5)]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def warm_executions(csv_text):
    """Each all-warm execution's branch start offsets (s), sorted, from its first branch's start."""
    executions = {}
    for row in csv.DictReader(io.StringIO(csv_text)):
        if row["func"] == "process":
            executions.setdefault(row["request_id"], []).append(row)
    out = []
    for rows in executions.values():
        if all(r["is_cold"] == "False" for r in rows):
            starts = sorted(float(r["start"]) for r in rows)
            out.append([s - starts[0] for s in starts])
    return out


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def median_offsets(executions):
    """The median start offset of each branch index over executions of the same branch count."""
    counts = {len(e) for e in executions}
    if len(counts) != 1:
        raise ValueError(f"executions of different branch counts: {sorted(counts)}")
    return [median(column) for column in zip(*executions)]


def offsets(burst, first, growth, max_interval, n):
    """The model's start offsets of n branches (as branch_start_delay_s less the transition)."""
    out, t = [], 0.0
    for i in range(n):
        if i >= burst:
            t += min(max_interval, first + growth * (i - burst))
        out.append(t)
    return out


def fit(medians):
    """(burst, first interval, growth, max interval, sum of squared errors) minimising the squared errors."""
    n = len(medians)
    best = None
    for burst in BURSTS:
        if burst >= n:
            break
        head = sum(m * m for m in medians[:burst])
        for first in FIRST_INTERVALS:
            for growth in GROWTHS:
                for cap in MAX_INTERVALS:
                    if cap < first:
                        continue
                    sse = head
                    t = 0.0
                    for i in range(burst, n):
                        t += min(cap, first + growth * (i - burst))
                        sse += (t - medians[i]) ** 2
                        if best is not None and sse >= best[4]:
                            break
                    if best is None or sse < best[4]:
                        best = (burst, first, growth, cap, sse)
    return best


def fit_row(name, executions):
    """The kernel file's row of a set of executions: its fit, rms error and median last start."""
    m = median_offsets(executions)
    burst, first, growth, cap, sse = fit(m)
    return (f"{name},{len(executions)},{burst},{first:.3f},{growth:.3f},{cap:.3f},{(sse / len(m)) ** 0.5:.4f},"
            f"{m[-1]:.3f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", required=True, help="a clone of spcl/sebs-flow-artifact")
    ap.add_argument("--commit", default=COMMIT)
    ap.add_argument("--out", help="write here instead of standard output")
    args = ap.parse_args(argv)
    try:
        texts = {path: git(args.repo, "show", f"{args.commit}:{path}") for path in FILES}
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print(f"step_functions_fan_out.py: --repo {args.repo}: cannot read {FILES[0]} at {args.commit} ({e})",
              file=sys.stderr)
        return 2
    lines = [f"# The start of each branch of SeBS-Flow's 630.parallel-sleep on AWS Step Functions, all-warm executions, "
             f"fitted by calibration/python/step_functions_fan_out.py",
             f"# (https://github.com/spcl/sebs-flow-artifact/tree/{args.commit}/perf-cost/630.parallel-sleep/aws_20t_1s)",
             "# model: branches 0..burst-1 start together; interval k after them is min(max, first + growth x k) (s)",
             "file,executions,burst,first_interval_s,interval_growth_s,max_interval_s,rms_error_s,median_last_start_s"]
    pooled = []
    for path, text in texts.items():
        executions = warm_executions(text)
        pooled += executions
        lines.append(fit_row(path.rsplit("/", 1)[1], executions))
    lines.append(fit_row("all", pooled))
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
