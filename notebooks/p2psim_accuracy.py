"""Accuracy against simulated time and cost, from the replays of `p2psim run` with <accuracy> (docs/time_to_accuracy.md):
DIR/accuracy.csv for one run, DIR/runs/<id>/accuracy.csv for a sweep. One line per system (and scenario); and,
per configuration, the time and the cost it took to reach the target accuracy."""
import glob
import json
import os

import matplotlib.lines
import numpy as np
import pandas as pd

import p2psim_labels as labels
import p2psim_style as style
from p2psim_tables import config_axes, facets

COLUMNS = ["system", "iteration", "time_s", "cost_usd", "train_loss", "test_loss", "test_accuracy"]
# A scenario's curves share a line style; its systems have their colours.
LINESTYLES = ["-", "--", ":", "-."]


class AccuracyError(Exception):
    """A malformed accuracy table: reported on one line, exit code 2."""


def _read(path, config=""):
    try:
        df = pd.read_csv(path, dtype={"system": str}, keep_default_na=False, na_values=[""])
    except Exception as e:  # pandas raises several types for malformed CSV
        raise AccuracyError(f"{path}: cannot read CSV: {e}") from e
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise AccuracyError(f"{path}: not an accuracy table of p2psim replay (missing {', '.join(missing)})")
    for c in ("iteration", "time_s", "cost_usd", "train_loss"):
        if df[c].isna().any() or not pd.api.types.is_numeric_dtype(df[c]):
            raise AccuracyError(f"{path}: column {c} must hold numbers on every row (a truncated row?)")
    df["config"] = config
    df["curve"] = (config + ": " if config else "") + df["system"]
    return df


def load_curves(base):
    """Every replayed curve under a results folder; None when there is none. Sweep curves carry their
    scenario_id and its axis values in words (`config`, e.g. "async, compression none")."""
    single = os.path.join(base, "accuracy.csv")
    if os.path.isfile(single):
        return _read(single)
    frames = []
    for path in sorted(glob.glob(os.path.join(base, "runs", "*", "accuracy.csv"))):
        run = os.path.dirname(path)
        config = os.path.basename(run)
        try:
            with open(os.path.join(run, "scenario.json")) as f:
                axes = json.load(f)["axes"]
            config = ", ".join(labels.value_label(k, v) for k, v in axes.items())
        except (OSError, ValueError, KeyError):
            pass  # labelled by its id
        frame = _read(path, config)
        frame["scenario_id"] = os.path.basename(run)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else None


def fig_accuracy(curves, target=None, size="screen"):
    """Test accuracy against simulated time and against cost: a line per system (its colour) and scenario (a
    line style), the target as a dashed line."""
    evaluated = curves.dropna(subset=["test_accuracy"])
    styles = style.system_styles(evaluated["system"])
    configs = sorted(evaluated["config"].unique())
    dash = {c: LINESTYLES[i % len(LINESTYLES)] for i, c in enumerate(configs)}
    handles = [matplotlib.lines.Line2D([], [], color=color, marker=marker, markersize=3) for color, marker in
               styles.values()]
    names = list(styles)
    if len(configs) > 1:
        handles += [matplotlib.lines.Line2D([], [], color="0.3", linestyle=dash[c]) for c in configs]
        names += configs
    with style.drawing(size):
        fig, axes, legend_ax = style.panel_figure(
            size, 2, 2, legend_entries=len(names), legend_chars=max(map(len, names)) + 2,
            title="Test accuracy of the models trained for real on the simulated schedule")
        for ax, (x, label) in zip(axes, (("time_s", "simulated time (s)"), ("cost_usd", "cost so far (USD)"))):
            for (config, system), rows in evaluated.groupby(["config", "system"], sort=True):
                ax.plot(rows[x], rows["test_accuracy"], linestyle=dash[config], color=styles[system][0],
                        linewidth=matplotlib.rcParams["lines.linewidth"] * 0.8)
            if target is not None:
                ax.axhline(target, color="0.3", linestyle="--", linewidth=0.6)
                ax.annotate(f"target {target:g}", (0, target), xycoords=("axes fraction", "data"),
                            xytext=(2, 2), textcoords="offset points", fontsize="small", color="0.3",
                            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5})
            style.scale_axis(ax, "x", evaluated[x])
            ax.set_xlabel(label)
            ax.set_ylabel("test accuracy")
            ax.grid(True, alpha=0.3)
        style.put_legend(legend_ax, handles, names, handlelength=3.2)  # long enough to tell dash-dot from solid
        style.thin_tick_labels(fig)
        return fig


def fig_to_target(df, facet=None, size="screen"):
    """Per configuration, the simulated time (left) and cost (right) to the target test accuracy, a bar in its
    system's colour; a configuration that never reached it has no bar and says so. None without a target."""
    if "target_accuracy" not in df.columns or df["target_accuracy"].isna().all() or "time_to_target_s" not in df:
        return None
    target = float(df["target_accuracy"].dropna().iloc[0])
    axes_cols = config_axes(df)
    panels = facets(df.sort_values(["system"] + axes_cols, kind="mergesort"), facet)
    styles = style.system_styles(df["system"])
    with style.drawing(size) as pt:
        names = {label: [_target_label(r, axes_cols, size) for _, r in rows.iterrows()] for label, rows in panels}
        heights = [style.bars_height(names[label], pt) for label, _ in panels]
        fig, axes, _ = style.panel_figure(
            size, 2 * len(panels), 2, row_heights=heights,
            title=f"Time and cost to {target:g} test accuracy, per configuration")
        for i, (label, rows) in enumerate(panels):
            for ax, column in zip(axes[2 * i:2 * i + 2], ("time_to_target_s", "cost_to_target_usd")):
                y = np.arange(len(rows))
                ax.barh(y, rows[column].fillna(0), color=[styles[s][0] for s in rows["system"]], height=0.7)
                ax.set_yticks(y, names[label] if column == "time_to_target_s" else [""] * len(rows))
                ax.set_ylim(len(rows) - 0.5, -0.5)
                style.scale_axis(ax, "x", [0] + list(rows[column].dropna()), log=False)
                ax.set_xlabel(labels.label(column).replace(" the target accuracy", " target"))
                ax.grid(True, axis="x", alpha=0.3)
                if label:
                    ax.set_title(style.wrap(label, 0.36 * style.SIZES[size], pt))
        style.thin_tick_labels(fig)
        return fig


def _target_label(row, axes, size):
    text = labels.config_label(row, ["system"] + axes)
    if row.get("time_to_target_s") != row.get("time_to_target_s"):  # NaN: never reached
        text += " (not reached)"
    return style.wrap(text, 0.3 * style.SIZES[size], style.FONT_PT[size] * 0.9)
