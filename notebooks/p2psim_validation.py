"""The validation figure: p2psim's predictions against published measurements (`p2psim validate --out DIR`
writes DIR/validation.csv; this draws DIR/validation.png and .svg). Log-log, y = x with +-10 % and +-25 % bands,
one marker per design measured, each prediction's p10-p90 band over its replicates as a vertical bar (when the
table has one); cases whose data derived a constant (role calibration) are drawn hollow and not counted."""
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]
COLUMNS = ["case", "metric", "role", "design", "kind", "unit", "measured", "predicted", "error_percent"]
PANELS = [("time", ("time", "throughput"), "seconds (and MB/s)"), ("cost", ("cost",), "USD")]


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


def fig_validation(df):
    designs = sorted(df["design"].unique())
    marker = {d: MARKERS[i % len(MARKERS)] for i, d in enumerate(designs)}
    color = {d: f"C{i % 10}" for i, d in enumerate(designs)}  # the same design looks the same in both panels
    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    for ax, (title, kinds, unit) in zip(axes, PANELS):
        rows = df[df["kind"].isin(kinds)]
        if rows.empty:
            ax.set_axis_off()
            continue
        lo = min(rows["measured"].min(), rows["predicted"].min()) / 2
        hi = max(rows["measured"].max(), rows["predicted"].max()) * 2
        x = np.geomspace(lo, hi, 50)
        ax.fill_between(x, x * 0.75, x * 1.25, color="#dddddd", label="±25 %")
        ax.fill_between(x, x * 0.9, x * 1.1, color="#bbbbbb", label="±10 %")
        ax.plot(x, x, color="black", linewidth=0.8, label="y = x")
        for d in designs:
            for role, filled in (("validation", True), ("calibration", False)):
                pts = rows[(rows["design"] == d) & (rows["role"] == role)]
                if pts.empty:
                    continue
                if {"predicted_p10", "predicted_p90"} <= set(pts.columns):
                    banded = pts.dropna(subset=["predicted_p10", "predicted_p90"])
                    ax.vlines(banded["measured"], banded["predicted_p10"], banded["predicted_p90"], color=color[d],
                              linewidth=1.2, zorder=2)
                ax.scatter(pts["measured"], pts["predicted"], marker=marker[d], s=36, zorder=3,
                           facecolors=color[d] if filled else "none", edgecolors="black" if filled else color[d],
                           label=d if filled else f"{d} (calibration)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel(f"measured ({unit})")
        ax.set_ylabel(f"predicted by p2psim ({unit})")
        validated = rows[rows["role"] == "validation"]
        covered = ""
        if "predicted_p10" in validated.columns and validated["predicted_p10"].notna().any():
            banded = validated.dropna(subset=["predicted_p10", "predicted_p90"])
            inside = ((banded["measured"] >= banded["predicted_p10"]) & (banded["measured"] <= banded["predicted_p90"]))
            covered = f", {100 * inside.mean():.0f} % inside their p10-p90 bar"
        ax.set_title(f"{title}: {len(validated)} validation metrics{covered}", fontsize=10)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle("p2psim against published measurements of real cloud runs")
    fig.tight_layout()
    return fig


def draw(path):
    out = path if os.path.isdir(path) else os.path.dirname(path)
    fig = fig_validation(load_validation(path))
    for fmt in ("png", "svg"):
        fig.savefig(os.path.join(out, f"validation.{fmt}"), format=fmt, dpi=110)
    plt.close(fig)
