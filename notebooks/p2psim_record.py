"""p2psim's record (docs/accuracy.md, "The record's band") recomputed from `p2psim validate --out DIR`'s files,
under other weightings, so that the choice of weighting can be revisited on the evidence.

The record is the p10 and p90 of the validation metrics' time errors, taken in logarithms, each source weighing
alike (sim/results/error_spread.cpp); its held-out coverage judges each source's metrics by the band of the other
sources' errors. This module does the same from DIR/validation.csv with the weight of a metric as a function of its
source's metric count: 1/n (each source alike, what p2psim ships), 1 (each metric alike) or 1/sqrt(n); held out by
source, by a lab (a group of sources) or within a design. As in p2psim, no band is drawn from fewer than two sources.
It also gives the fit `docs/accuracy.md`, "What the measurements alone allow", quotes: the time and cost medians with
each group p2psim predicts alike (DIR/validation.json) predicted at the value whose worst miss of the group's
measurements is least, a fit p2psim must never ship.

Usage: p2psim_record.py DIR    (prints the comparison; exit 2 when DIR holds no readable validation files)
"""
import json
import math
import os
import sys

import numpy as np

from p2psim_validation import ValidationError, load_validation

# A metric's weight from its source's count of time metrics.
WEIGHTINGS = {
    "each source alike (shipped)": lambda n: 1.0 / n,
    "each metric alike": lambda n: 1.0,
    "each metric 1 / sqrt(its source's metrics)": lambda n: 1.0 / math.sqrt(n),
}
SHIPPED = "each source alike (shipped)"
MIN_SOURCES = 2  # sim/results/validation.hpp, kMinSourcesForSpread
# Each lab's benchmarks (validation/README.md), held out together: SPCL at ETH Zurich's four, pacslab at York
# University's two studies of the same functions.
LAB_OF = {"SeBS": "ETH", "SeBS-Flow": "ETH", "PraaS": "ETH", "FMI": "ETH",
          "SLAppMdlOpt": "pacslab", "SLApp-PerfCost-MdlOpt": "pacslab"}


def load(directory):
    """validate's validation rows (validation.csv, checked as the validation figure checks it) and the summary's
    predicted-alike groups by kind (validation.json)."""
    rows = load_validation(directory)
    path = os.path.join(directory, "validation.csv")
    if "source_group" not in rows.columns or rows["source_group"].isna().any():
        raise ValidationError(f"{path}: every row needs its source_group")
    for column in ("error_percent", "time_error_percent"):
        if not np.issubdtype(rows[column].dtype, np.number) or not np.isfinite(rows[column]).all():
            raise ValidationError(f"{path}: column {column} must hold finite numbers")
    rows = rows[rows["role"] == "validation"].reset_index(drop=True)
    if rows.empty:
        raise ValidationError(f"{path}: no validation rows")
    path = os.path.join(directory, "validation.json")
    kinds = [kind for kind, subset in (("time", time_rows(rows)), ("cost", rows[rows["kind"] == "cost"]))
             if not subset.empty]
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)["summary"]
        groups = {kind: [list(g["metrics"]) for g in summary[kind]["predicted_alike"]] for kind in kinds}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValidationError(f"{path}: cannot read the summary's predicted_alike groups ({e!r})") from e
    keys = set(rows["case"] + " " + rows["metric"])
    unknown = [m for kind in groups.values() for group in kind for m in group if m not in keys]
    if unknown:
        raise ValidationError(f"{path}: predicted_alike names {unknown[0]!r}, no validation row of validation.csv")
    return rows, groups


def time_rows(rows):
    return rows[rows["kind"] != "cost"]


def spread(rows, weighting=SHIPPED):
    """(p10, p90) in percent of the rows' time errors, or None from fewer than MIN_SOURCES sources: log errors
    sorted (a tie by weight, as the C++ sorts its pairs), each at the middle of its weight (Hazen's plotting
    positions), straight lines between, the end values beyond."""
    if rows["source_group"].nunique() < MIN_SOURCES:
        return None
    counts = rows.groupby("source_group")["source_group"].transform("count").to_numpy()
    weights = np.array([WEIGHTINGS[weighting](n) for n in counts])
    logs = np.log1p(rows["time_error_percent"].to_numpy() / 100.0)
    order = np.lexsort((weights, logs))
    logs, weights = logs[order], weights[order]
    positions = (np.cumsum(weights) - weights / 2) / weights.sum()
    return tuple(100.0 * math.expm1(np.interp(q, positions, logs)) for q in (0.1, 0.9))


def held_out(rows, weighting=SHIPPED, group_of=None, within_design=False):
    """{'time': (inside, with a band), 'cost': ...}: each validation metric against the band of the time errors of
    the rows outside its group (its source, or group_of(source)); within_design: of its design's rows, where two
    other sources of that design or more remain."""
    group_of = group_of or (lambda source: source)
    groups = rows["source_group"].map(group_of)
    times = time_rows(rows)
    result = {}
    for kind, subset in (("time", times), ("cost", rows[rows["kind"] == "cost"])):
        inside = banded = 0
        for index, row in subset.iterrows():
            others = times[groups[times.index] != groups[index]]
            if within_design:
                same = others[others["design"] == row["design"]]
                if same["source_group"].nunique() >= MIN_SOURCES:
                    others = same
            band = spread(others, weighting)
            if band is not None:
                banded += 1
                inside += band[0] <= row["time_error_percent"] <= band[1]
        result[kind] = (int(inside), banded)
    return result


def fit_alike(rows, groups):
    """{'time': (median before, after), 'cost': ...}: median |error| (predicted / measured - 1, each metric in its
    own unit, as the summary) with each predicted-alike group predicted at the harmonic mean of its smallest and
    largest measurement, 2 / (1 / smallest + 1 / largest): the value that misses both by the group's floor,
    (largest - smallest) / (largest + smallest), and every measurement between by less; no value's worst miss is
    smaller. It minimises each group's worst miss, not the median: errors below the floor rise to it."""
    keyed = rows.assign(key=rows["case"] + " " + rows["metric"]).set_index("key")
    result = {}
    for kind in ("time", "cost"):
        if kind not in groups:
            continue
        subset = keyed[(keyed["kind"] == "cost") == (kind == "cost")]
        errors = subset["error_percent"].abs().copy()
        for group in groups[kind]:
            measured = subset.loc[group, "measured"]
            best = 2.0 / (1.0 / measured.min() + 1.0 / measured.max())
            errors[group] = (100.0 * (best / measured - 1)).abs()
        result[kind] = (float(subset["error_percent"].abs().median()), float(errors.median()))
    return result


def report(rows, groups):
    lines = ["weighting                                   p10 .. p90 (all)   held out: time      cost"]
    variants = [(name, {"weighting": name}, True) for name in WEIGHTINGS] + [
        ("each source alike within a design", {"within_design": True}, False),
        ("each source alike, a lab held out whole", {"group_of": lambda s: LAB_OF.get(s, s)}, False),
    ]
    for name, options, one_band in variants:  # the last two differ from the first only in the held-out bands
        band = spread(time_rows(rows), options["weighting"]) if one_band else None
        shown = "{:+6.1f} .. {:+6.1f} %".format(*band) if band else ""
        counts = held_out(rows, **options)
        lines.append("{:43} {:18} {:>4} of {:<4}  {:>3} of {}".format(name, shown, *counts["time"], *counts["cost"]))
    for kind, (before, after) in fit_alike(rows, groups).items():
        lines.append(f"{kind} median |error| {before:.1f} %; with each of its {len(groups[kind])} predicted-alike "
                     f"groups at its harmonic mean, {after:.1f} %")
    return "\n".join(lines)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        print(report(*load(argv[1])))
    except ValidationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
