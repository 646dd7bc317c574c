"""One run over time, from its trace.csv: who does what when, who waits for whom.

A Gantt chart per system (one row per peer, and per function invocation or aggregator when there are few;
phases coloured, iterations marked; per-phase totals beside it) and a Chrome trace-event file (trace.json)
that Perfetto (https://ui.perfetto.dev) or chrome://tracing open, for zooming into large runs
(format: https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
"""
import json
import os

import matplotlib.pyplot as plt
import pandas as pd

# Rows beyond this many are left out of the Gantt chart (peers first); trace.json keeps every one.
MAX_ROWS = 48
# Phases in the order a reader meets them, each with a fixed colour (tab20), so that charts compare.
PHASE_ORDER = ["data_fetch", "cold_start", "orchestration", "compute", "function_upload", "polling_wait", "collect",
               "local_average", "send", "receive", "reduce_scatter", "all_gather", "reduce", "aggregate_update",
               "barrier", "checkpoint", "out_of_memory", "function_failure", "down"]


def phase_colors():
    cmap = plt.get_cmap("tab20")
    return {p: cmap(i % 20) for i, p in enumerate(PHASE_ORDER)}


def load_trace(path):
    trace = pd.read_csv(path)
    missing = {"system", "peer", "iteration", "invocation", "phase", "start_s", "end_s"} - set(trace.columns)
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
    return trace


def row_label(peer, invocation):
    if peer < 0:  # a design's shared participant: an aggregator function or a server
        return f"shared {invocation}"
    return f"peer {peer}" if invocation < 0 else f"peer {peer} fn {invocation}"


def rows_of(trace):
    """The Gantt rows of one system's trace: its peers, then (when few enough) its functions and aggregators."""
    keys = trace[["peer", "invocation"]].drop_duplicates()
    peers = keys[keys["invocation"] < 0].sort_values("peer")
    others = keys[keys["invocation"] >= 0].sort_values(["peer", "invocation"])
    rows = list(peers.itertuples(index=False, name=None))
    if len(rows) + len(others) <= MAX_ROWS:
        rows += list(others.itertuples(index=False, name=None))
    return rows[:MAX_ROWS]


def iteration_starts(trace):
    """Per iteration, when its first peer phase began (the data load left out)."""
    own = trace[(trace["invocation"] < 0) & (trace["phase"] != "data_fetch") & (trace["peer"] >= 0)]
    return own.groupby("iteration")["start_s"].min().sort_index()


def fig_timeline(trace, system, figsize=None):
    part = trace[trace["system"] == system]
    rows = rows_of(part)
    colors = phase_colors()
    height = max(2.5, 0.28 * len(rows) + 1.5)
    fig, (ax, ax_totals) = plt.subplots(1, 2, figsize=figsize or (13, height), gridspec_kw={"width_ratios": [4, 1]})
    index = {key: i for i, key in enumerate(rows)}
    seen = set()
    for phase, group in part.groupby("phase"):
        for key, spans in group.groupby(["peer", "invocation"]):
            if key not in index:
                continue
            bars = list(zip(spans["start_s"], spans["end_s"] - spans["start_s"]))
            ax.broken_barh(bars, (index[key] - 0.4, 0.8), facecolors=colors.get(phase, "0.5"),
                           label=None if phase in seen else phase)
            seen.add(phase)
    for iteration, start in iteration_starts(part).items():
        ax.axvline(start, color="0.3", lw=0.6, ls=":")
        ax.text(start, -0.9, f"it {iteration}", fontsize=7, color="0.3", va="bottom")
    ax.set_yticks(range(len(rows)), [row_label(p, i) for p, i in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -1.2)
    ax.set_xlabel("simulated time (s)")
    ax.grid(True, axis="x", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: PHASE_ORDER.index(labels[i]) if labels[i] in PHASE_ORDER else 99)
    ax.legend([handles[i] for i in order], [labels[i] for i in order], fontsize=7, ncol=4, loc="upper center",
              bbox_to_anchor=(0.5, -0.12 if len(rows) > 6 else -0.25))
    totals = (part["end_s"] - part["start_s"]).groupby(part["phase"]).sum()
    totals = totals.reindex([p for p in PHASE_ORDER if p in totals.index])
    ax_totals.barh(range(len(totals)), totals.values, color=[colors[p] for p in totals.index])
    ax_totals.set_yticks(range(len(totals)), totals.index, fontsize=7)
    ax_totals.invert_yaxis()
    ax_totals.set_xlabel("total over all rows (s)")
    ax_totals.grid(True, axis="x", alpha=0.3)
    hidden = len(part[["peer", "invocation"]].drop_duplicates()) - len(rows)
    shown = f" ({hidden} rows left out: see trace.json)" if hidden else ""
    fig.suptitle(f"{system}: one run over time{shown}")
    fig.tight_layout()
    return fig


def chrome_trace(trace):
    """Trace events (complete events, microseconds): one process per system, one thread per row."""
    events = []
    for pid, (system, part) in enumerate(trace.groupby("system", sort=False)):
        events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": system}})
        keys = sorted(part[["peer", "invocation"]].drop_duplicates().itertuples(index=False, name=None),
                      key=lambda k: (k[0] < 0, k[0], k[1]))
        tids = {key: tid for tid, key in enumerate(keys)}
        for key, tid in tids.items():
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": row_label(*key)}})
        for r in part.itertuples(index=False):
            events.append({"name": r.phase, "cat": system, "ph": "X", "pid": pid, "tid": tids[(r.peer, r.invocation)],
                           "ts": round(r.start_s * 1e6, 3), "dur": round((r.end_s - r.start_s) * 1e6, 3),
                           "args": {"iteration": int(r.iteration)}})
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def write_chrome_trace(trace, path):
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        json.dump(chrome_trace(trace), f)
    os.replace(tmp, path)
