"""The accuracy numbers a reader sees first are the model's current ones.

README.md's "How accurate is it?" and docs/accuracy.md's summary quote p2psim's validation: the summary, the rows
by design, p2psim's record and the band `run` prints for the main job. Kept by hand, they went stale (a section
still quoted the record of 105 metrics when there were 138). `validate --check-recorded`, a ctest test, holds
validation/accuracy_by_design.csv to the current model; this test holds those tables and sentences to that file,
and the main job's band to it and the main job's golden result. A change that moves the summary fails here until
the documents say what the model does. A case's error quoted in the prose is held by test_quoted_case_errors.py
where it is marked; other numbers (a count by source) are not checked: docs/accuracy.md dates them.
"""
import csv
import json
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORD = os.path.join(ROOT, "validation", "accuracy_by_design.csv")
MAIN_JOB_GOLDEN = os.path.join(ROOT, "tests", "golden", "paper_systems", "vgg11_cifar", "result.json")

SIGNED = r"[\u2212+-]?[\d,]*\.?\d+"  # a number as the documents write it: a Unicode minus, thousands' commas


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def recorded_rows():
    """{(design, kind): row} of validation/accuracy_by_design.csv."""
    with open(RECORD, newline="", encoding="utf-8") as f:
        return {(r["design"], r["kind"]): r for r in csv.DictReader(f)}


def section(text, heading):
    """The text under a heading, up to the next heading of level two."""
    start = text.index(heading)
    following = text.find("\n## ", start + len(heading))
    return text[start:] if following < 0 else text[start:following]


def number(text):
    return float(text.replace("\u2212", "-").replace(",", ""))


def phrase(words):
    """A regular expression of words that a reflowed paragraph may break onto two lines."""
    return r"\s+".join(re.escape(w) for w in words.split())


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def percent(cell):
    match = re.match(rf"({SIGNED})\s*%", cell)
    if not match:
        raise AssertionError(f"'{cell}' is no percentage")
    return number(match.group(1))


def count(cell):
    if not re.fullmatch(r"[\d,]+", cell):
        raise AssertionError(f"'{cell}' is no count")
    return int(number(cell))


def count_of(cell):
    match = re.fullmatch(r"([\d,]+) of ([\d,]+)", cell)
    if not match:
        raise AssertionError(f"'{cell}' is no 'N of M'")
    return count(match.group(1)), count(match.group(2))


def spread(cell):
    """'−8.2 to +13.0 % (2)' -> (p10, p90, sources); '(1)' -> (None, None, 1)."""
    match = re.fullmatch(rf"(?:({SIGNED}) to ({SIGNED})\s*% )?\((\d+)\)", cell)
    if not match:
        raise AssertionError(f"'{cell}' is no 'p10 to p90 % (sources)'")
    p10, p90 = (number(v) if v else None for v in match.group(1, 2))
    return p10, p90, int(match.group(3))


def as_recorded(value):
    return float(value) if value != "" else None


def table_rows(text, key_of):
    """{key: cells} of the table lines key_of() names; a key twice is an error (a stale copy would hide)."""
    found = {}
    for line in text.splitlines():
        key = key_of(line) if line.startswith("|") else None
        if key is None:
            continue
        if key in found:
            raise AssertionError(f"two rows of {key}")
        found[key] = cells(line)
    return found


def summary_key(line):
    """'| time (s, MB/s) | 138 | ...' and '| cost (USD) | ...'."""
    return {"time (s, MB/s)": "time", "cost (USD)": "cost"}.get(cells(line)[0])


DESIGN_ROW = re.compile(r"^\| `(\w+)`(, cost)?:")


def design_key(line):
    """'| `design`: what its cases measure | ...', ', cost' after the name for a cost row."""
    match = DESIGN_ROW.match(line)
    return (match.group(1), "cost" if match.group(2) else "time") if match else None


class AccuracyTablesTest(unittest.TestCase):
    def setUp(self):
        self.recorded = recorded_rows()
        self.readme = section(read(os.path.join(ROOT, "README.md")), "## How accurate is it?")
        self.accuracy = read(os.path.join(ROOT, "docs", "accuracy.md"))
        self.accuracy_summary = section(self.accuracy, "# How accurate is it?")
        self.accuracy_by_design = section(self.accuracy, "## By design")

    def check_summary(self, text, where):
        rows = table_rows(text, summary_key)
        self.assertEqual(set(rows), {"time", "cost"}, f"{where}: the summary table's time and cost rows")
        for kind, row in rows.items():
            rec = self.recorded[("every_design", kind)]
            self.assertEqual(
                (count(row[1]), percent(row[2]), percent(row[3]), count_of(row[4]), count_of(row[5])),
                (int(rec["metrics"]), float(rec["median_abs_error_percent"]), float(rec["worst_abs_error_percent"]),
                 (int(rec["inside_band"]), int(rec["with_band"])),
                 (int(rec["held_out_inside_band"]), int(rec["held_out_with_band"]))),
                f"{where}: the summary's {kind} row against {RECORD}")

    def check_design_rows(self, text, where):
        rows = table_rows(text, design_key)
        designs = {key for key in self.recorded if key[0] != "every_design"}
        self.assertEqual(set(rows), designs, f"{where}: the table by design has a row for each recorded design")
        for key, row in rows.items():
            rec = self.recorded[key]
            self.assertEqual(
                (count(row[1]), percent(row[2]), percent(row[3]), count_of(row[4]), spread(row[5]),
                 count_of(row[6]), count_of(row[7])),
                (int(rec["metrics"]), float(rec["median_abs_error_percent"]), float(rec["worst_abs_error_percent"]),
                 (int(rec["predicted_faster"]), int(rec["metrics"])),
                 (as_recorded(rec["error_p10_percent"]), as_recorded(rec["error_p90_percent"]), int(rec["sources"])),
                 (int(rec["inside_band"]), int(rec["with_band"])),
                 (int(rec["held_out_inside_band"]), int(rec["held_out_with_band"]))),
                f"{where}: the row of {key} against {RECORD}")

    def assert_every(self, pattern, text, expected, where, what):
        """Every statement the pattern finds says the expected values, and there is at least one."""
        found = [tuple(number(g) for g in m.groups()) for m in re.finditer(pattern, text)]
        self.assertTrue(found, f"{where} states {what}")
        for values in found:
            self.assertEqual(values, tuple(float(e) for e in expected), f"{where}: {what}")

    def expected(self):
        """The record and the main job's band as run prints them: its prediction over one plus each end."""
        rec = self.recorded[("every_design", "time")]
        cost = self.recorded[("every_design", "cost")]
        p10, p90 = float(rec["error_p10_percent"]), float(rec["error_p90_percent"])
        systems = json.loads(read(MAIN_JOB_GOLDEN))["systems"]
        band = {name: (round(systems[name]["total_s"] / (1 + p90 / 100)),
                       round(systems[name]["total_s"] / (1 + p10 / 100)), round(systems[name]["total_s"]))
                for name in ("instance", "serverless")}
        inside, total = int(rec["held_out_inside_band"]), int(rec["held_out_with_band"])
        cost_inside, cost_total = int(cost["held_out_inside_band"]), int(cost["held_out_with_band"])
        return dict(metrics=int(rec["metrics"]), sources=int(rec["sources"]), p10=p10, p90=p90, band=band,
                    held_out=(inside, total, round(100 * inside / total)),
                    cost_held_out=(cost_inside, cost_total, round(100 * cost_inside / cost_total)))

    def check_record_and_band(self, text, where):
        """README.md's sentences of the record and the main job's band."""
        e = self.expected()
        self.assert_every(phrase("over the") + r"\s+(\d+)\s+" +
                          phrase("time metrics, each source weighing alike, its errors run from") +
                          rf"\s+({SIGNED})\s*%\s+\(p10\)\s+to\s+({SIGNED})\s*%\s+\(p90\)",
                          text, (e["metrics"], e["p10"], e["p90"]), where, "the record")
        self.assert_every(r"(\d+)\s+times\s+of\s+(\d+)\s+\((\d+)\s*%\)", text, e["held_out"], where,
                          "the record's held-out coverage")
        self.assert_every(r"from\s+(\d+)\s+public\s+sources", text, (e["sources"],), where, "the sources")
        for name, words in (("instance", "the instance baseline"), ("serverless", "the serverless peers")):
            self.assert_every(phrase(words) + r"\s+\*\*([\d,]+)\u2013([\d,]+)\s+s\*\*\s+\(predicted\s+([\d,]+)\s+s\)",
                              text, e["band"][name], where, f"the main job's {name} band")

    def check_accuracy_doc_record(self, text, where):
        """docs/accuracy.md's sentences of the same: its summary's and "The record's band"."""
        e = self.expected()
        self.assert_every(phrase("errors' p10 is") + rf"\s+({SIGNED})\s*%\s+" + phrase("and their p90") +
                          rf"\s+({SIGNED})\s*%", text, (e["p10"], e["p90"]), where, "the record in the summary")
        self.assert_every(phrase("other sources' errors: time") + r"\s+(\d+)\s*%,\s+cost\s+(\d+)\s*%", text,
                          (e["held_out"][2], e["cost_held_out"][2]), where, "the held-out shares in the summary")
        self.assert_every(phrase("Over the") + r"\s+(\d+)\s+" + phrase("time metrics of") + r"\s+(\d+)\s+" +
                          rf"sources:\s+\*\*p10\s+({SIGNED})\s*%,\s+p90\s+({SIGNED})\s*%\*\*", text,
                          (e["metrics"], e["sources"], e["p10"], e["p90"]), where, "the record in its section")
        self.assert_every(r"\*\*(\d+)\s+of\s+(\d+)\s+time\s+metrics\s+\((\d+)\s*%\)\*\*", text, e["held_out"], where,
                          "the held-out coverage in its section")
        self.assert_every(r"Cost:\s+\*\*(\d+)\s+of\s+(\d+)\s+\((\d+)\s*%\)\*\*", text, e["cost_held_out"], where,
                          "the cost's held-out coverage in its section")
        band = e["band"]
        self.assert_every(r"\*\*instance\s+([\d,]+)\u2013([\d,]+)\s+s\s+\(predicted\s+([\d,]+)\s+s\),\s+"
                          r"serverless\s+([\d,]+)\u2013([\d,]+)\s+s\s+\(([\d,]+)\s+s\)\*\*", text,
                          band["instance"] + band["serverless"], where, "the main job's band")

    def test_summary_tables_are_the_recorded_summary(self):
        self.check_summary(self.readme, "README.md")
        self.check_summary(self.accuracy_summary, "docs/accuracy.md")

    def test_every_design_row_is_the_recorded_one(self):
        self.check_design_rows(self.readme, "README.md")
        self.check_design_rows(self.accuracy_by_design, "docs/accuracy.md")

    def test_the_record_and_the_main_jobs_band(self):
        self.check_record_and_band(self.readme, "README.md")
        self.check_accuracy_doc_record(self.accuracy, "docs/accuracy.md")

    def test_a_reflowed_paragraph_still_passes(self):
        self.check_record_and_band(re.sub(r"(?<=\S) (?=\S)", "\n", self.readme), "README.md, one word a line")
        self.check_accuracy_doc_record(re.sub(r"(?<=\S) (?=\S)", "\n", self.accuracy),
                                       "docs/accuracy.md, one word a line")

    def test_a_changed_record_in_docs_accuracy_fails(self):
        e = self.expected()
        band = e["band"]["serverless"]

        def signed(value):
            return f"{value:+.1f}".replace("-", "\u2212")

        stated_band = f"{band[0]}\u2013{band[1]:,} s ({band[2]} s)**"
        for old, new in ((stated_band, stated_band.replace(f"{band[1]:,} s", f"{band[1] + 1:,} s")),
                         (f"**p10 {signed(e['p10'])} %, p90", f"**p10 {signed(e['p10'] + 1)} %, p90")):
            with self.subTest(old=old):
                self.assertIn(old, self.accuracy)
                with self.assertRaises(AssertionError):
                    self.check_accuracy_doc_record(self.accuracy.replace(old, new, 1), "a changed docs/accuracy.md")

    def test_a_changed_number_fails(self):
        """Each check can fail: one number changed in a copy of the README, or a row written twice, is caught."""
        rec = self.recorded[("every_design", "time")]
        workflow = self.recorded[("workflow", "time")]
        workflow_row = next(line for line in self.readme.splitlines() if line.startswith("| `workflow`:"))
        mutations = [
            (self.check_summary, f"| {rec['median_abs_error_percent']} % |", "| 99.9 % |"),
            (self.check_design_rows, f"| {workflow['worst_abs_error_percent']} % |", "| 99.9 % |"),
            (self.check_design_rows, workflow_row, workflow_row + "\n" + workflow_row),
            (self.check_record_and_band, "(predicted ", "(predicted 1"),
            (self.check_record_and_band, f"{rec['held_out_inside_band']} times of", "1 times of"),
            # a second, stale statement of the record after the right one
            (self.check_record_and_band, "## How accurate is it?",
             "## How accurate is it?\nover the 105 time metrics, each source weighing alike, its errors run from "
             "\u221222.4 % (p10) to +93.4 % (p90)"),
        ]
        for check, old, new in mutations:
            self.assertIn(old, self.readme)
            with self.assertRaises(AssertionError, msg=f"{old!r} -> {new!r}"):
                check(self.readme.replace(old, new, 1), "a changed README")


if __name__ == "__main__":
    unittest.main()
