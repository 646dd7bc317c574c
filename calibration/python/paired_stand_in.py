"""A stand-in kernel timed on a host that need not be the calibration CPU: each sample of the kernel is paired with
one of SeBS's zip kernel (calibration/python/sebs_zip_compression.py, whose time on the calibration CPU is in
calibration/kernels/lambda_x86_cpu_speed.txt), one after the other, each a fresh process pinned to one core
(calibration/python/pinned_sample.py). The file's last line is the median of the pairs' ratios, kernel over zip: a
ratio within one minute, which a shared machine's drift between runs moves less than either time. The kernel's time
on the calibration CPU is that ratio times the zip's time there.

The ratio still moves with other tenants' load on the host, which the pinned samples cannot see (it is not this
machine's CPU time): on 2026-12-06 ClassiFaaS's gemm over the zip rose from 1.49 to 1.67 as the zip's median rose from
0.221 to 0.288 s, the Node.js loop slowing more than the zip. A run therefore counts only when the zip ran as fast as
on a quiet host: --quiet-zip-s gives the zip's time on this host when quiet, and a run whose zip median is more than
QUIET_TOLERANCE above it is written but exits 3, to be run again."""
import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile

from pinned_sample import quiet_sample, timing_file_header
import sebs_zip_compression as zip_kernel

QUIET_TOLERANCE = 0.03


def zip_on_calibration_cpu_s(kernels_dir):
    """The zip's time on the calibration CPU: the seconds ending the `calibration CPU:` line of
    `kernels_dir`/lambda_x86_cpu_speed.txt (`median S s`, or `median T s x R (...) = S s` with zipfile's import taken
    out)."""
    path = os.path.join(kernels_dir, "lambda_x86_cpu_speed.txt")
    with open(path) as f:
        line = next((l.strip() for l in f if l.startswith("calibration CPU:")), "")
    seconds = re.search(r"([0-9.]+) s$", line)
    if not seconds:
        raise ValueError(f"{os.path.normpath(path)}: no 'calibration CPU: ... S s' line")
    return float(seconds.group(1))


def add_common_options(parser, out, samples=61):
    """--zip-data, --out (default `out`), --samples (default `samples`) and --quiet-zip-s, every paired tool's
    options."""
    parser.add_argument("--zip-data", required=True, help="the acmart-master directory of serverless-benchmarks-data")
    parser.add_argument("--out", default=out)
    parser.add_argument("--samples", type=int, default=samples)
    parser.add_argument("--quiet-zip-s", type=float, help="the zip's median on this host when quiet (exit 3 if this "
                        "run's is over 3 %% above it): 0.2171 on the Zen 4 host, "
                        "calibration/kernels/sebs_zip_compression_resnet50_host.txt")


def common_option_error(args):
    """The message for a bad --quiet-zip-s, --samples, --zip-data or --out, or None."""
    if args.quiet_zip_s is not None and not args.quiet_zip_s > 0:
        return f"--quiet-zip-s {args.quiet_zip_s}: a time in seconds above 0"
    if args.samples < 3:
        return f"--samples {args.samples}: at least 3, for a median"
    if not os.path.isdir(args.zip_data) or zip_kernel.directory_bytes(args.zip_data) != zip_kernel.DATASET_BYTES:
        return f"--zip-data {args.zip_data}: not SeBS's {zip_kernel.DATASET_BYTES:,}-byte acmart-master directory"
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        return f"--out {args.out}: no such directory"
    return None


def option_error(args, own_checks=()):
    """The message for the first bad option: the tool's own (`own_checks`: (bad, message) pairs, in order), then the
    shared ones (common_option_error), or None."""
    return next((message for bad, message in own_checks if bad), None) or common_option_error(args)


def derive_main(parser, derive):
    """A tool's --derive run: parses its options (`parser`, which has --kernels) and prints `derive(kernels)`'s lines;
    exit code 0, or 2 with the error (a file missing or not as written) on stderr."""
    args = parser.parse_args()
    try:
        print("\n".join(derive(args.kernels)))
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def tool_main(doc, derive, measure, out, samples=61, add_options=None, own_checks=None):
    """A paired tool's main(): with --derive [--kernels DIR], prints derive(DIR)'s lines (derive_main); else parses the
    shared options (add_common_options, with `out` and `samples` as defaults) and the tool's (`add_options(parser)`),
    checks them (`own_checks(args)`' (bad, message) pairs first) and returns measure(args). Exit code 2 and the message
    for a bad option."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--derive", action="store_true", help="print the profile's constants from the file")
    parser.add_argument("--kernels", default="calibration/kernels", help="where the file is (--derive)")
    if "--derive" in sys.argv:
        return derive_main(parser, derive)
    add_common_options(parser, out=out, samples=samples)
    if add_options:
        add_options(parser)
    args = parser.parse_args()
    error = option_error(args, own_checks(args) if own_checks else ())
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return measure(args)


def run(args, kernel_code, write):
    """Times `kernel_code` against the zip (time_pairs), writes the file with `write(pairs, retried)`, which returns its
    last line, and ends as finish() does: the tool's exit code."""
    pairs, retried = time_pairs(kernel_code, args.zip_data, args.samples)
    return finish(write(pairs, retried), pairs, args.quiet_zip_s)


def finish(summary, pairs, quiet_zip_s):
    """Prints the file's last line; the exit code: 3 (and why) for a run on a busy host (contention()), else 0."""
    print(summary)
    busy = contention(pairs, quiet_zip_s)
    if busy:
        print(f"warning: {busy}", file=sys.stderr)
        return 3
    return 0


def contention(pairs, quiet_zip_s):
    """The message for a run whose zip median is more than QUIET_TOLERANCE above `quiet_zip_s` (None: not checked),
    or None."""
    zip_median = statistics.median(pair[1] for pair in pairs)
    if quiet_zip_s is None or zip_median <= quiet_zip_s * (1 + QUIET_TOLERANCE):
        return None
    return (f"the zip's median, {zip_median:.4f} s, is {zip_median / quiet_zip_s - 1:.0%} above its quiet "
            f"{quiet_zip_s:.4f} s: the host was busy and the ratio is not to be trusted; run again")


def time_pairs(kernel_code, zip_data, samples):
    """([(kernel_s, zip_s, kernel_foreign_share, zip_foreign_share)] * samples, samples measured again):
    `kernel_code`, Python that prints the kernel's seconds first on its output, and the zip, in turn on one core,
    each once untimed first (the page cache, the interpreter's files)."""
    core = max(os.sched_getaffinity(0))
    pairs, retried = [], 0
    with tempfile.TemporaryDirectory(prefix="sebs-311-") as download_path:
        shutil.copytree(zip_data, os.path.join(download_path, zip_kernel.DATASET))
        quiet_sample(zip_kernel.CHILD, core, cwd=download_path)
        quiet_sample(kernel_code, core)
        for _ in range(samples):
            kernel_out, kernel_foreign, again_kernel = quiet_sample(kernel_code, core)
            zip_out, zip_foreign, again_zip = quiet_sample(zip_kernel.CHILD, core, cwd=download_path)
            retried += again_kernel + again_zip
            pairs.append((float(kernel_out.split()[0]), float(zip_out.split()[0]), kernel_foreign, zip_foreign))
    return pairs, retried


def median_ratio(pairs):
    """The median of the pairs' ratios, kernel over zip: each ratio taken within one minute of the machine's drift."""
    return statistics.median(pair[0] / pair[1] for pair in pairs)


def last_line_numbers(path, pattern, expected):
    """The numbers `pattern`'s groups match on the file's last line, or ValueError naming the file and `expected`."""
    with open(path) as f:
        lines = f.read().splitlines()
    m = re.search(pattern, lines[-1]) if lines else None
    if not m:
        raise ValueError(f"{path}: its last line is not '{expected}'")
    return tuple(float(g) for g in m.groups())


def pairs_file_ratio(path):
    """The median of the pairs' ratios, kernel over zip, on the last line write_pairs_file wrote."""
    return last_line_numbers(path, r"over zip \(median of \d+ pairs\) ([0-9.]+)$",
                             "... over zip (median of N pairs) R")[0]


def write_pairs_file(path, label, kernel, tool, details, pairs, retried):
    """The header (pinned_sample.timing_file_header, titled with `kernel`, what was timed, and `tool`, the script's
    name in calibration/python), `<label>_seconds zip_seconds <label>_foreign_cpu_share zip_foreign_cpu_share` a pair,
    then the medians and the median of the pairs' ratios. Returns that line."""
    title = (f"{kernel}, each sample paired with one of SeBS 311.compression's zip kernel, on one core of this host "
             f"(cpu_identity below): calibration/python/{tool}")
    summary = (f"{label} median {statistics.median(p[0] for p in pairs):.4f} s, zip median "
               f"{statistics.median(p[1] for p in pairs):.4f} s, {label} over zip (median of {len(pairs)} pairs) "
               f"{median_ratio(pairs):.4f}")
    with open(path, "w") as f:
        f.write(timing_file_header(title, details, retried))
        f.write(f"# {label}_seconds zip_seconds {label}_foreign_cpu_share zip_foreign_cpu_share\n")
        for kernel_s, zip_s, kernel_foreign, zip_foreign in pairs:
            f.write(f"{kernel_s:.4f} {zip_s:.4f} {kernel_foreign:.3f} {zip_foreign:.3f}\n")
        f.write(summary + "\n")
    return summary
