"""How far the zip kernel's carry from this host to the calibration CPU holds for LibTorch's training steps.

A stand-in timed on a host other than the calibration CPU is brought to it by a kernel timed on both (SeBS's zip,
calibration/python/paired_stand_in.py). The zip is scalar work (deflate); a LibTorch step is mostly vector work
(OpenBLAS's GEMMs), and a CPU generation can speed up one far more than the other. This tool measures it: each of
the shipped models' one-thread training steps (`p2psim calibrate`, as run_shipped_calibration.sh runs it, at one
batch size), each sample paired with one of the zip on one core here; the zip's carry of it (the median ratio, step
over zip, times the zip's time on the calibration CPU) against the same step in the shipped timing files, measured
on the calibration CPU itself. The file's last line is the median over the models of measured over carried: what a
LibTorch stand-in carried by the zip is multiplied by (calibration/kernels/libtorch_step_carry.txt; its p10 and p90
over the models say how much the kernel mix moves it).
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys

import paired_stand_in

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KERNELS = os.path.join(ROOT, "calibration", "kernels")
# model, input shape, batch size (a mid-range one every file measured), the shipped timing file that holds it
CONFIGURATIONS = [
    ("vgg11_cifar", "3x32x32", 64, "train_steps_paper.csv"),
    ("vgg11_cifar", "3x32x32", 16, "train_steps_paper.csv"),
    ("vgg11", "3x32x32", 16, "train_steps_paper.csv"),
    ("squeezenet1_1", "3x21x21", 64, "train_steps_paper.csv"),
    ("resnet18_cifar", "3x32x32", 32, "train_steps_resnet18_cifar.csv"),
    ("mobilenet_v2", "3x224x224", 4, "train_steps_mobilenet_v2_224.csv"),
    ("mobilenet_v3_small", "3x29x29", 64, "train_steps_mobilenet_v3_small.csv"),
    ("mnist_cnn", "1x28x28", 64, "train_steps_mnist_cnn.csv"),
    ("quickstart_mlp", "1x28x28", 64, "train_steps_quickstart_mlp.csv"),
]
# run_shipped_calibration.sh's allocator settings, under which the shipped files (and the zip there) were timed
ALLOCATOR = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "4294967296",
             "MALLOC_TOP_PAD_": "536870912"}

# One sample: the median of five timed steps (after p2psim calibrate's own two untimed ones) in a fresh p2psim.
CHILD = """
import csv, os, statistics, subprocess, tempfile
with tempfile.TemporaryDirectory() as directory:
    out = os.path.join(directory, "steps.csv")
    run = subprocess.run([{p2psim!r}, "calibrate", "-m", "{model}@{shape}", "--batch-sizes", "{batch}", "--threads",
                          "1", "--repeats", "5", "--min-repeats", "5", "--budget-s", "1", "--no-tensor-ops", "-o", out],
                         capture_output=True, text=True)
    if run.returncode != 0 or not os.path.exists(out):
        raise SystemExit(f"{p2psim} calibrate exited {{run.returncode}}: {{run.stderr.strip()[-300:]}}")
    with open(out) as f:
        print(statistics.median(float(r["seconds"]) for r in csv.DictReader(f) if r["kernel"] == "train_step"))
"""


def shipped_step_s(timing_file, model, shape, batch):
    """The median one-thread step of `model` at `batch` in a shipped timing file (the calibration CPU's)."""
    with open(os.path.join(KERNELS, timing_file)) as f:
        seconds = [float(r["seconds"]) for r in csv.DictReader(f) if r["kernel"] == "train_step" and
                   r["model"] == model and r["input_shape"] == shape and r["threads"] == "1" and
                   int(r["batch_size"]) == batch]
    if not seconds:
        raise ValueError(f"{timing_file}: no one-thread step of {model}@{shape} at batch {batch}")
    return statistics.median(seconds)


def input_error(configurations):
    """The message for a shipped file the comparison needs and cannot read (the zip's time on the calibration CPU, a
    configuration's step), or None: checked before minutes of timing."""
    try:
        paired_stand_in.zip_on_calibration_cpu_s(KERNELS)
        for model, shape, batch, timing_file in configurations:
            shipped_step_s(timing_file, model, shape, batch)
    except (OSError, ValueError) as e:
        return str(e)
    return None


def carry_line(configuration, ratio, zip_calibration_s):
    """(measured over carried, the file's line for one configuration)."""
    model, shape, batch, timing_file = configuration
    carried_s = ratio * zip_calibration_s
    measured_s = shipped_step_s(timing_file, model, shape, batch)
    return measured_s / carried_s, (f"{model}@{shape} batch {batch}: step over zip {ratio:.6f}, carried "
                                    f"{carried_s:.6f} s, calibration CPU {measured_s:.6f} s ({timing_file}), "
                                    f"measured over carried {measured_s / carried_s:.4f}")


def summary_line(corrections):
    """The file's last line: the median over the configurations, with p10 and p90."""
    deciles = statistics.quantiles(sorted(corrections), n=10, method="inclusive")
    return (f"LibTorch steps, measured over the zip's carry: median {statistics.median(corrections):.4f} "
            f"(p10 {deciles[0]:.4f}, p90 {deciles[-1]:.4f}, {len(corrections)} configurations)")


def read_summary_line(path):
    """(median, p10, p90) of the correction, from the last line summary_line wrote."""
    return paired_stand_in.last_line_numbers(path, r"median ([0-9.]+) \(p10 ([0-9.]+), p90 ([0-9.]+)",
                                             "... median M (p10 A, p90 B, ...)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--p2psim", default=os.path.join(ROOT, "build", "p2psim"))
    paired_stand_in.add_common_options(parser, out=os.path.join(KERNELS, "libtorch_step_carry.txt"), samples=7)
    args = parser.parse_args()
    error = paired_stand_in.option_error(args, [(not os.access(args.p2psim, os.X_OK),
                                                 f"--p2psim {args.p2psim}: not an executable")])
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    error = input_error(CONFIGURATIONS)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    zip_calibration_s = paired_stand_in.zip_on_calibration_cpu_s(KERNELS)
    os.environ.update(ALLOCATOR)
    lines, corrections, all_pairs, retried = [], [], [], 0
    for configuration in CONFIGURATIONS:
        model, shape, batch, _ = configuration
        code = CHILD.format(p2psim=os.path.abspath(args.p2psim), model=model, shape=shape, batch=batch)
        try:
            pairs, again = paired_stand_in.time_pairs(code, args.zip_data, args.samples)
        except subprocess.CalledProcessError as e:  # the child's own message: calibrate's exit and its stderr
            why = (e.stderr.strip().splitlines() or [f"the sample exited {e.returncode}"])[-1]
            print(f"error: {model}@{shape} batch {batch}: {why}", file=sys.stderr)
            return 2
        correction, line = carry_line(configuration, paired_stand_in.median_ratio(pairs), zip_calibration_s)
        corrections.append(correction)
        lines.append(f"# {model}@{shape} batch {batch}: " + " ".join(f"{s:.6f}/{z:.6f}" for s, z, _, _ in pairs))
        lines.append(line)
        all_pairs += pairs
        retried += again
    summary = summary_line(corrections)
    with open(args.out, "w") as f:
        f.write(paired_stand_in.timing_file_header(
            "LibTorch training steps (p2psim calibrate, one thread), each sample paired with one of SeBS "
            "311.compression's zip kernel, on one core of this host (cpu_identity below): "
            "calibration/python/libtorch_step_carry.py",
            f"zip on the calibration CPU {zip_calibration_s:.4f} s (lambda_x86_cpu_speed.txt); each sample the "
            "median of 5 steps; '# ' lines: step/zip seconds a pair", retried))
        f.write("\n".join(lines) + "\n" + summary + "\n")
    return paired_stand_in.finish(summary, all_pairs, args.quiet_zip_s)


if __name__ == "__main__":
    sys.exit(main())
