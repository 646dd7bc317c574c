"""Every figure kind at every size, on the shipped examples, prints cleanly: each text box (tick labels, axis
labels, titles, legend texts, colour bar labels, cell values), measured by matplotlib's renderer, stays on the
canvas and clear of every other text box; and the figure is as wide as its size says.

Shipped inputs: example_grid/ (a sweep: two workloads, six designs, infeasible runs; example_grid.xml; also with
made-up replicate bands),
example_run/ (one run of it with its trace: the timelines), example_accuracy/ (an accuracy sweep).
Run: /usr/bin/python3 -m unittest test_figure_layout -v"""
import os
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import p2psim_accuracy  # noqa: E402
import p2psim_layout  # noqa: E402
import p2psim_plots as p  # noqa: E402
import p2psim_timeline  # noqa: E402
import p2psim_validation  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
VALIDATION = pd.DataFrame(
    [("a", "t", "validation", "sharded", "time", "s", 10.0, 12.0, 20.0, 20.0),
     ("b", "t", "calibration", "tree", "time", "s", 2.0, 2.0, 0.0, 0.0),
     ("c", "t", "validation", "serverless", "throughput", "MB/s", 50.0, 45.0, -10.0, 100 * (50 / 45 - 1)),
     ("d", "k", "validation", "sharded", "cost", "USD", 0.01, 0.009, -10.0, -10.0),
     ("e", "k", "validation", "spirt", "cost", "USD", 0.2, 0.25, 25.0, 25.0)], columns=p2psim_validation.COLUMNS)


def with_bands(grid):
    """The grid as a sweep with --replicates would give it: p10 and p90 of time and cost, here +-10 %."""
    banded = grid.copy()
    for col in ("total_s", "total_usd"):
        banded[col + "_p10"], banded[col + "_p90"] = 0.9 * banded[col], 1.1 * banded[col]
    return banded


def every_figure(size):
    """(name, figure) of every kind the analysis draws, one at a time."""
    grid = p.load_results(os.path.join(HERE, "example_grid"))
    yield from p.all_figures(grid, size=size)
    yield "time_vs_cost_with_bands", p.fig_time_vs_cost(with_bands(grid), size=size)
    run_dir = os.path.join(HERE, "example_run")
    run = p.load_results(run_dir)
    trace = p2psim_timeline.load_trace(os.path.join(run_dir, "trace.csv"))
    for system, strategy in zip(run["system"], run["strategy"]):
        yield f"timeline_{system}", p2psim_timeline.fig_timeline(trace, system, strategy, size)
    accuracy_dir = os.path.join(HERE, "example_accuracy")
    accuracy = p.load_results(accuracy_dir)
    yield "accuracy", p.fig_accuracy(accuracy_dir, accuracy, size)
    yield "time_and_cost_to_target", p2psim_accuracy.fig_to_target(accuracy, size=size)
    yield "validation", p2psim_validation.fig_validation(VALIDATION, size)
    yield "validation_errors", p2psim_validation.fig_validation_errors(VALIDATION, size, spread=(-22.4, 93.4))


class Layout(unittest.TestCase):
    def test_no_text_overprints_another_or_leaves_the_canvas_at_any_size(self):
        checked, failing, problems = 0, 0, 0
        for size, width in p.SIZES.items():
            for name, fig in every_figure(size):
                with self.subTest(size=size, figure=name):
                    found = p2psim_layout.layout_problems(fig)
                    drawn_width = fig.get_size_inches()[0]
                    if abs(drawn_width - width) > 0.01:
                        found.append(f"{drawn_width:.2f} in wide, not the {width} in of {size}")
                    plt.close(fig)
                    checked += 1
                    failing += bool(found)
                    problems += len(found)
                    self.assertEqual(found, [], f"{name} at {size}")
        print(f"\nlayout: {checked} figures checked, {failing} with problems, {problems} problems")
        self.assertGreaterEqual(checked, 3 * 18)  # every kind at every size was drawn


if __name__ == "__main__":
    unittest.main()
