#!/usr/bin/env python3
"""Figures, reports and recommendations from p2psim results.

A results table is a sweep's `results.csv` (or one run's `result.csv`): one row per scenario x system,
units in the column names. Run with Debian's Python (/usr/bin/python3), which sees python3-matplotlib and
python3-pandas:

    /usr/bin/python3 notebooks/p2psim_plots.py report DIR            # DIR/report/: figures + report.html
    /usr/bin/python3 notebooks/p2psim_plots.py report DIR --facet peers --format pdf --size one-column
    /usr/bin/python3 notebooks/p2psim_plots.py report DIR --heatmap peers,function_memory_mb
    /usr/bin/python3 notebooks/p2psim_plots.py report RUN_DIR        # one run: its timeline, trace.json
    /usr/bin/python3 notebooks/p2psim_plots.py recommend DIR --deadline-s 600 [--where model=vgg11]
    /usr/bin/python3 notebooks/p2psim_plots.py recommend DIR --budget-usd 0.5
    /usr/bin/python3 notebooks/p2psim_plots.py recommend DIR --deadline-s 900 --target-accuracy 0.7
    /usr/bin/python3 notebooks/p2psim_plots.py validation-figure DIR  # DIR/validation.csv -> validation(_errors).png/.svg

Configurations are compared like with like: every figure has a panel per workload (model, input shape,
dataset), and Pareto fronts and recommendations are per workload, never across workloads.

`p2psim report` and `p2psim recommend` run exactly these. This module is also the import surface of the
analysis layer: the figure functions (each a function of a results DataFrame returning a matplotlib Figure)
and the table logic are re-exported here from p2psim_figures, p2psim_tables and p2psim_recommend.
"""
import argparse
import base64
import io
import json
import os
import signal
import sys

import matplotlib

matplotlib.use("Agg")  # headless: figures go to files
import matplotlib.pyplot as plt  # noqa: E402

import p2psim_accuracy  # noqa: E402
import p2psim_html  # noqa: E402
import p2psim_labels as labels  # noqa: E402
import p2psim_style as style  # noqa: E402
import p2psim_timeline  # noqa: E402
import p2psim_validation  # noqa: E402
from p2psim_figures import (METRICS, all_figures, fig_against_axis, fig_cost_by_service,  # noqa: E402
                            fig_heatmap, fig_phase_breakdown, fig_time_vs_cost, numeric_axes)
from p2psim_labels import config_label, describe  # noqa: E402
from p2psim_recommend import recommend, recommend_command  # noqa: E402
from p2psim_style import PALETTE, SIZES  # noqa: E402
from p2psim_tables import (COST, CONFIG_COLUMNS, TIME, ResultsError, apply_where, comparison,  # noqa: E402
                           config_axes, facets, failed_scenarios, feasible, heatmap_axes, infeasible, load_results,
                           pareto_mask, pareto_table, representative_rows, swept_axes, system_colors, to_target,
                           workload_of)

# The import surface of the analysis layer (the notebook and tests use these names).
__all__ = ["METRICS", "all_figures", "fig_against_axis", "fig_cost_by_service", "fig_heatmap", "fig_phase_breakdown",
           "fig_time_vs_cost", "numeric_axes", "fig_accuracy", "fig_to_target", "config_label", "describe",
           "recommend", "recommend_command", "PALETTE", "SIZES", "COST", "CONFIG_COLUMNS", "TIME", "ResultsError",
           "apply_where", "comparison", "config_axes", "facets", "feasible", "heatmap_axes", "infeasible",
           "load_results", "pareto_mask", "pareto_table", "representative_rows", "swept_axes", "system_colors",
           "to_target", "workload_of", "report", "save_figure", "chart_specs", "main"]

FORMATS = ("png", "svg", "pdf")


def fig_accuracy(results_dir, df, size="screen"):
    """Test accuracy against simulated time and cost for every replayed system of a run or sweep folder (run
    with <accuracy>); None when the folder holds no replay."""
    try:
        curves = p2psim_accuracy.load_curves(results_dir)
    except p2psim_accuracy.AccuracyError as e:
        raise ResultsError(str(e)) from e
    if curves is None:
        return None
    target = df["target_accuracy"].dropna() if "target_accuracy" in df.columns else []
    return p2psim_accuracy.fig_accuracy(curves, float(target.iloc[0]) if len(target) else None, size)


fig_to_target = p2psim_accuracy.fig_to_target


# ---- files ---------------------------------------------------------------------------------------------------

def save_figure(fig, out, name, formats, description=""):
    """Writes the figure in each format (PNG at print resolution; PDF and SVG as vector, fonts embedded or as
    paths; no creation date, so the same figure gives the same file) and closes it. Returns a screen-resolution
    PNG (bytes) for the HTML page."""
    for fmt in formats:
        metadata = {"png": {"Description": description}, "pdf": {"Subject": description, "CreationDate": None},
                    "svg": {"Description": description, "Date": None}}[fmt]
        fig.savefig(os.path.join(out, f"{name}.{fmt}"), format=fmt, dpi=style.PNG_DPI, metadata=metadata)
    screen = io.BytesIO()
    fig.savefig(screen, format="png", dpi=style.SCREEN_DPI)
    plt.close(fig)
    return screen.getvalue()


def provenance(df):
    """Where a table comes from (written into each figure file's metadata and onto the report)."""
    version = df["p2psim_version"].iloc[0] if "p2psim_version" in df.columns else "?"
    profile = df["profile"].iloc[0] if "profile" in df.columns else "?"
    experiment = df["experiment"].iloc[0] if "experiment" in df.columns else "?"
    return f"experiment {experiment}, profile {profile}, p2psim {version}"


def writable_folder(out):
    try:
        os.makedirs(out, exist_ok=True)
        probe = os.path.join(out, ".writable")
        open(probe, "w").close()
        os.remove(probe)
    except OSError as e:
        raise ResultsError(f"{out}: cannot write the report there ({e.strerror})") from e
    return out


# ---- report --------------------------------------------------------------------------------------------------

def load_trace(path):
    try:
        return p2psim_timeline.load_trace(path)
    except Exception as e:  # pandas raises several types for malformed CSV
        message = str(e)
        raise ResultsError(message if message.startswith(path) else f"{path}: cannot read the trace: {e}") from e


def strategies(df):
    """{system: strategy} of a table (the timeline names its rows by the design's roles)."""
    return dict(zip(df["system"], df["strategy"])) if "strategy" in df.columns else {}


def peer_groups(base):
    """result.json's scenario.peer_groups beside a run's trace ([] without groups, or without result.json)."""
    path = os.path.join(base, "result.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("scenario", {}).get("peer_groups", [])
    except (OSError, ValueError, AttributeError):  # a table from elsewhere: the rows go without group names
        return []


def folder_figures(base, df, size):
    """(name, figure) of what lies beside the table: one run's timelines, a validation, accuracy replays."""
    trace_path = os.path.join(base, "trace.csv")
    if os.path.isfile(trace_path):
        trace = load_trace(trace_path)
        groups = p2psim_timeline.group_names(peer_groups(base))
        for system in trace["system"].unique():
            yield f"timeline_{system}", p2psim_timeline.fig_timeline(trace, system, strategies(df).get(system), size,
                                                                     groups)
    for folder in (base, os.path.join(base, "validation")):  # `p2psim validate --out DIR` or --out DIR/validation
        if os.path.isfile(os.path.join(folder, "validation.csv")):
            try:
                table = p2psim_validation.load_validation(folder)
                yield "validation", p2psim_validation.fig_validation(table, size)
                yield "validation_errors", p2psim_validation.fig_validation_errors(
                    table, size, p2psim_validation.load_spread(folder))
            except p2psim_validation.ValidationError as e:
                raise ResultsError(str(e)) from e
            break
    fig = fig_accuracy(base, df, size)
    if fig is not None:
        yield "accuracy", fig
    fig = fig_to_target(df, None, size)
    if fig is not None:
        yield "time_and_cost_to_target", fig


def chart_specs(df):
    """The report's interactive charts: one per workload."""
    styles = style.system_styles(df["system"])
    columns = list(dict.fromkeys(p2psim_html.TIP_COLUMNS + config_axes(df)))
    return [p2psim_html.chart_spec(label, rows, styles, columns) for label, rows in facets(df)]


def pareto_html(df):
    """Each workload's Pareto-optimal configurations, headed by readable column names; a setting the row's design
    does not use (a ring's function memory) reads "—", not a value a buyer would think it needs."""
    table = pareto_table(df)
    axes = [c for c in config_axes(df) if c in table.columns]
    table = table.astype({c: object for c in axes})
    unused = False
    for i in table.index:
        used = set(labels.used_columns(df.loc[i], axes))
        for c in axes:
            if c not in used and not labels.is_missing(table.at[i, c]):
                table.at[i, c], unused = "—", True
    table = table.rename(columns={c: labels.label(c) for c in table.columns})
    html = table.to_html(index=False, float_format=lambda v: f"{v:.6g}", border=0)
    return html + ("<p>—: a setting this design does not use (a ring runs no functions; sharded reducers and tree "
                   "aggregators size their own).</p>" if unused else "")


def design_accuracy_html(df):
    """How far each design in the results has been from published measurements of real runs (p2psim validate);
    "" for a table without its systems' strategies."""
    if "strategy" not in df.columns:
        return ""
    try:
        table = p2psim_validation.design_accuracy(df["strategy"],
                                                  mechanisms=p2psim_validation.mechanisms_by_design(df))
    except p2psim_validation.ValidationError as e:
        raise ResultsError(str(e)) from e
    systems = df.groupby("strategy", sort=False)["system"].unique()
    table.insert(1, "systems", [", ".join(systems[d]) for d in table["design"]])
    under = table["mechanism"] != ""  # a mechanism's row sits under its design's, which names both
    table.loc[under, ["design", "systems"]] = ""
    html = table.to_html(index=False, border=0)
    try:
        rec = p2psim_validation.record()
    except p2psim_validation.ValidationError as e:
        raise ResultsError(str(e)) from e
    if rec:
        short, long = p2psim_validation.record_band(1.0, rec)
        html += (f"<p>By p2psim's record a predicted time T was a real run's between {short:.2f} T and {long:.2f} T "
                 f"({p2psim_validation.record_text(rec)}). It bounds one system's time, not a comparison of two, whose "
                 "errors share the mechanisms they share.</p>")
    return html


def report(results_dir, facet=None, formats=("png", "svg"), size="screen", scenarios=None, heatmap=None):
    df = load_results(results_dir)
    base = results_dir if os.path.isdir(results_dir) else os.path.dirname(results_dir)
    out = writable_folder(os.path.join(base, "report"))
    style.check_size(size)
    description = provenance(df)
    figures = []
    for source in (all_figures(df, facet, scenarios, size, heatmap), folder_figures(base, df, size)):
        for name, fig in source:
            figures.append((name, save_figure(fig, out, name, formats, description)))
    trace_path = os.path.join(base, "trace.csv")
    if os.path.isfile(trace_path):
        p2psim_timeline.write_chrome_trace(load_trace(trace_path), os.path.join(out, "trace.json"), strategies(df))
    failures = failed_scenarios(base)
    notice = failed_notice(failures, os.path.join(base, "failed"))
    page = p2psim_html.page("p2psim report", f"{description}; {len(df)} rows", chart_specs(df),
                            [("Pareto-optimal configurations (time, cost), per workload", pareto_html(df))] +
                            [("How far these designs have been from measured runs (p2psim validate; "
                              "docs/accuracy.md)", accuracy)
                             for accuracy in [design_accuracy_html(df)] if accuracy],
                            [(name, base64.b64encode(png).decode()) for name, png in figures], notice)
    tmp = os.path.join(out, "report.html.partial")
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, os.path.join(out, "report.html"))
    extra = ", trace.json" if os.path.isfile(trace_path) else ""
    print(f"wrote {out}/report.html and {len(figures)} figures ({', '.join(f.upper() for f in formats)}){extra}")
    if failures:
        print(f"note: {len(failures)} scenario(s) failed and are in no figure or table (the report says so first)")


def failed_notice(failures, folder, shown=5):
    """What the report must say first when scenarios of the sweep failed: none of them is in its figures."""
    if not failures:
        return ""
    lines = [f"{len(failures)} scenario(s) of this sweep failed and are in no figure or table below ({folder}):"]
    lines += [f"{axes}: {why}" for axes, why in failures[:shown]]
    if len(failures) > shown:
        lines.append(f"and {len(failures) - shown} more")
    return "\n".join(lines)


# ---- command line ------------------------------------------------------------------------------------------------

def parse_heatmap(value):
    if value is None:
        return None
    axes = [a.strip() for a in value.split(",")]
    if len(axes) != 2 or not all(axes):
        raise ResultsError(f"--heatmap {value}: expected two columns X,Y (e.g. peers,function_memory_mb)")
    return tuple(axes)


def parse_formats(value):
    formats = tuple(f for f in value.split(",") if f)
    if not formats or any(f not in FORMATS for f in formats):
        raise ResultsError(f"--format {value}: expected a comma-separated list of {', '.join(FORMATS)}")
    return formats


def parser():
    p = argparse.ArgumentParser(prog="p2psim", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="render every figure and an HTML report into DIR/report/")
    rep.add_argument("dir")
    rep.add_argument("--facet", help="one panel per value of this column in every figure (default: per workload; "
                                     "'none': one)")
    rep.add_argument("--format", default="png,svg", help="comma-separated: png, svg, pdf (default png,svg)")
    rep.add_argument("--size", default="screen", choices=list(SIZES),
                     help="figure width: screen (9 in), one-column (3.5 in), two-column (7 in)")
    rep.add_argument("--scenarios", help="comma-separated scenario ids for the phase and cost breakdowns "
                                         "(default: each system's fastest and cheapest configuration)")
    rep.add_argument("--heatmap", help="X,Y: the two columns the heatmaps cross (default: the first two swept "
                                       "axes that vary independently)")
    rec = sub.add_parser("recommend", help="the best configuration for a deadline or a budget, per workload")
    rec.add_argument("dir", help="a sweep's results folder (results.csv) or a run's (result.csv)")
    limit = rec.add_mutually_exclusive_group(required=True)
    limit.add_argument("--deadline-s", type=float,
                       help="the cheapest configuration whose predicted time (s) is within this deadline")
    limit.add_argument("--budget-usd", type=float,
                       help="the fastest configuration whose predicted cost (USD) is within this budget")
    rec.add_argument("--runners-up", type=int, default=3,
                     help="how many next-best configurations to list under the answer (default 3)")
    rec.add_argument("--where", action="append", help="only rows where COLUMN=VALUE (repeatable), e.g. model=vgg11")
    rec.add_argument("--target-accuracy", type=float,
                     help="weigh time and cost to this test accuracy, in (0, 1] (results of a run with <accuracy>; "
                          "another target than the run's is read off its accuracy curves)")
    val = sub.add_parser("validation-figure", help="draw DIR/validation.png, validation_errors.png and their .svg from DIR/validation.csv")
    val.add_argument("dir")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        if args.command == "validation-figure":
            try:
                p2psim_validation.draw(args.dir)
            except p2psim_validation.ValidationError as e:
                raise ResultsError(str(e)) from e
            return 0
        if args.command == "report":
            scenarios = [s for s in (args.scenarios or "").split(",") if s]
            report(args.dir, args.facet, parse_formats(args.format), args.size, scenarios, parse_heatmap(args.heatmap))
            return 0
        return recommend_command(args.dir, args.deadline_s, args.budget_usd, args.runners_up, args.where,
                                 args.target_accuracy)
    except ResultsError as e:
        print(f"p2psim {args.command}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `p2psim recommend ... | head` ends quietly, as a CLI should
    sys.exit(main())
