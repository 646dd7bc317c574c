#!/usr/bin/env python3
"""The HTML report in a real browser (Debian's chromium, headless, the page from disk, no network): it loads
without script errors, its interactive chart draws a point per result row, every embedded figure decodes,
and the screenshot shows the chart's colours. Exit 77 (ctest: skipped) only when no browser is installed."""
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
         "--disable-background-networking", "--hide-scrollbars"]


def main():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        print("SKIPPED: no chromium on this machine (scripts/setup.sh installs Debian's)")
        return 77
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(os.path.join(HERE, "example_results", "results.csv"), d)
        p2psim_plots.report(d)
        page = "file://" + os.path.join(d, "report", "report.html")
        rows = len(pd.read_csv(os.path.join(d, "results.csv")))
        dom = subprocess.run([browser, *FLAGS, "--dump-dom", page], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "HOME": d}).stdout
        status = re.search(r'<p id="status">([^<]*)</p>', dom)
        assert status, "the page has no status line"
        text = status.group(1)
        print("page status:", text)
        assert "script error" not in text, text
        match = re.fullmatch(r"rendered (\d+) points, (\d+)/(\d+) images", text)
        assert match, f"the script did not run: {text!r}"
        points, decoded, images = map(int, match.groups())
        assert points == rows, f"{points} points drawn for {rows} result rows"
        assert images >= 4 and decoded == images, f"{decoded} of {images} images decoded"
        shot = os.path.join(d, "shot.png")
        subprocess.run([browser, *FLAGS, "--window-size=1280,1400", f"--screenshot={shot}", page],
                       capture_output=True, timeout=120, env={**os.environ, "HOME": d}, check=True)
        image = Image.open(shot).convert("RGB")
        pixels = list(image.getdata())
        inked = sum(1 for p in pixels if min(p) < 235) / len(pixels)
        # Saturated colours (the systems' points and lines), not text, grid or white.
        colours = {(r // 16, g // 16, b // 16) for r, g, b in pixels if max(r, g, b) - min(r, g, b) > 60}
        print(f"screenshot: {inked:.1%} of pixels inked, {len(colours)} saturated colours")
        assert inked > 0.02, "the screenshot is (almost) blank"
        assert len(colours) >= 8, "the chart's colours are missing from the screenshot"
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
