"""p2psim_record on tables small enough to compute by hand."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import pandas as pd

import p2psim_record as record

HERE = os.path.dirname(os.path.abspath(__file__))


def table(rows):
    """Validation rows from (source, design, kind, measured, predicted); errors as validate writes them."""
    df = pd.DataFrame(rows, columns=["source_group", "design", "kind", "measured", "predicted"])
    df["case"] = [f"case{i}" for i in range(len(df))]
    df["metric"] = "m"
    df["role"] = "validation"
    df["error_percent"] = 100.0 * (df["predicted"] / df["measured"] - 1)
    df["time_error_percent"] = df["error_percent"]
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


class HeldOutTest(unittest.TestCase):
    # Three sources: A at 0 %, B at +10 %, C at +50 %, and C's cost at +5 %.
    ROWS = [("A", "d", "time", 1, 1.0), ("B", "d", "time", 1, 1.1), ("C", "d", "time", 1, 1.5),
            ("C", "d", "cost", 1, 1.05)]

    def test_each_source_by_the_others(self):
        # A against [+10, +50]: out; B against [0, +50]: in; C against [0, +10]: out; C's cost, +5: in.
        self.assertEqual(record.held_out(table(self.ROWS)), {"time": (1, 3), "cost": (1, 1)})

    def test_a_lab_held_out_whole(self):
        # A and B one lab: both are judged by C's +50 % alone (out); C and its cost by [0, +10]: out, in.
        lab = {"A": "lab", "B": "lab", "C": "C"}
        self.assertEqual(record.held_out(table(self.ROWS), group_of=lab.get), {"time": (0, 3), "cost": (1, 1)})


class FitTest(unittest.TestCase):
    def test_a_group_predicted_alike_meets_its_floor(self):
        rows = table([("A", "d", "time", 10, 15), ("A", "d", "time", 30, 15), ("B", "d", "time", 1, 1.1)])
        summary = {"time": {"predicted_alike": [{"metrics": ["case0 m", "case1 m"]}]}, "cost": {}}
        # Predicted at 15 = 2 / (1/10 + 1/30), the group already misses both by its floor, (30 - 10) / (30 + 10):
        # 50, 50, 10 before and after.
        self.assertEqual(record.fit_alike(rows, summary)["time"], (50.0, 50.0))
        rows = table([("A", "d", "time", 10, 25), ("A", "d", "time", 30, 25), ("B", "d", "time", 1, 1.1)])
        # Before: 150, 16.7, 10 -> 16.7; after: 50, 50, 10 -> 50.
        before, after = record.fit_alike(rows, summary)["time"]
        self.assertAlmostEqual(before, 100.0 * (1 - 25 / 30))
        self.assertAlmostEqual(after, 50.0)


class CommandLineTest(unittest.TestCase):
    def test_a_folder_without_validation_files_is_exit_2(self):
        with tempfile.TemporaryDirectory() as empty:
            done = subprocess.run([sys.executable, os.path.join(HERE, "p2psim_record.py"), empty],
                                  capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("validation.csv", done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1)

    def test_a_table_without_its_columns_is_exit_2(self):
        with tempfile.TemporaryDirectory() as folder:
            pd.DataFrame({"case": ["a"]}).to_csv(os.path.join(folder, "validation.csv"), index=False)
            with open(os.path.join(folder, "validation.json"), "w") as f:
                json.dump({"summary": {}}, f)
            done = subprocess.run([sys.executable, os.path.join(HERE, "p2psim_record.py"), folder],
                                  capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("missing columns", done.stderr)


if __name__ == "__main__":
    unittest.main()
