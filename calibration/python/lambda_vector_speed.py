#!/usr/bin/env python3
"""The speed of one AWS Lambda x86 vCPU on vector work (LibTorch's kind: BLAS and oneDNN kernels) relative to one core
of the calibration CPU, from one GEMM timed on Lambda and here: gumeter's flops benchmark (ten products of two 1,024 x
1,024 float64 matrices with numpy's OpenBLAS, the loop timed inside the function; 1,769 MB, one vCPU's share,
2025-07-21) against the same loop on one core of this host, paired with SeBS's zip (calibration/python/gumeter_flops.py).
Writes calibration/kernels/lambda_x86_vector_speed.txt, the source of the profile's
function_service/@cpu_speed_factor_x86 (the rule, written before gumeter's values were read: docs/research/
cpu_speed_factors.md, section 10).

  factor = (the GEMM over the zip here) x (the zip on the calibration CPU) x (LibTorch's steps' correction to the zip's
           carry) / (the GEMM's median on Lambda)

The zip brings the host's time to the calibration CPU for scalar work; LibTorch's steps, timed on both, run 1 / 0.7371
times faster there again than the zip says (libtorch_step_carry.txt). Since the factor scales LibTorch's steps, the
GEMM stands in for them: Lambda's vCPU is taken to be as much slower than this host's core on a step as on the GEMM.

Lambda's side is every call gumeter logged warm (worker_cold_start false), the five replicas pooled; the factor's p10
and p90 combine, as independent log-normal spreads, the Lambda calls' p10-p90 and the correction's p10-p90 over its
nine configurations, which is the wider of the two.

The artifact: GEizaguirre/gumeter at c0e677438001e2fe1381a693f76080e2307550b0,
benchmark_results/flops_aws_lambda_replica{0..4}.json.
  python3 calibration/python/lambda_vector_speed.py --gumeter-results DIR/benchmark_results \
      [--kernels calibration/kernels] [--out calibration/kernels/lambda_x86_vector_speed.txt]
"""
import argparse
import glob
import json
import math
import os
import statistics
import sys

import libtorch_step_carry
import paired_stand_in
from lambda_cpu_speed import deciles


def lambda_gemm_seconds(results_dir):
    """The loop's seconds of every warm call in `results_dir`/flops_aws_lambda_replica*.json (flops = 2 n^3 loops /
    seconds, the function's own timer), and how many files were read."""
    paths = sorted(glob.glob(os.path.join(results_dir, "flops_aws_lambda_replica*.json")))
    seconds = []
    for path in paths:
        try:
            seconds += warm_seconds(path)
        except KeyError as e:
            raise ValueError(f"{path}: no {e} field") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not JSON ({e})") from None
    return sorted(seconds), len(paths)


def warm_seconds(path):
    """The loop's seconds of each warm call of one replica's file."""
    seconds = []
    with open(path) as f:
        data = json.load(f)
    work = 2 * data["MATN"] ** 3 * data["loopcount"]
    if len(data["results"]) != len(data["worker_stats"]):
        raise ValueError(f"{path}: {len(data['results'])} results against {len(data['worker_stats'])} worker_stats")
    for i, (result, stats) in enumerate(zip(data["results"], data["worker_stats"])):
        flops = result.get("flops") if isinstance(result, dict) else None
        if not isinstance(flops, (int, float)) or not flops > 0:
            raise ValueError(f"{path}: results[{i}].flops is {flops!r}, expected a rate above 0")
        if not stats["worker_cold_start"]:
            seconds.append(work / flops)
    return seconds


def combined_band(median, *bands):
    """p10 and p90 of a product of independent log-normal factors, each given as (p10, median, p90) relative spreads."""
    low = math.sqrt(sum(math.log(m / lo) ** 2 for lo, m, _ in bands))
    high = math.sqrt(sum(math.log(hi / m) ** 2 for _, m, hi in bands))
    return median * math.exp(-low), median * math.exp(high)


def derivation(results_dir, kernels_dir):
    """The file's lines."""
    calls, files = lambda_gemm_seconds(results_dir)
    if len(calls) < 10:
        raise ValueError(f"{results_dir}: {len(calls)} warm calls in {files} files, at least 10 needed for deciles")
    p10, p50, p90 = deciles(calls)
    ratio = paired_stand_in.pairs_file_ratio(os.path.join(kernels_dir, "gumeter_flops.txt"))
    zip_s = paired_stand_in.zip_on_calibration_cpu_s(kernels_dir)
    correction, c10, c90 = libtorch_step_carry.read_summary_line(os.path.join(kernels_dir, "libtorch_step_carry.txt"))
    here_s = ratio * zip_s * correction
    factor = here_s / p50
    # The factor rises as Lambda's time falls (its p10 gives the factor's p90) and with the correction.
    low, high = combined_band(factor, (p50 / p90, 1.0, p50 / p10), (c10 / correction, 1.0, c90 / correction))
    return [
        "# One Lambda x86 vCPU's speed on vector work relative to one core of the calibration CPU: "
        "calibration/python/lambda_vector_speed.py",
        "# kernel: gumeter's flops loop (10 x np.dot of two 1,024 x 1,024 float64 matrices); here: "
        "calibration/kernels/gumeter_flops.txt",
        f"lambda 1769 MB (one vCPU's share), {len(calls)} warm calls of {files} replicas: median {p50:.4f} s "
        f"(p10 {p10:.4f}, p90 {p90:.4f})",
        f"calibration CPU: {ratio:.4f} (the GEMM over the zip here) x {zip_s:.4f} s (the zip there) x {correction:.4f} "
        f"(LibTorch's steps over the zip's carry, p10 {c10:.4f}, p90 {c90:.4f}) = {here_s:.4f} s",
        f"cpu_speed_factor_x86 {factor:.4f} (p10 {low:.4f}, p90 {high:.4f})",
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gumeter-results", required=True, help="gumeter's benchmark_results directory")
    parser.add_argument("--kernels", default="calibration/kernels")
    parser.add_argument("--out", default="calibration/kernels/lambda_x86_vector_speed.txt")
    args = parser.parse_args()
    try:
        lines = derivation(args.gumeter_results, args.kernels)
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(lines[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
