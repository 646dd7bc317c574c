"""Results tables: loading and checking them, and the selections the figures, the report and `recommend` share
(panels per workload, feasible rows, Pareto fronts, comparisons against the baseline, swept axes).

A results table is a sweep's `results.csv` (or one run's `result.csv`): one row per scenario x system, units in
the column names. Configurations are compared like with like: fronts and answers are per workload (model,
input shape, dataset: what the user wants to train), never across workloads."""
import csv
import json
import os
import re

import pandas as pd

import p2psim_labels
import p2psim_style
from p2psim_schema import column, columns_of, labelled

TIME = column("total_s")
COST = column("total_usd")
IMPROVEMENT = column("gradient_improvement_vs_baseline_percent")
# The same improvement as the modelled paper's timer spanned it (docs/accuracy.md, "The modelled paper's headline").
PAPER_IMPROVEMENT = column("paper_gradient_improvement_vs_baseline_percent")
RATIO = column("cost_ratio_vs_baseline")
SPEEDUP = column("total_time_speedup_vs_baseline")
# Why representative_rows() shows a row: "fastest", "cheapest" or both (not a column of p2psim's tables).
PICKED = "picked_as"
# An iteration of a peer, split into parts that add up to it (per peer and iteration, as result.csv gives them);
# "other" is the rest: waiting for a workflow, polling, a crashed peer's absence.
PHASES = labelled("iteration_part")
# The bill by service: columns of results.csv that add up to total_usd (sim/cost/pricing.hpp).
SERVICES = labelled("cost_by_service")
# What the user wants to train: configurations are only ever compared within one workload.
WORKLOAD = ["model", "input_shape", "dataset"]
WORKLOAD_AXES = WORKLOAD + ["workload/@model", "workload/@input_shape", "workload/@dataset"]
# Columns that describe a configuration (what a user chooses), in the order tables show them.
CONFIG_COLUMNS = columns_of("configuration")


class ResultsError(Exception):
    """Bad or missing results, or a bad option: reported on one line, exit code 2."""


# ---- loading -------------------------------------------------------------------------------------------------

def load_results(path):
    """Reads DIR/results.csv, DIR/result.csv or a CSV file."""
    candidates = [path] if os.path.isfile(path) else [os.path.join(path, "results.csv"),
                                                      os.path.join(path, "result.csv")]
    for candidate in candidates:
        if os.path.isfile(candidate):
            check_row_widths(candidate)
            try:
                # Names stay text ("1", "NA" are names); only empty cells are missing values.
                df = pd.read_csv(candidate, dtype={"system": str, "strategy": str, "baseline": str,
                                                   "scenario_id": str}, keep_default_na=False, na_values=[""])
            except Exception as e:  # pandas raises several types for malformed CSV
                raise ResultsError(f"{candidate}: cannot read CSV: {e}") from e
            check_table(df, candidate)
            return df
    raise ResultsError(f"{path}: no results.csv or result.csv")


def failed_scenarios(results_dir):
    """A sweep's scenarios that failed (DIR/failed/<id>.json, written by `p2psim sweep`), by id: [(axes, why)], the
    axes as "select=value, ..." and why as its run's error line, without the generated file's name. None of them is
    in results.csv, so what reads it must say they are missing."""
    folder = os.path.join(results_dir, "failed")
    if not os.path.isdir(folder):
        return []
    failures = []
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".json")):
        try:
            with open(os.path.join(folder, name)) as f:
                record = json.load(f)
            axes = ", ".join(f"{k}={v}" for k, v in record.get("axes", {}).items())
            # As the sweep prints it: how the run ended ("exit code 2", "timed out after 30 s (--timeout)"), then its
            # error line, else the last line it wrote (a warning is no reason it failed).
            lines = [line for line in record.get("stderr", "").splitlines() if line.strip() and ": warning: " not in line]
            errors = [line for line in lines if "error:" in line]
            said = re.sub(r"^p2psim run: error: \S*scenarios/[0-9a-f]+\.xml:\d+: ", "", (errors or lines or [""])[-1])
            why = ": ".join(part for part in (record.get("error", ""), said) if part)
        except (OSError, ValueError, AttributeError) as e:  # a record someone edited: still a failure
            axes, why = name[:-len(".json")], f"unreadable record ({e})"
        failures.append((axes, why))
    return failures


def check_row_widths(path):
    """Every row as wide as the header (pandas would fill a truncated row with empty values)."""
    try:
        with open(path, newline="") as f:
            width = None
            for n, row in enumerate(csv.reader(f), start=1):
                if width is None:
                    width = len(row)
                elif len(row) != width:
                    raise ResultsError(f"{path}: row {n}: {len(row)} fields where the header has {width} "
                                       f"(a truncated or edited row?)")
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ResultsError(f"{path}: cannot read CSV: {e}") from e


def check_table(df, path):
    """A results table as p2psim writes it, or one clear error naming the file and the row."""
    duplicated = [c for c in df.columns if "." in c and c.rsplit(".", 1)[0] in df.columns and c.rsplit(".", 1)[1].isdigit()]
    if duplicated:  # pandas renames a repeated header "x" to "x.1"
        raise ResultsError(f"{path}: column {duplicated[0].rsplit('.', 1)[0]} appears twice in the header")
    missing = [c for c in ("system", TIME, COST) if c not in df.columns]
    if missing:
        raise ResultsError(f"{path}: missing column(s) {', '.join(missing)}")
    if df.empty:
        raise ResultsError(f"{path}: holds no result row")
    # An infeasible row's times are empty (they mean nothing); its cost, what it spent, is not.
    stopped = df["status"] != "ok" if "status" in df.columns else pd.Series(False, index=df.index)
    for column in (TIME, COST):
        values = pd.to_numeric(df[column], errors="coerce")
        allowed_empty = stopped & df[column].isna() if column == TIME else pd.Series(False, index=df.index)
        bad = (values.isna() & ~allowed_empty) | (values < 0)
        if bad.any():
            row = int(bad.idxmax())
            raise ResultsError(f"{path}: row {row + 2}: {column} is not a number >= 0 "
                               f"(got {df.at[row, column]!r}; a truncated or edited row?)")
        df[column] = values
    if df["system"].isna().any():
        raise ResultsError(f"{path}: row {int(df['system'].isna().idxmax()) + 2}: no system")


# ---- selections ------------------------------------------------------------------------------------------------

def system_colors(df):
    """A colour per system name of the table (p2psim_style: the same name has the same colour everywhere)."""
    return p2psim_style.system_colors(df["system"])


def workload_of(df):
    """Per row, its workload as one label, e.g. 'vgg11 3x32x32 cifar10'."""
    cols = [c for c in WORKLOAD if c in df.columns]
    if not cols or df.empty:
        return pd.Series("all", index=df.index, dtype=str)
    return df[cols].astype(str).agg(" ".join, axis=1)


def facets(df, facet=None):
    """(label, rows) panels, one workload each: per workload; with `facet` (a column), per workload and value of
    that column (a value the workload's name already says adds nothing to the label); 'none': one panel."""
    if facet == "none":
        return [("", df)]
    if facet and facet not in df.columns:
        raise ResultsError(f"--facet: no column '{facet}' (columns: {', '.join(df.columns)})")
    workloads = workload_of(df)
    if not facet:
        return [("" if label == "all" else label, df[workloads == label]) for label in sorted(workloads.unique())]
    panels = []
    # Rows without a value keep a panel of their own (a group-by would drop them, an all-empty column every row).
    for (workload, value), rows in df.groupby([workloads, df[facet]], sort=True, dropna=False):
        words = f"no {facet}" if pd.isna(value) else p2psim_labels.value_label(facet, value)
        label = workload if words in workload.split() else ", ".join(w for w in (workload, words) if w != "all")
        panels.append((label, rows))
    return panels


def feasible(df):
    """Rows whose run could finish (tables written before the status column count as feasible)."""
    if "status" not in df.columns:
        return df
    return df[df["status"] == "ok"]


def infeasible(df):
    return df.drop(feasible(df).index)


def pareto_mask(df, time_col=TIME, cost_col=COST):
    """True for rows no other row beats on both time and cost (ties: the first of equal rows is kept)."""
    order = df.sort_values([time_col, cost_col], kind="mergesort").index
    best_cost = float("inf")
    keep = pd.Series(False, index=df.index)
    for i in order:
        if df.at[i, cost_col] < best_cost:
            keep[i] = True
            best_cost = df.at[i, cost_col]
    return keep


def swept_axes(df):
    """Configuration columns that take more than one value in the table: the resolved configuration columns
    first, then sweep axes (`element/@attr`, `profile:...`) that no configuration column already shows."""
    config = [c for c in CONFIG_COLUMNS if c in df.columns and c not in ("system", "strategy") and df[c].nunique() > 1]
    axes = [c for c in df.columns if ("/@" in c or c.startswith("profile:")) and df[c].nunique() > 1]
    same = lambda a, c: (df[a].astype(str) == df[c].astype(str)).all()  # noqa: E731
    return config + [a for a in axes if not any(same(a, c) for c in config)]


def config_axes(df):
    """The swept axes that tell one system's configurations of one workload apart: the workload's own columns
    left out, and so are columns each system fixes by itself (e.g. its transport)."""
    groups = [c for c in WORKLOAD + ["system"] if c in df.columns]
    return [a for a in swept_axes(df) if a not in WORKLOAD_AXES and df.groupby(groups)[a].nunique().max() > 1]


def representative_rows(df, scenarios=None, facet=None):
    """The rows a per-configuration figure shows: the given scenario ids; else, in each panel, each system's
    fastest and its cheapest feasible configuration (one row when they are the same run, or runs with the same
    time and cost), which column PICKED says ("fastest", "cheapest", "fastest and cheapest"). Panel by panel,
    systems in palette order, then by time."""
    rows = feasible(df)
    if scenarios:
        rows = rows[rows["scenario_id"].isin(scenarios)] if "scenario_id" in rows.columns else rows.iloc[0:0]
        if rows.empty:
            raise ResultsError(f"--scenarios: no feasible row of scenario(s) {', '.join(scenarios)}")
        order = p2psim_style.system_order(rows["system"])
        return rows.assign(_order=[order.index(s) for s in rows["system"]]).sort_values(
            ["_order", TIME], kind="mergesort").drop(columns="_order")
    parts = []
    for _, panel in facets(rows, facet):
        for system in p2psim_style.system_order(panel["system"]):
            runs = panel[panel["system"] == system]
            picked = pd.concat([runs.loc[[runs[TIME].idxmin()]].assign(**{PICKED: "fastest"}),
                                runs.loc[[runs[COST].idxmin()]].assign(**{PICKED: "cheapest"})])
            one = picked.drop_duplicates(subset=[TIME, COST])
            if len(one) == 1:
                one = one.assign(**{PICKED: "fastest and cheapest"})
            parts.append(one.sort_values(TIME, kind="mergesort"))
    return pd.concat(parts) if parts else rows


def comparison(df, axes):
    """Per configuration (the axes) and non-baseline system: its improvement % in gradient-computation time
    and cost ratio against the baseline system, the paper's two metrics, and its speed-up in total time (feasible
    pairs only; p2psim writes them in every row)."""
    df = feasible(df)
    axes = [a for a in dict.fromkeys(axes) if a != "system"]
    if IMPROVEMENT not in df.columns:
        return pd.DataFrame(columns=axes + ["system", "improvement_percent", "cost_ratio"])
    rows = df[df[IMPROVEMENT].notna()]
    optional = [c for c in (PAPER_IMPROVEMENT, SPEEDUP) if c in rows.columns]
    out = rows[axes + ["system", IMPROVEMENT, RATIO] + optional]
    return out.rename(columns={IMPROVEMENT: "improvement_percent", RATIO: "cost_ratio",
                               PAPER_IMPROVEMENT: "paper_improvement_percent",
                               SPEEDUP: "total_speedup"}).reset_index(drop=True)


def linked(df, a, b):
    """True when one column's value fixes the other's in every row (swept together, as model and input shape):
    crossing them would leave most cells of a grid empty."""
    pairs = len(df[[a, b]].drop_duplicates())
    return pairs <= max(df[a].nunique(), df[b].nunique())


def heatmap_axes(df, chosen=None, facet=None):
    """The two axes of the heatmaps: the chosen pair (checked), else the first two swept axes that vary
    independently within a panel (numeric axes first, never the facet column); None when there is no such pair."""
    candidates = [a for a in config_axes(df) if a != facet]
    if chosen:
        if len(chosen) != 2 or chosen[0] == chosen[1]:
            raise ResultsError(f"--heatmap {','.join(chosen)}: expected two different columns X,Y")
        for axis in chosen:
            if axis not in df.columns:
                raise ResultsError(f"--heatmap: no column '{axis}' (swept here: {', '.join(candidates) or 'none'})")
            if df[axis].nunique() < 2:
                raise ResultsError(f"--heatmap: column '{axis}' takes one value only in this table")
        if any(linked(rows, *chosen) for _, rows in facets(df, facet)):
            raise ResultsError(f"--heatmap {','.join(chosen)}: these columns vary together in this sweep (each "
                               f"value of one goes with one of the other), so most cells would be empty; "
                               f"choose two of: {', '.join(candidates)}")
        return tuple(chosen)
    numeric_first = sorted(candidates, key=lambda c: not pd.api.types.is_numeric_dtype(df[c]))
    for i, x in enumerate(numeric_first):
        for y in numeric_first[i + 1:]:
            if not any(linked(rows, x, y) for _, rows in facets(df, facet)):
                return x, y
    return None


def pareto_table(df):
    """Each workload's Pareto-optimal rows: workload, system, the swept configuration, time, cost, scenario."""
    df = feasible(df)
    parts = [rows[pareto_mask(rows)].assign(workload=label or "all") for label, rows in facets(df)]
    rows = pd.concat(parts).sort_values(["workload", TIME]) if parts else df
    cols = [c for c in ["workload", "system"] + config_axes(df) + [TIME, COST, "scenario_id"] if c in rows.columns]
    return rows[list(dict.fromkeys(cols))]


def apply_where(df, where):
    """Rows matching every COLUMN=VALUE of `where`."""
    for clause in where or []:
        column, sep, value = clause.partition("=")
        if not sep or column not in df.columns:
            raise ResultsError(f"--where {clause}: expected COLUMN=VALUE with a column of the table "
                               f"(e.g. model=vgg11)")
        df = df[df[column].astype(str) == value]
        if df.empty:
            raise ResultsError(f"--where {clause}: no row matches")
    return df


def to_target(df, target_accuracy, curves=None):
    """Rows with time and cost to `target_accuracy` in place of total time and cost; rows that did not reach it
    are dropped. The run's own columns answer its <accuracy target>; another target is read off the replayed
    curves (p2psim_accuracy.load_curves) when given. Raises ResultsError when neither can answer."""
    recorded = "time_to_target_s" in df.columns and not df["target_accuracy"].isna().all()
    targets = sorted(df["target_accuracy"].dropna().unique()) if recorded else []
    if recorded and all(abs(t - target_accuracy) <= 1e-9 for t in targets):
        reached = df[df["time_to_target_s"].notna()].copy()
    elif curves is not None:
        # The first evaluated iteration at or above the target, per system (and scenario, in a sweep).
        keys = curve_keys(curves, df)
        hits = (curves[curves["test_accuracy"] >= target_accuracy].sort_values("iteration", kind="mergesort")
                .groupby(keys, sort=False).first().reset_index())
        hits = hits.rename(columns={"time_s": "time_to_target_s", "cost_usd": "cost_to_target_usd"})
        hits["iterations_to_target"] = hits["iteration"] + 1
        rows = df.drop(columns=[c for c in ("time_to_target_s", "cost_to_target_usd", "iterations_to_target")
                                if c in df.columns])
        reached = rows.merge(hits[keys + ["time_to_target_s", "cost_to_target_usd", "iterations_to_target"]],
                             on=keys, how="inner")
    elif recorded:
        raise ResultsError(f"--target-accuracy {target_accuracy:g}: these results were replayed for target "
                           f"{', '.join(f'{t:g}' for t in targets)} and their accuracy curves (accuracy.csv) are not "
                           f"beside them; rerun with <accuracy target=\"{target_accuracy:g}\"/>")
    else:
        raise ResultsError("--target-accuracy: these results hold no accuracy (run the experiment with "
                           "<accuracy target=\"...\"/>)")
    reached[TIME] = reached["time_to_target_s"]
    reached[COST] = reached["cost_to_target_usd"]
    return reached


def curve_keys(curves, df):
    """The columns joining accuracy curves to result rows: scenario and system in a sweep, system in a run."""
    return ["scenario_id", "system"] if "scenario_id" in curves.columns and "scenario_id" in df.columns else ["system"]


def best_accuracy(df, curves=None):
    """(accuracy, row) of the highest test accuracy any row reached (on its curve when given, else at its end);
    None when the table holds no accuracy."""
    if curves is not None and "test_accuracy" in curves.columns and curves["test_accuracy"].notna().any():
        peaks = curves.groupby(curve_keys(curves, df))["test_accuracy"].max().rename("best").reset_index()
        rows = df.merge(peaks, on=curve_keys(curves, df), how="inner")
        if not rows.empty:
            row = rows.loc[rows["best"].idxmax()]
            return float(row["best"]), row
    if "final_test_accuracy" in df.columns and df["final_test_accuracy"].notna().any():
        row = df.loc[df["final_test_accuracy"].idxmax()]
        return float(row["final_test_accuracy"]), row
    return None
