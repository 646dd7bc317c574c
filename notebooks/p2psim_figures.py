"""The figures of a results table. Each is a function of the table (a DataFrame) and options, returning a
matplotlib Figure; writing files is the caller's business (p2psim_plots.save_figure).

Every figure puts one workload per panel (or one value of `facet`), draws each system in its own colour and
marker (p2psim_style), keeps infeasible runs apart from the feasible ones, and fits `size` ("screen",
"one-column", "two-column") without a text overprinting another."""
import matplotlib
import matplotlib.colors
import matplotlib.lines
import matplotlib.patches
import matplotlib.ticker
import numpy as np
import pandas as pd

import p2psim_labels as labels
import p2psim_style as style
from p2psim_schema import column
from p2psim_tables import (COST, PAPER_IMPROVEMENT, PHASES, PICKED, SERVICES, SPEEDUP, TIME, comparison, config_axes,
                           facets, feasible, heatmap_axes, infeasible, pareto_mask, representative_rows)

# Panels side by side at each size (the one-column width holds two readable plots at most).
MAX_COLS = {"screen": 3, "one-column": 2, "two-column": 3}


def _system_handles(styles):
    """Legend entries of the systems: their colour, marker and line."""
    handles = [matplotlib.lines.Line2D([], [], color=color, marker=marker, markeredgecolor="0.25",
                                       markeredgewidth=0.3) for color, marker in styles.values()]
    return handles, list(styles)


def _infeasible_handle(count):
    handle = matplotlib.lines.Line2D([], [], color="0.35", marker="o", markerfacecolor="none", linestyle="none")
    return handle, f"infeasible: {count} run(s)"


def _panel_title(ax, label, size, cols):
    if label:  # wrapped to the plot's width, which its axis labels leave narrower than the panel
        ax.set_title(style.wrap(label, 0.72 * style.SIZES[size] / cols, style.FONT_PT[size]))


def _done(fig):
    style.mark_log_axes(fig)
    style.thin_tick_labels(fig)
    return fig


# ---- time against cost ---------------------------------------------------------------------------------------------

# Each configuration's p10-p90 over its replicates (`--replicates N`), in both directions.
BANDS = {TIME: (column("total_s_p10"), column("total_s_p90")), COST: (column("total_usd_p10"), column("total_usd_p90"))}


def _banded(rows):
    """The rows with a p10-p90 band of both time and cost (none without replicates)."""
    cols = [c for pair in BANDS.values() for c in pair]
    if not set(cols) <= set(rows.columns):
        return rows.iloc[0:0]
    return rows.dropna(subset=cols)


def _draw_bands(ax, rows, color):
    """A cross per configuration: its time's p10-p90 at its cost, its cost's p10-p90 at its time."""
    (t10, t90), (c10, c90) = BANDS[TIME], BANDS[COST]
    ax.hlines(rows[COST], rows[t10], rows[t90], color=color, alpha=0.6, linewidth=0.7, zorder=1)
    ax.vlines(rows[TIME], rows[c10], rows[c90], color=color, alpha=0.6, linewidth=0.7, zorder=1)


def fig_time_vs_cost(df, facet=None, size="screen"):
    """Per panel (workload, or the facet column's values), every feasible configuration and each system's Pareto
    front; with replicates, each configuration's p10-p90 of time and of cost as a cross. Infeasible runs have no
    time or cost to place: their count is in the panel's title, never a point."""
    with style.drawing(size):
        panels = facets(df, facet)
        styles = style.system_styles(df["system"])
        failed = len(infeasible(df))
        handles, names = _system_handles(styles)
        if failed:
            handle, text = _infeasible_handle(failed)
            handles, names = handles + [handle], names + [f"{text}, not drawn"]
        banded = _banded(feasible(df))
        title = "Time against cost of every feasible configuration; lines join each system's Pareto front"
        if not banded.empty:
            title += ("; crosses: p10-p90 over the replicates, the constants' spreads only (p2psim's errors on measured "
                      "runs are wider: docs/accuracy.md, \"The record's band\")")
        fig, axes, legend_ax = style.panel_figure(
            size, len(panels), MAX_COLS[size], panel_aspect=0.85, legend_entries=len(names),
            legend_chars=max(map(len, names)), title=title)
        cols = min(len(panels), MAX_COLS[size])
        for ax, (label, rows) in zip(axes, panels):
            ok = feasible(rows)
            for system, group in ok.groupby("system"):
                color, marker = styles[system]
                # One point a distinct (time, cost): a system that ignores a swept axis has alike rows, whose
                # translucent copies would stack into a point as dark as its front's.
                points = group.drop_duplicates([TIME, COST])
                ax.scatter(points[TIME], points[COST], marker=marker, color=color, alpha=0.5, edgecolors="0.25",
                           linewidths=0.3, s=matplotlib.rcParams["lines.markersize"] ** 2 * 0.8, zorder=2)
                front = group[pareto_mask(group)].sort_values(TIME)
                ax.plot(front[TIME], front[COST], "-", marker=marker, color=color, markeredgecolor="0.25",
                        markeredgewidth=0.3, zorder=3)
            bands = _banded(ok)
            for system, group in bands.groupby("system"):
                _draw_bands(ax, group, styles[system][0])
            if ok.empty:
                ax.text(0.5, 0.5, "no feasible run", transform=ax.transAxes, ha="center", va="center")
            extent = {k: [ok[k]] + ([bands[c] for c in BANDS[k]] if not bands.empty else []) for k in (TIME, COST)}
            style.scale_axis(ax, "x", pd.concat(extent[TIME]), from_zero=True)
            style.scale_axis(ax, "y", pd.concat(extent[COST]), from_zero=True)
            ax.set_xlabel(labels.label(TIME))
            ax.set_ylabel(labels.label(COST))
            ax.grid(True, which="major", alpha=0.3)
            note = f" ({len(rows) - len(ok)} infeasible)" if len(rows) > len(ok) else ""
            _panel_title(ax, f"{label}{note}" if label else note.strip(" ()"), size, cols)
        style.put_legend(legend_ax, handles, names)
        return _done(fig)


# ---- against one swept axis ------------------------------------------------------------------------------------------

UNUSED_LINE = "--"  # the line of a system against an axis it does not use


def fig_against_axis(df, axis, facet=None, size="screen"):
    """Per panel, the median time (left) and cost (right) of each system over the other swept settings, against
    `axis`; hollow markers on the bottom edge: values at which some of that system's runs are infeasible."""
    with style.drawing(size):
        panels = facets(df, facet)
        styles = style.system_styles(df["system"])
        failed = infeasible(df)
        handles, names = _system_handles(styles)
        if not failed.empty:
            handle, text = _infeasible_handle(len(failed))
            handles, names = handles + [handle], names + [f"{text} (hollow, below the lines)"]
        if any(labels.unused_note(rows[rows["system"] == s], axis) is not None for _, rows in panels
               for s in rows["system"].unique()):
            handles.append(matplotlib.lines.Line2D([], [], color="0.35", linestyle=UNUSED_LINE))
            names.append(f"dashed: a system that does not use {labels.label(axis)}")
        medians = [_system_medians(rows, axis) for _, rows in panels]
        if any(kept < total for panel in medians for _, _, kept, total in panel[TIME]):
            handles.append(matplotlib.lines.Line2D([], [], linestyle="none"))
            names.append(PARTIAL_LEGEND)
        fig, axes, legend_ax = style.panel_figure(
            size, 2 * len(panels), 2, panel_aspect=0.6, legend_entries=len(names), legend_chars=max(map(len, names)),
            title=f"Median time and cost against {labels.label(axis)}, over the other swept settings")
        log = {metric: any(style.spans_decade([v for _, med, _, _ in panel[metric] for v in med.values])
                           for panel in medians) for metric in (TIME, COST)}
        for i, (label, rows) in enumerate(panels):
            for ax, metric in zip(axes[2 * i:2 * i + 2], (TIME, COST)):
                partial = _draw_medians(ax, rows, axis, medians[i][metric], styles, log[metric])
                ax.set_ylabel(labels.label(metric))
                _panel_title(ax, f"{label} *" if partial else label, size, 2)
        style.put_legend(legend_ax, handles, names)
        return _done(fig)


def comparable_rows(rows, axis):
    """Of one system's rows, those of the configurations (values of the other swept settings) that finished at
    every value of `axis` at which any of them finished; how many configurations that is, and how many finished
    somewhere. A median over whatever finished compares unlike runs: where only batch 64 fit in 1,769 MB, the
    median at 1,769 MB was batch 64's and at 3,008 MB every batch's, and read as 1,769 MB being 4x slower. Where
    no configuration finished at every such value (their values cross, or another column moves with the axis),
    all that finished, as before: (rows, 0, n), which the caller stars as it does a partial line."""
    others = [a for a in config_axes(rows) if a != axis]
    ok = feasible(rows)
    keys = [ok[a].astype(str) for a in others] if others else [pd.Series("", index=ok.index)]
    config = pd.Series(list(zip(*keys)), index=ok.index)
    reached = set(ok[axis].dropna())  # the values the line can reach at all; the rug marks the others
    finished = ok.groupby(config)[axis].agg(lambda v: set(v.dropna()))
    whole = [c for c, values in finished.items() if values >= reached]
    if not whole:
        return ok, 0, len(finished)
    return ok[config.isin(whole)], len(whole), len(finished)


def _system_medians(rows, axis):
    """{metric: [(system, its median of the metric at each value of `axis`, configurations kept, configurations)]}
    for time and cost, over the same configurations at every value (comparable_rows, once a system)."""
    out = {TIME: [], COST: []}
    for system in style.system_order(feasible(rows)["system"]):
        group, kept, total = comparable_rows(rows[rows["system"] == system], axis)
        for metric, lines in out.items():
            lines.append((system, group.groupby(axis)[metric].median().sort_index(), kept, total))
    return out


def _draw_medians(ax, rows, axis, medians, styles, log):
    """`medians` (_system_medians) against `axis`, on a log scale or not (one choice for a column of panels, so
    that panels side by side read alike); returns whether some system's medians lost configurations."""
    partial = False
    for system, med, kept, total in medians:
        color, marker = styles[system]
        partial = partial or kept < total
        unused = labels.unused_note(rows[rows["system"] == system], axis) is not None  # flat, and not a finding
        ax.plot(med.index, med.values, UNUSED_LINE if unused else "-", marker=marker, color=color,
                markeredgecolor="0.25", markeredgewidth=0.3)
    values = sorted(rows[axis].dropna().unique())
    if pd.api.types.is_numeric_dtype(rows[axis]) and min(values) > 0 and max(values) / min(values) >= 4:
        ax.set_xscale("log")  # swept values are mostly geometric (peers 2..16, memory 1024..10240): evenly spaced
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(values))  # every swept value, and only those
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: labels.plain(float(v))))
    style.scale_axis(ax, "y", [v for _, med, _, _ in medians for v in med.values], log=log, from_zero=True)
    ax.autoscale_view()
    failed = infeasible(rows)
    style.infeasible_rug(ax, [(sorted(failed.loc[failed["system"] == s, axis].unique()), *styles[s])
                              for s in style.system_order(failed["system"])])
    ax.set_xlabel(labels.label(axis))
    ax.grid(True, which="major", alpha=0.3)
    return partial


PARTIAL_LEGEND = "*: some lines hold only the configurations finishing at all their points"


# ---- stacked parts per configuration -----------------------------------------------------------------------------

def _bar_label(row, axes, size):
    """The configuration of a bar in words, and why it is shown when representative_rows() picked it ("fastest"),
    wrapped to at most 40 % of the figure's width."""
    picked = row.get(PICKED)
    text = labels.config_label(row, ["system"] + axes) + (f" ({picked})" if isinstance(picked, str) else "")
    return style.wrap(text, 0.4 * style.SIZES[size], style.FONT_PT[size] * 0.9)


def _stacked_bars(df, parts, total, rows, facet, size, title, xlabel, rest_label):
    """One panel per workload of horizontal bars, one per row, stacked from `parts` ((label, column)) and, when
    `total` is a column, a last part for what the named ones leave of it."""
    if rows.empty:
        return None
    with style.drawing(size):
        pt = style.FONT_PT[size]
        panels = [(label, part) for label, part in facets(rows, facet)]
        axes_cols = config_axes(df)
        shown = [(name, column) for name, column in parts if column in rows.columns and rows[column].abs().sum() > 0]
        colors = dict(zip([name for name, _ in parts], style.PART_COLORS))
        names = {label: [_bar_label(r, axes_cols, size) for _, r in part.iterrows()] for label, part in panels}
        heights = [style.bars_height(names[label], pt) for label, _ in panels]
        fig, axes, legend_ax = style.panel_figure(
            size, len(panels), 1, row_heights=heights,
            legend_entries=len(shown) + 1, legend_chars=max(len(n) for n, _ in shown + [(rest_label, "")]),
            title=title)
        for ax, (label, part) in zip(axes, panels):
            y = np.arange(len(part))
            left = np.zeros(len(part))
            for name, column in shown:
                values = part[column].fillna(0).to_numpy()
                ax.barh(y, values, left=left, color=colors[name], label=name, height=0.75)
                left = left + values
            rest = (part[total].to_numpy() - left).clip(min=0) if total in part.columns else np.zeros(len(part))
            if rest.max() > 1e-6 * max(left.max(), 1e-300):  # more than the rounding of the parts' sum
                ax.barh(y, rest, left=left, color=style.REST_COLOR, label=rest_label, height=0.75)
            ax.set_yticks(y, names[label])
            ax.set_ylim(len(part) - 0.5, -0.5)
            whole = left + rest
            # Each bar's whole written at its end: most bars can be far shorter than the longest, whose ticks
            # alone would not read them. The frame leaves room for the longest's label.
            for yi, value in zip(y, whole):
                ax.text(value, yi, " " + style.plain_number(float(f"{value:.3g}")), va="center", ha="left",
                        fontsize=pt * 0.8)
            ax.set_xlim(0, max(whole.max(), 1e-12) * 1.15)
            style.scale_axis(ax, "x", [0, whole.max()], log=False)
            ax.set_xlabel(xlabel)
            ax.grid(True, axis="x", alpha=0.3)
            _panel_title(ax, label, size, 1)
        parts = {}
        for ax in axes:  # every part shown in any panel, once
            for handle, name in zip(*ax.get_legend_handles_labels()):
                parts.setdefault(name, handle)
        style.put_legend(legend_ax, list(parts.values()), list(parts))
        return _done(fig)


def fig_phase_breakdown(df, scenarios=None, facet=None, size="screen"):
    """Each shown configuration's iteration as stacked parts that add up to it (never a median over unrelated
    scenarios): the given scenarios, else each system's fastest and cheapest configuration per workload."""
    rows = representative_rows(df, scenarios, facet)
    which = "the chosen scenarios" if scenarios else "each system's fastest and cheapest configuration"
    return _stacked_bars(df, PHASES, "iteration_s", rows, facet, size,
                         f"Where an iteration's time goes, for {which}", labels.label("iteration_s"),
                         "other (waits, polls)")  # as the run table says it


def fig_cost_by_service(df, scenarios=None, facet=None, size="screen"):
    """Each shown configuration's bill, stacked by service (instances, functions, workflow, storage, broker...):
    the given scenarios, else each system's fastest and cheapest configuration per workload."""
    rows = representative_rows(df, scenarios, facet)
    which = "the chosen scenarios" if scenarios else "each system's fastest and cheapest configuration"
    return _stacked_bars(df, SERVICES, COST, rows, facet, size, f"What the training costs, by service, for {which}",
                         labels.label(COST), "other")


# ---- each system against the baseline ------------------------------------------------------------------------------

# (column of comparison(), what it measures, colour map, centre). Blue is better than the baseline in both.
METRICS = {
    "improvement": ("improvement_percent", "improvement in gradient-computation time (%)", "RdBu", 0.0),
    "cost_ratio": ("cost_ratio", "cost ratio", "RdBu_r", 1.0),
    # The whole run's time: a design whose peers compute their own gradients, as the baseline's do, shows 0 % in the
    # paper's metric however much faster it trains.
    "speedup": ("total_speedup", "speed-up in total time (x faster)", "RdBu", 1.0),
    "paper_improvement": ("paper_improvement_percent",
                          "improvement in gradient-computation time as the paper timed it (%)", "RdBu", 0.0),
}
# A colour scale never narrower than this factor either side of the baseline: near-equal values stay pale.
MIN_FACTOR = 1.25
# The metrics that are factors of the baseline's value, drawn on a log scale (1x in the middle).
RATIO_METRICS = ("cost_ratio", "speedup")
# Gradient-computation time against the baseline's: 0 % by construction for a design whose peers compute their own.
GRADIENT_METRICS = ("improvement", "paper_improvement")


def _time_factor(improvement):
    """An improvement in percent as log10 of the speed-up (the baseline's time over the system's), so that
    twice as fast and twice as slow sit at the same distance from 0 % (+50 % and -100 %)."""
    return -np.log10(1 - np.minimum(np.asarray(improvement, dtype=float), 99.9) / 100)


def _from_time_factor(value):
    return 100 * (1 - 10 ** -np.asarray(value, dtype=float))


def _diverging_norm(metric, values):
    """A colour scale centred on the baseline (0 % or 1x), symmetric in the factor either side."""
    values = np.asarray([v for v in values if v == v], dtype=float)
    if metric in RATIO_METRICS:
        half = max([np.log10(MIN_FACTOR)] + [abs(np.log10(v)) for v in values if v > 0])
        return matplotlib.colors.LogNorm(vmin=10 ** -half, vmax=10 ** half)
    half = max([np.log10(MIN_FACTOR)] + list(np.abs(_time_factor(values))))
    return matplotlib.colors.FuncNorm((_time_factor, _from_time_factor), vmin=float(_from_time_factor(-half)),
                                      vmax=float(_from_time_factor(half)))


def _colorbar_ticks(metric, norm):
    """Ticks evenly spaced on the scale: factors 1, 2 and 5 of ten, or for an improvement the same factors of speed
    (-100 % is half as fast, 50 % twice, 80 % five times), which crowded the centre when they were round percents."""
    factors = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]
    candidates = factors if metric in RATIO_METRICS else [round(100 * (1 - 1 / f)) for f in factors]
    return [c for c in candidates if norm.vmin <= c <= norm.vmax]


def _cell_text(metric, value):
    return style.format_ratio(value) if metric in RATIO_METRICS else style.format_percent(value)


def fig_heatmap(df, metric, axes=None, facet=None, size="screen"):
    """Per workload (or facet value) and non-baseline system, a grid over two swept axes of the paper's metric:
    improvement in gradient-computation time (%) or cost ratio, each against the baseline system, on one colour
    scale centred on the baseline (values within rounding of it shown as equal). Hatched: infeasible there.
    `axes`: (x, y) columns, else chosen by p2psim_tables.heatmap_axes. None when the table has nothing to show."""
    _, what, cmap, _ = METRICS[metric]
    axes = heatmap_axes(df, axes, facet)
    grids = _heatmap_grids(df, metric, *axes, facet) if axes else []
    if not grids:
        return None
    x, y = axes
    panels = list(dict.fromkeys(panel for panel, *_ in grids))
    single = len(panels) == 1  # one workload: named once, in the title, and its panels by system alone
    norm = _diverging_norm(metric, np.concatenate([grid.to_numpy(dtype=float).ravel() for _, _, grid, *_ in grids]))
    baseline = _baseline(df)
    others = [a for a in config_axes(df) if a not in axes]
    over = f", median over {', '.join(labels.label(a) for a in others)}" if others else ""
    slots, cols = _heatmap_slots([(panel, system) for panel, system, *_ in grids], MAX_COLS[size])
    partial = any(part for *_, part in grids)
    n_rows, n_cols = grids[0][2].shape
    with style.drawing(size):
        fig, panel_axes, _ = style.panel_figure(
            size, max(slots) + 1, cols, panel_aspect=min(1.0, max(0.5, n_rows / n_cols)) + 0.15,
            title=f"{what.capitalize()} of each system against the baseline ({baseline}); blue: better{over}"
                  + ("; hatched: infeasible" if any(failed for *_, failed, _ in grids) else "")
                  + ("; *: a median of the runs that could run, some settings there infeasible" if partial else "")
                  + (f"; {panels[0]}" if single and panels[0] else ""))
        for ax in panel_axes:
            ax.set_visible(False)  # slots without a grid stay empty
        for slot, (panel, system, grid, failed, part) in zip(slots, grids):
            ax = panel_axes[slot]
            ax.set_visible(True)
            image = ax.imshow(np.ma.masked_invalid(grid.to_numpy(dtype=float)), cmap=cmap, norm=norm, aspect="auto",
                              origin="lower")
            _hatch_cells(ax, failed)
            _annotate_cells(ax, grid, metric, norm, cmap, style.SIZES[size] / cols, part)
            ax.set_xticks(range(len(grid.columns)), [labels.plain(v) for v in grid.columns])
            ax.set_yticks(range(len(grid.index)), [labels.plain(v) for v in grid.index])
            # No tick marks: at one column's width a mark beside a cell's "0.45x" read as its minus sign.
            ax.tick_params(length=0)
            if slot + cols not in slots:  # axis names on the outer panels only: the grids share their axes
                ax.set_xlabel(labels.label(x))
            if slot % cols == 0:
                ax.set_ylabel(labels.label(y))
            name = system if single or not panel else f"{panel}: {system}"
            _panel_title(ax, name + _panel_note(df, panel, facet, system, axes, metric, grid), size, cols)
        bar = fig.colorbar(image, ax=[panel_axes[slot] for slot in slots], location="bottom", shrink=0.8, aspect=40,
                           pad=0.02)
        bar.set_label(style.wrap(f"{what} vs {baseline}" + (" (log scale)" if metric in RATIO_METRICS else
                                                             " (log scale of the speed: -100 % half as fast, 50 % "
                                                             "twice)"), 0.95 * style.SIZES[size], style.FONT_PT[size]))
        bar.set_ticks(_colorbar_ticks(metric, norm))
        bar.ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: f"{v:g}\u00d7" if metric in RATIO_METRICS else style.format_percent(v)))
        bar.ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        return _done(fig)


def _panel_note(df, panel, facet, system, axes, metric, grid):
    """Why a panel's cells are alike, where they are by construction: a design computing its gradients on its peers
    reads 0 % in the gradient metrics everywhere; a system that does not use an axis reads alike along it."""
    values = grid.to_numpy(dtype=float)
    values = values[~np.isnan(values)]
    if metric in GRADIENT_METRICS and values.size > 0 and bool(np.all(values == 0)):
        return " (gradients on its peers, as the baseline's: 0 %)"
    return _unused_axes_note(df, panel, facet, system, axes)


def _unused_axes_note(df, panel, facet, system, axes):
    """" (no functions; every row alike)" for a panel whose system does not use one of the grid's axes (x, y), so
    that its alike rows (or columns) are not read as a finding about that axis."""
    rows = next((r for label, r in facets(df, facet) if label == panel), df)
    rows = rows[rows["system"] == system]
    for axis, cells in zip(axes, ("column", "row")):
        note = labels.unused_note(rows, axis)
        if note is not None:
            return f" ({note + '; ' if note else ''}every {cells} alike)"
    return ""


def _baseline(df):
    names = df["baseline"].dropna() if "baseline" in df.columns else []
    return names.iloc[0] if len(names) else "the baseline"


def _heatmap_grids(df, metric, x, y, facet):
    """(panel, system, grid of medians, infeasible cells as (column, row), cells whose median leaves out infeasible
    runs) per panel and non-baseline system;
    medians within rounding of the baseline are snapped to it. A system infeasible everywhere still has its
    (hatched) grid."""
    column, _, _, center = METRICS[metric]
    x_values = sorted(df[x].dropna().unique())
    y_values = sorted(df[y].dropna().unique())
    grids = []
    for panel, rows in facets(df, facet):
        comp = comparison(rows, [x, y])
        if len(comp) and column not in comp.columns:
            return []  # a table from before this metric existed: no heatmap of it, rather than a KeyError
        failed = infeasible(rows)
        compared = set(comp["system"]) | (set(failed["system"]) - {_baseline(df)} if len(comp) else set())
        for system in style.system_order(compared):
            grid = (comp[comp["system"] == system].pivot_table(index=y, columns=x, values=column, aggfunc="median")
                    .reindex(index=y_values, columns=x_values)
                    .applymap(lambda v: style.snap(v, center)))
            mine = failed[failed["system"] == system]
            cells = {(x_values.index(fx), y_values.index(fy)) for fx, fy in zip(mine[x], mine[y])}
            # A cell with a value where some of its runs were infeasible holds the median of the others only.
            grids.append((panel, system, grid, {(c, r) for c, r in cells if np.isnan(grid.iat[r, c])},
                          {(c, r) for c, r in cells if not np.isnan(grid.iat[r, c])}))
    return grids


def _heatmap_slots(keys, max_cols):
    """The panel slot of each grid: a column per workload and a row per system when the workloads fill the
    width exactly, else one after the other. Returns (slots, columns)."""
    panels = list(dict.fromkeys(panel for panel, _ in keys))
    if 1 < len(panels) == max_cols:
        systems = style.system_order(system for _, system in keys)
        return [systems.index(system) * len(panels) + panels.index(panel) for panel, system in keys], len(panels)
    cols = min(len(keys), max_cols)
    return list(range(len(keys))), cols


def _hatch_cells(ax, cells):
    for c, r in cells:
        ax.add_patch(matplotlib.patches.Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="0.92", edgecolor="0.6",
                                                  hatch="////", linewidth=0))


def _annotate_cells(ax, grid, metric, norm, cmap, panel_width_in, partial=()):
    """Each cell's value, in a font small enough for the widest text to fit its cell, dark on light cells and
    light on dark ones; "*" after a value that leaves out infeasible runs (`partial`, as (column, row)). No text at
    all when even 4 pt would not fit: the colour scale still reads."""
    texts = [[_cell_text(metric, v) + ("*" if (c, r) in partial and v == v else "") for c, v in enumerate(row)]
             for r, row in enumerate(grid.to_numpy(dtype=float))]
    widest = max([len(t) for row in texts for t in row] + [1])
    cell_pt = panel_width_in * 0.8 * 72 / max(1, grid.shape[1])
    font = min(matplotlib.rcParams["font.size"] * 0.9, cell_pt * 0.85 / (0.6 * widest))
    if font < 4:
        return
    colormap = matplotlib.colormaps[cmap]
    for r, row in enumerate(texts):
        for c, text in enumerate(row):
            if text:
                red, green, blue, _ = colormap(norm(grid.iat[r, c]))
                dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
                ax.text(c, r, text, ha="center", va="center", fontsize=font, color="white" if dark else "black")


# ---- every figure of a table --------------------------------------------------------------------------------------

def numeric_axes(df):
    """The swept axes a line can be drawn against (the workload's own columns are panels, not axes)."""
    return [a for a in config_axes(df) if pd.api.types.is_numeric_dtype(df[a])]


def axis_figure_name(axis):
    return f"against_{axis.replace('/', '_').replace('@', '')}"


def all_figures(df, facet=None, scenarios=None, size="screen", heatmap=None):
    """(name, figure) for every figure the table supports, drawn one at a time (the caller closes each)."""
    drawers = [("time_vs_cost", lambda: fig_time_vs_cost(df, facet, size)),
               ("phase_breakdown", lambda: fig_phase_breakdown(df, scenarios, facet, size)),
               ("cost_by_service", lambda: fig_cost_by_service(df, scenarios, facet, size))]
    drawers += [(axis_figure_name(axis), lambda axis=axis: fig_against_axis(df, axis, facet, size))
                for axis in numeric_axes(df)]
    drawers += [(f"heatmap_{metric}", lambda metric=metric: fig_heatmap(df, metric, heatmap, facet, size))
                for metric in METRICS if (metric != "paper_improvement" or PAPER_IMPROVEMENT in df.columns)
                and (metric != "speedup" or SPEEDUP in df.columns)]
    for name, draw in drawers:
        fig = draw()
        if fig is not None:  # e.g. no feasible run to break down, no baseline to compare with
            yield name, fig
