"""The validation figure: p2psim's predictions against published measurements (`p2psim validate --out DIR`
writes DIR/validation.csv; this draws DIR/validation.png and .svg). Log-log, y = x with +-10 % and +-25 % bands,
each design in its colour and marker (p2psim_style), each prediction's p10-p90 band over its replicates as a
vertical bar (when the table has one); cases whose data derived a constant (role calibration) are drawn hollow
and not counted."""
import os

import matplotlib.lines
import matplotlib.patches
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import p2psim_style as style

COLUMNS = ["case", "metric", "role", "design", "kind", "unit", "measured", "predicted", "error_percent"]
PANELS = [("time", ("time", "throughput"), "s or MB/s"), ("cost", ("cost",), "USD")]


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
    return f", {100 * inside.mean():.0f} % in p10-p90"


def fig_validation(df, size="screen"):
    """Predicted against measured, log-log, a panel for time (and throughput) and one for cost; each design in
    its colour and marker (p2psim_style, as in every figure), hollow where its data derived a constant."""
    styles = style.system_styles(df["design"])
    handles, names = [], []
    for d, (color, marker) in styles.items():
        handles.append(matplotlib.lines.Line2D([], [], color=color, marker=marker, markeredgecolor="black",
                                               markeredgewidth=0.4, linestyle="none"))
        names.append(d)
    if (df["role"] == "calibration").any():
        handles.append(matplotlib.lines.Line2D([], [], color="0.4", marker="o", markerfacecolor="none",
                                               linestyle="none"))
        names.append("hollow: calibration (its data set a constant)")
    handles += [matplotlib.patches.Patch(color="#bbbbbb"), matplotlib.patches.Patch(color="#dddddd")]
    names += ["\u00b110 %", "\u00b125 %"]
    with style.drawing(size):
        fig, axes, legend_ax = style.panel_figure(size, 2, 2, panel_aspect=0.9, legend_entries=len(names),
                                                  legend_chars=max(map(len, names)),
                                                  title="p2psim's predictions against published measurements "
                                                        "of real cloud runs")
        for ax, (title, kinds, unit) in zip(axes, PANELS):
            rows = df[df["kind"].isin(kinds)]
            if rows.empty:
                ax.set_axis_off()
                continue
            lo = min(rows["measured"].min(), rows["predicted"].min()) / 2
            hi = max(rows["measured"].max(), rows["predicted"].max()) * 2
            x = np.geomspace(lo, hi, 50)
            ax.fill_between(x, x * 0.75, x * 1.25, color="#dddddd")
            ax.fill_between(x, x * 0.9, x * 1.1, color="#bbbbbb")
            ax.plot(x, x, color="black", linewidth=0.8)
            for d, (color, marker) in styles.items():
                for role, filled in (("validation", True), ("calibration", False)):
                    pts = rows[(rows["design"] == d) & (rows["role"] == role)]
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
            ax.set_title(f"{title}: {len(rows[rows['role'] == 'validation'])} validation metrics"
                         f"{coverage_text(rows)}")
        style.put_legend(legend_ax, handles, names)
        style.thin_tick_labels(fig)
        return fig


def draw(path):
    out = path if os.path.isdir(path) else os.path.dirname(path)
    fig = fig_validation(load_validation(path))
    for fmt in ("png", "svg"):
        fig.savefig(os.path.join(out, f"validation.{fmt}"), format=fmt, dpi=style.PNG_DPI,
                    metadata={"Date": None} if fmt == "svg" else None)
    plt.close(fig)
