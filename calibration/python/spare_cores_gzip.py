#!/usr/bin/env python3
"""A CPU's speed on scalar work, from one public source: gzip level 5 on one thread in Spare Cores' inspector data.

Spare Cores (https://github.com/SpareCores/sc-inspector-data) runs the same benchmarks on every AWS instance type and
commits their raw output. `data/aws/TYPE/compression_text/stdout` holds, per compressor and level, the rate at which
one thread compressed the same text (`compress`, bytes of input a second). Deflate at level 5 is scalar integer work
(no vector kernels), the kind of SeBS's zip that measured Lambda's x86 factor, and unlike a composite score it puts
older CPUs as close to a new one as scalar kernels run there (docs/research/cpu_speed_factors.md, sections 7 and 8).

This reads that rate for every virtualised size of each CPU family the profile uses (bare-metal sizes left out: they
run without the hypervisor the profile's types have), and writes each family's median with its p10 and p90 over the
sizes, the calibration CPU's score (the EPYC 9R45's median at the clock measured on the calibration machine, as the
profile's Geekbench reference is), and each family's factor. The profile's `cpu_scalar_score` attributes are these
medians (`test_spare_cores_gzip.py` holds them to the shipped file).

Usage: spare_cores_gzip.py --repo GIT_DIR [--commit C] [--out FILE]
GIT_DIR: a clone (bare or not) of SpareCores/sc-inspector-data holding commit C.
"""
import argparse
import json
import statistics
import subprocess
import sys

COMMIT = "804d3c71ddaec2fb0fe443c77b6719bd03a96072"
# Each family: the instance families that run its silicon (AWS's instance type pages; lscpu in the same files).
FAMILIES = {
    "t2": ("Xeon E5-2686 v4", ["t2"]),
    "t3": ("Xeon Platinum 8175M/8259CL, burstable", ["t3"]),
    "m5": ("Xeon Platinum 8175M/8259CL", ["m5"]),
    "c5": ("Xeon Platinum 8275CL/8124M; c5.18xlarge an 8223CL", ["c5"]),
    "graviton2": ("AWS Graviton2 (Neoverse N1)", ["c6g", "m6g"]),
    "epyc_9r45": ("AMD EPYC 9R45, the calibration CPU's part", ["c8a", "m8a", "r8a"]),
}
REFERENCE = "epyc_9r45"
# The clock of the source's 9R45 runs (its Geekbench results, section 7 of docs/research/cpu_speed_factors.md) and
# the calibration machine's (calibration/kernels/effective_clock.txt: the median of six medians and the p10, p90 of
# its twelve): the calibration CPU's score is the 9R45's at its own clock, the spread the clock's.
SOURCE_CLOCK_GHZ = 4.51
CALIBRATION_CLOCK_GHZ = (4.46, 4.27, 4.47)  # median, p10, p90


def quantile(values, q):
    """numpy's default (linear between order statistics)."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def gzip5_rate_mb_per_s(stdout_text):
    """The one-thread gzip -5 compress rate in MB/s (10^6 bytes of input a second) of one stdout file."""
    rows = [r for r in json.loads(stdout_text)["gzip"]["5"] if r["threads"] == 1]
    if len(rows) != 1:
        raise ValueError("expected one one-thread gzip level 5 row, found %d" % len(rows))
    return rows[0]["compress"] / 1e6


def read_types(repo, commit):
    """(type, family, date, MB/s) for every virtualised size of every family, sorted."""
    families_of = {prefix: family for family, (_, prefixes) in FAMILIES.items() for prefix in prefixes}
    rows = []
    for t in git(repo, "ls-tree", "--name-only", commit + ":data/aws").split():
        family = families_of.get(t.split(".")[0])
        if family is None or "metal" in t:
            continue
        base = "%s:data/aws/%s/compression_text/" % (commit, t)
        try:
            text = git(repo, "show", base + "stdout")
            meta = json.loads(git(repo, "show", base + "meta.json"))
        except subprocess.CalledProcessError:
            continue  # a type the inspector did not run it on
        try:
            rows.append((t, family, meta["start"][:10], gzip5_rate_mb_per_s(text)))
        except (KeyError, TypeError, ValueError) as e:  # json's errors are ValueErrors
            raise ValueError("data/aws/%s/compression_text/stdout: gzip level 5, one thread: %s"
                             % (t, "no field %s" % e if isinstance(e, KeyError) else e))
    return sorted(rows, key=lambda r: (r[1], r[0]))


def summary(rows):
    """family -> (median, p10, p90, n) of its sizes' rates."""
    out = {}
    for family in FAMILIES:
        rates = [r[3] for r in rows if r[1] == family]
        if rates:
            out[family] = (statistics.median(rates), quantile(rates, 0.1), quantile(rates, 0.9), len(rates))
    return out


def report(rows, commit):
    fams = summary(rows)
    if REFERENCE not in fams:
        raise ValueError("no %s sizes found" % REFERENCE)
    ref = [fams[REFERENCE][0] * clock / SOURCE_CLOCK_GHZ for clock in CALIBRATION_CLOCK_GHZ]
    lines = ["# gzip level 5, one thread: the compress rate (MB/s of input) of every virtualised size, Spare Cores'",
             "# inspector data (https://github.com/SpareCores/sc-inspector-data/tree/%s/data/aws," % commit,
             "# TYPE/compression_text/stdout and meta.json), written by calibration/python/spare_cores_gzip.py",
             "type,family,measured_on,gzip5_compress_mb_per_s"]
    lines += ["%s,%s,%s,%.4f" % r for r in rows]
    for family, (median, p10, p90, n) in fams.items():
        lines.append("family %s (%s): median %.2f MB/s, p10 %.2f, p90 %.2f, %d sizes"
                     % (family, FAMILIES[family][0], median, p10, p90, n))
    lines.append("calibration CPU: %s's median x %.2f / %.2f GHz = %.2f MB/s (p10 %.2f, p90 %.2f at %.2f and %.2f GHz)"
                 % (REFERENCE, CALIBRATION_CLOCK_GHZ[0], SOURCE_CLOCK_GHZ, ref[0], ref[1], ref[2],
                    CALIBRATION_CLOCK_GHZ[1], CALIBRATION_CLOCK_GHZ[2]))
    for family, (median, _, _, _) in fams.items():
        if family != REFERENCE:
            lines.append("factor %s: %.4f" % (family, median / ref[0]))
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", required=True, help="a clone of SpareCores/sc-inspector-data")
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--out", help="write here instead of stdout")
    args = parser.parse_args(argv)
    try:
        git(args.repo, "cat-file", "-e", args.commit + "^{commit}")
    except (subprocess.CalledProcessError, FileNotFoundError):
        print("spare_cores_gzip.py: --repo: %s holds no commit %s" % (args.repo, args.commit), file=sys.stderr)
        return 2
    try:
        text = report(read_types(args.repo, args.commit), args.commit)
    except (ValueError, KeyError) as e:
        print("spare_cores_gzip.py: %s at %s: %s" % (args.repo, args.commit, e), file=sys.stderr)
        return 2
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
