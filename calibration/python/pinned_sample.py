"""One timed sample in a fresh interpreter pinned to one core, measured again while other processes take CPU.

The child prints its own timing on stdout; the parent reads /proc/stat around it and takes off the child's own CPU
time, so that a sample during which other processes took more than MAX_FOREIGN_SHARE of the machine's CPUs is
measured again (MAX_ATTEMPTS attempts at most; the last is kept either way, with its share recorded)."""
import datetime
import os
import resource
import statistics
import subprocess
import sys

from cpu_identity import cpu_identity

MAX_FOREIGN_SHARE = 0.10
MAX_ATTEMPTS = 11


def cpu_ticks():
    """(busy, total) jiffies of all CPUs."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def run_pinned(code, core, cwd=None):
    """(stdout, foreign CPU share) of `python -c code` pinned to `core`."""
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    own_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy_before, total_before = cpu_ticks()
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, cwd=cwd,
                         preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    busy_after, total_after = cpu_ticks()
    own_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    own_ticks = (own_after.ru_utime + own_after.ru_stime - own_before.ru_utime - own_before.ru_stime) * ticks_per_s
    total = max(1, total_after - total_before)
    return out.stdout, max(0.0, (busy_after - busy_before - own_ticks) / total)


def quiet_sample(code, core, cwd=None):
    """(stdout, foreign CPU share, attempts measured again) of the first attempt other processes left alone."""
    for attempt in range(MAX_ATTEMPTS):
        stdout, foreign = run_pinned(code, core, cwd)
        if foreign <= MAX_FOREIGN_SHARE or attempt == MAX_ATTEMPTS - 1:
            return stdout, foreign, attempt


def timing_file_header(title, details, retried):
    """A timing file's first three lines: `# title, <UTC time>`, the CPU's identity, `# details; N samples measured
    again ...`."""
    return (f"# {title}, {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}\n"
            f"# cpu_identity: {cpu_identity()}\n"
            f"# {details}; {retried} samples measured again for other processes' CPU\n")


def write_timing_file(path, title, details, samples, retried, digits=3):
    """A timing file: `# title, <UTC time>`, the CPU's identity, `# details; N samples measured again ...`, one
    `seconds foreign_cpu_share` row per sample, and a last line `median S s (p10 .., p90 .., N samples)`, the line
    the profile's constants are read from. Returns that line."""
    values = sorted(seconds for seconds, _ in samples)
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    summary = (f"median {statistics.median(values):.{digits}f} s (p10 {deciles[0]:.{digits}f}, "
               f"p90 {deciles[-1]:.{digits}f}, {len(values)} samples)")
    with open(path, "w") as f:
        f.write(timing_file_header(title, details, retried))
        f.write("# seconds foreign_cpu_share\n")
        for seconds, foreign in samples:
            f.write(f"{seconds:.4f} {foreign:.3f}\n")
        f.write(summary + "\n")
    return summary
