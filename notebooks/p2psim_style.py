"""How every p2psim figure looks: one colour and marker per system name (the same in every figure, the HTML
report and the notebook), publication sizes with fonts to match, panel grids with a legend that never sits on
the data, readable ticks on any range, and the numbers of a comparison printed as a reader expects them."""
import bisect
import contextlib
import math
import textwrap
import zlib

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.ticker

# Publication output: fonts embedded in PDF (TrueType, type 42); text as paths in SVG (no font needed); SVG ids
# from a fixed salt, so that the same figure gives the same file.
matplotlib.rcParams.update({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "path",
                            "svg.hashsalt": "p2psim"})

# Figure widths in inches: a screen, a single or a double column of a two-column paper (IEEE/ACM).
SIZES = {"screen": 9.0, "one-column": 3.5, "two-column": 7.0}
# Body text of each size in points: a paper's figure text is a little smaller than its 9-10 pt body.
FONT_PT = {"screen": 9.0, "one-column": 6.5, "two-column": 7.5}
MAX_PANEL_HEIGHT = 3.2  # inches
PNG_DPI = 300  # print resolution of the PNG files
SCREEN_DPI = 110  # the copies embedded in report.html

# Okabe & Ito (2008), distinguishable with every common colour-vision deficiency.
OKABE_ITO = {"blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "purple": "#CC79A7",
             "sky": "#56B4E9", "vermillion": "#D55E00", "black": "#000000", "yellow": "#F0E442"}
PALETTE = list(OKABE_ITO.values())
# The designs of docs/designs.md, under the names experiments/*.xml and validation/ give them: a fixed colour and
# marker per name, so that a system looks the same in every figure of every report. Names of one design share them.
_DESIGNS = [
    (("instance", "p2p_all_to_all"), "blue", "o"),
    (("serverless",), "orange", "s"),
    (("ring", "ring_allreduce"), "green", "^"),
    (("parameter_server", "ps"), "purple", "D"),
    (("sharded", "serverless_sharded", "gradssharding"), "sky", "v"),
    (("tree", "serverless_tree", "lifl", "lambda_fl"), "vermillion", "P"),
    (("spirt",), "black", "X"),
    (("lambdaml", "lml"), "yellow", "*"),
]
SYSTEM_STYLES = {name: (OKABE_ITO[color], marker) for names, color, marker in _DESIGNS for name in names}
# Other names: Paul Tol's "muted" scheme (also colour-blind safe) and markers no design above uses.
FALLBACK_COLORS = ["#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499"]
FALLBACK_MARKERS = ["<", ">", "h", "p", "d", "8", "H"]
# The order systems are listed in: the paper's two first, then the designs as above, then other names.
_ORDER = {name: i for i, (names, _, _) in enumerate(_DESIGNS) for name in names}


def system_order(names):
    return sorted(set(names), key=lambda n: (_ORDER.get(n, len(_DESIGNS)), n))


def system_styles(names):
    """{name: (colour, marker)}: fixed for the known designs; for another name chosen from the name itself
    (so stable across reports), the next free one when two such names of one table would look alike."""
    styles = {n: SYSTEM_STYLES[n] for n in names if n in SYSTEM_STYLES}
    for name in system_order(n for n in names if n not in SYSTEM_STYLES):
        start = zlib.crc32(str(name).encode())
        used = {color for color, _ in styles.values()}
        free = [i for i in range(len(FALLBACK_COLORS))
                if FALLBACK_COLORS[(start + i) % len(FALLBACK_COLORS)] not in used]
        step = free[0] if free else 0  # more names than colours: the marker still tells them apart
        styles[name] = (FALLBACK_COLORS[(start + step) % len(FALLBACK_COLORS)],
                        FALLBACK_MARKERS[(start + step) % len(FALLBACK_MARKERS)])
    return {n: styles[n] for n in system_order(names)}


def system_colors(names):
    return {n: color for n, (color, _) in system_styles(names).items()}


# ---- sizes and fonts ------------------------------------------------------------------------------------------

def check_size(size):
    if size not in SIZES:
        raise ValueError(f"size {size!r}: expected one of {', '.join(SIZES)}")
    return size


@contextlib.contextmanager
def drawing(size):
    """Fonts, lines and markers scaled to the figure size (text keeps the size it is created with)."""
    pt = FONT_PT[check_size(size)]
    with plt.rc_context({"font.size": pt, "axes.titlesize": pt, "axes.labelsize": pt,
                         "xtick.labelsize": pt * 0.9, "ytick.labelsize": pt * 0.9, "legend.fontsize": pt * 0.9,
                         "figure.titlesize": pt * 1.1, "lines.markersize": pt * 0.5, "lines.linewidth": pt / 7,
                         "axes.linewidth": pt / 12, "xtick.major.width": pt / 12, "ytick.major.width": pt / 12,
                         "axes.titlepad": pt * 0.5, "legend.handlelength": 1.6, "legend.columnspacing": 1.2}):
        yield pt


def wrap(text, width_in, pt):
    """Text broken into lines that fit `width_in` inches at `pt` points (an average glyph: 0.55 em)."""
    chars = max(12, int(width_in * 72 / (0.55 * pt)))
    return "\n".join(textwrap.wrap(text, chars, break_on_hyphens=False)) if text else text


def panel_figure(size, panels, max_cols, panel_aspect=0.72, row_heights=None, legend_entries=0, legend_chars=12,
                 title=""):
    """A figure of `panels` axes in a grid (at most `max_cols` wide), its rows `row_heights` inches tall (else
    `panel_aspect` of a panel's width); a title wrapped to the width; below them, a legend row of its own, so
    that a legend never covers data or an axis label. Returns (fig, axes, legend_axes or None)."""
    width, pt = SIZES[check_size(size)], FONT_PT[size]
    cols = max(1, min(panels, max_cols))
    panel_h = min(width / cols * panel_aspect, MAX_PANEL_HEIGHT)  # one wide panel need not be as tall as wide
    heights = list(row_heights) if row_heights else [panel_h] * -(-panels // cols)
    legend_cols, legend_h = legend_shape(width, pt, legend_entries, legend_chars)
    title = wrap(title, width, pt * 1.1)
    title_h = (title.count("\n") + 1) * pt * 1.1 * 1.4 / 72 if title else 0
    fig = plt.figure(figsize=(width, sum(heights) + legend_h + title_h + 0.1), layout="constrained")
    fig.get_layout_engine().set(h_pad=2 / 72, w_pad=2 / 72, hspace=0.02, wspace=0.02)
    ratios = heights + ([legend_h] if legend_entries else [])
    grid = fig.add_gridspec(len(ratios), cols, height_ratios=ratios)
    axes = [fig.add_subplot(grid[i // cols, i % cols]) for i in range(panels)]
    legend_ax = None
    if legend_entries:
        legend_ax = fig.add_subplot(grid[len(heights), :])
        legend_ax.set_axis_off()
        legend_ax.legend_cols = legend_cols  # read by put_legend, which fills this row
    if title:
        fig.suptitle(title)
    return fig, axes, legend_ax


def bars_height(names, pt):
    """Inches a panel of horizontal bars needs: a row per (possibly multi-line) label, and its axis."""
    line = pt * 0.9 * 1.3 / 72
    return sum(line * (name.count("\n") + 1) + pt * 0.7 / 72 for name in names) + pt * 5.5 / 72


def legend_shape(width_in, pt, entries, chars):
    """(columns, height in inches) of a legend of `entries` labels of up to `chars` characters."""
    if not entries:
        return 1, 0.0
    entry_in = (chars * 0.62 * pt * 0.9 + 3.8 * pt * 0.9) / 72  # text, handle and spacing
    cols = max(1, min(entries, int(width_in / entry_in)))
    rows = -(-entries // cols)
    return cols, (rows * 1.45 + 0.6) * pt * 0.9 / 72


def put_legend(legend_ax, handles, labels, handlelength=None):
    """The legend in its own row (panel_figure); `handlelength` (in font sizes) long enough for line styles."""
    if legend_ax is None:
        return
    if not handles:
        legend_ax.set_visible(False)
        return
    legend_ax.legend(handles, labels, loc="center", ncol=min(len(labels), legend_ax.legend_cols), frameon=False,
                     borderaxespad=0, borderpad=0.2, handlelength=handlelength)


# ---- ticks ---------------------------------------------------------------------------------------------------

def plain_number(value, _=None):
    """A tick value as a reader writes it: 0.02, 150, 2000 (never 2e+03 below a million)."""
    if value == 0:
        return "0"
    if 1e-4 <= abs(value) < 1e6:
        return f"{value:.6g}" if abs(value) >= 1 else f"{value:.4g}"
    return f"{value:.2g}"


def spans_decade(values):
    """True when positive values spread over more than a factor of ten: then a log scale reads best."""
    values = [v for v in values if v == v]
    return bool(values) and min(values) > 0 and max(values) / min(values) > 10


def labels_2_and_5(lo, hi):
    """Whether a log axis from lo to hi labels 2 and 5 x each decade too: under three decades, where the
    decades alone are too few labels to read a value off (tick labels that would collide are then thinned)."""
    return hi / lo < 1000


def scale_axis(ax, which, values, log=None, from_zero=False):
    """A log scale when the values span more than a decade (or `log` says so; bars need a linear axis: False),
    else linear; ticks labelled with plain numbers, enough of them to read a value off (labels_2_and_5).
    `from_zero`: a linear axis of a quantity whose ratios mean something (a time, a cost) starts at zero, so that
    a point twice as high is twice the value; an axis cut at its data made a 2.2x cost look like 20x."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    values = [v for v in values if v == v]
    if log if log is not None else spans_decade(values):
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, numticks=12))
        axis.set_major_formatter(matplotlib.ticker.FuncFormatter(plain_number))
        if labels_2_and_5(min(values), max(values)):
            # Within two decades every digit is a candidate label, else 2 and 5 (thin_tick_labels drops those
            # that would collide): at 0.025-0.42 USD, 2 and 5 alone labelled 0.05, 0.1 and 0.2, none near the ends.
            subs = tuple(range(2, 10)) if max(values) / min(values) < 100 else (2, 5)
            axis.set_minor_locator(matplotlib.ticker.LogLocator(base=10, subs=subs, numticks=12))
            axis.set_minor_formatter(matplotlib.ticker.FuncFormatter(plain_number))
            # Labelled minor ticks as long as the major ones, so that all labels sit on one line.
            ax.tick_params(axis=which, which="minor", length=matplotlib.rcParams[f"{which}tick.major.size"])
        else:
            axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    else:
        axis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=5, min_n_ticks=3))
        axis.set_major_formatter(matplotlib.ticker.FuncFormatter(plain_number))
        if from_zero and values and min(values) >= 0 and max(values) > 0:
            # The data's top and a margin as autoscaling's; set here because a limit set turns autoscaling off.
            top = max(values) * (1 + 2 * matplotlib.rcParams[f"axes.{which}margin"])
            (ax.set_xlim if which == "x" else ax.set_ylim)(0, top)


def mark_log_axes(fig):
    """Appends " (log)" to the label of every log axis that does not say so: a reader takes an unmarked axis
    for a linear one, and a log axis's even steps for even differences."""
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            text = axis.get_label_text()
            if scale == "log" and text and "log" not in text:
                axis.set_label_text(text + " (log)")


def thin_tick_labels(fig, gap_pt=2.0):
    """Drop tick labels that would overprint a neighbour (majors first, then minors in the gaps); call when
    everything is drawn. A label is hidden by its formatter, so the tick itself stays."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    gap = gap_pt * fig.dpi / 72
    for ax in fig.axes:
        for axis, lo, hi in ((ax.xaxis, "x0", "x1"), (ax.yaxis, "y0", "y1")):
            kept, hidden = [], {"major": set(), "minor": set()}
            for which, ticks in (("major", axis.get_major_ticks()), ("minor", axis.get_minor_ticks())):
                for tick in ticks:
                    label = tick.label1
                    if not label.get_visible() or not label.get_text() or not _in_view(axis, tick.get_loc()):
                        continue
                    box = label.get_window_extent(renderer)
                    if any(getattr(box, lo) < getattr(k, hi) + gap and getattr(k, lo) < getattr(box, hi) + gap
                           for k in kept):
                        hidden[which].add(tick.get_loc())
                    else:
                        kept.append(box)
            for which, locs in hidden.items():
                if locs:
                    _hide_labels(axis, which, locs)


def _in_view(axis, loc):
    lo, hi = sorted(axis.get_view_interval())
    return lo - 1e-9 * abs(lo) <= loc <= hi + 1e-9 * abs(hi)


def _hide_labels(axis, which, locs):
    formatter = axis.get_major_formatter() if which == "major" else axis.get_minor_formatter()
    hidden = sorted(locs)  # searched, not scanned: an axis of thousands of values hides thousands of labels

    def keep_others(value, pos=None):
        i = bisect.bisect_left(hidden, value)
        near = hidden[max(i - 1, 0):i + 1]
        return "" if any(abs(value - loc) <= 1e-9 * max(abs(loc), 1e-300) for loc in near) else formatter(value, pos)

    (axis.set_major_formatter if which == "major" else axis.set_minor_formatter)(
        matplotlib.ticker.FuncFormatter(keep_others))


class _AtLeast(matplotlib.ticker.Locator):
    """Another locator's ticks at or above `lowest` only."""

    def __init__(self, inner, lowest):
        self.inner, self.lowest = inner, lowest

    def set_axis(self, axis):
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def __call__(self):
        return [t for t in self.inner() if t >= self.lowest - 1e-12 * abs(self.lowest)]


def infeasible_rug(ax, rugs):
    """Hollow markers in a band of their own along the bottom of the axes, one level per system: `rugs` is a list
    of (x values, colour, marker) of runs that could not finish. The band is added below the data's range, so the
    marks never sit among feasible points and the range itself is not stretched by their values. Call after
    the axis is scaled."""
    if not rugs:
        return
    height_pt = ax.get_position().height * ax.figure.get_figheight() * 72 * 0.8  # the layout will shrink it a bit
    step = matplotlib.rcParams["lines.markersize"] * 1.6 / max(height_pt, 1.0)
    band = min(0.4, step * (len(rugs) + 0.3))
    lo, hi = ax.get_ylim()
    log = ax.get_yscale() == "log"
    a, b = (math.log10(lo), math.log10(hi)) if log else (lo, hi)
    a = a - band / (1 - band) * (b - a)
    ax.set_ylim(10 ** a if log else a, hi)
    for set_locator, locator in ((ax.yaxis.set_major_locator, ax.yaxis.get_major_locator()),
                                 (ax.yaxis.set_minor_locator, ax.yaxis.get_minor_locator())):
        set_locator(_AtLeast(locator, lo))  # no value ticks in the band: its marks have none
    ax.plot([0, 1], [band, band], transform=ax.transAxes, linestyle=":", color="0.6", linewidth=0.5)
    for level, (x_values, color, marker) in enumerate(rugs):
        ax.scatter(x_values, [step * (level + 0.65)] * len(x_values), transform=ax.get_xaxis_transform(),
                   marker=marker, facecolors="none", edgecolors=color, linewidths=0.8,
                   s=matplotlib.rcParams["lines.markersize"] ** 2 * 1.2, zorder=4)


# ---- numbers of a comparison against the baseline ---------------------------------------------------------------

# Differences this small are the arithmetic's rounding, not the designs': shown as equal to the baseline.
ROUNDING = 1e-9


def snap(value, center):
    """The value, or exactly the baseline's when within rounding of it."""
    return center if value == value and abs(value - center) < ROUNDING * max(1.0, abs(center)) else value


def format_ratio(value):
    """A ratio to the baseline: '1.00x' when equal, '0.50x', '0.017x' (two significant digits below 0.1),
    '12.3x'."""
    if value != value:
        return ""
    value = snap(value, 1.0)
    if value < 0.0995:
        return f"{value:.2g}\u00d7"
    if value < 10:
        return f"{value:.2f}\u00d7"
    return f"{value:.1f}\u00d7" if value < 100 else f"{value:.0f}\u00d7"


def format_percent(value):
    """An improvement in percent: '0 %' when equal, '-1304 %', '2.5 %' (a rounded -0.0 loses its sign)."""
    if value != value:
        return ""
    value = snap(value, 0.0)
    if value == 0:
        return "0 %"
    text = f"{value:.1f}" if abs(value) < 10 else f"{value:.0f}"
    return f"{text.lstrip('-') if float(text) == 0 else text} %"


# ---- parts of a whole (stacked bars) ------------------------------------------------------------------------------

# Paul Tol's "bright" scheme (colour-blind safe), for the parts of an iteration or of a bill: a different
# dimension from the systems, so other colours than theirs.
PART_COLORS = ["#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB"]
REST_COLOR = "#DDDDDD"  # what is left of a whole once its named parts are stacked
