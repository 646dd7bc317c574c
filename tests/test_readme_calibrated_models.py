"""The README's list of the models `run` can simulate at which input shapes is the shipped calibration's: the
(model, input_shape) pairs of its training-step samples (kernel train_step), which `run` refuses any other pair
by naming."""
import csv
import glob
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBERS = {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}


def calibrated_pairs():
    pairs = set()
    for path in glob.glob(os.path.join(ROOT, "calibration", "kernels", "*.csv")):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("kernel") == "train_step":
                    pairs.add((row["model"], row["input_shape"]))
    return pairs


def readme_pairs():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = " ".join(f.read().split())
    found = re.search(r"the shipped calibration has (\w+): (.*?) \(`run` names them", text)
    if not found:
        raise AssertionError("README.md: the sentence listing the calibrated models is gone")
    pairs = set()
    for models, shape in re.findall(r"((?:`\w+`(?:, | and )?)+) at (\d+x\d+x\d+)", found.group(2)):
        pairs |= {(m, shape) for m in re.findall(r"`(\w+)`", models)}  # "`a`, `b` and `c` at 3x32x32"
    return NUMBERS[found.group(1)], pairs


class ReadmeZoo(unittest.TestCase):
    def test_the_readme_lists_exactly_the_calibrated_pairs(self):
        count, listed = readme_pairs()
        self.assertEqual(listed, calibrated_pairs())
        self.assertEqual(count, len(listed))


if __name__ == "__main__":
    unittest.main()
