#!/usr/bin/env python3
"""The speed of one AWS Lambda x86 vCPU relative to one core of the calibration CPU, from one kernel timed on both:
SeBS's 311.compression (`shutil.make_archive` zip of a 10 MB directory, one thread), 2020-11, us-east-1, Python
3.6, against the same call here (calibration/python/sebs_zip_compression.py). Writes
calibration/kernels/lambda_x86_cpu_speed.txt, the source of the profile's function_service/@cpu_scalar_speed_factor_x86
(the kernel is scalar work; the vector factor, cpu_speed_factor_x86, is measured apart by lambda_vector_speed.py).

Lambda's side is every successful call (cold and warm) at 2,048 and 3,008 MB: at and above 1,769 MB a function has
a whole vCPU, and one thread can use no more (the two sizes' medians agree). The factor is this machine's median
over Lambda's; its p10 and p90 are this machine's median over Lambda's p90 and p10 (the spread of Lambda's calls,
which ran on whatever hosts served them). The smaller sizes show how a function below one vCPU slows: their time
times their CPU share (memory / 1,769 MB) over the full vCPU's, 1 where the slowdown is exactly the share.

The artifact: spcl/serverless-benchmarks-artifact at 22e8134ca789a54cffd789265303c17d5a0536db,
data/performance/aws_perf_cost/311/perf-cost/{cold,warm}_results_<memory>-processed.json.
  python3 calibration/python/lambda_cpu_speed.py --sebs-results DIR/data/performance/aws_perf_cost/311/perf-cost \
      [--local calibration/kernels/sebs_zip_compression.txt] [--out calibration/kernels/lambda_x86_cpu_speed.txt] \
      [--import-ratio calibration/kernels/sebs_zip_lazy_import.txt]

--import-ratio: a local timing file made before 2026-12-05 timed zipfile's import with the kernel (shutil imports it
lazily), which SeBS's calls, with zipfile loaded, did not; its median is multiplied by the file's last line,
`ratio R` (1 - the import's time / the kernel's, timed on one machine by sebs_zip_compression.py --lazy-import-ratio).
"""
import argparse
import json
import os
import statistics
import sys

FULL_VCPU_SIZES_MB = (2048, 3008)
SHARE_SIZES_MB = (256, 512, 1024, 1536)
MEMORY_PER_VCPU_MB = 1769  # the profile's function_service/@memory_per_vcpu_mb (AWS, S10)


def compute_times_s(results_dir, memory_mb):
    """compute_time of every successful call, cold and warm, at one memory size."""
    times = []
    for kind in ("cold", "warm"):
        path = os.path.join(results_dir, f"{kind}_results_{memory_mb}-processed.json")
        with open(path) as f:
            data = json.load(f)
        for calls in data["_invocations"].values():
            for call in calls.values():
                if not call["stats"]["failure"]:
                    times.append(call["output"]["result"]["measurement"]["compute_time"] / 1e6)
    return sorted(times)


def deciles(values):
    q = statistics.quantiles(values, n=10, method="inclusive")
    return q[0], statistics.median(values), q[-1]


def local_median_s(path):
    with open(path) as f:
        last = f.read().splitlines()[-1]
    if not last.startswith("median "):
        raise ValueError(f"{path}: last line should be 'median ... s', got {last!r}")
    return float(last.split()[1])


def ratio_of(path):
    with open(path) as f:
        last = f.read().splitlines()[-1]
    if not last.startswith("ratio "):
        raise ValueError(f"{path}: last line should be 'ratio R', got {last!r}")
    ratio = float(last.split()[1])
    if not 0 < ratio <= 1:
        raise ValueError(f"{path}: ratio {ratio} outside (0, 1]")
    return ratio


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sebs-results", required=True, help="the artifact's aws_perf_cost/311/perf-cost directory")
    parser.add_argument("--local", default="calibration/kernels/sebs_zip_compression.txt")
    parser.add_argument("--out", default="calibration/kernels/lambda_x86_cpu_speed.txt")
    parser.add_argument("--import-ratio", help="a sebs_zip_compression.py --lazy-import-ratio file (see above)")
    args = parser.parse_args()
    try:
        lam = [t for m in FULL_VCPU_SIZES_MB for t in compute_times_s(args.sebs_results, m)]
        timed_s = local_median_s(args.local)
        ratio = ratio_of(args.import_ratio) if args.import_ratio else 1.0
        here_s = timed_s * ratio
        lines = ["# One Lambda x86 vCPU's speed relative to one core of the calibration CPU: "
                 "calibration/python/lambda_cpu_speed.py",
                 f"# kernel: SeBS 311.compression's make_archive; here: {args.local}"]
        for m in FULL_VCPU_SIZES_MB:
            p10, p50, p90 = deciles(compute_times_s(args.sebs_results, m))
            lines.append(f"lambda {m} MB: median {p50:.4f} s (p10 {p10:.4f}, p90 {p90:.4f})")
        p10, p50, p90 = deciles(lam)
        full_s = p50
        lines.append(f"lambda one vCPU ({' and '.join(map(str, FULL_VCPU_SIZES_MB))} MB, {len(lam)} calls): "
                     f"median {p50:.4f} s (p10 {p10:.4f}, p90 {p90:.4f})")
        lines.append(f"calibration CPU: median {here_s:.4f} s" if not args.import_ratio else
                     f"calibration CPU: median {timed_s:.4f} s x {ratio:.4f} (zipfile's import taken out: "
                     f"{args.import_ratio}) = {here_s:.4f} s")
        for m in SHARE_SIZES_MB:
            median = statistics.median(compute_times_s(args.sebs_results, m))
            lines.append(f"below one vCPU, {m} MB: median {median:.4f} s, x CPU share / one vCPU's = "
                         f"{median * m / MEMORY_PER_VCPU_MB / full_s:.3f}")
        lines.append(f"cpu_scalar_speed_factor_x86 {here_s / p50:.4f} (p10 {here_s / p90:.4f}, p90 {here_s / p10:.4f})")
    except (OSError, ValueError, IndexError, KeyError, statistics.StatisticsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(lines[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
