"""The self-contained HTML report: figures embedded as PNG, tables, and one interactive time-vs-cost chart per
workload (inline SVG drawn by a few lines of script at the width of its box, redrawn when the window is
resized; no external file or network). Points show their configuration, time and cost on hover or tap;
infeasible runs sit in a strip of their own under the axis, with the reason. The page reads on a phone
(viewport meta tag; tables scroll inside their box) and reports its own rendering in #status, which the
browser test reads.

Axes, ticks, colours and markers are computed here in Python, with matplotlib's own locators and marker
shapes and p2psim_style's palette, so that the chart matches the figures; the script only places them."""
import html
import json

import matplotlib.markers
import matplotlib.path
import matplotlib.ticker
import numpy as np

import p2psim_labels as labels
import p2psim_style as style
from p2psim_tables import COST, TIME, feasible, infeasible, pareto_mask

SCRIPT = r"""
window.onerror = function (message) {
  document.getElementById('status').textContent = 'script error: ' + message;
};
(function () {
  var SVG = 'http://www.w3.org/2000/svg', FONT = 11, CHAR = 6.2;
  function el(parent, name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function scale(axis, from, to) {
    var f = axis.log ? Math.log10 : function (v) { return v; };
    var lo = f(axis.lo), hi = f(axis.hi);
    return function (v) { return from + (f(v) - lo) / (hi - lo) * (to - from); };
  }
  function marker(g, p, x, y, r, filled) {
    el(g, 'path', {d: p.marker, transform: 'translate(' + x.toFixed(1) + ',' + y.toFixed(1) + ') scale(' + r + ')',
                   fill: filled ? p.color : 'none', 'fill-opacity': filled ? 0.8 : 1, stroke: filled ? '#333' : p.color,
                   'stroke-width': filled ? 0.5 : 1.5, 'vector-effect': 'non-scaling-stroke'});
  }
  function draw(box) {
    var spec = JSON.parse(box.getAttribute('data-chart'));
    var width = Math.max(box.clientWidth, 200);
    var height = Math.round(Math.min(440, Math.max(240, width * 0.6)));
    var longest = Math.max.apply(null, spec.y.labels.map(function (s) { return s.length; }));
    var strip = spec.infeasible.length ? 28 : 0;
    var m = {left: 22 + longest * CHAR + 8, right: 12, top: 10, bottom: 40 + strip};
    box.innerHTML = '';
    var svg = el(box, 'svg', {width: width, height: height, role: 'img', 'aria-label': spec.title});
    var x = scale(spec.x, m.left, width - m.right), y = scale(spec.y, height - m.bottom, m.top);
    var size = width < 500 ? 7 : 10;  // markers a little smaller on a phone, where points crowd
    var right = -1e9;
    spec.x.ticks.forEach(function (v, i) {  // a label only where it does not run into the previous one
      var px = x(v), half = spec.x.labels[i].length * CHAR / 2;
      el(svg, 'line', {x1: px, x2: px, y1: m.top, y2: height - m.bottom, stroke: '#e4e4e4'});
      if (px - half > right + 6 && px + half <= width) {
        el(svg, 'text', {x: px, y: height - m.bottom + 14, 'font-size': FONT, 'text-anchor': 'middle'},
           spec.x.labels[i]);
        right = px + half;
      }
    });
    var top = 1e9;
    spec.y.ticks.forEach(function (v, i) {
      var py = y(v);
      el(svg, 'line', {x1: m.left, x2: width - m.right, y1: py, y2: py, stroke: '#e4e4e4'});
      if (py + FONT < top) {
        el(svg, 'text', {x: m.left - 5, y: py + 4, 'font-size': FONT, 'text-anchor': 'end'}, spec.y.labels[i]);
        top = py;
      }
    });
    el(svg, 'rect', {x: m.left, y: m.top, width: width - m.left - m.right, height: height - m.top - m.bottom,
                     fill: 'none', stroke: '#888'});
    el(svg, 'text', {x: (m.left + width - m.right) / 2, y: height - strip - 8, 'font-size': FONT + 1,
                     'text-anchor': 'middle'}, spec.x.label);
    el(svg, 'text', {x: 12, y: (m.top + height - m.bottom) / 2, 'font-size': FONT + 1, 'text-anchor': 'middle',
                     transform: 'rotate(-90 12 ' + (m.top + height - m.bottom) / 2 + ')'}, spec.y.label);
    spec.series.forEach(function (s) {
      if (s.front.length > 1)
        el(svg, 'polyline', {fill: 'none', stroke: s.color, 'stroke-width': 1.5, points: s.front.map(function (p) {
          return x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1); }).join(' ')});
      s.points.forEach(function (p) {
        var g = el(svg, 'g', {'data-row': '', 'data-tip': p[2], tabindex: 0});
        marker(g, s, x(p[0]), y(p[1]), size, true);
      });
    });
    if (strip) {
      var sy = height - strip / 2 - 2, left = m.left + 70;
      var step = Math.min(16, (width - m.right - left) / spec.infeasible.length);
      el(svg, 'text', {x: m.left, y: sy + 4, 'font-size': FONT}, 'infeasible:');
      spec.infeasible.forEach(function (p, i) {
        var g = el(svg, 'g', {'data-row': '', 'data-tip': p.tip, tabindex: 0});
        marker(g, p, left + i * step, sy, size - 1, false);
      });
    }
  }
  var tip = document.getElementById('tip');
  function show(e) {
    var g = e.target.closest ? e.target.closest('[data-tip]') : null;
    if (!g) { tip.style.display = 'none'; return; }
    tip.textContent = g.getAttribute('data-tip');
    tip.style.display = 'block';
    var r = g.getBoundingClientRect();
    var left = Math.min(r.right + 8, document.documentElement.clientWidth - tip.offsetWidth - 4);
    tip.style.left = Math.max(4, left) + window.scrollX + 'px';
    tip.style.top = r.bottom + 8 + window.scrollY + 'px';
  }
  var boxes = document.querySelectorAll('.plot[data-chart]');
  function drawAll() { boxes.forEach(draw); }
  drawAll();
  boxes.forEach(function (box) {
    box.addEventListener('mouseover', show);
    box.addEventListener('focusin', show);
    box.addEventListener('click', show);
    box.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  });
  var pending = null;
  window.addEventListener('resize', function () { clearTimeout(pending); pending = setTimeout(drawAll, 100); });
  var images = document.querySelectorAll('img');
  var decoded = 0;
  images.forEach(function (img) { if (img.complete && img.naturalWidth > 0) decoded += 1; });
  document.getElementById('status').textContent = 'rendered ' + document.querySelectorAll('[data-row]').length +
      ' points, ' + decoded + '/' + images.length + ' images';
})();
"""

STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; padding: 0 1em; max-width: 1200px; color: #222;
       overflow-wrap: anywhere; }
img { max-width: 100%; height: auto; border: 1px solid #ddd; margin-bottom: 1em; display: block; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85em; }
td, th { border: 1px solid #ccc; padding: 2px 6px; overflow-wrap: normal; }
th { background: #f4f4f4; }
.chart { margin: 0 0 1.5em 0; }
.chart h3 { font-size: 1em; margin: 0.4em 0; }
.plot { width: 100%; max-width: 900px; }
.legend { list-style: none; padding: 0; margin: 0 0 0.3em 0; display: flex; flex-wrap: wrap; gap: 0.2em 1em;
          font-size: 0.85em; }
.legend svg { vertical-align: middle; margin-right: 0.3em; }
#tip { position: absolute; display: none; background: #ffffe8; border: 1px solid #999; padding: 4px 8px;
       font-size: 0.8em; max-width: min(420px, 80vw); white-space: pre-line; pointer-events: none; z-index: 1; }
#status { color: #666; font-size: 0.8em; }
.notice { border-left: 4px solid #D55E00; padding: 0.3em 0.6em; background: #fff4ec; white-space: pre-line; }
"""

# What the interactive chart tells of a row, besides its system, time and cost (function settings only for
# a design that invoked functions, empty fields never).
TIP_COLUMNS = ["model", "input_shape", "dataset", "peers", "instance_type", "function_memory_mb", "function_arch",
               "iterations", "transport"]


def marker_path(marker):
    """matplotlib's own shape of a marker as an SVG path of radius about 0.5 (y pointing down)."""
    style_ = matplotlib.markers.MarkerStyle(marker)
    path = style_.get_path().transformed(style_.get_transform())
    letters = {matplotlib.path.Path.MOVETO: "M", matplotlib.path.Path.LINETO: "L", matplotlib.path.Path.CURVE3: "Q",
               matplotlib.path.Path.CURVE4: "C", matplotlib.path.Path.CLOSEPOLY: "Z"}
    parts = []
    for vertices, code in path.iter_segments(simplify=False, curves=True):
        if code == matplotlib.path.Path.CLOSEPOLY:
            parts.append("Z")
        else:
            xy = np.asarray(vertices).reshape(-1, 2)
            parts.append(letters[code] + " ".join(f"{x:.3f},{-y:.3f}" for x, y in xy))
    return "".join(parts)


def axis_spec(values, label):
    """Range (padded 5 % each side), scale and ticks of one axis: matplotlib's locators, as the figures use. A
    linear axis of values none below zero (a time, a cost) starts at zero, as the figures' (style.scale_axis):
    cut at its data, the main job's 2.2x cost read as about 20:1."""
    values = [float(v) for v in values if v == v]
    log = style.spans_decade(values)
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if log:
        pad = (np.log10(hi) - np.log10(lo)) * 0.05
        lo, hi = 10 ** (np.log10(lo) - pad), 10 ** (np.log10(hi) + pad)
        # Within two decades 3 too (0.025-0.42 USD had 0.05, 0.1 and 0.2 alone); the chart thins no labels, so not
        # every digit as the figures do.
        subs = (1, 2, 3, 5) if hi / lo < 100 else (1, 2, 5) if style.labels_2_and_5(lo, hi) else (1,)
        ticks = matplotlib.ticker.LogLocator(numticks=12, subs=subs).tick_values(lo, hi)
    else:
        if hi - lo < 1e-12 * max(1.0, abs(hi)):  # one value: a range around it
            lo, hi = (lo * 0.9, hi * 1.1) if lo > 0 else (lo - 1, hi + 1)
        pad = (hi - lo) * 0.05
        lo, hi = lo - pad, hi + pad
        if values and min(values) >= 0:
            lo, hi = 0.0, max(values) * 1.05
        ticks = matplotlib.ticker.MaxNLocator(nbins=5, min_n_ticks=3).tick_values(lo, hi)
    ticks = [float(t) for t in ticks if lo <= t <= hi]
    return {"label": label, "log": bool(log), "lo": lo, "hi": hi, "ticks": ticks,
            "labels": [style.plain_number(t) for t in ticks]}


def tooltip(row, columns):
    """A point's text: system, configuration (only what its design uses), time and cost, or why it failed."""
    config = labels.config_label(row, columns)
    lines = [f"{row['system']}" + (f": {config}" if config else "")]
    if row.get("status", "ok") == "ok":
        lines.append(f"{row[TIME]:.4g} s, {row[COST]:.4g} USD")
    else:
        reason = row.get("reason")
        lines.append(f"infeasible: {reason}" if not labels.is_missing(reason) else "infeasible")
    scenario = row.get("scenario_id")
    if not labels.is_missing(scenario):
        lines.append(f"scenario {scenario}")
    return "\n".join(lines)


def chart_spec(title, rows, styles, columns):
    """The interactive chart of one workload: feasible points and each system's Pareto front per series,
    infeasible rows apart."""
    ok = feasible(rows)
    series = []
    for system in style.system_order(ok["system"]):
        group = ok[ok["system"] == system]
        front = group[pareto_mask(group)].sort_values(TIME)
        color, marker = styles[system]
        series.append({"system": system, "color": color, "marker": marker_path(marker),
                       "points": [[float(r[TIME]), float(r[COST]), tooltip(r, columns)] for _, r in group.iterrows()],
                       "front": [[float(t), float(c)] for t, c in zip(front[TIME], front[COST])]})
    failed = infeasible(rows)
    failed = failed.iloc[np.argsort([style.system_order(failed["system"]).index(s) for s in failed["system"]],
                                    kind="stable")] if len(failed) else failed
    return {"title": title, "x": axis_spec(ok[TIME], labels.label(TIME)), "y": axis_spec(ok[COST], labels.label(COST)),
            "series": series,
            "infeasible": [{"system": r["system"], "color": styles[r["system"]][0],
                            "marker": marker_path(styles[r["system"]][1]), "tip": tooltip(r, columns)}
                           for _, r in failed.iterrows()]}


def legend_html(spec):
    items = []
    for s in spec["series"]:
        items.append(f'<li><svg width="12" height="12" aria-hidden="true"><path d="{s["marker"]}" '
                     f'transform="translate(6,6) scale(10)" fill="{s["color"]}" stroke="#333" stroke-width="0.05"/>'
                     f'</svg>{html.escape(s["system"])}</li>')
    if spec["infeasible"]:
        items.append(f'<li>hollow, under the axis: {len(spec["infeasible"])} infeasible run(s)</li>')
    return f'<ul class="legend">{"".join(items)}</ul>'


def chart_html(spec):
    data = html.escape(json.dumps(spec, separators=(",", ":")), quote=True)
    title = f"<h3>{html.escape(spec['title'])}</h3>" if spec["title"] else ""
    return f'<div class="chart">{title}{legend_html(spec)}<div class="plot" data-chart="{data}"></div></div>'


def page(title, provenance, charts, tables, figures, notice=""):
    """charts: chart_spec dicts; tables: (heading, table HTML); figures: (name, PNG as base64 text); notice: text a
    reader must see before any of them (what the results leave out), or empty."""
    sections = [f'<h2>{html.escape(name.replace("_", " "))}</h2>\n'
                f'<img alt="{html.escape(name)}" src="data:image/png;base64,{png_b64}">' for name, png_b64 in figures]
    table_sections = [f"<h2>{html.escape(heading)}</h2>\n<div class='scroll'>{table}</div>"
                      for heading, table in tables]
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n<h1>{html.escape(title)}</h1>\n"
            f"<p>{html.escape(provenance)}</p>\n" +
            (f"<p class='notice'>{html.escape(notice)}</p>\n" if notice else "") +
            "<p id='status'>not rendered (scripts off?)</p>\n"
            "<h2>Time against cost, per workload</h2>\n<p>Hover or tap a point for its configuration, time and cost; "
            "lines join each system's Pareto front.</p>\n" + "\n".join(chart_html(c) for c in charts) + "\n" +
            "\n".join(table_sections) + "\n" + "\n".join(sections) +
            f"\n<div id='tip' role='tooltip'></div>\n<script>{SCRIPT}</script>\n</body></html>\n")
