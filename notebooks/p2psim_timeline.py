"""One run over time, from its trace.csv: who does what when, who waits for whom.

A Gantt chart per system: a row per peer (a LambdaML worker, a parameter server, an aggregator: each named by
its role), each peer's function invocations in a band right under it (one thin lane per invocation, so that a
peer's gaps are seen filled by its functions), phases coloured, iterations marked on the top axis, per-phase
totals beside it. And a Chrome trace-event file (trace.json) that Perfetto (https://ui.perfetto.dev) or
chrome://tracing open, for zooming into large runs
(format: https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
"""
import json
import os

import matplotlib.pyplot as plt
import matplotlib.ticker
import pandas as pd

import p2psim_schema
import p2psim_style as style

# Rows beyond this many are left out of the Gantt chart (the first peers are kept); trace.json keeps every one.
MAX_ROWS = 48
# Phases in the order a reader meets them, each with a fixed colour (tab20), so that charts compare.
PHASE_ORDER = p2psim_schema.PHASES
# The roles of a trace's rows by design (docs/designs.md): what its peers are, and what its shared rows
# (peer -1) are. Names of systems in experiments/*.xml that differ from their strategy's are listed too.
PEER_ROLE = {"lambdaml": "worker"}
SHARED_ROLE = {"parameter_server": "server", "serverless_sharded": "aggregator", "serverless_tree": "aggregator"}
STRATEGY_OF = {"ps": "parameter_server", "lml": "lambdaml", "sharded": "serverless_sharded",
               "gradssharding": "serverless_sharded", "tree": "serverless_tree", "lifl": "serverless_tree",
               "lambda_fl": "serverless_tree", "ring": "ring_allreduce"}


def phase_colors():
    # tab20 for the first twenty, then tab20b's darker shades: no two phases share a colour.
    cmap, more = plt.get_cmap("tab20"), plt.get_cmap("tab20b")
    return {p: cmap(i) if i < 20 else more(2 * (i - 20)) for i, p in enumerate(PHASE_ORDER)}


def load_trace(path):
    trace = pd.read_csv(path)
    missing = {"system", "peer", "iteration", "invocation", "phase", "start_s", "end_s"} - set(trace.columns)
    if missing:
        raise ValueError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
    return trace


def strategy_of(system, strategy=None):
    """The design of a system: its strategy when known (result.csv), else read from its name."""
    return strategy or STRATEGY_OF.get(system, system)


def row_label(peer, invocation, strategy=None):
    """A trace row by its role: 'peer 3', 'worker 3' (LambdaML), 'peer 3 function 5', 'server 1',
    'aggregator 2'."""
    if peer < 0:  # a design's shared participant
        return f"{SHARED_ROLE.get(strategy, 'shared')} {invocation}"
    own = f"{PEER_ROLE.get(strategy, 'peer')} {peer}"
    return own if invocation < 0 else f"{own} function {invocation}"


def group_names(peer_groups):
    """{peer: its group's name} from result.json's scenario.peer_groups (in peer order); {} without groups."""
    names, first = {}, 0
    for g in peer_groups or []:
        names.update({p: g["name"] for p in range(first, first + g["count"])})
        first += g["count"]
    return names


def rows_of(trace, strategy=None, groups=None):
    """The Gantt rows of one system's trace, as (label, peer, invocations): each peer (with its group's name when
    `groups`, {peer: name}, has one), then its functions as one band (all its invocations); the shared
    participants (servers, aggregators) last. At most MAX_ROWS, keeping whole peers."""
    keys = trace[["peer", "invocation"]].drop_duplicates()
    rows = []
    for peer in sorted(keys.loc[keys["peer"] >= 0, "peer"].unique()):
        mine = keys[keys["peer"] == peer]
        label = row_label(peer, -1, strategy) + (f" · {groups[peer]}" if groups and peer in groups else "")
        group = [(label, peer, [-1])] if (mine["invocation"] < 0).any() else []
        functions = sorted(mine.loc[mine["invocation"] >= 0, "invocation"])
        if functions:
            group.append((f"\u21b3 {len(functions)} function{'s' if len(functions) > 1 else ''}", peer, functions))
        if len(rows) + len(group) > MAX_ROWS:
            break
        rows += group
    for invocation in sorted(keys.loc[keys["peer"] < 0, "invocation"].unique()):
        if len(rows) < MAX_ROWS:
            rows.append((row_label(-1, invocation, strategy), -1, [invocation]))
    return rows


def iteration_starts(trace):
    """Per iteration, when its first peer phase began (the data load left out)."""
    own = trace[(trace["invocation"] < 0) & (trace["phase"] != "data_fetch") & (trace["peer"] >= 0)]
    return own.groupby("iteration")["start_s"].min().sort_index()


def _draw_rows(ax, part, rows, colors):
    """Every span of the shown rows; a band of n functions is split into n thin lanes."""
    for index, (_, peer, invocations) in enumerate(rows):
        lane_h = 0.8 / len(invocations)
        for lane, invocation in enumerate(invocations):
            spans = part[(part["peer"] == peer) & (part["invocation"] == invocation)]
            for phase, group in spans.groupby("phase"):
                ax.broken_barh(list(zip(group["start_s"], group["end_s"] - group["start_s"])),
                               (index - 0.4 + lane * lane_h, lane_h), facecolors=colors.get(phase, "0.5"),
                               linewidth=0)


def _mark_iterations(ax, part):
    """Iteration starts as dotted lines, numbered on a top axis (thinned like any tick labels)."""
    starts = iteration_starts(part)
    for start in starts:
        ax.axvline(start, color="0.3", lw=0.5, ls=":")
    top = ax.twiny()
    top.set_xlim(ax.get_xlim())
    top.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(list(starts)))
    top.xaxis.set_major_formatter(matplotlib.ticker.FixedFormatter([str(i) for i in starts.index]))
    top.set_xlabel("iteration")
    top.tick_params(length=2)


def fig_timeline(trace, system, strategy=None, size="screen", groups=None):
    """One system's run as a Gantt chart with its per-phase totals; `strategy` names the rows' roles, `groups`
    ({peer: group name}, group_names) the peers' groups."""
    part = trace[trace["system"] == system]
    strategy = strategy_of(system, strategy)
    rows = rows_of(part, strategy, groups)
    colors = phase_colors()
    phases = [p for p in PHASE_ORDER if p in set(part["phase"])] + sorted(set(part["phase"]) - set(PHASE_ORDER))
    with style.drawing(size) as pt:
        width = style.SIZES[size]
        narrow = size == "one-column"  # the totals go under the chart, not beside it
        legend_cols, legend_h = style.legend_shape(width, pt, len(phases), max(len(p) for p in phases))
        gantt_h = max(1.2, len(rows) * pt * 1.6 / 72, 0 if narrow else len(phases) * pt * 1.8 / 72) + pt * 5 / 72
        totals_h = len(phases) * pt * 1.8 / 72 + pt * 6 / 72
        hidden = len(part[["peer", "invocation"]].drop_duplicates()) - sum(len(i) for _, _, i in rows)
        title = style.wrap(f"{system}: one run over time" + (f" ({hidden} rows left out: see trace.json)"
                                                           if hidden else ""), width, pt * 1.1)
        height = gantt_h + legend_h + (totals_h if narrow else 0) + pt * 2 / 72 * (title.count("\n") + 1) + 0.2
        fig = plt.figure(figsize=(width, height), layout="constrained")
        fig.get_layout_engine().set(h_pad=2 / 72, w_pad=2 / 72, hspace=0.02, wspace=0.02)
        if narrow:
            grid = fig.add_gridspec(3, 1, height_ratios=[gantt_h, totals_h, legend_h])
            ax, ax_totals, legend_ax = (fig.add_subplot(grid[i, 0]) for i in range(3))
        else:
            grid = fig.add_gridspec(2, 2, height_ratios=[gantt_h, legend_h], width_ratios=[4, 1])
            ax, ax_totals = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1])
            legend_ax = fig.add_subplot(grid[1, :])
        _draw_rows(ax, part, rows, colors)
        ax.set_yticks(range(len(rows)), [label for label, _, _ in rows])
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_xlim(0, part["end_s"].max() * 1.01 if len(part) else 1)
        ax.set_xlabel("simulated time (s)")
        ax.grid(True, axis="x", alpha=0.3)
        _mark_iterations(ax, part)
        _draw_totals(ax_totals, part, phases, colors)
        legend_ax.set_axis_off()
        legend_ax.legend_cols = legend_cols
        handles = [plt.Rectangle((0, 0), 1, 1, color=colors.get(p, "0.5")) for p in phases]
        style.put_legend(legend_ax, handles, [p.replace("_", " ") for p in phases])
        fig.suptitle(title)
        style.thin_tick_labels(fig)
        return fig


def _draw_totals(ax, part, phases, colors):
    """Each phase's seconds summed over the participants' own rows (peers, workers, servers, aggregators: the
    Gantt chart's named rows, some of them functions themselves) and, apart, over the invocations a peer fans out
    (the lanes under it): 52 invocations' compute beside 4 peers' waits would otherwise read as one quantity."""
    seconds = part["end_s"] - part["start_s"]
    functions = (part["peer"] >= 0) & (part["invocation"] >= 0)  # a peer's fanned-out invocations
    own = seconds[~functions].groupby(part["phase"][~functions]).sum().reindex(phases).fillna(0)
    theirs = seconds[functions].groupby(part["phase"][functions]).sum().reindex(phases).fillna(0)
    y = range(len(phases))
    color = [colors.get(p, "0.5") for p in phases]
    if functions.any():
        ax.barh([i - 0.2 for i in y], own.values, height=0.4, color=color)
        ax.barh([i + 0.2 for i in y], theirs.values, height=0.4, color=color, hatch="////", edgecolor="white",
                linewidth=0)
        ax.set_title("summed\n(hatched:\ninvocations)")
    else:
        ax.barh(list(y), own.values, color=color)
        ax.set_title("summed")
    ax.set_xlabel("seconds")
    ax.set_yticks(list(y), [p.replace("_", " ") for p in phases])
    ax.invert_yaxis()
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=3))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(style.plain_number))
    ax.grid(True, axis="x", alpha=0.3)


def chrome_trace(trace, strategies=None):
    """Trace events (complete events, microseconds): one process per system, one thread per row, rows named by
    role (`strategies`: {system: strategy}, else read from the system names)."""
    events = []
    for pid, (system, part) in enumerate(trace.groupby("system", sort=False)):
        strategy = strategy_of(system, (strategies or {}).get(system))
        events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": system}})
        keys = sorted(part[["peer", "invocation"]].drop_duplicates().itertuples(index=False, name=None),
                      key=lambda k: (k[0] < 0, k[0], k[1]))
        tids = {key: tid for tid, key in enumerate(keys)}
        for key, tid in tids.items():
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                           "args": {"name": row_label(*key, strategy)}})
        for r in part.itertuples(index=False):
            events.append({"name": r.phase, "cat": system, "ph": "X", "pid": pid, "tid": tids[(r.peer, r.invocation)],
                           "ts": round(r.start_s * 1e6, 3), "dur": round((r.end_s - r.start_s) * 1e6, 3),
                           "args": {"iteration": int(r.iteration)}})
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def write_chrome_trace(trace, path, strategies=None):
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        json.dump(chrome_trace(trace, strategies), f)
    os.replace(tmp, path)
