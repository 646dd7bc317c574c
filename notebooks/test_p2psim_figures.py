"""Unit tests of the figures, their palette, labels and numbers, and the HTML chart, on the shipped sweep
example_grid/ (two workloads, six designs, infeasible runs) and small hand-made tables.
Run: /usr/bin/python3 -m unittest test_p2psim_figures -v"""
import contextlib
import io
import os
import tempfile
import unittest

import matplotlib

matplotlib.use("Agg")
import matplotlib.collections  # noqa: E402
import matplotlib.colors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import p2psim_figures as figures  # noqa: E402
import p2psim_html  # noqa: E402
import p2psim_labels as labels  # noqa: E402
import p2psim_plots as p  # noqa: E402
import p2psim_style as style  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GRID = p.load_results(os.path.join(HERE, "example_grid"))


def titles(fig):
    return [ax.get_title() for ax in fig.axes if ax.get_title()]


class Palette(unittest.TestCase):
    def test_a_system_has_one_colour_and_marker_whatever_else_the_table_holds(self):
        alone = style.system_styles(["ring"])
        among = style.system_styles(["instance", "serverless", "ring", "tree", "lambdaml"])
        self.assertEqual(alone["ring"], among["ring"])
        self.assertEqual(style.system_styles(["ring_allreduce"])["ring_allreduce"], alone["ring"])  # one design

    def test_the_known_designs_are_distinct_okabe_ito_colours_and_markers(self):
        names = ["instance", "serverless", "ring", "parameter_server", "sharded", "tree", "spirt", "lambdaml"]
        styles = style.system_styles(names)
        self.assertEqual(len({c for c, _ in styles.values()}), 8)
        self.assertEqual(len({m for _, m in styles.values()}), 8)
        self.assertTrue({c for c, _ in styles.values()} <= set(style.OKABE_ITO.values()))

    def test_other_names_are_stable_and_never_alike_in_one_table(self):
        first = style.system_styles(["mine", "yours", "instance"])
        again = style.system_styles(["yours", "mine"])
        self.assertEqual(first["mine"], again["mine"])
        self.assertNotEqual(first["mine"][0], first["yours"][0])

    def test_figures_and_the_html_chart_use_the_palette(self):
        fig = p.fig_time_vs_cost(GRID, size="one-column")
        ring = style.SYSTEM_STYLES["ring"][0].lower()
        lines = [line for ax in fig.axes for line in ax.get_lines()]
        self.assertIn(ring, [matplotlib.colors.to_hex(line.get_color()) for line in lines])
        plt.close(fig)
        spec = p.chart_specs(GRID)[0]
        self.assertEqual({s["system"]: s["color"].lower() for s in spec["series"]}["ring"], ring)


class Labels(unittest.TestCase):
    def test_columns_read_as_words_with_units(self):
        self.assertEqual(labels.label("workload/@batch_size"), "batch size")
        self.assertEqual(labels.label("functions/@memory_mb"), "function memory (MB)")
        self.assertEqual(labels.label("peers/@count"), "peers")
        self.assertEqual(labels.label("barrier/@settle_s"), "barrier settle s")  # any other XPath
        # An element chosen by position or by attribute, and overrides of the platform or the price book.
        self.assertEqual(labels.label("peers/group[2]/@count"), "group 2 count")
        self.assertEqual(labels.label("peers/group[@name='fast']/@slowdown"), "group fast slowdown")
        self.assertEqual(labels.label("prices:instances/instance[@type='t2.large']/@per_hour_usd"),
                         "instance t2.large per hour usd")
        self.assertEqual(labels.label("profile:object_storage/@aggregate_bandwidth_bps"),
                         "object storage aggregate bandwidth bps")

    def test_a_configuration_in_words_names_only_what_its_design_uses(self):
        row = pd.Series({"system": "ring", "model": "vgg11", "peers": 12.0, "function_memory_mb": 3008,
                         "function_invocations": 0, "transport": float("nan")})
        self.assertEqual(labels.config_label(row, ["model", "peers", "function_memory_mb", "transport"]),
                         "vgg11, 12 peers")
        row["function_invocations"] = 52
        self.assertEqual(labels.config_label(row, ["model", "peers", "function_memory_mb"]), "vgg11, 12 peers, 3008 MB")
        # Functions all at sizes of the design's own (sharded reducers): the experiment's size is not theirs.
        for used, shown in ((385, "vgg11, 12 peers"), ("385/3008", "vgg11, 12 peers, 3008 MB"),
                            (3008.0, "vgg11, 12 peers, 3008 MB"), (float("nan"), "vgg11, 12 peers, 3008 MB")):
            with self.subTest(used=used):
                row["function_memory_used_mb"] = used
                self.assertEqual(labels.config_label(row, ["model", "peers", "function_memory_mb"]), shown)

    def test_figures_name_configurations_not_scenario_hashes(self):
        fig = p.fig_phase_breakdown(GRID, size="two-column")
        names = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
        self.assertIn("ring, 16 peers (fastest)", names)
        self.assertFalse(any(s[:8] in " ".join(names) for s in GRID["scenario_id"]))
        plt.close(fig)


class Numbers(unittest.TestCase):
    def test_values_within_rounding_of_the_baseline_print_as_equal(self):
        self.assertEqual(style.format_ratio(1 + 1e-13), "1.00\u00d7")
        self.assertEqual(style.format_percent(-4.4e-14), "0 %")
        self.assertEqual(style.format_percent(-0.04), "0.0 %")  # rounded, never "-0.0"
        self.assertEqual(style.format_percent(-1303.7), "-1304 %")
        self.assertEqual(style.format_ratio(0.5), "0.50\u00d7")

    def test_diverging_scales_are_centred_on_the_baseline(self):
        ratio = figures._diverging_norm("cost_ratio", [0.5, 4.2])
        self.assertAlmostEqual(float(ratio(1.0)), 0.5)
        self.assertLess(float(ratio(0.5)), 0.5)  # cheaper: the blue half
        improvement = figures._diverging_norm("improvement", [-1303.0, 75.0])
        self.assertAlmostEqual(float(improvement(0.0)), 0.5)
        self.assertGreater(float(improvement(75.0)), 0.5)  # faster: the blue half
        # Twice as fast (+50 %) and twice as slow (-100 %) sit as far from the centre.
        self.assertAlmostEqual(float(improvement(50.0)) - 0.5, 0.5 - float(improvement(-100.0)))

    def test_rounding_noise_is_drawn_in_the_neutral_colour_and_printed_as_zero(self):
        fig = p.fig_heatmap(GRID, "improvement", size="two-column")
        ring = next(ax for ax in fig.axes if ": ring" in ax.get_title() and ax.images)
        self.assertEqual({t.get_text() for t in ring.texts}, {"0 %"})  # the grid holds 1e-14 noise
        image = ring.images[0]
        centre = image.cmap(image.norm(0.0))
        self.assertTrue(np.allclose(image.to_rgba(image.get_array())[0, 0], centre))
        plt.close(fig)

    def test_log_axes_label_enough_ticks_inside_a_decade_and_a_half(self):
        spec = p2psim_html.axis_spec([12.0, 150.0], "t")
        self.assertTrue(spec["log"])
        self.assertEqual(spec["labels"], ["20", "30", "50", "100"])  # not "100" alone
        # Under two decades 3 too: 0.025-0.42 USD labelled 0.05, 0.1 and 0.2 alone, none near either end.
        self.assertEqual(p2psim_html.axis_spec([0.0247, 0.4229], "c")["labels"], ["0.03", "0.05", "0.1", "0.2", "0.3"])
        self.assertEqual(p2psim_html.axis_spec([17.0, 2600.0], "t")["labels"][:2], ["20", "50"])  # wider: 2 and 5
        narrow = p2psim_html.axis_spec([0.18, 0.41], "c")  # a single run's two points: linear, several ticks
        self.assertFalse(narrow["log"])
        self.assertGreaterEqual(len(narrow["ticks"]), 3)
        self.assertEqual(narrow["lo"], 0.0)  # from zero, so that 0.41 reads as 2.3x 0.18, as it is
        self.assertGreaterEqual(narrow["hi"], 0.41)


    def test_a_log_axis_under_two_decades_labels_values_near_both_ends(self):
        # 0.025 to 0.42 USD: 2 and 5 a decade alone labelled 0.05, 0.1 and 0.2, nothing near four of the lines.
        with style.drawing("screen"):
            fig, ax = plt.subplots()
            ax.plot([1, 2], [0.025, 0.42])
            style.scale_axis(ax, "y", [0.025, 0.42])
            figures._done(fig)
            lo, hi = ax.get_ylim()
            shown = [float(t.get_text()) for t in ax.get_yticklabels(minor=True) + ax.get_yticklabels()
                     if t.get_text() and lo <= t.get_position()[1] <= hi]
        self.assertLessEqual(min(shown), 0.03)
        self.assertGreaterEqual(max(shown), 0.4)
        plt.close(fig)


class Panels(unittest.TestCase):
    def test_one_workload_per_panel_in_every_figure(self):
        for name, fig in p.all_figures(GRID, size="two-column"):
            with self.subTest(figure=name):
                text = " ".join(titles(fig))
                self.assertIn("squeezenet1_1", text)
                self.assertIn("vgg11", text)
            plt.close(fig)

    def test_facet_applies_to_every_figure(self):
        for name, fig in p.all_figures(GRID, facet="function_memory_mb", size="two-column"):
            with self.subTest(figure=name):
                self.assertIn("1024 MB", " ".join(titles(fig)))
            plt.close(fig)

    def test_a_line_of_medians_holds_the_same_configurations_at_every_point(self):
        # Batch 1024 as a second configuration of every run, ten times as slow; the serverless VGG-11's at 16 peers
        # cannot finish. A median over whatever finished would join two-run medians at 4 and 8 peers to batch 64's
        # alone at 16; the line holds batch 64 (3008 MB: 1024 MB finishes nowhere) at every point instead.
        small = GRID.assign(**{"workload/@batch_size": 64})
        large = GRID.assign(**{"workload/@batch_size": 1024}, scenario_id=GRID["scenario_id"] + "b",
                            total_s=10 * GRID["total_s"])
        grid = pd.concat([small, large], ignore_index=True)
        vgg_serverless = (grid["system"] == "serverless") & (grid["model"] == "vgg11")
        slow = vgg_serverless & (grid["workload/@batch_size"] == 1024)
        grid.loc[slow & (grid["peers"] == 16), "status"] = "infeasible"
        fig = p.fig_against_axis(grid, "peers", size="screen")
        time_ax = next(ax for ax in fig.axes if ax.get_title().startswith("vgg11") and "time" in ax.get_ylabel())
        self.assertTrue(time_ax.get_title().endswith(" *"))
        colour = style.system_styles(grid["system"])["serverless"][0]
        line = next(l for l in time_ax.get_lines() if l.get_color() == colour and len(l.get_xdata()) > 1)
        expected = GRID[(GRID["system"] == "serverless") & (GRID["model"] == "vgg11") & (GRID["status"] == "ok")]
        expected = expected.set_index("peers")["total_s"].sort_index()  # hand-read: 362.5, 327.7, 410.7 s
        self.assertEqual(list(line.get_xdata()), list(expected.index))
        np.testing.assert_allclose(line.get_ydata(), expected.values)
        legend = [t.get_text() for leg in fig.legends for t in leg.get_texts()] + \
            [t.get_text() for a in fig.axes if a.get_legend() for t in a.get_legend().get_texts()]
        self.assertIn(figures.PARTIAL_LEGEND, legend)
        squeeze = next(ax for ax in fig.axes if ax.get_title().startswith("squeezenet"))
        self.assertFalse(squeeze.get_title().endswith("*"))  # every configuration finished there
        plt.close(fig)
        # Without the batch-1024 failure nothing is left out (1024 MB finishes nowhere: not a configuration lost).
        fig = p.fig_against_axis(pd.concat([small, large], ignore_index=True), "peers", size="screen")
        self.assertFalse(any(ax.get_title().endswith("*") for ax in fig.axes))
        plt.close(fig)

    def test_a_line_whose_configurations_cross_is_drawn_over_all_that_finished_and_starred(self):
        # Serverless VGG-11 at 3,008 MB finishes at 4 and 8 peers only, at 1,024 MB at 8 and 16 only: no
        # configuration finishes at every value, so the line is every finished run's median, starred.
        grid = GRID.copy()
        vgg = (grid["system"] == "serverless") & (grid["model"] == "vgg11")
        grid.loc[vgg & (grid["function_memory_mb"] == 3008) & (grid["peers"] == 16), "status"] = "infeasible"
        grid.loc[vgg & (grid["function_memory_mb"] == 1024) & grid["peers"].isin([8, 16]), "status"] = "ok"
        rows, kept, total = figures.comparable_rows(grid[vgg], "peers")
        self.assertEqual((kept, total, len(rows)), (0, 2, 4))
        fig = p.fig_against_axis(grid, "peers", size="screen")
        time_ax = next(ax for ax in fig.axes if ax.get_title().startswith("vgg11") and "time" in ax.get_ylabel())
        colour = style.system_styles(grid["system"])["serverless"][0]
        line = next(l for l in time_ax.get_lines() if l.get_color() == colour and len(l.get_xdata()) > 1)
        self.assertEqual(list(line.get_xdata()), [4, 8, 16])
        self.assertTrue(time_ax.get_title().endswith(" *"))
        plt.close(fig)

    def test_a_linear_time_or_cost_axis_starts_at_zero(self):
        # Two systems at 477 s and 362 s: an axis cut at its data drew a 1.3x difference as many times that.
        fig = p.fig_time_vs_cost(GRID[(GRID["model"] == "vgg11") & (GRID["peers"] == 4)
                                      & GRID["system"].isin(["instance", "serverless"])], size="screen")
        ax = fig.axes[0]
        self.assertEqual((ax.get_xscale(), ax.get_yscale()), ("linear", "linear"))
        self.assertEqual(ax.get_xlim()[0], 0)
        self.assertEqual(ax.get_ylim()[0], 0)
        self.assertGreater(ax.get_xlim()[1], 477.6)
        plt.close(fig)

    def test_log_y_only_where_the_range_spans_a_decade(self):
        fig = p.fig_against_axis(GRID, "peers", size="two-column")
        scales = {ax.get_title().split()[0] + " " + ax.get_ylabel(): ax.get_yscale() for ax in fig.axes[:4]}
        # A log axis says so in its label; a linear one does not.
        self.assertEqual(scales["squeezenet1_1 total cost (USD) (log)"], "log")  # 0.0017 to 0.042 USD
        self.assertEqual(scales["vgg11 total training time (s)"], "linear")  # 138 to 556 s
        plt.close(fig)

    def test_infeasible_runs_neither_drawn_among_points_nor_stretching_the_axes(self):
        fig = p.fig_time_vs_cost(GRID, size="two-column")
        vgg = next(ax for ax in fig.axes if ax.get_title().startswith("vgg11"))
        self.assertIn("6 infeasible", vgg.get_title())
        feasible = GRID[(GRID["model"] == "vgg11") & (GRID["status"] == "ok")]
        # Failures stopped at 3.5 to 22 s: a log axis starts near the feasible runs, a linear one at zero.
        low = vgg.get_xlim()[0]
        self.assertTrue(low > 0.5 * feasible["total_s"].min() if vgg.get_xscale() == "log" else low == 0, low)
        self.assertLess(vgg.get_xlim()[1], 1.2 * feasible["total_s"].max())
        plotted = np.concatenate([c.get_offsets()[:, 0] for c in vgg.collections])
        self.assertGreaterEqual(plotted.min(), feasible["total_s"].min())
        plt.close(fig)

    def test_replicate_bands_are_crosses_in_time_vs_cost_and_inside_the_axes(self):
        plain = p.fig_time_vs_cost(GRID, size="two-column")
        self.assertEqual(sum(isinstance(c, matplotlib.collections.LineCollection)
                             for ax in plain.axes for c in ax.collections), 0)  # no replicates, no bands
        plt.close(plain)
        banded = GRID.copy()
        banded["total_s_p10"], banded["total_s_p90"] = 0.5 * banded["total_s"], 2.0 * banded["total_s"]
        banded["total_usd_p10"], banded["total_usd_p90"] = 0.8 * banded["total_usd"], 1.25 * banded["total_usd"]
        fig = p.fig_time_vs_cost(banded, size="two-column")
        self.assertIn("p10-p90", fig._suptitle.get_text())
        vgg = next(ax for ax in fig.axes if ax.get_title().startswith("vgg11"))
        ok = banded[(banded["model"] == "vgg11") & (banded["status"] == "ok")]
        lines = [c for c in vgg.collections if isinstance(c, matplotlib.collections.LineCollection)]
        self.assertEqual(len(lines), 2 * ok["system"].nunique())  # a time and a cost band per system
        self.assertEqual(sum(len(c.get_segments()) for c in lines), 2 * len(ok))  # a cross per configuration
        self.assertLessEqual(vgg.get_xlim()[0], ok["total_s_p10"].min())  # no band cut by the axes
        self.assertGreaterEqual(vgg.get_xlim()[1], ok["total_s_p90"].max())
        plt.close(fig)

    def test_heatmap_axes_cross_independent_columns_only(self):
        self.assertEqual(p.heatmap_axes(GRID), ("peers", "function_memory_mb"))
        with self.assertRaisesRegex(p.ResultsError, "vary together"):
            p.heatmap_axes(GRID, ("model", "input_shape"))
        with self.assertRaisesRegex(p.ResultsError, "no column 'nope'"):
            p.heatmap_axes(GRID, ("peers", "nope"))

    def test_infeasible_heatmap_cells_are_hatched(self):
        fig = p.fig_heatmap(GRID, "cost_ratio", size="two-column")
        serverless = next(ax for ax in fig.axes if ax.get_title().replace("\n", " ") == "vgg11 3x32x32 cifar10: serverless")
        self.assertEqual(sum(1 for patch in serverless.patches if patch.get_hatch()), 3)  # 1024 MB x 3 peer counts
        plt.close(fig)

    def test_a_system_that_does_not_use_an_axis_says_so_in_its_panel_and_line(self):
        # ring runs no functions, tree runs its own sizes: their alike rows over function memory are no finding.
        grid = GRID.assign(function_memory_used_mb=np.where(GRID["system"] == "tree", "333/544",
                                                            GRID["function_memory_mb"].astype(str)))
        grid.loc[grid["function_invocations"] == 0, "function_memory_used_mb"] = ""
        fig = p.fig_heatmap(grid, "cost_ratio", size="screen")
        named = {ax.get_title().replace("\n", " ") for ax in fig.axes if ax.images}
        self.assertIn("vgg11 3x32x32 cifar10: ring (no functions; every row alike)", named)
        self.assertIn("vgg11 3x32x32 cifar10: tree (functions at 333-544 MB; every row alike)", named)
        self.assertIn("vgg11 3x32x32 cifar10: serverless", named)  # it runs at the axis's sizes
        plt.close(fig)
        fig = p.fig_against_axis(grid, "function_memory_mb", size="screen")
        ax = fig.axes[0]
        styles = {line.get_color(): line.get_linestyle() for line in ax.get_lines() if len(line.get_xdata()) > 1}
        palette = style.system_styles(grid["system"])
        self.assertEqual(styles[palette["ring"][0]], "--")
        self.assertEqual(styles[palette["tree"][0]], "--")
        self.assertEqual(styles[palette["serverless"][0]], "-")
        legend = [t.get_text() for t in fig.legends[0].get_texts()] if fig.legends else \
            [t.get_text() for a in fig.axes if a.get_legend() for t in a.get_legend().get_texts()]
        self.assertIn("dashed: a system that does not use function memory (MB)", legend)
        plt.close(fig)
        # Over peers, which every system uses, nothing is dashed or noted.
        fig = p.fig_against_axis(grid, "peers", size="screen")
        self.assertTrue(all(line.get_linestyle() != "--" for a in fig.axes for line in a.get_lines()))
        plt.close(fig)

    def test_a_cell_whose_median_leaves_out_infeasible_runs_is_starred_and_the_title_says_why(self):
        # A third axis (batch size) under each cell; one serverless run at 4 peers, 3008 MB infeasible at batch 1024.
        small = GRID.assign(batch_size=64)
        large = GRID.assign(batch_size=1024, scenario_id=GRID["scenario_id"] + "b")
        grid = pd.concat([small, large], ignore_index=True)
        cell = ((grid["system"] == "serverless") & (grid["model"] == "vgg11") & (grid["peers"] == 4)
                & (grid["function_memory_mb"] == 3008) & (grid["batch_size"] == 1024))
        self.assertEqual(int(cell.sum()), 1)
        grid.loc[cell, "status"] = "infeasible"
        fig = p.fig_heatmap(grid, "cost_ratio", ("peers", "function_memory_mb"), size="screen")
        panel = next(ax for ax in fig.axes if ax.get_title().replace("\n", " ") == "vgg11 3x32x32 cifar10: serverless")
        starred = [t.get_text() for t in panel.texts if t.get_text().endswith("*")]
        self.assertEqual(len(starred), 1)  # that cell alone
        self.assertIn("*: a median of the runs that could run", fig._suptitle.get_text().replace("\n", " "))
        plt.close(fig)

    def test_a_gradient_heatmap_says_when_a_design_computes_as_the_baseline_does(self):
        fig = p.fig_heatmap(GRID, "improvement", size="screen")
        names = [ax.get_title().replace("\n", " ") for ax in fig.axes if ax.images]
        self.assertIn("vgg11 3x32x32 cifar10: ring (gradients on its peers, as the baseline's: 0 %)", names)
        self.assertIn("vgg11 3x32x32 cifar10: serverless", names)
        plt.close(fig)

    def test_time_against_cost_draws_one_point_a_distinct_time_and_cost(self):
        # Two copies of every row (a swept axis no system uses) draw no more points than one.
        twice = pd.concat([GRID, GRID.assign(scenario_id=GRID["scenario_id"] + "c")], ignore_index=True)
        count = lambda df: sum(len(c.get_offsets()) for ax in p.fig_time_vs_cost(df, size="screen").axes  # noqa: E731
                               for c in ax.collections if isinstance(c, matplotlib.collections.PathCollection))
        self.assertEqual(count(twice), count(GRID))
        plt.close("all")

    def test_a_table_without_the_papers_metric_has_no_heatmap_of_it(self):
        old = GRID.drop(columns=[c for c in GRID.columns if c.startswith("paper_")])
        self.assertIsNone(p.fig_heatmap(old, "paper_improvement", size="two-column"))
        fig = p.fig_heatmap(old, "cost_ratio", size="two-column")  # the other metrics still draw
        self.assertIsNotNone(fig)
        plt.close(fig)

    def test_the_speedup_in_total_time_is_a_heatmap_of_its_own_on_a_log_scale(self):
        # A design whose peers compute their gradients, as the baseline's do, reads 0 % in the paper's metric however
        # fast it trains: the total time's speed-up says it. A table without the column has no such heatmap.
        self.assertIsNone(p.fig_heatmap(GRID, "speedup", size="two-column"))
        baseline = GRID["system"] == GRID["baseline"]
        grid = GRID.assign(total_time_speedup_vs_baseline=np.where(baseline, np.nan, 2.0))
        fig = p.fig_heatmap(grid, "speedup", size="two-column")
        panels = [ax for ax in fig.axes if ax.get_title()]
        self.assertTrue(panels)
        cells = {text.get_text() for ax in panels for text in ax.texts}
        self.assertEqual(cells, {"2.00\u00d7"})
        self.assertIn("speed-up in total time (x faster) vs ", fig.axes[-1].get_xlabel())
        self.assertIn("(log scale)", fig.axes[-1].get_xlabel())
        plt.close(fig)
        names = []
        for name, figure in p.all_figures(grid, size="two-column"):
            names.append(name)
            plt.close(figure)
        self.assertIn("heatmap_speedup", names)

    def test_each_bar_says_whether_it_is_its_systems_fastest_or_cheapest_configuration(self):
        shown = p.representative_rows(GRID)
        for (model, system), rows in shown.groupby(["model", "system"]):
            with self.subTest(model=model, system=system):
                picked = sorted(rows["picked_as"])
                self.assertIn(picked, (["cheapest", "fastest"], ["fastest and cheapest"]))
                fastest = rows[rows["picked_as"].str.startswith("fastest")]
                ok = p.feasible(GRID)
                self.assertEqual(fastest["total_s"].iloc[0],
                                 ok[(ok["model"] == model) & (ok["system"] == system)]["total_s"].min())
        fig = p.fig_phase_breakdown(GRID, size="screen")
        labels = [tick.get_text() for ax in fig.axes for tick in ax.get_yticklabels() if "peers" in tick.get_text()]
        self.assertTrue(labels and all(label.endswith(("(fastest)", "(cheapest)", "(fastest and cheapest)"))
                                       for label in labels), labels)
        plt.close(fig)

    def test_cost_by_service_adds_up_to_the_bill(self):
        fig = p.fig_cost_by_service(GRID, size="two-column")
        ax = fig.axes[0]
        right = max(patch.get_x() + patch.get_width() for patch in ax.patches)
        shown = p.representative_rows(GRID)  # each system's fastest and cheapest configuration
        self.assertAlmostEqual(right, shown[shown["model"] == "squeezenet1_1"]["total_usd"].max(), places=6)
        # Each bar's whole is written at its end, to 3 significant digits: the short bars are read off their labels.
        written = sorted(float(t.get_text()) for t in ax.texts)
        wholes = sorted(float(f"{v:.3g}") for v in shown[shown["model"] == "squeezenet1_1"]["total_usd"])
        self.assertEqual(written, wholes)
        plt.close(fig)


class HtmlChart(unittest.TestCase):
    def test_one_chart_per_workload_and_tooltips_with_time_cost_and_used_fields(self):
        specs = p.chart_specs(GRID)
        self.assertEqual([s["title"] for s in specs], ["squeezenet1_1 3x21x21 mnist", "vgg11 3x32x32 cifar10"])
        ring = next(s for s in specs[1]["series"] if s["system"] == "ring")
        tip = ring["points"][0][2]
        self.assertRegex(tip, r"\d s, [\d.]+ USD")
        self.assertNotIn("MB", tip)  # the ring invokes no function: its function memory means nothing
        self.assertNotIn("nan", tip)
        failed = specs[1]["infeasible"]
        self.assertEqual(len(failed), 6)
        self.assertIn("infeasible: ", failed[0]["tip"])
        self.assertIn("out of memory", " ".join(f["tip"] for f in failed))

    def test_the_page_reads_on_a_phone(self):
        with tempfile.TemporaryDirectory() as d:
            GRID.to_csv(os.path.join(d, "results.csv"), index=False)
            with contextlib.redirect_stdout(io.StringIO()):
                p.report(d, formats=("png",))
            page = open(os.path.join(d, "report", "report.html")).read()
        self.assertIn("<meta name='viewport' content='width=device-width, initial-scale=1'>", page)
        self.assertIn("<div class='scroll'><table", page)
        self.assertEqual(page.count('class="plot"'), 2)
        self.assertIn("total training time (s)", page)  # headers from the schema, not total_s


class CommandLine(unittest.TestCase):
    def test_bad_options_are_one_clear_error_and_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            GRID.to_csv(os.path.join(d, "results.csv"), index=False)
            for args, message in ((["--heatmap", "model,input_shape"], "vary together"),
                                  (["--heatmap", "peers"], "expected two columns"),
                                  (["--facet", "nope"], "no column 'nope'"),
                                  (["--format", "gif"], "expected a comma-separated list")):
                err = io.StringIO()
                with self.subTest(args=args), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(p.main(["report", d, *args]), 2)
                    self.assertIn(message, err.getvalue())
                    self.assertEqual(err.getvalue().count("\n"), 1)
            with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as exit_:
                p.main(["report", d, "--size", "poster"])
            self.assertEqual(exit_.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
