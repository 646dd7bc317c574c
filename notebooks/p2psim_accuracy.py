"""Accuracy against simulated time and cost, from the replays of `p2psim run` with <accuracy> (docs/time_to_accuracy.md):
DIR/accuracy.csv for one run, DIR/runs/<id>/accuracy.csv for a sweep. One line per system (and scenario)."""
import glob
import json
import os

import matplotlib.pyplot as plt
import pandas as pd

COLUMNS = ["system", "iteration", "time_s", "cost_usd", "train_loss", "test_loss", "test_accuracy"]


class AccuracyError(Exception):
    """A malformed accuracy table: reported on one line, exit code 2."""


def _read(path, label_prefix=""):
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
    df["curve"] = label_prefix + df["system"]
    return df


def load_curves(base):
    """Every replayed curve under a results folder; None when there is none. Sweep curves are labelled by their
    scenario's axis values and carry its scenario_id."""
    single = os.path.join(base, "accuracy.csv")
    if os.path.isfile(single):
        return _read(single)
    frames = []
    for path in sorted(glob.glob(os.path.join(base, "runs", "*", "accuracy.csv"))):
        run = os.path.dirname(path)
        label = os.path.basename(run)
        try:
            with open(os.path.join(run, "scenario.json")) as f:
                axes = json.load(f)["axes"]
            label = ", ".join(f"{k.split('/')[-1].lstrip('@')}={v}" for k, v in axes.items())
        except (OSError, ValueError, KeyError):
            pass  # labelled by its id
        frame = _read(path, f"{label}: ")
        frame["scenario_id"] = os.path.basename(run)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else None


def fig_accuracy(curves, target=None):
    """Test accuracy against simulated time and against cost, one line per curve."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    evaluated = curves.dropna(subset=["test_accuracy"])
    for ax, (x, label) in zip(axes, (("time_s", "simulated time (s)"), ("cost_usd", "cost so far (USD)"))):
        for i, (name, rows) in enumerate(evaluated.groupby("curve", sort=True)):
            ax.plot(rows[x], rows["test_accuracy"], "-", marker=".", ms=3, color=f"C{i % 10}", label=name)
        if target is not None:
            ax.axhline(target, color="0.3", linestyle="--", linewidth=0.8, label=f"target {target:g}")
        ax.set_xlabel(label)
        ax.set_ylabel("test accuracy")
        ax.grid(True, alpha=0.3)
    axes[1].legend(loc="lower right", fontsize=7, framealpha=0.7)
    fig.suptitle("Test accuracy of the models trained for real on the simulated schedule")
    fig.tight_layout()
    return fig
