"""notebooks/p2psim_record.py computes p2psim's record as sim/results/error_spread.cpp does: on the validation the
regression guard just wrote, its held-out band of every validation metric and its record over all of them are
validate's own. The record's other weightings (docs/accuracy.md, "The record's band") rest on this.

Usage: test_record_matches_validate.py VALIDATE_OUT_DIR
"""
import csv
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "notebooks"))
import p2psim_record as record  # noqa: E402

OUT = None


class RecordMatchesValidateTest(unittest.TestCase):
    def setUp(self):
        self.rows, _ = record.load(OUT)
        self.times = record.time_rows(self.rows)

    def test_every_held_out_band_is_validates(self):
        # validate writes the bands and errors to three decimals: the recomputation from those agrees to 0.01.
        for _, row in self.rows.iterrows():
            others = self.times[self.times["source_group"] != row["source_group"]]
            p10, p90 = record.spread(others)
            self.assertAlmostEqual(p10, row["held_out_error_p10_percent"], delta=0.01, msg=row["case"])
            self.assertAlmostEqual(p90, row["held_out_error_p90_percent"], delta=0.01, msg=row["case"])

    def test_the_record_is_validates(self):
        with open(os.path.join(ROOT, "validation", "accuracy_by_design.csv"), newline="") as f:
            every = next(r for r in csv.DictReader(f) if (r["design"], r["kind"]) == ("every_design", "time"))
        p10, p90 = record.spread(self.times)
        self.assertAlmostEqual(p10, float(every["error_p10_percent"]), delta=0.051)
        self.assertAlmostEqual(p90, float(every["error_p90_percent"]), delta=0.051)
        inside = record.held_out(self.rows)["time"]
        self.assertEqual(inside, (int(every["held_out_inside_band"]), int(every["held_out_with_band"])))


if __name__ == "__main__":
    OUT = sys.argv.pop(1)
    unittest.main()
