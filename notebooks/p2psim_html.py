"""The self-contained HTML report: figures embedded as PNG, tables, and an interactive time-vs-cost chart
(inline SVG, a few lines of script, no external file or network) whose points show their configuration on
hover. The page reports its own rendering in #status, which the browser test reads."""
import html
import math

CHART_W, CHART_H, MARGIN = 760, 460, 60

SCRIPT = """
window.onerror = function (message) {
  document.getElementById('status').textContent = 'script error: ' + message;
};
(function () {
  var tip = document.getElementById('tip');
  var points = document.querySelectorAll('#tradeoff circle[data-config]');
  points.forEach(function (c) {
    c.addEventListener('mouseenter', function (e) {
      tip.textContent = c.getAttribute('data-config');
      tip.style.display = 'block';
      tip.style.left = (e.pageX + 12) + 'px';
      tip.style.top = (e.pageY + 12) + 'px';
    });
    c.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  });
  var images = document.querySelectorAll('img');
  var decoded = 0;
  images.forEach(function (img) { if (img.complete && img.naturalWidth > 0) decoded += 1; });
  document.getElementById('status').textContent =
      'rendered ' + points.length + ' points, ' + decoded + '/' + images.length + ' images';
})();
"""

STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
img { max-width: 100%; border: 1px solid #ddd; margin-bottom: 1em; }
table { border-collapse: collapse; font-size: 0.85em; }
td, th { border: 1px solid #ccc; padding: 2px 6px; }
#tip { position: absolute; display: none; background: #ffffe8; border: 1px solid #999; padding: 4px 8px;
       font-size: 0.8em; max-width: 420px; pointer-events: none; }
#status { color: #666; font-size: 0.8em; }
"""


def _log_scale(values, lo_px, hi_px):
    lo, hi = math.log10(min(values)), math.log10(max(values))
    if hi - lo < 1e-12:
        lo, hi = lo - 0.5, hi + 0.5
    return lambda v: lo_px + (math.log10(v) - lo) / (hi - lo) * (hi_px - lo_px), (lo, hi)


def tradeoff_svg(points, colors):
    """points: dicts with time_s, cost_usd, system, feasible, config (text). An SVG scatter, log-log."""
    usable = [p for p in points if p["time_s"] > 0 and p["cost_usd"] > 0]
    dropped = len(points) - len(usable)
    note = (f"<p>{dropped} row(s) with no time or no cost (a system that could not even start) are not drawn.</p>"
            if dropped else "")
    if not usable:
        return note + "<p>No point to draw.</p>"
    x, (x_lo, x_hi) = _log_scale([p["time_s"] for p in usable], MARGIN, CHART_W - 20)
    y, (y_lo, y_hi) = _log_scale([p["cost_usd"] for p in usable], CHART_H - MARGIN, 20)
    parts = [f'<svg id="tradeoff" width="{CHART_W}" height="{CHART_H}" xmlns="http://www.w3.org/2000/svg" '
             f'role="img" aria-label="time against cost">',
             f'<rect x="0" y="0" width="{CHART_W}" height="{CHART_H}" fill="white"/>']
    for decade in range(math.floor(x_lo), math.ceil(x_hi) + 1):  # decade grid lines, labelled
        if x_lo <= decade <= x_hi:
            px = x(10 ** decade)
            parts.append(f'<line x1="{px:.1f}" y1="20" x2="{px:.1f}" y2="{CHART_H - MARGIN}" stroke="#ddd"/>'
                         f'<text x="{px:.1f}" y="{CHART_H - MARGIN + 16}" font-size="11" text-anchor="middle">'
                         f'{10 ** decade:g}</text>')
    for decade in range(math.floor(y_lo), math.ceil(y_hi) + 1):
        if y_lo <= decade <= y_hi:
            py = y(10 ** decade)
            parts.append(f'<line x1="{MARGIN}" y1="{py:.1f}" x2="{CHART_W - 20}" y2="{py:.1f}" stroke="#ddd"/>'
                         f'<text x="{MARGIN - 6}" y="{py + 4:.1f}" font-size="11" text-anchor="end">'
                         f'{10 ** decade:g}</text>')
    parts.append(f'<text x="{CHART_W / 2}" y="{CHART_H - 18}" font-size="12" text-anchor="middle">'
                 f'total training time (s)</text>'
                 f'<text x="14" y="{CHART_H / 2}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {CHART_H / 2})">total cost (USD)</text>')
    for p in usable:
        color = colors.get(str(p["system"]), "#777")
        style = f'fill="{color}" fill-opacity="0.75"' if p["feasible"] else f'fill="none" stroke="{color}"'
        parts.append(f'<circle cx="{x(p["time_s"]):.1f}" cy="{y(p["cost_usd"]):.1f}" r="5" {style} '
                     f'data-config="{html.escape(p["config"], quote=True)}"><title>'
                     f'{html.escape(p["config"])}</title></circle>')
    legend_y = 28
    for system, color in colors.items():
        parts.append(f'<circle cx="{CHART_W - 150}" cy="{legend_y}" r="5" fill="{color}"/>'
                     f'<text x="{CHART_W - 140}" y="{legend_y + 4}" font-size="11">{html.escape(str(system))}</text>')
        legend_y += 16
    parts.append("</svg>")
    return note + "\n".join(parts)


def page(title, provenance, table_html, points, colors, figures):
    """figures: (name, png bytes as base64 text). Returns the whole page."""
    sections = [f'<h2>{html.escape(name.replace("_", " "))}</h2>\n'
                f'<img alt="{html.escape(name)}" src="data:image/png;base64,{png_b64}">' for name, png_b64 in figures]
    return (f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n<h1>{html.escape(title)}</h1>\n"
            f"<p>{html.escape(provenance)}</p>\n<p id='status'>not rendered (scripts off?)</p>\n"
            f"<h2>Time against cost (hover a point for its configuration; hollow: infeasible)</h2>\n"
            f"{tradeoff_svg(points, colors)}\n<div id='tip'></div>\n"
            f"<h2>Pareto-optimal configurations (time, cost), per workload</h2>\n{table_html}\n" +
            "\n".join(sections) + f"\n<script>{SCRIPT}</script>\n</body></html>\n")

