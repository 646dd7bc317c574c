"""notebooks/p2psim_record.py computes p2psim's record as sim/results/error_spread.cpp does: on the validation the
regression guard just wrote, its held-out band of every validation metric and its record over all of them (each
source weighing alike) are validate's own. The record's other weightings (docs/accuracy.md, "The record's band")
rest on this; they differ from it only in a metric's weight.

Usage: test_record_matches_validate.py VALIDATE_OUT_DIR
"""
import json
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "notebooks"))
import p2psim_record as record  # noqa: E402

OUT = None
# validation.csv holds the time errors to three decimals; recomputed from those, a band agrees to well within this.
TOLERANCE_POINTS = 0.01


class RecordMatchesValidateTest(unittest.TestCase):
    def setUp(self):
        self.rows, _ = record.load(OUT)
        self.times = record.time_rows(self.rows)
        with open(os.path.join(OUT, "validation.json"), encoding="utf-8") as f:
            written = json.load(f)
        self.summary = written["summary"]["time"]
        self.bands = {(r["case"], r["metric"]): (r["held_out_error_p10_percent"], r["held_out_error_p90_percent"])
                      for r in written["rows"] if r["role"] == "validation"}

    def test_every_held_out_band_is_validates(self):
        for _, row in self.rows.iterrows():
            others = self.times[self.times["source_group"] != row["source_group"]]
            p10, p90 = record.spread(others)
            written = self.bands[(row["case"], row["metric"])]
            self.assertAlmostEqual(p10, written[0], delta=TOLERANCE_POINTS, msg=row["case"])
            self.assertAlmostEqual(p90, written[1], delta=TOLERANCE_POINTS, msg=row["case"])

    def test_the_record_is_validates(self):
        p10, p90 = record.spread(self.times)
        self.assertAlmostEqual(p10, self.summary["error_p10_percent"], delta=TOLERANCE_POINTS)
        self.assertAlmostEqual(p90, self.summary["error_p90_percent"], delta=TOLERANCE_POINTS)
        inside, banded = record.held_out(self.rows)["time"]
        self.assertEqual(banded, self.summary["held_out_with_band"])
        self.assertAlmostEqual(100.0 * inside / banded, self.summary["held_out_coverage_percent"])


if __name__ == "__main__":
    OUT = sys.argv.pop(1)
    unittest.main()
