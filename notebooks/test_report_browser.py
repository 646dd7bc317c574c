#!/usr/bin/env python3
"""The HTML report in a real browser (Debian's chromium, headless, the page from disk, no network), on the
shipped sweep example_grid/ (two workloads, six designs, infeasible runs):
- it loads without script errors, draws a point per result row (infeasible ones in their strip), one chart
  per workload with tick labels, and every embedded figure decodes;
- at 1,400 px and at 390 px of width nothing overflows its box: for every block element scrollWidth <=
  clientWidth (tables scroll inside their designated box, which itself fits), every chart fits its box, and
  the page never scrolls sideways;
- the screenshot shows the charts' colours.
Screenshots of both widths are kept as test artefacts: in $P2PSIM_TEST_ARTIFACTS if set, else in a temporary
folder whose name is printed. Exit 77 (ctest: skipped) only when no browser is installed."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pandas as pd
from PIL import Image

import p2psim_plots

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-proxy-server",
         "--disable-background-networking", "--hide-scrollbars", "--allow-file-access-from-files"]
WIDTHS = (1400, 390)
PAGE_HEIGHT = 12000  # tall enough to hold the whole report, so that the screenshot shows all of it

# Runs in a page that holds the report in an iframe of the tested width (headless windows are at least 500 px
# wide); writes what overflows into #result as JSON.
HARNESS = """<!DOCTYPE html><html><head><meta charset='utf-8'></head><body style='margin:0'>
<iframe id='report' src='report.html' style='width:{width}px;height:{height}px;border:0'></iframe>
<pre id='result'>not checked</pre>
<script>
document.getElementById('report').addEventListener('load', function () {{
  var doc = document.getElementById('report').contentDocument, win = doc.defaultView, bad = [];
  function name(e) {{ return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && e.className.baseVal === undefined ? '.' + e.className : ''); }}
  doc.querySelectorAll('body, body *').forEach(function (e) {{
    if (e.closest('svg')) return;  // a chart's inside: the chart is measured against its box below
    var display = win.getComputedStyle(e).display;
    if (display === 'inline' || display === 'none' || display === 'contents') return;
    if (e.classList.contains('scroll')) return;  // a designated scroll box: its own parent is checked
    if (e.scrollWidth > e.clientWidth + 1) bad.push(name(e) + ' ' + e.scrollWidth + ' > ' + e.clientWidth);
  }});
  doc.querySelectorAll('.plot').forEach(function (box) {{
    var svg = box.querySelector('svg');
    if (!svg) {{ bad.push('a chart was not drawn'); return; }}
    var w = svg.getBoundingClientRect().width;
    if (w > box.clientWidth + 1) bad.push('chart ' + w + ' px in a ' + box.clientWidth + ' px box');
  }});
  if (doc.documentElement.scrollWidth > win.innerWidth) bad.push('the page scrolls sideways');
  var charts = Array.prototype.map.call(doc.querySelectorAll('.plot svg'), function (svg) {{
    return svg.querySelectorAll('text').length; }});
  document.getElementById('result').textContent = JSON.stringify({{
    width: win.innerWidth, overflows: bad, tick_texts: charts, status: doc.getElementById('status').textContent}});
}});
</script></body></html>
"""


def run(browser, home, *args):
    return subprocess.run([browser, *FLAGS, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": home})


def check_width(browser, d, width, artefacts):
    harness = os.path.join(d, "report", f"harness_{width}.html")
    with open(harness, "w") as f:
        f.write(HARNESS.format(width=width, height=PAGE_HEIGHT))
    dom = run(browser, d, "--window-size=1400,900", "--dump-dom", "file://" + harness).stdout
    found = re.search(r'<pre id="result">([^<]*)</pre>', dom)
    assert found and found.group(1) != "not checked", f"the harness did not run at {width} px"
    result = json.loads(found.group(1).replace("&quot;", '"').replace("&gt;", ">").replace("&amp;", "&"))
    print(f"{width} px: {result}")
    assert result["width"] == width, result
    assert not result["overflows"], f"at {width} px: {result['overflows']}"
    shot = os.path.join(d, f"shot_{width}.png")
    run(browser, d, f"--window-size={max(width, 500)},{PAGE_HEIGHT}", f"--screenshot={shot}", "file://" + harness)
    image = Image.open(shot).convert("RGB").crop((0, 0, width, PAGE_HEIGHT))
    # Down to the last non-white row: the report, not the empty rest of the tall window.
    bottom = max((y for y in range(0, PAGE_HEIGHT, 20) if min(image.getpixel((x, y)) for x in range(0, width, 7))
                  != (255, 255, 255)), default=PAGE_HEIGHT)
    image = image.crop((0, 0, width, min(PAGE_HEIGHT, bottom + 40)))
    path = os.path.join(artefacts, f"report_{width}px.png")
    image.save(path)
    print(f"screenshot: {path}")
    return result, image


def main():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("SKIPPED: no chromium on this machine (scripts/setup.sh installs Debian's)")
        return 77
    artefacts = os.environ.get("P2PSIM_TEST_ARTIFACTS") or tempfile.mkdtemp(prefix="p2psim-report-browser-")
    os.makedirs(artefacts, exist_ok=True)
    print(f"artefacts (screenshots) in {artefacts}")
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(HERE, "example_grid", "results.csv"), d)
        p2psim_plots.report(d)
        page = "file://" + os.path.join(d, "report", "report.html")
        table = pd.read_csv(os.path.join(d, "results.csv"))
        workloads = table[["model", "input_shape", "dataset"]].drop_duplicates().shape[0]
        dom = run(browser, d, "--dump-dom", page).stdout
        status = re.search(r'<p id="status">([^<]*)</p>', dom)
        assert status, "the page has no status line"
        text = status.group(1)
        print("page status:", text)
        assert "script error" not in text, text
        match = re.fullmatch(r"rendered (\d+) points, (\d+)/(\d+) images", text)
        assert match, f"the script did not run: {text!r}"
        points, decoded, images = map(int, match.groups())
        assert points == len(table), f"{points} points drawn for {len(table)} result rows"
        assert images >= 6 and decoded == images, f"{decoded} of {images} images decoded"
        assert "name='viewport'" in open(os.path.join(d, "report", "report.html")).read()
        for width in WIDTHS:
            result, image = check_width(browser, d, width, artefacts)
            assert len(result["tick_texts"]) == workloads, f"{len(result['tick_texts'])} charts for {workloads} workloads"
            assert all(n >= 8 for n in result["tick_texts"]), f"charts without tick labels: {result['tick_texts']}"
            pixels = list(image.getdata())
            inked = sum(1 for p in pixels if min(p) < 235) / len(pixels)
            # Saturated colours (the systems' points and lines), not text, grid or white.
            colours = {(r // 16, g // 16, b // 16) for r, g, b in pixels if max(r, g, b) - min(r, g, b) > 60}
            print(f"{width} px screenshot: {inked:.1%} of pixels inked, {len(colours)} saturated colours")
            assert inked > 0.02, "the screenshot is (almost) blank"
            assert len(colours) >= 8, "the chart's colours are missing from the screenshot"
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
