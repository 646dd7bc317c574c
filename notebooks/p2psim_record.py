"""p2psim's record (docs/accuracy.md, "The record's band") recomputed from `p2psim validate --out DIR`'s files,
under other weightings, so that the choice of weighting can be revisited on the evidence.

The record is the p10 and p90 of the validation metrics' time errors, taken in logarithms, each source weighing
alike (sim/results/error_spread.cpp); its held-out coverage judges each source's metrics by the band of the other
sources' errors. This module does the same from DIR/validation.csv with the weight of a metric as a function of its
source's metric count: 1/n (each source alike, what p2psim ships), 1 (each metric alike) or 1/sqrt(n); held out by
source, by a lab (a group of sources) or within a design. It also gives the fit `docs/accuracy.md`, "What the
measurements alone allow", quotes: the time and cost medians with each group p2psim predicts alike
(DIR/validation.json) predicted at the value that best meets its measurements, a fit p2psim must never ship.

Usage: p2psim_record.py DIR    (prints the comparison; exit 2 when DIR holds no readable validation files)
"""
import json
import math
import os
import sys

import numpy as np
import pandas as pd

# A metric's weight from its source's count of time metrics.
WEIGHTINGS = {
    "each source alike (shipped)": lambda n: 1.0 / n,
    "each metric alike": lambda n: 1.0,
    "each metric 1 / sqrt(its source's metrics)": lambda n: 1.0 / math.sqrt(n),
}
SHIPPED = "each source alike (shipped)"
# One lab's benchmarks (SPCL, ETH Zurich: validation/README.md), held out together.
ETH_LAB = {"SeBS", "SeBS-Flow", "PraaS", "FMI"}


class RecordError(Exception):
    """A missing or malformed validation file: reported on one line, exit code 2."""


def load(directory):
    """validate's validation.csv (the validation rows) and validation.json."""
    try:
        rows = pd.read_csv(os.path.join(directory, "validation.csv"))
        with open(os.path.join(directory, "validation.json"), encoding="utf-8") as f:
            summary = json.load(f)["summary"]
    except (OSError, ValueError, KeyError) as e:
        raise RecordError(f"{directory}: no readable validation.csv and validation.json of p2psim validate: {e}")
    missing = {"role", "kind", "source_group", "design", "measured", "error_percent",
               "time_error_percent"} - set(rows.columns)
    if missing:
        raise RecordError(f"{directory}/validation.csv: missing columns {', '.join(sorted(missing))}")
    return rows[rows["role"] == "validation"].reset_index(drop=True), summary


def time_rows(rows):
    return rows[rows["kind"] != "cost"]


def spread(rows, weighting=SHIPPED):
    """(p10, p90) in percent of the rows' time errors: log errors sorted, each at the middle of its weight (Hazen's
    plotting positions), straight lines between, the end values beyond."""
    counts = rows.groupby("source_group")["source_group"].transform("count").to_numpy()
    weights = np.array([WEIGHTINGS[weighting](n) for n in counts])
    logs = np.log1p(rows["time_error_percent"].to_numpy() / 100.0)
    order = np.argsort(logs, kind="stable")
    logs, weights = logs[order], weights[order]
    positions = (np.cumsum(weights) - weights / 2) / weights.sum()
    return tuple(100.0 * math.expm1(np.interp(q, positions, logs)) for q in (0.1, 0.9))


def held_out(rows, weighting=SHIPPED, group_of=None, within_design=False):
    """{'time': (inside, n), 'cost': (inside, n)}: each validation metric against the band of the time errors of the
    rows outside its group (its source, or group_of(source)); within_design: of its design's rows, where two other
    sources of that design or more remain."""
    group_of = group_of or (lambda source: source)
    groups = rows["source_group"].map(group_of)
    times = time_rows(rows)
    time_groups = groups[times.index]
    result = {}
    for kind, subset in (("time", rows[rows["kind"] != "cost"]), ("cost", rows[rows["kind"] == "cost"])):
        inside = 0
        for index, row in subset.iterrows():
            others = times[time_groups != groups[index]]
            if within_design:
                same = others[others["design"] == row["design"]]
                if same["source_group"].nunique() >= 2:
                    others = same
            p10, p90 = spread(others, weighting)
            inside += p10 <= row["time_error_percent"] <= p90
        result[kind] = (int(inside), len(subset))
    return result


def fit_alike(rows, summary):
    """{'time': (median before, after), 'cost': ...}: median |error| (predicted / measured - 1, each metric in its own
    unit, as the summary) with each predicted-alike group predicted at the value that misses its smallest and its
    largest measurement alike, by the group's floor (largest - smallest) / (largest + smallest): their harmonic
    mean, 2 / (1 / smallest + 1 / largest)."""
    keyed = rows.assign(key=rows["case"] + " " + rows["metric"]).set_index("key")
    result = {}
    for kind in ("time", "cost"):
        subset = keyed[(keyed["kind"] == "cost") == (kind == "cost")]
        errors = subset["error_percent"].abs().copy()
        for group in summary[kind].get("predicted_alike", []):
            measured = subset.loc[group["metrics"], "measured"]
            best = 2.0 / (1.0 / measured.min() + 1.0 / measured.max())
            errors[group["metrics"]] = (100.0 * (best / measured - 1)).abs()
        result[kind] = (float(subset["error_percent"].abs().median()), float(errors.median()))
    return result


def report(rows, summary):
    lines = ["weighting                                   p10 .. p90 (all)   held out: time      cost"]
    times = time_rows(rows)
    variants = [(name, {"weighting": name}) for name in WEIGHTINGS] + [
        ("each source alike within a design", {"within_design": True}),
        ("each source alike, ETH's lab held out whole", {"group_of": lambda s: "ETH" if s in ETH_LAB else s}),
    ]
    for name, options in variants:
        band = "" if set(options) - {"weighting"} else "{:+6.1f} .. {:+6.1f} %".format(*spread(times, **options))
        counts = held_out(rows, **options)
        lines.append("{:43} {:18} {:>4} of {:<4}  {:>3} of {}".format(name, band, *counts["time"], *counts["cost"]))
    for kind, (before, after) in fit_alike(rows, summary).items():
        lines.append(f"{kind} median |error| {before:.1f} %, with each predicted-alike group at its best value "
                     f"{after:.1f} %")
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        print(report(*load(argv[1])))
    except RecordError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
