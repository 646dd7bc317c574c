#!/usr/bin/env python3
"""Mountpoint for Amazon S3's continuous latency benchmark: S3 Standard's time to first byte, run by run.

awslabs/mountpoint-s3 publishes a benchmark result for each commit to main on its gh-pages branch
(dev/latency_bench/data.js, github-action-benchmark's format). The file keeps only its latest runs, so this walks
the branch's history and collects every run once (by commit and date). The metric used is
time_to_first_byte_read_small_file: fio (mountpoint-s3/scripts/fio/read_latency/ttfb_small.fio) reads one byte
ten times (loops=10, direct=1) through a Mountpoint mount on an m5dn.24xlarge in us-east-1, and the value is fio's
mean read latency of the run (mountpoint-s3/scripts/fs_latency_bench.sh, run_file_io_benchmarks).

Until commit 1c6f819c9 (2024-11-13, "Lay out files using fio in the benchmark") the job read the first byte of an
existing 5 MB object; from that commit's run on it lays out and reads a 1-byte object. Only the second kind is a
small GET, so the summary is over that run and the ones after it.

Usage: mountpoint_s3_ttfb.py GIT_DIR   (a clone or bare mirror of awslabs/mountpoint-s3 with its gh-pages branch)
Prints the runs' monthly p10 / median / p90 (the month of the cut as two lines, one per object) and the summary the validation case
validation/mountpoint_s3/mountpoint_s3_ttfb_1b_ec2.case.xml quotes (validation/mountpoint_s3/ttfb_runs.txt).
"""
import collections
import datetime
import json
import subprocess
import sys

import numpy

DATA_FILE = "dev/latency_bench/data.js"
METRIC = "time_to_first_byte_read_small_file"
ONE_BYTE_OBJECT_COMMIT = "1c6f819c9"  # mountpoint-s3's commit from which the job reads a 1-byte object


class InputError(Exception):
    """Bad input: main prints it and exits with 2."""


def git(git_dir, *args):
    done = subprocess.run(["git", "-C", git_dir, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise InputError(f"{git_dir}: git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def runs(git_dir):
    """Every run's (UTC date-time, benchmarked commit, mean read latency in ms), once each, oldest first."""
    seen = {}
    for revision in git(git_dir, "log", "--format=%H", "gh-pages", "--", DATA_FILE).split():
        where = f"{DATA_FILE} at gh-pages {revision}"
        text = git(git_dir, "show", f"{revision}:{DATA_FILE}")
        try:
            data = json.loads(text[text.index("{"):].rstrip().rstrip(";"))
            for entries in data["entries"].values():
                for entry in entries:
                    for bench in entry["benches"]:
                        if bench["name"] != METRIC:
                            continue
                        if bench["unit"] != "milliseconds":
                            raise InputError(f"{where}: {METRIC}'s unit is {bench['unit']}, not milliseconds")
                        run = run_of(entry, bench["value"])
                        seen[run[:2]] = run
        except (ValueError, KeyError, TypeError) as e:  # json's errors are ValueErrors; a missing field a KeyError
            raise InputError(f"{where}: not github-action-benchmark's format ({type(e).__name__}: {e})") from e
    return sorted(seen.values())


def run_of(entry, value):
    """(UTC date-time, benchmarked commit, value) of one entry; a bad date or commit raises as a bad format does."""
    when = datetime.datetime.fromtimestamp(float(entry["date"]) / 1000, datetime.timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ"), str(entry["commit"]["id"]), float(value)


def line(label, values):
    p10, median, p90 = numpy.quantile(values, [0.1, 0.5, 0.9])  # linear interpolation between order statistics
    return f"{label} runs {len(values):4d}  p10 {p10:6.2f}  median {median:6.2f}  p90 {p90:6.2f} ms"


def report(git_dir):
    """The text the case quotes: each month's runs, then the runs of a 1-byte object."""
    all_runs = runs(git_dir)
    starts = [when for when, commit, _ in all_runs if commit.startswith(ONE_BYTE_OBJECT_COMMIT)]
    if not starts:
        raise InputError(f"{git_dir}: no run of commit {ONE_BYTE_OBJECT_COMMIT} in {DATA_FILE}'s history on gh-pages")
    since = min(starts)
    by_month = collections.defaultdict(list)  # the month of the cut is two lines, its runs of either object
    for when, _, value in all_runs:
        by_month[(when[:7], "5 MB" if when < since else "1 B")].append(value)
    lines = [f"# {METRIC}: each value a run's mean of 10 one-byte reads (ms); the object is 5 MB before "
             f"{since}, the run of commit {ONE_BYTE_OBJECT_COMMIT}, and 1 B from it on"]
    lines += [line(f"{month} {size:>4}", by_month[(month, size)]) for month, size in sorted(by_month, key=lambda k: (k[0], k[1] == "1 B"))]
    one_byte = [value for when, _, value in all_runs if when >= since]
    last = max(when for when, _, _ in all_runs)
    lines.append(line(f"1-byte object, {since[:10]} to {last[:10]}:", one_byte))
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        sys.stdout.write(report(sys.argv[1]))
    except InputError as e:
        print(f"mountpoint_s3_ttfb.py: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
