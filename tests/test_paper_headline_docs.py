"""The modelled paper's headline as README.md and docs/accuracy.md quote it is validation/paper_headline.json's.

That file is what a sweep of the paper's configuration space gives today (tests/paper_headline_test.sh, a ctest test,
holds it to the model). Kept by hand, README's sentence had gone stale twice: on 2026-12-07 it still said 92 % at
3,008 MB and 1.15x, values of two calibration changes before. This test holds the numbers a reader sees to the file.
"""
import json
import os
import re
import unittest

from test_accuracy_tables import ROOT, SIGNED, cells, number, phrase, read, section

RECORD = os.path.join(ROOT, "validation", "paper_headline.json")
NAMES = {"mobilenet_v3_small": "MobileNetV3-small", "vgg11": "VGG-11", "squeezenet1_1": "SqueezeNet"}
GRADIENT, PAPER_TIMER = "gradient_improvement_vs_baseline_percent", "paper_gradient_improvement_vs_baseline_percent"
ROW_NAMES = {("serverless", GRADIENT): ("trainer (`model_fetch=\"storage\"`)", "p2psim's gradient"),
             ("prototype", GRADIENT): ("prototype (`model_fetch=\"none\"`)", "p2psim's gradient")}


def signed(value):
    return f"{value:+.1f}".replace("-", "\u2212")


def ratio(value):
    """A cost ratio as the prose rounds it: two decimals under 1, one from there."""
    return f"{value:.2f}x" if value < 1 else f"{value:.1f}x"


def first_number(pattern, text, where):
    match = re.search(pattern, text)
    if not match:
        raise AssertionError(f"{where}: no match for {pattern!r}")
    return [number(g) for g in match.groups()]


class PaperHeadlineDocsTest(unittest.TestCase):
    def setUp(self):
        with open(RECORD, encoding="utf-8") as f:
            self.record = json.load(f)
        self.readme = read(os.path.join(ROOT, "README.md"))
        self.accuracy = section(read(os.path.join(ROOT, "docs", "accuracy.md")), "## The modelled paper's headline")

    def entry(self, system, measure):
        return next(e for e in self.record["headline"] if e["system"] == system and e["measure"] == measure)

    def check_readme(self, text):
        paragraph = text[text.index("**The modelled paper's headline**"):]
        paragraph = paragraph[:paragraph.index("\n\n")]
        trainer = self.entry("serverless", GRADIENT)
        medians = self.record["medians_by_model"][f"serverless/{GRADIENT}"]
        self.assertEqual(first_number(rf"at most ({SIGNED}) %", paragraph, "README"), [trainer["largest"]])
        self.assertEqual(first_number(rf"at ({SIGNED})x the cost", paragraph, "README"),
                         [trainer["cost_ratio_at_largest"]])
        model, peers, kind, memory, batch = re.fullmatch(r"(\w+), (\d+) (\S+) peers, (\d+) MB, batch (\d+)",
                                                         trainer["where"]).groups()
        self.assertRegex(paragraph, phrase(f"({NAMES[model]} on {peers} {kind} peers, {int(memory):,} MB functions, "
                                           f"batch {int(batch):,},"))
        for model, value in medians.items():
            self.assertRegex(paragraph, phrase(f"{signed(value)} % ({NAMES[model]})"))
        self.assertRegex(paragraph, phrase(f"cost ratios of {ratio(self.record['cost_ratio_min'])} to "
                                           f"{ratio(self.record['cost_ratio_max'])}"))

    def check_accuracy_doc(self, text):
        rows = {tuple(cells(line)[:2]): cells(line) for line in text.splitlines() if line.startswith("| ")}
        for (system, measure), name in ROW_NAMES.items():
            e, row = self.entry(system, measure), rows[name]
            self.assertEqual(first_number(rf"^({SIGNED}) %", row[2], name), [e["largest"]])
            self.assertEqual(first_number(rf"^({SIGNED}) %", row[3], name), [e["median"]])
            self.assertEqual(first_number(rf"^({SIGNED})x", row[4], name), [e["largest_cost_ratio"]])
            self.assertEqual(first_number(rf"^({SIGNED})x", row[5], name), [e["median_cost_ratio"]])
            self.assertEqual(first_number(rf"^({SIGNED})x", row[6], name), [e["cost_ratio_at_largest"]])
        for system, name in (("serverless", "trainer"), ("prototype", "prototype")):  # the paper's timer's rows
            e, row = self.entry(system, PAPER_TIMER), rows[(name, "the paper's timer")]
            self.assertEqual(first_number(rf"^({SIGNED}) %", row[2], name), [e["largest"]])
            self.assertEqual(first_number(rf"^({SIGNED}) %", row[3], name), [e["median"]])
        medians = self.record["medians_by_model"]
        trainer = " ".join(f"{NAMES[m]} {signed(medians[f'serverless/{GRADIENT}'][m])} / "
                           f"{signed(medians[f'serverless/{PAPER_TIMER}'][m])} %," for m in NAMES)
        self.assertRegex(text, phrase(trainer.rstrip(",")))
        self.assertRegex(text, phrase(f"Cost ratios over the whole space run from {ratio(self.record['cost_ratio_min'])}"
                                      f" to {ratio(self.record['cost_ratio_max'])}."))

    def test_readme_quotes_the_record(self):
        self.check_readme(self.readme)

    def test_docs_accuracy_quotes_the_record(self):
        self.check_accuracy_doc(self.accuracy)

    def test_a_changed_number_fails(self):
        """Each check can fail: one number changed in a copy is caught."""
        trainer = self.entry("serverless", GRADIENT)
        squeezenet = self.record["medians_by_model"][f"serverless/{GRADIENT}"]["squeezenet1_1"]
        paper_timer = self.entry("serverless", PAPER_TIMER)
        for check, text, old in ((self.check_readme, self.readme, f"at most {trainer['largest']} %"),
                                 (self.check_readme, self.readme, f"at {trainer['cost_ratio_at_largest']}x the cost"),
                                 (self.check_readme, self.readme, "(VGG-11)"),
                                 (self.check_accuracy_doc, self.accuracy, f"| {trainer['largest']} % (Mobile"),
                                 (self.check_accuracy_doc, self.accuracy, f"SqueezeNet {signed(squeezenet)} /"),
                                 (self.check_accuracy_doc, self.accuracy,
                                  f"| the paper's timer | {paper_timer['largest']} % (the same)")):
            with self.subTest(old=old):
                self.assertIn(old, text)
                new = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), old, count=1) if re.search(r"\d", old) \
                    else old.replace("VGG-11", "VGG-16")
                with self.assertRaises(AssertionError):
                    check(text.replace(old, new, 1))


if __name__ == "__main__":
    unittest.main()
