"""p2psim_record on tables small enough to compute by hand."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import pandas as pd

import p2psim_record as record

HERE = os.path.dirname(os.path.abspath(__file__))


def table(rows):
    """Validation rows from (source, design, kind, measured, predicted); a rate's time error is the time to move the
    same bytes (measured / predicted - 1), as validate writes it."""
    df = pd.DataFrame(rows, columns=["source_group", "design", "kind", "measured", "predicted"])
    df["case"] = [f"case{i}" for i in range(len(df))]
    df["metric"] = "m"
    df["role"] = "validation"
    df["unit"] = "s"
    df["error_percent"] = 100.0 * (df["predicted"] / df["measured"] - 1)
    rate = df["kind"] == "throughput"
    df["time_error_percent"] = df["error_percent"].where(~rate, 100.0 * (df["measured"] / df["predicted"] - 1))
    return df


class SpreadTest(unittest.TestCase):
    # Five sources of one metric each, at 0.5, 0.8, 1, 1.25 and 2 times the measured time, and a second metric of the
    # last source at 2 times.
    ROWS = [("A", "d", "time", 1, 0.5), ("B", "d", "time", 1, 0.8), ("C", "d", "time", 1, 1.0),
            ("D", "d", "time", 1, 1.25), ("E", "d", "time", 1, 2.0), ("E", "d", "time", 1, 2.0)]

    def test_each_source_alike(self):
        # Weights 1, 1, 1, 1, 1/2, 1/2 over 5: positions 0.1, 0.3, 0.5, 0.7, 0.85, 0.95; the p10 is the first point,
        # the p90 lies between the two points at 2x.
        p10, p90 = record.spread(table(self.ROWS))
        self.assertAlmostEqual(p10, -50.0)
        self.assertAlmostEqual(p90, 100.0)

    def test_each_metric_alike(self):
        # Six points at 1/12, 3/12, ...: the p10 is a tenth of the way from ln 0.5 to ln 0.8.
        p10, p90 = record.spread(table(self.ROWS), "each metric alike")
        self.assertAlmostEqual(p10, 100.0 * (0.5 * 1.6 ** 0.1 - 1))
        self.assertAlmostEqual(p90, 100.0)

    def test_each_metric_one_over_the_root_of_its_sources(self):
        # A's three metrics at 0.5x, 0.8x and 1x weigh 1/sqrt 3 each, B's four at 2x 1/2 each: the first two points
        # sit at (w/2) / W and (3w/2) / W, w = 1/sqrt 3, W = sqrt 3 + 2, and the p10 between them.
        rows = table([("A", "d", "time", 1, 0.5), ("A", "d", "time", 1, 0.8), ("A", "d", "time", 1, 1.0)] +
                     [("B", "d", "time", 1, 2.0)] * 4)
        w, total = 1 / 3 ** 0.5, 3 ** 0.5 + 2
        first, second = (w / 2) / total, (3 * w / 2) / total
        p10, p90 = record.spread(rows, "each metric 1 / sqrt(its source's metrics)")
        self.assertAlmostEqual(p10, 100.0 * (0.5 * 1.6 ** ((0.1 - first) / (second - first)) - 1))
        self.assertAlmostEqual(p90, 100.0)
        # Each metric alike: points at 1/14, 3/14, ...: a fifth of the way.
        self.assertAlmostEqual(record.spread(rows, "each metric alike")[0], 100.0 * (0.5 * 1.6 ** 0.2 - 1))

    def test_a_tie_is_ordered_by_weight_whatever_the_rows_order(self):
        # B at 0 and +50 % (weight 1/2 each), A at 0 (weight 1), C at -40 % (1): the two zeros are tied.
        rows = [("B", "d", "time", 1, 1.0), ("B", "d", "time", 1, 1.5), ("A", "d", "time", 1, 1.0),
                ("C", "d", "time", 1, 0.6)]
        first = record.spread(table(rows))
        self.assertEqual(record.spread(table([rows[2], rows[0], rows[1], rows[3]])), first)
        # Sorted: C -40 (pos 1/6), B 0 (w 1/2: pos 1.25/3), A 0 (pos 2/3), B +50 (pos 2.75/3): the p90 lies
        # (0.9 - 2/3) / (2.75/3 - 2/3) = 0.93 of the way from ln 1 to ln 1.5.
        self.assertAlmostEqual(first[1], 100.0 * (1.5 ** ((0.9 - 2 / 3) / (2.75 / 3 - 2 / 3)) - 1))

    def test_a_rate_counts_as_the_time_to_move_its_bytes(self):
        # A rate predicted at twice the measured one is a time at half: -50 %.
        rows = table([("A", "d", "throughput", 100, 200), ("B", "d", "time", 1, 1.0)])
        self.assertEqual(record.spread(rows), (-50.0, 0.0))

    def test_no_band_from_one_source(self):
        self.assertIsNone(record.spread(table([("A", "d", "time", 1, 1.0), ("A", "d", "time", 1, 2.0)])))


class HeldOutTest(unittest.TestCase):
    # Three sources: A at 0 %, B at +10 %, C at +50 %, and C's cost at +5 %.
    ROWS = [("A", "d", "time", 1, 1.0), ("B", "d", "time", 1, 1.1), ("C", "d", "time", 1, 1.5),
            ("C", "d", "cost", 1, 1.05)]

    def test_each_source_by_the_others(self):
        # A against [+10, +50]: out; B against [0, +50]: in; C against [0, +10]: out; C's cost, +5: in.
        self.assertEqual(record.held_out(table(self.ROWS)), {"time": (1, 3), "cost": (1, 1)})

    def test_the_bands_ends_are_inside(self):
        rows = table(self.ROWS[:3] + [("D", "d", "time", 1, 1.5)])
        # C's and D's +50 against [0, +50]: at the end, inside; B's +10 inside; A's 0 against [+10, +50]: out.
        self.assertEqual(record.held_out(rows)["time"], (3, 4))

    def test_a_lab_held_out_whole(self):
        # A and B one lab: judged by C alone, one source, no band; C and its cost by [0, +10]: out, in.
        lab = {"A": "lab", "B": "lab", "C": "C"}
        self.assertEqual(record.held_out(table(self.ROWS), group_of=lab.get), {"time": (0, 1), "cost": (1, 1)})

    def test_within_a_design_where_two_other_sources_of_it_remain(self):
        # Design x: A 0 %, B +10 %, C +100 %; design y: D -50 %, E +200 %.
        rows = table([("A", "x", "time", 1, 1.0), ("B", "x", "time", 1, 1.1), ("C", "x", "time", 1, 2.0),
                      ("D", "y", "time", 1, 0.5), ("E", "y", "time", 1, 3.0)])
        # Across designs, A against B..E: [-50, +200] in; B in; C in; D against A, B, C, E: [0, +200]: out;
        # E against [-50, +100]: out.
        self.assertEqual(record.held_out(rows)["time"], (3, 5))
        # Within: A against B, C: [+10, +100] out; B against A, C: in; C against A, B: [0, +10] out; D and E have
        # one other source of y, so all the others: out, out.
        self.assertEqual(record.held_out(rows, within_design=True)["time"], (1, 5))


class FitTest(unittest.TestCase):
    SUMMARY = {"time": [["case0 m", "case1 m", "case2 m"]], "cost": [["case4 m", "case5 m"]]}

    def test_each_group_at_its_harmonic_mean(self):
        rows = table([("A", "d", "time", 10, 25), ("A", "d", "time", 30, 25), ("A", "d", "time", 20, 25),
                      ("B", "d", "time", 1, 1.1), ("C", "d", "cost", 1, 2.0), ("C", "d", "cost", 3, 2.0)])
        fit = record.fit_alike(rows, self.SUMMARY)
        # Time before: 150, 16.7, 25, 10 -> 20.8. At 2 / (1/10 + 1/30) = 15: 50, 50, 25 (the one between misses by
        # less), 10 -> 37.5: the worst miss is least, not the median.
        self.assertAlmostEqual(fit["time"][0], (100 * (1 - 25 / 30) + 25) / 2)
        self.assertAlmostEqual(fit["time"][1], (25 + 50) / 2)
        # Cost before: 100, 33.3 -> 66.7; at 1.5 both miss by 50.
        self.assertAlmostEqual(fit["cost"][0], (100 + 100 / 3) / 2)
        self.assertAlmostEqual(fit["cost"][1], 50.0)


class CommandLineTest(unittest.TestCase):
    def run_on(self, summary=None):
        """The script on a folder of two validation rows and this validation.json summary (no files: None)."""
        with tempfile.TemporaryDirectory() as folder:
            if summary is not None:
                table([("A", "d", "time", 1, 1.0), ("B", "d", "time", 1, 1.1)]).to_csv(
                    os.path.join(folder, "validation.csv"), index=False)
                with open(os.path.join(folder, "validation.json"), "w") as f:
                    json.dump({"summary": summary}, f)
            done = subprocess.run([sys.executable, os.path.join(HERE, "p2psim_record.py"), folder],
                                  capture_output=True, text=True)
        self.assertEqual((done.returncode, done.stderr.count("\n")), (2, 1), done.stderr)
        return done.stderr

    def test_a_folder_without_validation_files_is_exit_2(self):
        self.assertIn("validation.csv", self.run_on())

    def test_a_summary_without_its_groups_is_exit_2(self):
        self.assertIn("predicted_alike", self.run_on({"time": {}}))

    def test_a_group_naming_no_row_is_exit_2(self):
        self.assertIn("'gone m'", self.run_on({"time": {"predicted_alike": [{"metrics": ["case0 m", "gone m"]}]}}))


if __name__ == "__main__":
    unittest.main()
