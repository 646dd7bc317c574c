"""The report's figures, on any results DataFrame (p2psim.run(...).table, p2psim.sweep(...), p2psim.load(...)):
each returns a matplotlib Figure; `size` is "screen", "one-column" or "two-column"."""
from ._analysis import module

_figures = module("p2psim_figures")


def time_vs_cost(df, facet=None, size="screen"):
    """Every feasible configuration, time against cost, each system's Pareto front (one panel per workload)."""
    return _figures.fig_time_vs_cost(df, facet, size)


def against_axis(df, axis, facet=None, size="screen"):
    """Time and cost against one swept column (e.g. "peers/@count")."""
    return _figures.fig_against_axis(df, axis, facet, size)


def phase_breakdown(df, scenarios=None, facet=None, size="screen"):
    """Where an iteration's time goes, per system (its fastest and cheapest configurations by default)."""
    return _figures.fig_phase_breakdown(df, scenarios, facet, size)


def cost_by_service(df, scenarios=None, facet=None, size="screen"):
    """What the training costs, by cloud service."""
    return _figures.fig_cost_by_service(df, scenarios, facet, size)


def heatmap(df, metric, axes=None, facet=None, size="screen"):
    """A metric over two swept columns, per non-baseline system."""
    return _figures.fig_heatmap(df, metric, axes, facet, size)
