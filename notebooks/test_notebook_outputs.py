#!/usr/bin/env python3
"""Executes the shipped notebooks as a user would (jupyter nbconvert) and checks what they show: every figure
cell an image, every table a table, the notebook's own checks passed, no error. The `p2psim` package must be
on PYTHONPATH (ctest sets it). Usage: test_notebook_outputs.py OUT_DIR"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


# Each notebook, and the fewest figures it must show.
NOTEBOOKS = {"cost_time_tradeoff.ipynb": 3, "cheapest_under_deadline.ipynb": 1}


def main(out_dir):
    failed = 0
    for name, least_images in NOTEBOOKS.items():
        print(name)
        failed += check(name, least_images, out_dir)
    return 1 if failed else 0


def check(name, least_images, out_dir):
    subprocess.run(["jupyter", "nbconvert", "--to", "notebook", "--execute",
                    os.path.join(HERE, name), "--output-dir", out_dir,
                    "--ExecutePreprocessor.timeout=300"], check=True, cwd=HERE)
    nb = json.load(open(os.path.join(out_dir, name)))
    failures = []
    images = 0
    for i, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        source = "".join(cell["source"])
        outputs = cell.get("outputs", [])
        kinds = [k for o in outputs for k in o.get("data", {})]
        text = "".join("".join(o.get("text", "")) for o in outputs)
        if any(o["output_type"] == "error" for o in outputs):
            failures.append(f"code cell {i} raised an error")
        draws = "display(p.fig_" in source or "display(p2psim.plots." in source
        if draws and "for axis" not in source and "image/png" not in kinds:
            failures.append(f"code cell {i} draws a figure but shows no image")
        images += kinds.count("image/png")
        if source.strip() == "p.pareto_table(df)" and "text/html" not in kinds:
            failures.append(f"code cell {i} shows no table")
        if "checks passed" in source and "checks passed" not in text:
            failures.append(f"code cell {i}: the notebook's own checks did not pass")
    if images < least_images:
        failures.append(f"only {images} figures shown")
    for f in failures:
        print("FAIL:", f)
    print(f"{images} figures shown; {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
