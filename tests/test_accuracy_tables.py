"""The accuracy numbers a reader sees first are the model's current ones.

README.md's "How accurate is it?" and docs/accuracy.md's summary quote p2psim's validation: the summary, the rows
by design, p2psim's record and the band `run` prints for the main job. They went stale before, by hand (a section
still quoted a median of two summaries earlier). `validate --check-recorded`, a ctest test, holds
validation/accuracy_by_design.csv to the current model; this test holds those tables and sentences to that file,
and the main job's band to it and the golden result of the main job. A change that moves the summary now fails
here until the documents say what the model does.
"""
import csv
import json
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORD = os.path.join(ROOT, "validation", "accuracy_by_design.csv")
MAIN_JOB_GOLDEN = os.path.join(ROOT, "tests", "golden", "paper_systems", "vgg11_cifar", "result.json")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def recorded_rows():
    """{(design, kind): row} of validation/accuracy_by_design.csv."""
    with open(RECORD, newline="", encoding="utf-8") as f:
        return {(r["design"], r["kind"]): r for r in csv.DictReader(f)}


def section(text, heading):
    """The text under a '## ' or '# ' heading, up to the next heading of level two."""
    start = text.index(heading)
    following = text.find("\n## ", start + len(heading))
    return text[start:] if following < 0 else text[start:following]


def number(text):
    """A number as the documents write it: a Unicode minus, thousands' commas."""
    return float(text.replace("\u2212", "-").replace(",", ""))


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def percent(cell):
    match = re.match(r"([\u2212+-]?[\d.]+) %", cell)
    if not match:
        raise AssertionError(f"'{cell}' is no percentage")
    return number(match.group(1))


def count_of(cell):
    match = re.fullmatch(r"(\d+) of (\d+)", cell)
    if not match:
        raise AssertionError(f"'{cell}' is no 'N of M'")
    return int(match.group(1)), int(match.group(2))


def as_recorded(value):
    return float(value) if value != "" else None


class SummaryTable:
    """'| time (s, MB/s) | 138 | 19.3 % | 173.9 % (...) | 33 of 138 | 102 of 138 |' and its cost row."""

    KINDS = {"time (s, MB/s)": "time", "cost (USD)": "cost"}

    @classmethod
    def rows(cls, text):
        found = {}
        for line in text.splitlines():
            if line.startswith("|") and cells(line)[0] in cls.KINDS:
                found[cls.KINDS[cells(line)[0]]] = cells(line)
        return found


class DesignTable:
    """'| `design`: what its cases measure | metrics | median | worst | faster | p10 to p90 (sources) | inside |
    held out |', a ', cost' after the name for a cost row."""

    ROW = re.compile(r"^\| `(\w+)`(, cost)?:")

    @classmethod
    def rows(cls, text):
        found = {}
        for line in text.splitlines():
            match = cls.ROW.match(line)
            if match:
                found[(match.group(1), "cost" if match.group(2) else "time")] = cells(line)
        return found


class AccuracyTablesTest(unittest.TestCase):
    def setUp(self):
        self.recorded = recorded_rows()
        self.readme = section(read(os.path.join(ROOT, "README.md")), "## How accurate is it?")
        self.accuracy_doc = section(read(os.path.join(ROOT, "docs", "accuracy.md")), "# How accurate is it?")

    def check_summary(self, text, where):
        rows = SummaryTable.rows(text)
        self.assertEqual(set(rows), {"time", "cost"}, f"{where}: the summary table's time and cost rows")
        for kind, row in rows.items():
            rec = self.recorded[("every_design", kind)]
            self.assertEqual(
                (int(row[1]), percent(row[2]), percent(row[3]), count_of(row[4]), count_of(row[5])),
                (int(rec["metrics"]), float(rec["median_abs_error_percent"]), float(rec["worst_abs_error_percent"]),
                 (int(rec["inside_band"]), int(rec["with_band"])),
                 (int(rec["held_out_inside_band"]), int(rec["held_out_with_band"]))),
                f"{where}: the summary's {kind} row against {RECORD}")

    def test_summary_tables_are_the_recorded_summary(self):
        self.check_summary(self.readme, "README.md")
        self.check_summary(self.accuracy_doc, "docs/accuracy.md")

    def check_design_rows(self, text, where):
        rows = DesignTable.rows(text)
        designs = {key for key in self.recorded if key[0] != "every_design"}
        self.assertEqual(set(rows), designs, f"{where}: the table by design has a row for each recorded design")
        for key, row in rows.items():
            rec = self.recorded[key]
            spread = re.fullmatch(r"(?:([\u2212+-][\d.]+) to ([\u2212+-][\d.]+) % )?\((\d+)\)", row[5])
            self.assertIsNotNone(spread, f"'{row[5]}' is no 'p10 to p90 % (sources)'")
            p10, p90 = (number(v) if v else None for v in spread.group(1, 2))
            self.assertEqual(
                (int(row[1]), percent(row[2]), percent(row[3]), count_of(row[4]), (p10, p90, int(spread.group(3))),
                 count_of(row[6]), count_of(row[7])),
                (int(rec["metrics"]), float(rec["median_abs_error_percent"]), float(rec["worst_abs_error_percent"]),
                 (int(rec["predicted_faster"]), int(rec["metrics"])),
                 (as_recorded(rec["error_p10_percent"]), as_recorded(rec["error_p90_percent"]), int(rec["sources"])),
                 (int(rec["inside_band"]), int(rec["with_band"])),
                 (int(rec["held_out_inside_band"]), int(rec["held_out_with_band"]))),
                f"{where}: the row of {key} against {RECORD}")

    def check_record_and_band(self, text):
        rec = self.recorded[("every_design", "time")]
        p10, p90 = float(rec["error_p10_percent"]), float(rec["error_p90_percent"])
        record = re.search(r"over the (\d+) time metrics, each source weighing alike, its errors run from\s+"
                           r"(\S+) % \(p10\) to\s+(\S+) % \(p90\)", text)
        self.assertIsNotNone(record, "README.md states p2psim's record")
        self.assertEqual((int(record.group(1)), number(record.group(2)), number(record.group(3))),
                         (int(rec["metrics"]), p10, p90), "README.md: the record")
        held_out = re.search(r"(\d+) times of (\d+)\s+\((\d+) %\)", text)
        self.assertIsNotNone(held_out, "README.md states the record's held-out coverage")
        inside, total = int(rec["held_out_inside_band"]), int(rec["held_out_with_band"])
        self.assertEqual(tuple(int(g) for g in held_out.groups()), (inside, total, round(100 * inside / total)),
                         "README.md: the record's held-out coverage")
        self.assertIn(f"from {rec['sources']} public sources", text)

        # What `run` prints for the main job: its prediction over one plus each end of the record.
        systems = json.loads(read(MAIN_JOB_GOLDEN))["systems"]
        for name, words in (("instance", "the instance baseline"), ("serverless", "the serverless peers")):
            predicted = systems[name]["total_s"]
            stated = re.search(words + r"\s+\*\*([\d,]+)\u2013([\d,]+) s\*\* \(predicted ([\d,]+) s\)", text)
            self.assertIsNotNone(stated, f"README.md states the main job's {name} band")
            self.assertEqual(tuple(int(number(g)) for g in stated.groups()),
                             (round(predicted / (1 + p90 / 100)), round(predicted / (1 + p10 / 100)),
                              round(predicted)), f"README.md: the main job's {name} band")

    def test_summary_tables_are_the_recorded_summary(self):
        self.check_summary(self.readme, "README.md")
        self.check_summary(self.accuracy_doc, "docs/accuracy.md")

    def test_every_design_row_is_the_recorded_one(self):
        self.check_design_rows(self.readme, "README.md")
        self.check_design_rows(section(read(os.path.join(ROOT, "docs", "accuracy.md")), "## By design"),
                               "docs/accuracy.md")

    def test_the_record_and_the_main_jobs_band(self):
        self.check_record_and_band(self.readme)

    def test_a_changed_number_fails(self):
        """Each check can fail: one number changed in a copy of the README is caught."""
        rec = self.recorded[("every_design", "time")]
        worst_row = self.recorded[("workflow", "time")]
        mutations = [
            (self.check_summary, f"| {rec['median_abs_error_percent']} % |", "| 99.9 % |"),
            (self.check_design_rows, f"| {worst_row['worst_abs_error_percent']} % |", "| 99.9 % |"),
            (self.check_record_and_band, "(predicted ", "(predicted 1"),
            (self.check_record_and_band, f"{rec['held_out_inside_band']} times of", "1 times of"),
        ]
        for check, old, new in mutations:
            self.assertIn(old, self.readme)
            changed = self.readme.replace(old, new, 1)
            args = (changed,) if check == self.check_record_and_band else (changed, "a changed README")
            with self.assertRaises(AssertionError, msg=f"{old!r} -> {new!r}"):
                check(*args)


if __name__ == "__main__":
    unittest.main()
