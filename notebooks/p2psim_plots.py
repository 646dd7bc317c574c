#!/usr/bin/env python3
"""Figures, reports and recommendations from p2psim results.

A results table is a sweep's `results.csv` (or one run's `result.csv`): one row per scenario x system,
units in the column names. Run with Debian's Python (/usr/bin/python3), which sees python3-matplotlib and
python3-pandas:

    /usr/bin/python3 notebooks/p2psim_plots.py report DIR            # DIR/report/: figures + report.html
    /usr/bin/python3 notebooks/p2psim_plots.py report DIR --facet peers --format pdf --size one-column
    /usr/bin/python3 notebooks/p2psim_plots.py report RUN_DIR        # one run: its timeline, trace.json
    /usr/bin/python3 notebooks/p2psim_plots.py recommend DIR --deadline-s 600 [--where model=vgg11]
    /usr/bin/python3 notebooks/p2psim_plots.py recommend DIR --budget-usd 0.5
    /usr/bin/python3 notebooks/p2psim_plots.py recommend DIR --deadline-s 900 --target-accuracy 0.7
    /usr/bin/python3 notebooks/p2psim_plots.py validation-figure DIR  # DIR/validation.csv -> validation.png/.svg

Configurations are compared like with like: Pareto fronts and recommendations are per workload (model,
input shape, dataset: what the user wants to train), never across workloads.

`p2psim report` and `p2psim recommend` run exactly these.
"""
import argparse
import base64
import csv
import datetime
import html
import io
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # headless: figures go to files
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import pandas as pd  # noqa: E402

import p2psim_accuracy  # noqa: E402
import p2psim_html  # noqa: E402
import p2psim_timeline  # noqa: E402
import p2psim_validation  # noqa: E402

# Publication output: fonts embedded in PDF (TrueType, type 42); text as paths in SVG (no font needed).
matplotlib.rcParams.update({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "path"})
# Figure widths in inches: a single or a double column of a two-column paper (IEEE/ACM), or a screen.
SIZES = {"screen": None, "one-column": 3.5, "two-column": 7.16}
FORMATS = ("png", "svg", "pdf")
TIME = "total_s"
COST = "total_usd"
# Okabe-Ito, safe for colour-blind readers; systems take them in a fixed order (the paper's two first), so a
# system has the same colour in every figure of a report.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
IMPROVEMENT = "gradient_improvement_vs_baseline_percent"
RATIO = "cost_ratio_vs_baseline"
# Stacked phases: (label, columns of results.csv summed for it).
# An iteration of a peer, split into parts that add up to it (per peer and iteration, as result.csv gives them);
# "other" is the rest: waiting for a workflow, polling, a crashed peer's absence.
PHASES = [
    ("gradient computation", "gradient_s_per_iteration"),
    ("communication", "communication_s_per_iteration"),
    ("aggregate and update", "aggregate_update_s_per_iteration"),
    ("barrier", "barrier_s_per_iteration"),
]
# What the user wants to train: configurations are only ever compared within one workload.
WORKLOAD = ["model", "input_shape", "dataset"]
# Columns that describe a configuration (what a user chooses), in the order tables show them.
CONFIG_COLUMNS = ["system", "strategy", "model", "input_shape", "dataset", "peers", "instance_type", "function_memory_mb",
                  "function_arch", "iterations", "transport"]


class ResultsError(Exception):
    """Bad or missing results: reported on one line, exit code 2."""


# ---- loading and pure logic (unit-tested) ------------------------------------------------------------------

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
    for column in (TIME, COST):
        values = pd.to_numeric(df[column], errors="coerce")
        bad = values.isna() | (values < 0)
        if bad.any():
            row = int(bad.idxmax())
            raise ResultsError(f"{path}: row {row + 2}: {column} is not a number >= 0 "
                               f"(got {df.at[row, column]!r}; a truncated or edited row?)")
        df[column] = values
    if df["system"].isna().any():
        raise ResultsError(f"{path}: row {int(df['system'].isna().idxmax()) + 2}: no system")


def system_colors(df):
    """A colour per system name: instance and serverless first, the others in name order."""
    names = sorted(set(df["system"]), key=lambda n: ({"instance": 0, "serverless": 1}.get(n, 2), n))
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


def workload_of(df):
    """Per row, its workload as one label, e.g. 'vgg11 3x32x32 cifar10'."""
    cols = [c for c in WORKLOAD if c in df.columns]
    if not cols or df.empty:
        return pd.Series("all", index=df.index, dtype=str)
    return df[cols].astype(str).agg(" ".join, axis=1)


def facets(df, facet=None):
    """(label, rows) panels: by `facet` (a column), by workload when the table holds several, else one."""
    if facet == "none":
        return [("", df)]
    if facet:
        if facet not in df.columns:
            raise ResultsError(f"--facet: no column '{facet}' (columns: {', '.join(df.columns)})")
        return [(f"{facet} = {value}", rows) for value, rows in df.groupby(facet, sort=True)]
    workloads = workload_of(df)
    if workloads.nunique() <= 1:
        return [("", df)]
    return [(label, df[workloads == label]) for label in sorted(workloads.unique())]


def feasible(df):
    """Rows whose run could finish (tables written before the status column count as feasible)."""
    if "status" not in df.columns:
        return df
    return df[df["status"] == "ok"]


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
        keys = ["scenario_id", "system"] if "scenario_id" in curves.columns and "scenario_id" in df.columns \
            else ["system"]
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


def recommend(df, deadline_s=None, budget_usd=None, runners_up=3):
    """The cheapest row within the deadline, or the fastest within the budget, and the next runners-up.

    Returns (best_row_or_None, runners_up_dataframe, slack_column_name). Each row gains a `slack` column:
    seconds left before the deadline, or dollars left in the budget.
    """
    if (deadline_s is None) == (budget_usd is None):
        raise ValueError("give exactly one of a deadline and a budget")
    df = feasible(df).copy()  # an infeasible configuration is never proposed
    if deadline_s is not None:
        df["slack_s"] = deadline_s - df[TIME]
        ok = df[df[TIME] <= deadline_s].sort_values([COST, TIME], kind="mergesort")
        slack = "slack_s"
    else:
        df["slack_usd"] = budget_usd - df[COST]
        ok = df[df[COST] <= budget_usd].sort_values([TIME, COST], kind="mergesort")
        slack = "slack_usd"
    # Rows with the same system, time and cost are one choice (e.g. instance runs across function sizes).
    ok = ok.drop_duplicates(subset=["system", TIME, COST])
    if ok.empty:
        return None, ok, slack
    return ok.iloc[0], ok.iloc[1:1 + runners_up], slack


def comparison(df, axes):
    """Per configuration (the axes) and non-baseline system: its improvement % in gradient-computation time
    and cost ratio against the baseline system, the paper's two metrics (feasible pairs only; p2psim writes
    them in every row)."""
    df = feasible(df)
    if IMPROVEMENT not in df.columns:
        return pd.DataFrame(columns=list(axes) + ["system", "improvement_percent", "cost_ratio"])
    rows = df[df[IMPROVEMENT].notna()]
    out = rows[[a for a in axes if a != "system"] + ["system", IMPROVEMENT, RATIO]]
    return out.rename(columns={IMPROVEMENT: "improvement_percent", RATIO: "cost_ratio"}).reset_index(drop=True)


def swept_axes(df):
    """Configuration columns that take more than one value in the table: the resolved configuration columns
    first, then sweep axes (`element/@attr`, `profile:...`) that no configuration column already shows."""
    config = [c for c in CONFIG_COLUMNS if c in df.columns and c not in ("system", "strategy") and df[c].nunique() > 1]
    axes = [c for c in df.columns if ("/@" in c or c.startswith("profile:")) and df[c].nunique() > 1]
    same = lambda a, c: (df[a].astype(str) == df[c].astype(str)).all()  # noqa: E731
    return config + [a for a in axes if not any(same(a, c) for c in config)]


# ---- figures -----------------------------------------------------------------------------------------------

def provenance(df):
    version = df["p2psim_version"].iloc[0] if "p2psim_version" in df.columns else "?"
    profile = df["profile"].iloc[0] if "profile" in df.columns else "?"
    experiment = df["experiment"].iloc[0] if "experiment" in df.columns else "?"
    return (f"experiment {experiment}, profile {profile}, p2psim {version}, "
            f"drawn {datetime.date.today().isoformat()}")


def _finish(fig, df, title):
    fig.suptitle(title)
    fig.text(0.01, 0.005, provenance(df), fontsize=7, color="0.35", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def _log_axes(ax):
    """Log axes with plain numbers at the decades; minor ticks unlabelled, except 2 and 5 x a decade on an axis
    spanning under two decades (so that it has a few labels, never overprinted ones). Call after plotting."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    some = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}" if round(v / 10 ** math.floor(math.log10(v)), 6)
                                           in (2, 5) else "")
    for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, numticks=12))
        axis.set_major_formatter(plain)
        narrow = limits[0] > 0 and limits[1] / limits[0] < 100
        axis.set_minor_formatter(some if narrow else matplotlib.ticker.NullFormatter())
    ax.tick_params(which="minor", labelsize=7)


def fig_time_vs_cost(df, facet=None, width=None):
    """Per panel (workload, or the facet column's values), every scenario and each system's Pareto front."""
    panels = facets(df, facet)
    ncols = min(3, len(panels))
    nrows = -(-len(panels) // ncols)
    w = width or 6.5 * ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(w, w / ncols * 0.8 * nrows + 0.6), squeeze=False)
    colors = system_colors(df)
    for ax, (label, rows) in zip(axes.flat, panels):
        infeasible = rows.drop(feasible(rows).index)
        if not infeasible.empty:  # what was spent before failing: never on a front
            ax.scatter(infeasible[TIME], infeasible[COST], marker="x", s=20, color="0.45",
                       label=f"infeasible ({len(infeasible)}): cost until failure")
        for system, group in feasible(rows).groupby("system"):
            ax.scatter(group[TIME], group[COST], s=12, alpha=0.45, color=colors[system])
            front = group[pareto_mask(group)].sort_values(TIME)
            ax.plot(front[TIME], front[COST], "-o", ms=3.5, color=colors[system], label=f"{system} ({len(group)})")
        _log_axes(ax)
        ax.set_xlabel("total training time (s)")
        ax.set_ylabel("total cost (USD)")
        ax.grid(True, which="major", alpha=0.3)
        if label:
            ax.set_title(label, fontsize=9)
        ax.legend(loc="best", fontsize=7, framealpha=0.7)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    return _finish(fig, df, "Time against cost: every scenario, lines join each system's Pareto front")


def fig_against_axis(df, axis):
    fig, (ax_t, ax_c) = plt.subplots(1, 2, figsize=(10, 4))
    infeasible = df.drop(feasible(df).index)
    for ax in (ax_t, ax_c):  # shade the values at which some run cannot fit
        for value in sorted(infeasible[axis].unique()) if axis in infeasible else []:
            ax.axvline(value, color="tab:red", alpha=0.25, lw=6)
    colors = system_colors(df)
    df = feasible(df)
    for arch, group in df.groupby("system"):
        med = group.groupby(axis)[[TIME, COST]].median().sort_index()
        ax_t.plot(med.index, med[TIME], "-o", color=colors[arch], label=arch)
        ax_c.plot(med.index, med[COST], "-o", color=colors[arch], label=arch)
    for ax, label in ((ax_t, "total training time (s), median"), (ax_c, "total cost (USD), median")):
        ax.set_xlabel(axis)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    note = " (red: some runs infeasible)" if not infeasible.empty else ""
    return _finish(fig, df, f"Time and cost against {axis} (median over the other feasible runs){note}")


def chosen_rows(df, scenarios=None):
    """The rows whose phases to show: the given scenario ids, else each workload's Pareto-optimal ones."""
    df = feasible(df)
    if scenarios:
        rows = df[df["scenario_id"].isin(scenarios)] if "scenario_id" in df.columns else df.iloc[0:0]
        if rows.empty:
            raise ResultsError(f"--scenarios: no feasible row of scenario(s) {', '.join(scenarios)}")
        return rows
    parts = [rows[pareto_mask(rows)] for _, rows in facets(df)]
    return pd.concat(parts).sort_values(TIME) if parts else df


def fig_phase_breakdown(df, scenarios=None, width=None):
    """Each chosen scenario x system's iteration as stacked parts that add up to it (never a median over
    unrelated scenarios)."""
    rows = chosen_rows(df, scenarios).head(30)
    parts = [(label, column) for label, column in PHASES if column in rows.columns]
    several = workload_of(df).nunique() > 1
    names = [(f"{r['model']} " if several and "model" in rows.columns else "") +
             f"{str(r.get('scenario_id', ''))[:8]} {r['system']}".strip() for _, r in rows.iterrows()]
    fig, ax = plt.subplots(figsize=(width or 8, 1.2 + 0.32 * len(rows)))
    left = pd.Series(0.0, index=rows.index)
    for label, column in parts:
        ax.barh(names, rows[column], left=left, label=label)
        left = left + rows[column]
    if "iteration_s" in rows.columns:
        ax.barh(names, (rows["iteration_s"] - left).clip(lower=0), left=left, label="other (waiting, polling)",
                color="0.8")
    ax.invert_yaxis()
    ax.set_xlabel("seconds per peer and iteration")
    ax.legend(fontsize=7, bbox_to_anchor=(1.02, 1), loc="upper left")
    which = "the chosen scenarios" if scenarios else "the Pareto-optimal configurations of each workload"
    return _finish(fig, df, f"Where an iteration's time goes, for {which}")


def fig_heatmaps(df, x_axis, y_axis):
    """Per non-baseline system, a row of two heatmaps: improvement % and cost ratio against the baseline."""
    comp = comparison(df, [x_axis, y_axis])
    systems = sorted(comp["system"].unique())
    baseline = df["baseline"].iloc[0] if "baseline" in df.columns else "baseline"
    fig, axes = plt.subplots(len(systems), 2, figsize=(11, 4.2 * len(systems)), squeeze=False)
    for row, system in zip(axes, systems):
        part = comp[comp["system"] == system]
        for ax, (column, label, cmap) in zip(row, (("improvement_percent", "improvement in gradient time (%)", "RdYlGn"),
                                                   ("cost_ratio", f"cost ratio {system} / {baseline}", "RdYlGn_r"))):
            grid = part.pivot_table(index=y_axis, columns=x_axis, values=column, aggfunc="median")
            image = ax.imshow(grid.values, cmap=cmap, aspect="auto", origin="lower")
            ax.set_xticks(range(len(grid.columns)), [str(c) for c in grid.columns])
            ax.set_yticks(range(len(grid.index)), [str(i) for i in grid.index])
            ax.set_xlabel(x_axis)
            ax.set_ylabel(y_axis)
            for (r, c), v in pd.DataFrame(grid.values).stack().items():
                ax.text(c, r, f"{v:.1f}", ha="center", va="center", fontsize=7)
            fig.colorbar(image, ax=ax, label=label)
            ax.set_title(f"{system}: {label}", fontsize=9)
    return _finish(fig, df, f"Each system against the baseline ({baseline}) over {x_axis} and {y_axis}")


def fig_accuracy(results_dir, df):
    """Test accuracy against simulated time and cost for every replayed system of a run or sweep folder (run
    with <accuracy>); None when the folder holds no replay."""
    try:
        curves = p2psim_accuracy.load_curves(results_dir)
    except p2psim_accuracy.AccuracyError as e:
        raise ResultsError(str(e)) from e
    if curves is None:
        return None
    target = df["target_accuracy"].dropna() if "target_accuracy" in df.columns else pd.Series(dtype=float)
    return p2psim_accuracy.fig_accuracy(curves, float(target.iloc[0]) if len(target) else None)


def all_figures(df, facet=None, scenarios=None, width=None):
    """(name, figure) for every figure the table supports."""
    figures = [("time_vs_cost", fig_time_vs_cost(df, facet, width)),
               ("phase_breakdown", fig_phase_breakdown(df, scenarios, width))]
    axes = swept_axes(df)
    for axis in [a for a in axes if pd.api.types.is_numeric_dtype(df[a])]:
        figures.append((f"against_{axis.replace('/', '_').replace('@', '')}", fig_against_axis(df, axis)))
    if len(axes) >= 2 and not comparison(df, axes[:2]).empty:
        figures.append(("heatmaps", fig_heatmaps(df, axes[0], axes[1])))
    return figures


# ---- commands ------------------------------------------------------------------------------------------------

def pareto_table(df):
    """Each workload's Pareto-optimal rows."""
    df = feasible(df)
    parts = [rows[pareto_mask(rows)].assign(workload=label or "all") for label, rows in facets(df)]
    rows = pd.concat(parts).sort_values(["workload", TIME]) if parts else df
    cols = [c for c in ["workload", "scenario_id"] + swept_axes(df) + ["system", TIME, COST] if c in rows.columns]
    return rows[list(dict.fromkeys(cols))]


def save_figure(fig, out, name, formats, png_dpi=110):
    """Writes the figure in each format; returns the PNG bytes (for the HTML page)."""
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=png_dpi)
    for fmt in formats:
        path = os.path.join(out, f"{name}.{fmt}")
        if fmt == "png":
            with open(path, "wb") as f:
                f.write(png.getvalue())
        else:
            fig.savefig(path, format=fmt)
    plt.close(fig)
    return png.getvalue()


def report(results_dir, facet=None, formats=("png", "svg"), size="screen", scenarios=None):
    df = load_results(results_dir)
    base = results_dir if os.path.isdir(results_dir) else os.path.dirname(results_dir)
    out = os.path.join(base, "report")
    try:
        os.makedirs(out, exist_ok=True)
        probe = os.path.join(out, ".writable")
        open(probe, "w").close()
        os.remove(probe)
    except OSError as e:
        raise ResultsError(f"{out}: cannot write the report there ({e.strerror})") from e
    width = SIZES[size]
    figures = [(name, save_figure(fig, out, name, formats)) for name, fig in all_figures(df, facet, scenarios, width)]
    # One run (not a sweep): its timeline per system, and a Chrome trace for zooming into it.
    trace_path = os.path.join(base, "trace.csv")
    if os.path.isfile(trace_path):
        trace = p2psim_timeline.load_trace(trace_path)
        for system in trace["system"].unique():
            fig = p2psim_timeline.fig_timeline(trace, system, (width, width * 0.9) if width else None)
            figures.append((f"timeline_{system}", save_figure(fig, out, f"timeline_{system}", formats)))
        p2psim_timeline.write_chrome_trace(trace, os.path.join(out, "trace.json"))
    # A validation result beside the results (`p2psim validate --out DIR` or --out DIR/validation).
    for folder in (base, os.path.join(base, "validation")):
        if os.path.isfile(os.path.join(folder, "validation.csv")):
            try:
                fig = p2psim_validation.fig_validation(p2psim_validation.load_validation(folder))
            except p2psim_validation.ValidationError as e:
                raise ResultsError(str(e)) from e
            figures.append(("validation", save_figure(fig, out, "validation", formats)))
            break
    fig = fig_accuracy(base, df)
    if fig is not None:
        figures.append(("accuracy", save_figure(fig, out, "accuracy", formats)))
    colors = system_colors(df)
    workloads = workload_of(df)
    points = [{"time_s": float(r[TIME]), "cost_usd": float(r[COST]), "system": r["system"],
               "feasible": r.get("status", "ok") == "ok",
               "config": f"{workloads[i]}: " + describe(r, list(dict.fromkeys(["system"] + swept_axes(df) +
                                                                                 CONFIG_COLUMNS)))}
              for i, r in df.iterrows()]
    table = pareto_table(df).to_html(index=False, float_format=lambda v: f"{v:.6g}")
    page = p2psim_html.page("p2psim report", f"{provenance(df)}; {len(df)} rows", table, points, colors,
                            [(name, base64.b64encode(png).decode()) for name, png in figures])
    tmp = os.path.join(out, "report.html.partial")
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, os.path.join(out, "report.html"))
    extra = ", trace.json" if os.path.isfile(trace_path) else ""
    print(f"wrote {out}/report.html and {len(figures)} figures ({', '.join(f.upper() for f in formats)}){extra}")


def describe(row, columns):
    # Function settings mean nothing for a system that invoked no function.
    if row.get("function_invocations", 1) == 0:
        columns = [c for c in columns if "function" not in c]
    return ", ".join(f"{c}={row[c]}" for c in columns if c in row.index)


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


def recommend_command(results_dir, deadline_s, budget_usd, runners_up, where=None, target_accuracy=None):
    df = apply_where(load_results(results_dir), where)
    if target_accuracy is not None:
        rows = len(df)
        try:
            curves = p2psim_accuracy.load_curves(results_dir) if os.path.isdir(results_dir) else None
        except p2psim_accuracy.AccuracyError as e:
            raise ResultsError(str(e)) from e
        df = to_target(df, target_accuracy, curves)
        print(f"time and cost to {target_accuracy:g} test accuracy; {rows - len(df)} of {rows} rows never reached it")
        if df.empty:
            return 3
    columns = list(dict.fromkeys(["scenario_id", "system"] + swept_axes(df) + CONFIG_COLUMNS))
    panels = facets(df)  # like with like: one answer per workload
    code = 0
    for label, rows in panels:
        if len(panels) > 1:
            print(f"== workload {label} (narrow with --where, e.g. --where model={rows['model'].iloc[0]})"
                  if "model" in rows.columns else f"== workload {label}")
        code = max(code, recommend_one(rows, deadline_s, budget_usd, runners_up, columns))
    return code


def recommend_one(df, deadline_s, budget_usd, runners_up, columns):
    best, others, slack = recommend(df, deadline_s, budget_usd, runners_up)
    if best is None:
        ok = feasible(df)
        if ok.empty:
            print("no configuration is feasible (every one ran out of memory or failed)")
        elif deadline_s is not None:
            fastest = ok.loc[ok[TIME].idxmin()]
            print(f"no configuration meets the deadline of {deadline_s} s; the fastest takes {fastest[TIME]:.1f} s "
                  f"({describe(fastest, columns)})")
        else:
            cheapest = ok.loc[ok[COST].idxmin()]
            print(f"no configuration fits the budget of {budget_usd} USD; the cheapest costs "
                  f"{cheapest[COST]:.6f} USD ({describe(cheapest, columns)})")
        return 3
    unit = "s before the deadline" if slack == "slack_s" else "USD left in the budget"
    goal = "cheapest within the deadline" if deadline_s is not None else "fastest within the budget"
    print(f"{goal}: {best[TIME]:.1f} s, {best[COST]:.6f} USD, {best[slack]:.6g} {unit}\n  {describe(best, columns)}")
    for i, (_, row) in enumerate(others.iterrows(), start=2):
        print(f"#{i}: {row[TIME]:.1f} s, {row[COST]:.6f} USD, {row[slack]:.6g} {unit}\n  {describe(row, columns)}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="p2psim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="render every figure and an HTML report into DIR/report/")
    rep.add_argument("dir")
    rep.add_argument("--facet", help="one panel per value of this column (default: per workload; 'none': one)")
    rep.add_argument("--format", default="png,svg", help="comma-separated: png, svg, pdf (default png,svg)")
    rep.add_argument("--size", default="screen", choices=sorted(SIZES), help="figure width (default screen)")
    rep.add_argument("--scenarios", help="comma-separated scenario ids for the phase breakdown "
                                         "(default: each workload's Pareto-optimal ones)")
    rec = sub.add_parser("recommend", help="the best configuration for a deadline or a budget")
    rec.add_argument("dir")
    limit = rec.add_mutually_exclusive_group(required=True)
    limit.add_argument("--deadline-s", type=float)
    limit.add_argument("--budget-usd", type=float)
    rec.add_argument("--runners-up", type=int, default=3)
    rec.add_argument("--where", action="append", help="only rows where COLUMN=VALUE (repeatable), e.g. model=vgg11")
    rec.add_argument("--target-accuracy", type=float,
                     help="weigh time and cost to this test accuracy (results of a run with <accuracy>; another "
                          "target than the run's is read off its accuracy curves)")
    val = sub.add_parser("validation-figure", help="draw DIR/validation.png and .svg from DIR/validation.csv")
    val.add_argument("dir")
    args = parser.parse_args(argv)
    try:
        if args.command == "validation-figure":
            try:
                p2psim_validation.draw(args.dir)
            except p2psim_validation.ValidationError as e:
                raise ResultsError(str(e)) from e
            return 0
        if args.command == "report":
            formats = tuple(f for f in args.format.split(",") if f)
            if not formats or any(f not in FORMATS for f in formats):
                raise ResultsError(f"--format {args.format}: expected a comma-separated list of {', '.join(FORMATS)}")
            scenarios = [s for s in (args.scenarios or "").split(",") if s]
            report(args.dir, args.facet, formats, args.size, scenarios)
            return 0
        return recommend_command(args.dir, args.deadline_s, args.budget_usd, args.runners_up, args.where,
                                 args.target_accuracy)
    except ResultsError as e:
        print(f"p2psim {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
