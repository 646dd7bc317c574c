"""The validation figure: p2psim's predictions against published measurements (`p2psim validate --out DIR`
writes DIR/validation.csv; this draws DIR/validation.png and .svg). Log-log, y = x with +-10 % and +-25 % bands,
each design in its colour and marker (p2psim_style), each prediction's p10-p90 band over its replicates as a
vertical bar (when the table has one); cases not in the summary (role calibration, whose data derived a constant,
and role mechanism, one mechanism checked alone) are drawn hollow and not counted. Beside it,
validation_errors.png/.svg: the validation metrics' errors, a row per design, on a linear scale that shows how far and
which way each misses, which the log-log figure hides."""
import csv
import json
import math
import os

import matplotlib.lines
import matplotlib.patches
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import p2psim_schema as schema
import p2psim_style as style

COLUMNS = ["case", "metric", "role", "design", "kind", "unit", "measured", "predicted", "error_percent",
           "time_error_percent"]
PANELS = [("time", ("time", "throughput"), "s or MB/s"), ("cost", ("cost",), "USD")]
# Predicted against measured: a panel a unit, as a rate and a time on one axis could not be told apart.
SCATTER_PANELS = [("time", ("time",), "s"), ("throughput", ("throughput",), "MB/s"), ("cost", ("cost",), "USD")]


class ValidationError(Exception):
    """A missing or malformed validation table: reported on one line, exit code 2."""


def load_validation(path):
    if os.path.isdir(path):
        path = os.path.join(path, "validation.csv")
    if not os.path.isfile(path):
        raise ValidationError(f"{path}: no such file (write it with p2psim validate --out DIR)")
    try:
        df = pd.read_csv(path)
    except Exception as e:  # pandas raises several types for malformed CSV
        raise ValidationError(f"{path}: cannot read CSV: {e}") from e
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValidationError(f"{path}: not a validation table (missing columns {', '.join(missing)})")
    empty = df[COLUMNS].isna().any(axis=1)
    if empty.any():  # pandas fills a truncated row with empty values
        raise ValidationError(f"{path}: row {int(empty.idxmax()) + 2}: a value is missing (a truncated row?)")
    for c in ("measured", "predicted"):
        if not pd.api.types.is_numeric_dtype(df[c]) or (df[c] <= 0).any():
            raise ValidationError(f"{path}: column {c} must hold positive numbers")
    return df


def coverage_text(rows):
    """', N % inside their p10-p90 bar' over the validation rows that have a band; '' when none has."""
    validated = rows[rows["role"] == "validation"]
    if "predicted_p10" not in validated.columns or not validated["predicted_p10"].notna().any():
        return ""
    banded = validated.dropna(subset=["predicted_p10", "predicted_p90"])
    inside = (banded["measured"] >= banded["predicted_p10"]) & (banded["measured"] <= banded["predicted_p90"])
    return f", {100 * inside.mean():.0f} % inside the replicates' p10-p90 (the constants' spreads only)"


def fig_validation(df, size="screen"):
    """Predicted against measured, log-log, a panel for times, one for throughputs and one for costs (those the
    table holds); each design in its colour and marker (p2psim_style, as in every figure), hollow where it is not
    counted (a calibration case, or a mechanism checked alone)."""
    styles = style.system_styles(df["design"])
    handles, names = [], []
    for d, (color, marker) in styles.items():
        handles.append(matplotlib.lines.Line2D([], [], color=color, marker=marker, markeredgecolor="black",
                                               markeredgewidth=0.4, linestyle="none"))
        names.append(d)
    if (df["role"] != "validation").any():
        handles.append(matplotlib.lines.Line2D([], [], color="0.4", marker="o", markerfacecolor="none",
                                               linestyle="none"))
        names.append("hollow: not counted (calibration, or a mechanism alone)")
    handles += [matplotlib.patches.Patch(color="#bbbbbb"), matplotlib.patches.Patch(color="#dddddd")]
    names += ["\u00b110 %", "\u00b125 %"]
    with style.drawing(size):
        panels = [panel for panel in SCATTER_PANELS if df["kind"].isin(panel[1]).any()]
        cols = min(len(panels), 2 if size == "one-column" else 3)
        fig, axes, legend_ax = style.panel_figure(size, len(panels), cols,
                                                  panel_aspect=0.9, legend_entries=len(names),
                                                  legend_chars=max(map(len, names)),
                                                  title="p2psim's predictions against published measurements "
                                                        "of real cloud runs")
        for ax, (title, kinds, unit) in zip(axes, panels):
            rows = df[df["kind"].isin(kinds)]
            lo = min(rows["measured"].min(), rows["predicted"].min()) / 2
            hi = max(rows["measured"].max(), rows["predicted"].max()) * 2
            x = np.geomspace(lo, hi, 50)
            ax.fill_between(x, x * 0.75, x * 1.25, color="#dddddd")
            ax.fill_between(x, x * 0.9, x * 1.1, color="#bbbbbb")
            ax.plot(x, x, color="black", linewidth=0.8)
            for d, (color, marker) in styles.items():
                for filled in (True, False):  # the counted (validation) rows filled, the others hollow
                    pts = rows[(rows["design"] == d) & ((rows["role"] == "validation") == filled)]
                    if not pts.empty and {"predicted_p10", "predicted_p90"} <= set(pts.columns):
                        banded = pts.dropna(subset=["predicted_p10", "predicted_p90"])
                        ax.vlines(banded["measured"], banded["predicted_p10"], banded["predicted_p90"], color=color,
                                  linewidth=1.0, zorder=2)
                    if not pts.empty:
                        ax.scatter(pts["measured"], pts["predicted"], marker=marker, zorder=3,
                                   s=matplotlib.rcParams["lines.markersize"] ** 2 * 1.5,
                                   facecolors=color if filled else "none", edgecolors="black" if filled else color)
            ax.set_xlim(lo, hi)
            ax.set_ylim(lo, hi)
            style.scale_axis(ax, "x", [lo, hi], log=True)
            style.scale_axis(ax, "y", [lo, hi], log=True)
            ax.set_xlabel(f"measured ({unit})")
            ax.set_ylabel(f"predicted ({unit})")
            # Two lines: side by side at a column's width, one line each ran into the other.
            coverage = coverage_text(rows).removeprefix(", ")
            fit = lambda text: style.wrap(text, 0.8 * style.SIZES[size] / cols, style.FONT_PT[size])  # noqa: E731
            ax.set_title(fit(f"{title}: {len(rows[rows['role'] == 'validation'])} validation metrics")
                         + (f"\n{fit(coverage)}" if coverage else ""))
        style.put_legend(legend_ax, handles, names)
        style.mark_log_axes(fig)
        style.thin_tick_labels(fig)
        return fig


# What `p2psim validate --record` keeps of each design's accuracy, beside this folder in the source tree and in an
# install (share/p2psim/notebooks and share/p2psim/validation).
ACCURACY_BY_DESIGN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation",
                                  "accuracy_by_design.csv")


DESIGN_ACCURACY_COLUMNS = ["design", "mechanism", "measured", "median |error|", "worst |error|",
                           "p2psim vs measured", "errors p10 to p90"]


def spread_text(row):
    """A recorded row's p10 and p90 of its errors, where two sources or more drew them; "" otherwise (or in a
    record written before p2psim kept them)."""
    p10, p90 = row.get("error_p10_percent"), row.get("error_p90_percent")
    if p10 is None or p90 is None or pd.isna(p10) or pd.isna(p90):
        return ""
    return f"{p10:+.1f} to {p90:+.1f} % ({int(row['sources'])} sources)"


def design_accuracy(strategies, path=ACCURACY_BY_DESIGN, mechanisms=None):
    """A row per strategy (in the order given, once each) and kind of its recorded accuracy against published
    measurements. A strategy with none gets a row saying so, then, when `mechanisms` ({strategy: names its runs
    used, as result.csv's `mechanisms` cells hold them}) lists its, the same for each of them measured alone.
    Raises ValidationError on a file it cannot read."""
    try:
        recorded = pd.read_csv(path)
    except Exception as e:  # a missing or malformed file: pandas raises several types
        raise ValidationError(f"{os.path.normpath(path)}: cannot read the accuracy by design ({e})") from e
    rows = []

    def add(design, name, mechanism="", nothing="no measured run among the validation cases"):
        mine = recorded[recorded["design"] == name]
        if mine.empty:
            rows.append({"design": design, "mechanism": mechanism, "measured": nothing})
        for _, r in mine.iterrows():
            word = "cheaper" if r["kind"] == "cost" else "faster"
            rows.append({"design": design, "mechanism": mechanism, "measured": f"{r['kind']}: {r['metrics']} metrics",
                         "median |error|": f"{r['median_abs_error_percent']:.1f} %",
                         "worst |error|": f"{r['worst_abs_error_percent']:.1f} %",
                         "p2psim vs measured": f"{word} than measured in {r['predicted_faster']} of {r['metrics']}",
                         "errors p10 to p90": spread_text(r)})
        return not mine.empty

    for strategy in dict.fromkeys(strategies):
        if add(strategy, strategy):
            continue
        used = set((mechanisms or {}).get(strategy, ()))
        for name, label in schema.MECHANISMS.items():  # in their own order
            if name in used:
                add(strategy, name, f"{label} ({name})", "no validation case measures it")
    return pd.DataFrame(rows, columns=DESIGN_ACCURACY_COLUMNS).fillna("")


RECORD_COLUMNS = ["design", "kind", "metrics", "sources", "error_p10_percent", "error_p90_percent",
                  "held_out_with_band", "held_out_inside_band"]


def record(path=ACCURACY_BY_DESIGN):
    """p2psim's record over every validation metric of time, the `every_design` row `p2psim validate --record`
    keeps: {"metrics", "sources", "p10", "p90", "held_out_inside", "held_out_with"}, p10 and p90 the percentiles of
    its time errors (predicted over measured time, less 1) in %, each source weighing alike; None when that row
    has no percentiles (one source). The row is held to the rules `p2psim run` holds it to: anything else is a
    ValidationError naming the file and line."""
    name = os.path.normpath(path)
    try:
        with open(path, newline="") as f:  # as p2psim reads it: spaces around a cell trimmed, no quoting
            lines = [[cell.strip(" ") for cell in row] for row in csv.reader(f, quoting=csv.QUOTE_NONE)]
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ValidationError(f"{name}: cannot read the accuracy by design ({e})") from e
    header = lines[0] if lines else []
    missing = [c for c in RECORD_COLUMNS if c not in header]
    if missing:
        raise ValidationError(f"{name}: not a record of p2psim validate --record (missing columns "
                              f"{', '.join(missing)}); write it with p2psim validate --record")
    at = {c: header.index(c) for c in RECORD_COLUMNS}
    found = None
    for number, cells in enumerate(lines[1:], start=2):
        if cells[:2] == ["every_design", "time"] and len(cells) != len(header):
            raise ValidationError(f"{name}: line {number}: {len(cells)} cells under {len(header)} columns")
        if len(cells) == len(header) and cells[at["design"]] == "every_design" and cells[at["kind"]] == "time":
            if found:
                raise ValidationError(f"{name}: line {number}: a second row of every_design time")
            found = number, cells
    if not found:
        return None
    number, cells = found
    where = f"{name}: line {number}"

    def whole(column):
        cell = cells[at[column]]
        if not cell.isdigit():
            raise ValidationError(f"{where}: {column} '{cell}' is not a count")
        return int(cell)

    def percent(column):
        cell = cells[at[column]]
        if cell == "":
            return None
        try:
            value = float(cell)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value <= -100:
            raise ValidationError(f"{where}: {column} '{cell}' is not a finite percentage above -100")
        return value

    counts = {"metrics": whole("metrics"), "sources": whole("sources"),
              "held_out_inside": whole("held_out_inside_band"), "held_out_with": whole("held_out_with_band")}
    p10, p90 = percent("error_p10_percent"), percent("error_p90_percent")
    if not 1 <= counts["sources"] <= counts["metrics"] or \
            not counts["held_out_inside"] <= counts["held_out_with"] <= counts["metrics"]:
        raise ValidationError(f"{where}: expected 1 <= sources <= metrics and held_out_inside_band <= "
                              "held_out_with_band <= metrics")
    if (p10 is None) != (p90 is None) or (p10 is not None) != (counts["sources"] >= 2) or \
            (p10 is not None and p10 > p90):
        raise ValidationError(f"{where}: expected error_p10_percent <= error_p90_percent from two sources or more, "
                              "and neither from one")
    return None if p10 is None else dict(counts, p10=p10, p90=p90)


def record_band(time_s, rec):
    """(short, long) end of what a real run predicted at `time_s` took by the record `rec` (record()): a time error
    e is predicted / measured - 1, so the measured time is time_s / (1 + e)."""
    return time_s / (1 + rec["p90"] / 100), time_s / (1 + rec["p10"] / 100)


def record_text(rec):
    """The record in words, as `p2psim run` prints it."""
    return (f"p2psim's time errors over all {rec['metrics']} validation metrics, each of {rec['sources']} sources "
            f"weighing alike: p10 {rec['p10']:+.1f} %, p90 {rec['p90']:+.1f} % (error = predicted / measured - 1, so "
            f"a run predicted at T takes T / (1 + error)); held out, {rec['held_out_inside']} of "
            f"{rec['held_out_with']} measured values fell inside such a band drawn from the other sources' errors")


def mechanisms_by_design(df):
    """{strategy: the mechanisms any of its rows used} from a results table's `mechanisms` cells (';' between
    names); {} for a table without them (results written before p2psim recorded them)."""
    if "mechanisms" not in df.columns or "strategy" not in df.columns:
        return {}
    used = {}
    for strategy, cell in zip(df["strategy"], df["mechanisms"]):
        if isinstance(cell, str) and cell:
            used.setdefault(strategy, set()).update(cell.split(";"))
    return used


def time_errors(rows):
    """(error, band low, band high) in percent of each row as a time or a cost, as `p2psim validate` writes them
    (validation.csv's time_error_* columns: a rate's error is the error in the time to move the same bytes at it,
    so that below 0 always means p2psim predicts faster or cheaper than was measured). The band is NaN where the
    table has none."""
    nan = np.full(len(rows), np.nan)

    def column(name):
        return rows[name].to_numpy(float) if name in rows.columns else nan
    return column("time_error_percent"), column("time_error_p10_percent"), column("time_error_p90_percent")


def design_label(rows):
    """'design\nn metrics, median |error| e %' (|error| as the summary gives it, on the metric's own scale)."""
    return f"{rows['design'].iloc[0]}\n{len(rows)} metric{'s' if len(rows) > 1 else ''}, " \
           f"median |error| {rows['error_percent'].abs().median():.0f} %"


ROW_LABEL_LINES = 2  # design_label's lines


def row_spans(counts, pt):
    """(centres, half heights) of a row per design, in units of a metric's height (0.3 em): as tall as its metrics,
    at least as tall as its label, so that a design of 49 metrics is not drawn into the space of one of 3."""
    least = (ROW_LABEL_LINES * 0.9 * 1.3 + 0.8) / 0.3  # the label's lines (0.9 em fonts, 1.3 spacing) and a gap
    heights = [max(n + 2, least) for n in counts]
    edges = np.concatenate([[0], np.cumsum(heights)])
    return (edges[:-1] + edges[1:]) / 2, np.array(heights) / 2


def load_spread(folder):
    """(p10, p90) of the time errors over every validation metric, each source weighing alike, as `p2psim validate`
    wrote them into validation.json beside validation.csv (summary.time); None without that file or those values
    (written before p2psim kept them, or from one source). Anything else is a ValidationError."""
    path = os.path.join(folder, "validation.json")
    if not os.path.isfile(path):
        return None
    try:
        with open(path) as f:
            summary = json.load(f)["summary"]["time"]
        values = summary.get("error_p10_percent"), summary.get("error_p90_percent")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ValidationError(f"{path}: cannot read the summary ({e})") from e
    if values == (None, None):
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values) or \
            not -100 < values[0] <= values[1]:
        raise ValidationError(f"{path}: summary.time's error_p10_percent and error_p90_percent: expected two finite "
                              f"percentages, -100 < p10 <= p90, got {values[0]!r} and {values[1]!r}")
    return float(values[0]), float(values[1])


def fig_validation_errors(df, size="screen", spread=None):
    """Each validation metric's error as a time (or a cost), a row per design (its colour and marker, as in every
    figure), its p10-p90 band as a line through it; +-10 % and +-25 % shaded; a linear scale, so that a 45 % miss
    looks like one. The scale is set by the errors: a band that reaches past them runs off the edge. Calibration
    and mechanism cases are left out, as from the summary. `spread`, (p10, p90) of every time error with each
    source weighing alike (load_spread()), is drawn dashed on the time panel, the scale widened to hold it:
    p2psim's record, the band `run` puts around a prediction."""
    validated = df[df["role"] == "validation"]
    panels = [(title, validated[validated["kind"].isin(kinds)]) for title, kinds, _ in PANELS]
    panels = [(title, rows) for title, rows in panels if not rows.empty]
    styles = style.system_styles(validated["design"])
    with style.drawing(size) as pt:
        unit_in = 0.3 * pt / 72
        layout = {}
        for title, rows in panels:
            names = style.system_order(rows["design"])
            centres, halves = row_spans([int((rows["design"] == d).sum()) for d in names], pt)
            layout[title] = (names, centres, halves)
        heights = [2 * layout[t][2].sum() * unit_in + 4.5 * pt / 72 for t, _ in panels]
        fig, axes, _ = style.panel_figure(size, max(len(panels), 1), 1, row_heights=heights or None,
                                          title="How far and which way p2psim misses each published measurement "
                                                "(left of 0: faster or cheaper than measured)")
        for ax, (title, rows) in zip(axes, panels):
            names, centres, halves = layout[title]
            error, low, high = time_errors(rows)
            record = spread if spread is not None and title == "time" else ()  # (p10, p90), or nothing
            # Every band whole: FMI's reached 294 % where the axis stopped at 203 % with no mark of the cut.
            ends = [v for v in np.concatenate([error, low, high]) if np.isfinite(v)]
            lo = min([-30.0, min(ends) - 8] + [v - 8 for v in record])
            hi = max([30.0, max(ends) + 8] + [v + 8 for v in record])
            ax.axvspan(-25, 25, color="#dddddd", zorder=0)
            ax.axvspan(-10, 10, color="#bbbbbb", zorder=0)
            ax.axvline(0, color="black", linewidth=0.8, zorder=1)
            for v in record:
                ax.axvline(v, color="black", linestyle="--", linewidth=0.8, zorder=1)
            for d, centre, half in zip(names, centres, halves):
                mine = (rows["design"] == d).to_numpy()
                order = np.argsort(error[mine], kind="stable")
                n = int(mine.sum())
                reach = min(n - 1, 2 * half - 2) / 2  # one metric's height apart, within the row
                y = centre + (np.linspace(-reach, reach, n) if n > 1 else np.zeros(1))
                color, marker = styles[d]
                e, l, h = error[mine][order], low[mine][order], high[mine][order]
                banded = np.isfinite(l) & np.isfinite(h)
                ax.hlines(y[banded], l[banded], h[banded], color=color, linewidth=0.8, zorder=2)
                ax.scatter(e, y, marker=marker, facecolors=color, edgecolors="black", linewidths=0.4, zorder=3,
                           s=matplotlib.rcParams["lines.markersize"] ** 2 * 1.2)
            ax.set_yticks(centres, [design_label(rows[rows["design"] == d]) for d in names])
            ax.tick_params(axis="y", length=0)
            for edge in (centres + halves)[:-1]:
                ax.axhline(edge, color="0.6", linewidth=0.4, zorder=1)
            ax.set_ylim(2 * halves.sum(), 0)
            ax.set_xlim(lo, hi)
            style.scale_axis(ax, "x", [lo, hi], log=False)
            width_in = style.SIZES[size] * 0.6  # the axes' share of the width, beside the row labels
            ax.set_xlabel(style.wrap("error in cost (%)" if title == "cost" else
                                     "error in time (%; a rate's as the time to move its bytes at it)", width_in, pt))
            dashed = ("; dashed: p10 and p90 of all of them, each source weighing alike (p2psim's record)"
                      if record else "")
            ax.set_title(style.wrap(f"{title}: {len(rows)} validation metrics; a line: a prediction's p10-p90; "
                                    f"shaded: \u00b110\u00a0% and \u00b125\u00a0%{dashed}", width_in, pt))
        style.thin_tick_labels(fig)
        return fig


def draw(path):
    out = path if os.path.isdir(path) else os.path.dirname(path)
    df = load_validation(path)
    spread = load_spread(out)
    for name, fig in (("validation", fig_validation(df)), ("validation_errors", fig_validation_errors(df, spread=spread))):
        for fmt in ("png", "svg"):
            fig.savefig(os.path.join(out, f"{name}.{fmt}"), format=fmt, dpi=style.PNG_DPI,
                        metadata={"Date": None} if fmt == "svg" else None)
        plt.close(fig)
