"""Unit tests of the analysis layer on small hand-made tables (run: /usr/bin/python3 -m unittest)."""
import os
import tempfile
import unittest

import pandas as pd

import p2psim_plots as p


def table(rows):
    return pd.DataFrame(rows, columns=["scenario_id", "system", "peers", "function_memory_mb",
                                       "gradient_s_per_iteration", "total_s", "total_usd"])


class ParetoFront(unittest.TestCase):
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
        self.assertEqual(list(others["scenario_id"]), ["d", "a"])  # by cost

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


class Loading(unittest.TestCase):
    def test_missing_and_bad_tables_are_clear_errors(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(p.ResultsError, "no results.csv or result.csv"):
                p.load_results(d)
            with open(os.path.join(d, "results.csv"), "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaisesRegex(p.ResultsError, "missing column"):
                p.load_results(d)


if __name__ == "__main__":
    unittest.main()
