"""Unit tests of the analysis layer on small hand-made tables (run: /usr/bin/python3 -m unittest)."""
import os
import re
import tempfile
import unittest

import matplotlib.collections
import matplotlib.pyplot
import numpy as np
import pandas as pd

import p2psim_plots as p
import p2psim_timeline
import p2psim_validation


HERE = os.path.dirname(os.path.abspath(__file__))


def table(rows):
    return pd.DataFrame(rows, columns=["scenario_id", "system", "peers", "function_memory_mb",
                                       "gradient_s_per_iteration", "total_s", "total_usd"])


class ParetoFront(unittest.TestCase):
    def test_the_report_table_gives_no_function_memory_to_a_design_without_functions(self):
        # A ring on the front at 3008 MB read as if it needed 3008 MB functions.
        df = table([("a", "serverless", 4, 3008, 1, 40, 0.07), ("a", "ring", 4, 3008, 1, 210, 0.02),
                    ("b", "ring", 8, 2048, 1, 108, 0.0225)]).assign(function_invocations=[52, 0, 0])
        html = p.pareto_html(df)
        body = html[html.index("<tbody>"):]
        cells = [re.sub("<[^>]+>", " ", row).split() for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]
        self.assertEqual([(c[1], c[3]) for c in cells], [("serverless", "3008"), ("ring", "—"), ("ring", "—")])
        self.assertIn("—: a setting this design does not use", html)
        html = p.pareto_html(df[df["system"] == "serverless"])  # every setting used: no dash, no note
        self.assertNotIn("—", html)

    def test_dominated_rows_are_dropped(self):
        df = table([
            ("a", "serverless", 2, 1024, 1, 100, 1.0),   # fastest
            ("b", "serverless", 4, 1024, 1, 200, 0.5),   # slower, cheaper: on the front
            ("c", "serverless", 8, 1024, 1, 250, 0.7),   # dominated by b
            ("d", "instance", 2, 1024, 1, 300, 0.2),     # cheapest
            ("e", "instance", 4, 1024, 1, 300, 0.2),     # equal to d: only the first kept
        ])
        self.assertEqual(list(df[p.pareto_mask(df)]["scenario_id"]), ["a", "b", "d"])

    def test_single_row_is_its_own_front(self):
        df = table([("a", "instance", 2, 1024, 1, 10, 1)])
        self.assertTrue(p.pareto_mask(df).all())


class Recommend(unittest.TestCase):
    df = table([
        ("a", "serverless", 2, 1024, 1, 100, 1.0),
        ("b", "serverless", 4, 1024, 1, 200, 0.5),
        ("c", "instance", 2, 1024, 1, 400, 0.1),
        ("d", "instance", 4, 1024, 1, 250, 0.6),
    ])

    def test_cheapest_within_deadline(self):
        best, others, slack = p.recommend(self.df, deadline_s=260)
        self.assertEqual(best["scenario_id"], "b")
        self.assertEqual(best[slack], 60)
        # d (250 s, 0.6 USD) is slower and dearer than b: no alternative, so not a runner-up.
        self.assertEqual(list(others["scenario_id"]), ["a"])

    def test_fastest_within_budget(self):
        best, others, slack = p.recommend(self.df, budget_usd=0.55)
        self.assertEqual(best["scenario_id"], "b")
        self.assertAlmostEqual(best[slack], 0.05)
        self.assertEqual(list(others["scenario_id"]), ["c"])

    def test_equal_outcomes_are_one_choice(self):
        df = pd.concat([self.df, self.df.iloc[[1]].assign(scenario_id="b2", function_memory_mb=2048)])
        best, others, _ = p.recommend(df, deadline_s=260)
        self.assertEqual(best["scenario_id"], "b")
        self.assertNotIn("b2", list(others["scenario_id"]))

    def test_infeasible_configurations_are_never_proposed(self):
        df = self.df.assign(status=["ok", "infeasible", "ok", "ok"])
        best, others, _ = p.recommend(df, deadline_s=260)
        self.assertEqual(best["scenario_id"], "d")  # b would be cheaper, but it cannot run
        self.assertNotIn("b", list(others["scenario_id"]))

    def test_nothing_meets_the_limit(self):
        best, others, _ = p.recommend(self.df, deadline_s=50)
        self.assertIsNone(best)
        self.assertTrue(others.empty)

    def test_exactly_one_limit(self):
        with self.assertRaises(ValueError):
            p.recommend(self.df)
        with self.assertRaises(ValueError):
            p.recommend(self.df, deadline_s=1, budget_usd=1)


class Comparison(unittest.TestCase):
    def test_every_system_against_the_baseline(self):
        df = table([
            ("a", "instance", 2, 1024, 10.0, 100, 0.1),
            ("a", "serverless", 2, 1024, 2.5, 50, 0.4),
            ("a", "ring", 2, 1024, 10.0, 90, 0.05),
        ]).assign(baseline="instance",
                  gradient_improvement_vs_baseline_percent=[None, 75.0, 0.0],
                  cost_ratio_vs_baseline=[None, 4.0, 0.5])
        comp = p.comparison(df, ["peers"]).set_index("system")
        self.assertEqual(sorted(comp.index), ["ring", "serverless"])  # the baseline is not compared with itself
        self.assertAlmostEqual(comp.loc["serverless", "improvement_percent"], 75.0)
        self.assertAlmostEqual(comp.loc["ring", "cost_ratio"], 0.5)

    def test_colours_are_stable_and_distinct(self):
        df = table([("a", s, 2, 1024, 1, 1, 1) for s in ("sharded", "serverless", "ring", "instance")])
        colors = p.system_colors(df)
        self.assertEqual(colors["instance"], p.PALETTE[0])
        self.assertEqual(colors["serverless"], p.PALETTE[1])
        self.assertEqual(len(set(colors.values())), 4)


class OddTables(unittest.TestCase):
    def test_names_that_look_like_numbers_or_missing_values_stay_names(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "results.csv"), "w") as f:
                f.write("system,baseline,total_s,total_usd,status\n1,1,10,0.1,ok\nNA,1,20,0.2,ok\n")
            df = p.load_results(d)
            self.assertEqual(list(df["system"]), ["1", "NA"])
            p.report(d)  # escapes and colours them as text
            self.assertIn(">NA<", open(os.path.join(d, "report", "report.html")).read())

    def test_a_table_of_infeasible_rows_only_still_reports(self):
        df = table([("a", "tree", 4, 1024, 0, 0, 0.0)]).assign(status="infeasible")
        with tempfile.TemporaryDirectory() as d:
            df.to_csv(os.path.join(d, "results.csv"), index=False)
            p.report(d)
            page = open(os.path.join(d, "report", "report.html")).read()
            self.assertIn("1 infeasible run(s)", page)

    def test_the_report_says_how_far_each_design_has_been_from_measured_runs(self):
        df = table([("a", "sharded", 4, 1024, 1, 10, 0.1), ("a", "peer", 4, 1024, 1, 20, 0.2)]).assign(
            strategy=["serverless_sharded", "p2p_all_to_all"])
        with tempfile.TemporaryDirectory() as d:
            recorded = os.path.join(d, "by_design.csv")
            with open(recorded, "w") as f:
                f.write("design,kind,metrics,median_abs_error_percent,worst_abs_error_percent,predicted_faster,"
                        "with_band,inside_band\nserverless_sharded,time,27,22.2,61.4,21,27,1\n"
                        "serverless_sharded,cost,10,30.6,45.7,9,10,0\n")
            accuracy = p2psim_validation.design_accuracy(df["strategy"], recorded)
            self.assertEqual(list(accuracy["design"]), ["serverless_sharded", "serverless_sharded", "p2p_all_to_all"])
            self.assertEqual(list(accuracy["median |error|"]), ["22.2 %", "30.6 %", ""])
            self.assertEqual(list(accuracy["p2psim vs measured"]), ["faster than measured in 21 of 27", "cheaper than measured in 9 of 10", ""])
            self.assertEqual(accuracy["measured"].iloc[2], "no measured run among the validation cases")
            # Under a design never measured whole, each mechanism its runs used, in the mechanisms' own order,
            # measured alone or not.
            with open(recorded, "a") as f:
                f.write("function_cold_start,time,5,2.9,8.0,3,5,1\n")
            df = df.assign(mechanisms=["function_compute", "broker;function_cold_start"])
            accuracy = p2psim_validation.design_accuracy(
                df["strategy"], recorded, mechanisms=p2psim_validation.mechanisms_by_design(df))
            self.assertEqual(list(accuracy["design"].iloc[2:]), ["p2p_all_to_all"] * 3)
            self.assertEqual(list(accuracy["mechanism"].iloc[2:]),
                             ["", "function cold starts (function_cold_start)", "the message broker (broker)"])
            self.assertEqual(list(accuracy["median |error|"].iloc[2:]), ["", "2.9 %", ""])
            self.assertEqual(accuracy["measured"].iloc[4], "no validation case measures it")
            with self.assertRaisesRegex(p2psim_validation.ValidationError, "cannot read the accuracy by design"):
                p2psim_validation.design_accuracy(["x"], os.path.join(d, "none.csv"))
            # The report reads the shipped record (validation/accuracy_by_design.csv).
            df.to_csv(os.path.join(d, "results.csv"), index=False)
            p.report(d)
            page = open(os.path.join(d, "report", "report.html")).read()
            self.assertIn("How far these designs have been from measured runs", page)
            self.assertIn("<td>serverless_sharded</td>\n      <td>sharded</td>", page)  # its systems beside it
            self.assertIn("no measured run among the validation cases", page)  # p2p_all_to_all
            self.assertIn("serverless_sharded", page)
            # And the record's band under the table, from the shipped record's every_design row, read here.
            recorded = pd.read_csv(p2psim_validation.ACCURACY_BY_DESIGN)
            every = recorded[(recorded["design"] == "every_design") & (recorded["kind"] == "time")].iloc[0]
            self.assertIn(f"between {1 / (1 + every['error_p90_percent'] / 100):.2f} T and "
                          f"{1 / (1 + every['error_p10_percent'] / 100):.2f} T", page)
            self.assertIn(f"held out, {every['held_out_inside_band']} of {every['held_out_with_band']}", page)

    def test_the_record_band_by_hand_and_a_record_without_one(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "by_design.csv")
            header = ("design,kind,metrics,median_abs_error_percent,worst_abs_error_percent,predicted_faster,"
                      "with_band,inside_band,sources,error_p10_percent,error_p90_percent,held_out_with_band,"
                      "held_out_inside_band\n")
            with open(path, "w") as f:
                f.write(header + "ring_allreduce,time,3,15.5,22.8,3,3,0,1,,,3,2\n"
                                 "every_design,time,10,12.0,40.0,5,10,3,4,-20.0,25.0,10,8\n")
            rec = p2psim_validation.record(path)
            self.assertEqual((rec["metrics"], rec["sources"], rec["held_out_inside"], rec["held_out_with"]), (10, 4, 8, 10))
            with open(path) as f:  # spaces around a cell are trimmed, as p2psim's own reader trims them
                spaced = f.read().replace("every_design,", "every_design ,")
            with open(path, "w") as f:
                f.write(spaced)
            self.assertEqual(p2psim_validation.record(path), rec)
            # A design's own spread beside its accuracy, where two sources or more drew it.
            with open(path, "a") as f:
                f.write("sharded,time,27,22.2,61.4,21,27,1,1,,,27,16\n"
                        "lambdaml,time,4,31.5,50.3,4,4,0,2,-45.0,-20.5,4,0\n")
            self.assertEqual(list(p2psim_validation.design_accuracy(["sharded", "lambdaml"], path)["errors p10 to p90"]),
                             ["", "-45.0 to -20.5 % (2 sources)"])
            # 100 s predicted: errors of +25 % put the real run at 100 / 1.25 = 80 s, of -20 % at 100 / 0.8 = 125 s.
            short, long = p2psim_validation.record_band(100.0, rec)
            self.assertAlmostEqual(short, 80.0)
            self.assertAlmostEqual(long, 125.0)
            self.assertIn("p10 -20.0 %, p90 +25.0 % (error = predicted / measured - 1, so a run "
                          "predicted at T takes T / (1 + error)); held out, 8 of 10", p2psim_validation.record_text(rec))
            with open(path, "w") as f:  # one source: no percentiles
                f.write(header + "every_design,time,10,12.0,40.0,5,10,3,1,,,10,8\n")
            self.assertIsNone(p2psim_validation.record(path))
            with open(path, "w") as f:  # a record written before it kept them: refused, as `run` refuses it
                f.write("design,kind,metrics\nring_allreduce,time,3\n")
            with self.assertRaisesRegex(p2psim_validation.ValidationError, "missing columns sources"):
                p2psim_validation.record(path)
            # Malformed: one clear error naming the file and line, never a band from it.
            for row in ("every_design,time,10,12.0,40.0,5,10,3,4,-20.0,,10,8",  # one percentile
                        "every_design,time,10.7,12.0,40.0,5,10,3,4,-20.0,25.0,10,8",  # a fraction of a metric
                        "every_design,time,3,12.0,40.0,5,10,3,4,-20.0,25.0,3,2",  # 4 sources of 3 metrics
                        "every_design,time,10,12.0,40.0,5,10,3,4,-20.0,inf,10,8",
                        "every_design,time,10,12.0,40.0,5,10,3,4,-20.0,25.0,10",  # a cell short
                        "every_design,time,10,12.0,40.0,5,10,3,4,-120.0,25.0,10,8",  # a time below 0
                        "every_design,time,10,12.0,40.0,5,10,3,4,30.0,25.0,10,8",  # p10 above p90
                        "every_design,time,10,12.0,40.0,5,10,3,,-20.0,25.0,10,8",  # no sources
                        "every_design,time,10,12.0,40.0,5,10,3,4,ten,25.0,10,8",
                        "every_design,time,10,12.0,40.0,5,10,3,4,-20.0,25.0,10,11",  # 11 of 10 inside
                        "every_design,time,10,12.0,40.0,5,10,3,1,-20.0,25.0,10,8"):  # percentiles of one source
                with open(path, "w") as f:
                    f.write(header + "ring_allreduce,time,3,15.5,22.8,3,3,0,1,,,3,2\n" + row + "\n")
                with self.assertRaisesRegex(p2psim_validation.ValidationError, "by_design.csv: line 3", msg=row):
                    p2psim_validation.record(path)
            with open(path, "w") as f:
                f.write(header + "every_design,time,10,12.0,40.0,5,10,3,4,-20.0,25.0,10,8\n" * 2)
            with self.assertRaisesRegex(p2psim_validation.ValidationError, "a second row"):
                p2psim_validation.record(path)

    def test_phase_bars_add_up_to_the_iteration(self):
        df = table([("a", "ring", 2, 1024, 4.0, 100, 0.1)]).assign(
            communication_s_per_iteration=2.0, aggregate_update_s_per_iteration=0.5, barrier_s_per_iteration=0.0,
            iteration_s=10.0)
        fig = p.fig_phase_breakdown(df)
        right = max(patch.get_x() + patch.get_width() for patch in fig.axes[0].patches)
        self.assertAlmostEqual(right, 10.0)  # gradient 4 + communication 2 + update 0.5 + other 3.5


class LikeWithLike(unittest.TestCase):
    df = pd.DataFrame([
        ("a", "ring", "vgg11", "3x32x32", "cifar10", 100, 0.10),
        ("b", "ring", "vgg11", "3x32x32", "cifar10", 200, 0.05),
        ("c", "ring", "squeezenet1_1", "3x21x21", "mnist", 10, 0.01),  # cheaper and faster, another workload
    ], columns=["scenario_id", "system", "model", "input_shape", "dataset", "total_s", "total_usd"])

    def test_fronts_are_per_workload(self):
        panels = dict(p.facets(self.df))
        self.assertEqual(sorted(panels), ["squeezenet1_1 3x21x21 mnist", "vgg11 3x32x32 cifar10"])
        vgg = panels["vgg11 3x32x32 cifar10"]
        self.assertEqual(list(vgg[p.pareto_mask(vgg)]["scenario_id"]), ["a", "b"])  # not dominated by c
        table = p.pareto_table(self.df)
        self.assertEqual(sorted(table["scenario_id"]), ["a", "b", "c"])

    def test_recommend_answers_per_workload_and_where_narrows(self):
        import contextlib
        import io
        with tempfile.TemporaryDirectory() as d:
            self.df.to_csv(os.path.join(d, "results.csv"), index=False)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(p.recommend_command(d, 300, None, 3), 0)
            text = out.getvalue()
            self.assertEqual(text.count("== workload"), 2)
            self.assertIn("(scenario b)", text)  # vgg11's own cheapest, though c is cheaper overall
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                p.recommend_command(d, 300, None, 3, where=["model=vgg11"])
            self.assertNotIn("== workload", out.getvalue())
            self.assertNotIn("squeezenet", out.getvalue())
            with self.assertRaisesRegex(p.ResultsError, "no row matches"):
                p.recommend_command(d, 300, None, 3, where=["model=alexnet"])

    def test_failed_scenarios_are_named_by_recommend_and_first_in_the_report(self):
        # A sweep's failed scenario is in no row: an answer and a report must not read as if it had been weighed.
        import contextlib
        import io
        import json
        with tempfile.TemporaryDirectory() as d:
            self.df.to_csv(os.path.join(d, "results.csv"), index=False)
            os.makedirs(os.path.join(d, "failed"))
            with open(os.path.join(d, "failed", "5635437d46e07366.json"), "w") as f:
                json.dump({"scenario_id": "5635437d46e07366", "axes": {"workload/@model": "resnet18_cifar"},
                           "error": "exit code 2",
                           "stderr": "p2psim run: warning: something\np2psim run: error: out/scenarios/"
                                     "5635437d46e07366.xml:2: field 'workload/@batch_size': batch size 1024 is "
                                     "outside what the calibration supports\n"}, f)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                p.recommend_command(d, 300, None, 3)
            first = out.getvalue().splitlines()[:2]
            self.assertEqual(first[0], f"not considered: 1 scenario(s) of this sweep failed ({d}/failed):")
            self.assertEqual(first[1], "  workload/@model=resnet18_cifar: exit code 2: field 'workload/@batch_size': "
                                       "batch size 1024 is outside what the calibration supports")
            with contextlib.redirect_stdout(io.StringIO()) as said:
                p.report(d)
            self.assertIn("note: 1 scenario(s) failed", said.getvalue())
            page = open(os.path.join(d, "report", "report.html")).read()
            notice = page.index("<p class='notice'>1 scenario(s) of this sweep failed")
            self.assertLess(notice, page.index("<h2>"))  # before any chart, table or figure
            self.assertIn("workload/@model=resnet18_cifar: exit code 2: field &#x27;workload/@batch_size&#x27;", page)
            # A run killed by --timeout after it printed its progress: how it ended comes first, not that progress.
            with open(os.path.join(d, "failed", "a9bbcd76b6a15f47.json"), "w") as f:
                json.dump({"scenario_id": "a9bbcd76b6a15f47", "axes": {"peers/@count": "64"},
                           "error": "timed out after 30 s (--timeout)",
                           "stderr": "p2psim: simulating serverless: 1630 simulated s, 80.0 % of peer-iterations "
                                     "done, 25 s elapsed\n"}, f)
            self.assertEqual(p.failed_scenarios(d)[1],
                             ("peers/@count=64", "timed out after 30 s (--timeout): p2psim: simulating serverless: "
                                                 "1630 simulated s, 80.0 % of peer-iterations done, 25 s elapsed"))
        with tempfile.TemporaryDirectory() as d:  # no failed/: nothing said
            self.df.to_csv(os.path.join(d, "results.csv"), index=False)
            with contextlib.redirect_stdout(io.StringIO()) as said:
                p.report(d)
            self.assertNotIn("class='notice'", open(os.path.join(d, "report", "report.html")).read())

    def test_facet_by_any_column(self):
        panels = p.facets(self.df, "dataset")  # a workload column: the workloads' own panels
        self.assertEqual([label for label, _ in panels], ["squeezenet1_1 3x21x21 mnist", "vgg11 3x32x32 cifar10"])
        panels = p.facets(self.df.assign(peers=[4, 8, 4]), "peers")  # each workload split by the column
        self.assertEqual([label for label, _ in panels], ["squeezenet1_1 3x21x21 mnist, 4 peers",
                                                          "vgg11 3x32x32 cifar10, 4 peers", "vgg11 3x32x32 cifar10, 8 peers"])
        with self.assertRaisesRegex(p.ResultsError, "no column 'nope'"):
            p.facets(self.df, "nope")

    def test_rows_without_a_facet_value_keep_their_own_panel(self):
        # An all-empty column was a ZeroDivisionError in `report --facet`, then silently no panel at all.
        panels = p.facets(self.df.assign(note=float("nan")), "note")
        self.assertEqual(sum(len(rows) for _, rows in panels), len(self.df))
        self.assertTrue(all(label.endswith("no note") for label, _ in panels))
        panels = p.facets(self.df.assign(note=["a", None, None]), "note")
        self.assertEqual(sum(len(rows) for _, rows in panels), len(self.df))


class Timeline(unittest.TestCase):
    trace = pd.DataFrame([
        ("s", 0, 0, -1, "compute", 0.0, 1.0),
        ("s", 1, 0, -1, "compute", 0.0, 2.0),
        ("s", 0, 0, 0, "cold_start", 0.5, 1.5),
        ("s", -1, 0, 3, "reduce", 2.0, 2.5),
        ("s", 0, 1, -1, "compute", 3.0, 4.0),
    ], columns=["system", "peer", "iteration", "invocation", "phase", "start_s", "end_s"])

    def test_rows_each_peer_with_its_functions_then_the_shared_ones_by_role(self):
        rows = p2psim_timeline.rows_of(self.trace, "serverless_tree")
        self.assertEqual(rows, [("peer 0", 0, [-1]), ("\u21b3 1 function", 0, [0]), ("peer 1", 1, [-1]),
                                ("aggregator 3", -1, [3])])
        self.assertEqual(p2psim_timeline.row_label(-1, 1, "parameter_server"), "server 1")
        self.assertEqual(p2psim_timeline.row_label(2, -1, "lambdaml"), "worker 2")
        self.assertEqual(p2psim_timeline.row_label(2, -1, p2psim_timeline.strategy_of("lml")), "worker 2")
        self.assertEqual(list(p2psim_timeline.iteration_starts(self.trace)), [0.0, 3.0])

    def test_peers_of_several_groups_are_named_with_their_group(self):
        groups = p2psim_timeline.group_names([{"name": "t3.medium", "count": 1}, {"name": "fast", "count": 1}])
        self.assertEqual(groups, {0: "t3.medium", 1: "fast"})
        rows = p2psim_timeline.rows_of(self.trace, "serverless_tree", groups)
        self.assertEqual([label for label, _, _ in rows],
                         ["peer 0 · t3.medium", "↳ 1 function", "peer 1 · fast", "aggregator 3"])
        self.assertEqual(p2psim_timeline.group_names([]), {})

    def test_every_function_row_of_the_shipped_run_is_drawn(self):
        trace = p2psim_timeline.load_trace(os.path.join(HERE, "example_run", "trace.csv"))
        serverless = trace[trace["system"] == "serverless"]
        rows = p2psim_timeline.rows_of(serverless, "p2p_all_to_all")
        lanes = sum(len(invocations) for _, _, invocations in rows)
        self.assertEqual(lanes, len(serverless[["peer", "invocation"]].drop_duplicates()))  # 4 peers, 52 functions
        self.assertEqual([label for label, _, _ in rows][:2], ["peer 0", "\u21b3 13 functions"])

    def test_phase_totals_keep_the_peers_rows_apart_from_their_functions(self):
        # compute: peers 0 and 1, 1 + 2 s; no invocation computes. cold_start: peer 0's invocation 0, 1 s; reduce:
        # the aggregator (peer -1, a function of its own row), 0.5 s, counted with the participants' own rows.
        fig = p2psim_timeline.fig_timeline(self.trace, "s", "serverless_tree", "screen")
        totals = next(ax for ax in fig.axes if ax.get_title().startswith("summed"))
        widths = {}
        for bar in totals.patches:
            phase = totals.get_yticklabels()[round(bar.get_y() + bar.get_height() / 2)].get_text()
            widths[(phase, bool(bar.get_hatch()))] = widths.get((phase, bool(bar.get_hatch())), 0) + bar.get_width()
        self.assertEqual(widths[("compute", False)], 4.0)  # peers 0 and 1 over both iterations: 1 + 2 + 1
        self.assertEqual(widths[("compute", True)], 0.0)
        self.assertEqual(widths[("cold start", True)], 1.0)
        self.assertEqual(widths[("reduce", False)], 0.5)
        self.assertIn("hatched:\ninvocations", totals.get_title())
        matplotlib.pyplot.close(fig)

    def test_chrome_trace_is_complete_events_in_microseconds(self):
        events = p2psim_timeline.chrome_trace(self.trace)["traceEvents"]
        spans = [e for e in events if e["ph"] == "X"]
        self.assertEqual(len(spans), 5)
        second = next(e for e in spans if e["name"] == "compute" and e["dur"] == 2e6)
        self.assertEqual(second["ts"], 0.0)
        names = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
        self.assertEqual(names, {"peer 0", "peer 1", "peer 0 function 0", "shared 3"})  # "s": no known design


class PublicationOutput(unittest.TestCase):
    def test_pdf_embeds_its_fonts_and_sizes_follow_the_column(self):
        df = table([("a", "ring", 2, 1024, 1, 100, 0.1), ("b", "ring", 4, 1024, 1, 50, 0.2)])
        fig = p.fig_time_vs_cost(df, size="one-column")
        self.assertAlmostEqual(fig.get_size_inches()[0], 3.5)
        with tempfile.TemporaryDirectory() as d:
            p.save_figure(fig, d, "f", ("pdf", "svg"))
            pdf = open(os.path.join(d, "f.pdf"), "rb").read()
            self.assertIn(b"/FontFile2", pdf)  # TrueType embedded, not referenced
            self.assertTrue(os.path.getsize(os.path.join(d, "f.svg")) > 1000)

    def test_the_same_figure_gives_the_same_files_at_print_resolution(self):
        from PIL import Image
        df = table([("a", "ring", 2, 1024, 1, 100, 0.1), ("b", "ring", 4, 1024, 1, 50, 0.2)])
        files = []
        with tempfile.TemporaryDirectory() as d:
            for name in ("one", "two"):
                p.save_figure(p.fig_time_vs_cost(df, size="one-column"), d, name, ("png", "pdf", "svg"), "provenance")
                files.append([open(os.path.join(d, f"{name}.{fmt}"), "rb").read() for fmt in ("png", "pdf", "svg")])
            self.assertEqual(files[0], files[1])  # no creation date, no random ids
            png = Image.open(os.path.join(d, "one.png"))
            self.assertAlmostEqual(png.info["dpi"][0], 300, delta=0.5)
            self.assertEqual(png.size[0], 1050)  # 3.5 in at 300 dpi
            self.assertEqual(png.info["Description"], "provenance")


class Loading(unittest.TestCase):
    def test_missing_and_bad_tables_are_clear_errors(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(p.ResultsError, "no results.csv or result.csv"):
                p.load_results(d)
            with open(os.path.join(d, "results.csv"), "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(p.ResultsError, "missing column"):
                p.load_results(d)
            header = "system,total_s,total_usd,status\n"
            for body, message in (("ring,abc,0.1,ok\n", "row 2: total_s is not a number"),
                                  ("ring,10,0.1,ok\nring,20\n", "row 3: 2 fields where the header has 4"),
                                  # Cut after the numbers: pandas would fill the rest in silently.
                                  ("ring,10,0.1\n", "row 2: 3 fields where the header has 4"),
                                  ("ring,-1,0.1,ok\n", "row 2: total_s is not a number >= 0"),
                                  # Only an infeasible row's time may be empty (its times mean nothing), not its cost.
                                  ("ring,,0.1,ok\n", "row 2: total_s is not a number >= 0"),
                                  ("ring,,,infeasible\n", "row 2: total_usd is not a number >= 0"),
                                  ("", "holds no result row")):
                with open(os.path.join(d, "results.csv"), "w") as f:
                    f.write(header + body)
                with self.assertRaisesRegex(p.ResultsError, message):
                    p.load_results(d)
            with open(os.path.join(d, "results.csv"), "w") as f:
                f.write(header + "ring,10,0.1,ok\ntree,,0.05,infeasible\n")
            self.assertEqual(len(p.load_results(d)), 2)
            with open(os.path.join(d, "results.csv"), "w") as f:
                f.write("system,total_s,total_s,total_usd\nring,1,1,1\n")
            with self.assertRaisesRegex(p.ResultsError, "column total_s appears twice"):
                p.load_results(d)

    def test_only_infeasible_rows_recommend_nothing_and_say_so(self):
        import contextlib
        import io
        df = table([("a", "ring", 2, 1024, 1, 100, 0.1)]).assign(status="infeasible")
        with tempfile.TemporaryDirectory() as d:
            df.to_csv(os.path.join(d, "results.csv"), index=False)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(p.recommend_command(d, 1000, None, 3), 3)
            self.assertIn("no configuration is feasible", out.getvalue())

    def test_an_unwritable_report_folder_is_a_clear_error(self):
        df = table([("a", "ring", 2, 1024, 1, 100, 0.1)])
        with tempfile.TemporaryDirectory() as d:
            df.to_csv(os.path.join(d, "results.csv"), index=False)
            open(os.path.join(d, "report"), "w").close()  # a file where the folder should go (root or not)
            with self.assertRaisesRegex(p.ResultsError, "cannot write the report there"):
                p.report(d)


class ValidationFigure(unittest.TestCase):
    ROWS = [("a", "t", "validation", "sharded", "time", "s", 10.0, 12.0, 20.0, 20.0),
            ("b", "t", "calibration", "tree", "time", "s", 2.0, 2.0, 0.0, 0.0),
            ("c", "k", "validation", "sharded", "cost", "USD", 0.01, 0.009, -10.0, -10.0)]

    def write(self, d, rows, columns=p2psim_validation.COLUMNS):
        pd.DataFrame(rows, columns=columns).to_csv(os.path.join(d, "validation.csv"), index=False)

    def test_one_point_per_metric_in_its_panel(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, self.ROWS)
            fig = p2psim_validation.fig_validation(p2psim_validation.load_validation(d))
            time_ax, cost_ax = fig.axes[:2]  # then the legend's own axes
            self.assertEqual(sum(len(c.get_offsets()) for c in time_ax.collections[2:]), 2)  # after the two bands
            self.assertEqual(sum(len(c.get_offsets()) for c in cost_ax.collections[2:]), 1)
            self.assertEqual(cost_ax.get_xscale(), "log")
            p2psim_validation.draw(d)
            self.assertTrue(os.path.getsize(os.path.join(d, "validation.png")) > 1000)
            self.assertTrue(os.path.getsize(os.path.join(d, "validation_errors.png")) > 1000)

    def test_a_panel_a_unit_so_that_a_rate_is_never_read_as_a_time(self):
        rate = ("d", "r", "validation", "storage", "throughput", "MB/s", 50.0, 40.0, -20.0, 25.0)
        with tempfile.TemporaryDirectory() as d:
            self.write(d, self.ROWS + [rate])
            fig = p2psim_validation.fig_validation(p2psim_validation.load_validation(d))
            panels = [ax for ax in fig.axes if ax.get_xlabel()]
            self.assertEqual([ax.get_xlabel() for ax in panels],
                             ["measured (s) (log)", "measured (MB/s) (log)", "measured (USD) (log)"])
            self.assertEqual([sum(len(c.get_offsets()) for c in ax.collections[2:]) for ax in panels], [2, 1, 1])
            self.assertTrue(panels[1].get_title().startswith("throughput: 1 validation metric"))

    def test_errors_figure_holds_every_band_whole(self):
        # A band reaching +290 % where the largest error is +110 %: the axis reaches it, and no cut goes unseen.
        banded = ("e", "m", "validation", "storage", "time", "s", 10.0, 21.0, 110.0, 110.0)
        with tempfile.TemporaryDirectory() as d:
            rows = pd.DataFrame([banded], columns=p2psim_validation.COLUMNS).assign(
                time_error_p10_percent=-40.0, time_error_p90_percent=290.0)
            rows.to_csv(os.path.join(d, "validation.csv"), index=False)
            time_ax = p2psim_validation.fig_validation_errors(p2psim_validation.load_validation(d)).axes[0]
            self.assertGreaterEqual(time_ax.get_xlim()[1], 290.0)
            self.assertLessEqual(time_ax.get_xlim()[0], -40.0)

    def test_errors_as_times_are_read_as_p2psim_wrote_them(self):
        # The conversion is p2psim's (tests/test_validation.cpp, by hand); the figure draws its columns.
        rows = pd.DataFrame({"time_error_percent": [100.0, -25.0], "time_error_p10_percent": [-20.0, np.nan],
                             "time_error_p90_percent": [150.0, np.nan]})
        error, low, high = p2psim_validation.time_errors(rows)
        self.assertEqual(list(error), [100.0, -25.0])
        self.assertEqual(low[0], -20.0)
        self.assertEqual(high[0], 150.0)
        self.assertTrue(np.isnan(low[1]) and np.isnan(high[1]))  # no band for that row: none drawn
        _, low, high = p2psim_validation.time_errors(rows.drop(columns=["time_error_p10_percent",
                                                                         "time_error_p90_percent"]))
        self.assertTrue(np.isnan(low).all() and np.isnan(high).all())  # no band in the table

    def test_errors_figure_a_row_per_design_calibration_left_out(self):
        rows = [(f"s{i}", "m", "validation", "storage", "time", "s", 10.0, 10.0 + i, 10.0 * i, 10.0 * i)
                for i in range(12)]
        rows += self.ROWS
        with tempfile.TemporaryDirectory() as d:
            self.write(d, rows)
            fig = p2psim_validation.fig_validation_errors(p2psim_validation.load_validation(d))
            time_ax, cost_ax = fig.axes
            labels = [t.get_text() for t in time_ax.get_yticklabels()]
            self.assertEqual(labels, ["sharded\n1 metric, median |error| 20 %",  # the calibration's tree: not drawn
                                      "storage\n12 metrics, median |error| 55 %"])
            points = [c for c in time_ax.collections if isinstance(c, matplotlib.collections.PathCollection)]
            self.assertEqual(sum(len(c.get_offsets()) for c in points), 13)
            self.assertEqual(time_ax.get_xscale(), "linear")
            centres = time_ax.get_yticks()
            self.assertGreater(centres[1] - centres[0], 0)  # top to bottom in the designs' order
            self.assertLessEqual(time_ax.get_xlim()[0], -30)  # at least +-30 %, so that the shaded bands show
            self.assertGreaterEqual(time_ax.get_xlim()[1], 110 + 8)  # and the largest error with room
            self.assertEqual(len(cost_ax.get_yticks()), 1)
            # No validation.json beside the table: no record drawn.
            self.assertIsNone(p2psim_validation.load_spread(d))
            dashed = lambda ax: sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_linestyle() == "--")
            self.assertEqual(dashed(time_ax), [])
            # With one, p2psim's record as two dashed lines on the time panel, the scale wide enough for both.
            with open(os.path.join(d, "validation.json"), "w") as f:
                f.write('{"summary": {"time": {"error_p10_percent": -22.4, "error_p90_percent": 140.0}}}')
            spread = p2psim_validation.load_spread(d)
            self.assertEqual(spread, (-22.4, 140.0))
            time_ax, cost_ax = p2psim_validation.fig_validation_errors(p2psim_validation.load_validation(d),
                                                                       spread=spread).axes
            self.assertEqual(dashed(time_ax), [-22.4, 140.0])
            self.assertEqual(dashed(cost_ax), [])  # a cost is banded by time errors only in the summary
            self.assertGreaterEqual(time_ax.get_xlim()[1], 140 + 8)
            self.assertIn("dashed: p10 and p90", time_ax.get_title())
            with open(os.path.join(d, "validation.json"), "w") as f:  # written before p2psim kept a record
                f.write('{"summary": {"time": {"metrics": 3}}}')
            self.assertIsNone(p2psim_validation.load_spread(d))
            with open(os.path.join(d, "validation.json"), "w") as f:
                f.write('{"summary": ')
            with self.assertRaisesRegex(p2psim_validation.ValidationError, "validation.json: cannot read"):
                p2psim_validation.load_spread(d)
            for time in ('null', '[1, 2]', '{"error_p10_percent": "93.4x", "error_p90_percent": 140}',
                         '{"error_p10_percent": -22.4}', '{"error_p10_percent": 50, "error_p90_percent": 40}',
                         '{"error_p10_percent": -120, "error_p90_percent": 40}'):
                with open(os.path.join(d, "validation.json"), "w") as f:
                    f.write('{"summary": {"time": %s}}' % time)
                with self.assertRaisesRegex(p2psim_validation.ValidationError, "validation.json", msg=time):
                    p2psim_validation.load_spread(d)

    def test_a_malformed_table_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, [r[:6] for r in self.ROWS], p2psim_validation.COLUMNS[:6])
            with self.assertRaisesRegex(p2psim_validation.ValidationError, "missing columns measured"):
                p2psim_validation.load_validation(d)
            self.write(d, [self.ROWS[0][:6] + (-1.0, 1.0, 0.0, 0.0)])
            with self.assertRaisesRegex(p2psim_validation.ValidationError, "positive numbers"):
                p2psim_validation.load_validation(d)
            with open(os.path.join(d, "validation.csv"), "w") as f:
                f.write(",".join(p2psim_validation.COLUMNS) + "\na,t,validation,sharded,time,s,10\n")
            with self.assertRaisesRegex(p2psim_validation.ValidationError, "row 2: a value is missing"):
                p2psim_validation.load_validation(d)


class RecommendCommand(unittest.TestCase):
    """`recommend` as a user meets it: per workload, runners-up that are alternatives, clear refusals."""

    def run_command(self, df, *args, **kwargs):
        import contextlib
        import io
        out, err = io.StringIO(), io.StringIO()
        with tempfile.TemporaryDirectory() as d:
            df.to_csv(os.path.join(d, "results.csv"), index=False)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = p.recommend_command(d, *args, **kwargs)
        return code, out.getvalue(), err.getvalue()

    def test_runners_up_are_never_the_same_or_worse_in_time_and_cost(self):
        df = table([("a", "serverless", 4, 1024, 1, 100, 0.10),
                    ("b", "serverless", 4, 2048, 1, 100, 0.12),  # same time, dearer: dominated by a
                    ("c", "serverless", 8, 1024, 1, 120, 0.15),  # slower and dearer than a
                    ("d", "serverless", 8, 2048, 1, 80, 0.20)])  # faster: an alternative
        best, others, _ = p.recommend(df, deadline_s=200)
        self.assertEqual(best["scenario_id"], "a")
        self.assertEqual(list(others["scenario_id"]), ["d"])

    def test_the_answer_says_how_far_its_designs_have_been_from_measured_runs(self):
        df = table([("a", "sharded", 4, 1024, 1, 100, 0.10), ("b", "peer", 4, 1024, 1, 80, 0.20)]).assign(
            strategy=["serverless_sharded", "p2p_all_to_all"])
        code, out, _ = self.run_command(df, 200, None)
        self.assertEqual(code, 0)
        # The shipped record (validation/accuracy_by_design.csv), read independently here.
        recorded = pd.read_csv(p2psim_validation.ACCURACY_BY_DESIGN)
        sharded = recorded[(recorded["design"] == "serverless_sharded") & (recorded["kind"] == "time")].iloc[0]
        self.assertIn(f"  serverless_sharded: time: {sharded['metrics']} metrics, median |error| "
                      f"{sharded['median_abs_error_percent']:.1f} % (worst {sharded['worst_abs_error_percent']:.1f} %), "
                      f"faster than measured in {sharded['predicted_faster']} of {sharded['metrics']}; cost: ", out)
        self.assertIn("  p2p_all_to_all: no measured run among the validation cases\n", out)
        # With the mechanisms its runs used, each under it, measured alone or not (the shipped record).
        df = df.assign(mechanisms=["function_compute", "workflow;broker"])
        code, out, _ = self.run_command(df, 200, None)
        workflow = recorded[(recorded["design"] == "workflow") & (recorded["kind"] == "time")].iloc[0]
        self.assertIn("  p2p_all_to_all: no measured run among the validation cases\n"
                      f"    the workflow service (start, fan-out) (workflow): time: {workflow['metrics']} metrics, "
                      f"median |error| {workflow['median_abs_error_percent']:.1f} % (worst "
                      f"{workflow['worst_abs_error_percent']:.1f} %), faster than measured in "
                      f"{workflow['predicted_faster']} of {workflow['metrics']}\n"
                      "    the message broker (broker): no validation case measures it\n", out)
        self.assertLess(out.index("cheapest within the deadline"), out.index("how far these designs"))
        # The answer's band by the shipped record: a's 100 s, the record's p90 and p10 as time errors.
        every = recorded[(recorded["design"] == "every_design") & (recorded["kind"] == "time")].iloc[0]
        short, long = 100 / (1 + every["error_p90_percent"] / 100), 100 / (1 + every["error_p10_percent"] / 100)
        self.assertIn(f"by p2psim's record a real run of the answer could take {short:.1f} to {long:.1f} s; the "
                      "deadline of 200 s holds at its long end", out)
        deadline = (100 + long) / 2  # a's 100 s meets it, its band's long end does not
        code, out, _ = self.run_command(df, deadline, None)
        self.assertIn(f"to {long:.1f} s; its long end is past the deadline of {deadline:g} s", out)
        # With a budget, what the long end would cost were the cost to grow with the time: b (80 s, 0.20 USD) is the
        # fastest within 0.25 USD; its long end costs 0.20 x long(80) / 80, within 0.25 USD or over 0.21.
        long_usd = 0.20 * (80 / (1 + every["error_p10_percent"] / 100)) / 80
        self.assertGreater(long_usd, 0.21)  # the shipped record's p10 is below 0: a real run may take longer
        for budget, verdict in ((max(0.25, long_usd + 0.01), "within"), (0.21, "over")):
            code, out, _ = self.run_command(df, None, budget)
            self.assertEqual(code, 0)
            self.assertIn(f"were its cost to grow with its time, the long end would cost {long_usd:.4g} USD, {verdict} "
                          f"the budget of {budget:g} USD", out)
        # Designs none of which was measured: each said so, no empty columns.
        self.assertEqual(list(p2psim_validation.design_accuracy(["x", "y"])["measured"]),
                         ["no measured run among the validation cases"] * 2)

    def test_exit_3_only_when_no_workload_has_an_answer(self):
        df = LikeWithLike.df
        code, out, _ = self.run_command(df, 50, None)  # squeezenet's 10 s fits, vgg11's 100 s does not
        self.assertEqual(code, 0)
        self.assertIn("no configuration meets the deadline of 50 s", out)
        self.assertIn("(scenario c)", out)
        self.assertEqual(self.run_command(df, 5, None)[0], 3)

    def test_the_best_reached_accuracy_when_none_reaches_the_target(self):
        df = TimeToAccuracy.df.assign(final_test_accuracy=[0.8225, 0.69, 0.75])
        code, out, _ = self.run_command(df.assign(target_accuracy=0.85, time_to_target_s=None), 500, None,
                                        target_accuracy=0.85)
        self.assertEqual(code, 3)
        self.assertIn("no configuration reaches 0.85 test accuracy; the best reached 0.8225 (sync)", out)

    def test_a_warning_when_the_compared_rows_end_at_different_accuracies(self):
        df = TimeToAccuracy.df.assign(final_test_accuracy=[0.8225, 0.69, 0.75])
        code, _, err = self.run_command(df, 500, None)
        self.assertEqual(code, 0)
        self.assertIn("warning: these configurations end at different test accuracies (0.69 to 0.8225)", err)
        self.assertEqual(self.run_command(df.assign(final_test_accuracy=0.7), 500, None)[2], "")

    def test_meaningless_limits_exit_2_with_one_message(self):
        import contextlib
        import io
        with tempfile.TemporaryDirectory() as d:
            LikeWithLike.df.to_csv(os.path.join(d, "results.csv"), index=False)
            for args, message in ((["--deadline-s", "nan"], "--deadline-s nan: expected a finite number >= 0"),
                                  (["--budget-usd", "-1"], "--budget-usd -1: expected a finite number >= 0"),
                                  (["--deadline-s", "inf"], "--deadline-s inf: expected a finite number >= 0"),
                                  (["--budget-usd", "1e400"], "--budget-usd inf: expected a finite number >= 0"),
                                  (["--deadline-s", "9", "--target-accuracy", "0"], "in (0, 1]"),
                                  (["--deadline-s", "9", "--target-accuracy", "1.2"], "in (0, 1]"),
                                  (["--deadline-s", "9", "--runners-up", "-2"], "expected a count >= 0")):
                err = io.StringIO()
                with self.subTest(args=args), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(p.main(["recommend", d, *args]), 2)
                    self.assertIn(message, err.getvalue())
                    self.assertEqual(err.getvalue().count("\n"), 1)

    def test_labels_are_words_not_xpaths(self):
        df = table([("a", "serverless", 4, 1024, 1, 100, 0.1), ("b", "serverless", 8, 1024, 1, 90, 0.2)])
        df["workload/@batch_size"] = [64, 256]
        _, out, _ = self.run_command(df, 500, None)
        self.assertIn("serverless, 4 peers, batch 64", out)
        self.assertNotIn("@", out)


class TimeToAccuracy(unittest.TestCase):
    df = pd.DataFrame([
        ("a", "sync", 100.0, 1.0, 0.7, 40.0, 0.4),
        ("b", "async", 60.0, 0.8, 0.7, None, None),  # never reached the target: left out
        ("c", "topk", 90.0, 0.9, 0.7, 50.0, 0.3),
    ], columns=["scenario_id", "system", "total_s", "total_usd", "target_accuracy", "time_to_target_s",
                "cost_to_target_usd"])

    def test_recommend_weighs_time_and_cost_to_the_target(self):
        rows = p.to_target(self.df, 0.7)
        self.assertEqual(list(rows["scenario_id"]), ["a", "c"])
        best, _, _ = p.recommend(rows, deadline_s=45)  # only a reaches it within 45 s (c takes 50)
        self.assertEqual(best["scenario_id"], "a")
        best, _, _ = p.recommend(rows, deadline_s=60)  # both do: c is cheaper to the target
        self.assertEqual(best["scenario_id"], "c")

    def test_another_target_is_read_off_the_curves(self):
        curves = pd.DataFrame([
            ("a", "sync", 0, 10.0, 0.1, 0.5), ("a", "sync", 1, 20.0, 0.2, 0.85), ("a", "sync", 2, 30.0, 0.3, 0.9),
            ("b", "async", 0, 5.0, 0.05, 0.6), ("b", "async", 1, 9.0, 0.08, 0.7),  # never 0.8
            ("c", "topk", 0, 12.0, 0.1, None), ("c", "topk", 1, 24.0, 0.2, 0.81),
        ], columns=["scenario_id", "system", "iteration", "time_s", "cost_usd", "test_accuracy"])
        rows = p.to_target(self.df, 0.8, curves)
        self.assertEqual(list(rows["scenario_id"]), ["a", "c"])
        self.assertEqual(list(rows["total_s"]), [20.0, 24.0])  # the first evaluated iteration at or above 0.8
        self.assertEqual(list(rows["iterations_to_target"]), [2, 2])

    def test_another_target_or_no_accuracy_is_a_clear_error(self):
        with self.assertRaisesRegex(p.ResultsError, "replayed for target 0.7"):
            p.to_target(self.df, 0.8)
        with self.assertRaisesRegex(p.ResultsError, "hold no accuracy"):
            p.to_target(self.df.drop(columns=["time_to_target_s"]), 0.7)

    def test_curves_of_a_run_and_of_a_sweep_and_a_bad_table(self):
        import p2psim_accuracy as acc
        header = "system,iteration,time_s,cost_usd,train_loss,test_loss,test_accuracy,peers_evaluated\n"
        with tempfile.TemporaryDirectory() as d:
            self.assertIsNone(acc.load_curves(d))
            os.makedirs(os.path.join(d, "runs", "s1"))
            with open(os.path.join(d, "runs", "s1", "accuracy.csv"), "w") as f:
                f.write(header + "x,0,1.5,0.01,2.3,,,0\nx,1,3.0,0.02,2.1,2.0,0.4,4\n")
            with open(os.path.join(d, "runs", "s1", "scenario.json"), "w") as f:
                f.write('{"scenario_id": "s1", "axes": {"synchronization/@mode": "async"}}')
            curves = acc.load_curves(d)
            self.assertEqual(set(curves["curve"]), {"async: x"})
            fig = acc.fig_accuracy(curves, 0.7)
            self.assertEqual(len(fig.axes[0].lines), 2)  # the evaluated curve and the target line
            with open(os.path.join(d, "runs", "s1", "accuracy.csv"), "w") as f:
                f.write(header + "x,0,1.5\n")
            with self.assertRaisesRegex(acc.AccuracyError, "accuracy.csv"):
                acc.load_curves(d)


if __name__ == "__main__":
    unittest.main()
