"""step_functions_fan_out.py: only all-warm executions count, from their first branch's start; the fit recovers the
parameters that generated a fan-out; a repository without the commit exits 2; and the shipped profile's fan-out is the
shipped file's fit to all executions, its cap's spread the sizes' fits."""
import csv
import io
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "step_functions_fan_out.py")
sys.path.insert(0, HERE)

import step_functions_fan_out as fan_out  # noqa: E402


def artifact_csv(executions):
    """SeBS-Flow's rows: (request_id, [(start, is_cold)]) per execution, with a generate row the fit must skip."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["func", "start", "end", "is_cold", "container_id", "provider.request_id", "request_id"])
    for request, branches in executions:
        w.writerow(["generate", 99.0, 99.5, "False", "g", "x", request])
        for start, cold in reversed(branches):  # unsorted, as the files are
            w.writerow(["process", start, start + 1, str(cold), "c", "y", request])
    return out.getvalue()


class Executions(unittest.TestCase):
    def test_all_warm_executions_only_from_their_first_start(self):
        text = artifact_csv([("a", [(100.0, False), (100.5, False)]), ("b", [(200.0, True), (200.2, False)])])
        self.assertEqual(fan_out.warm_executions(text), [[0.0, 0.5]])

    def test_the_median_offset_of_each_index(self):
        self.assertEqual(fan_out.median_offsets([[0, 1, 3], [0, 2, 5], [0, 4, 4]]), [0, 2, 4])
        with self.assertRaisesRegex(ValueError, "different branch counts"):
            fan_out.median_offsets([[0, 1], [0, 1, 2]])


class Fit(unittest.TestCase):
    def test_the_model_by_hand(self):
        # Burst 2, intervals 0.1, 0.15, 0.2, then the cap 0.2: offsets 0, 0, 0.1, 0.25, 0.45, 0.65.
        got = fan_out.offsets(2, 0.1, 0.05, 0.2, 6)
        for a, b in zip(got, [0, 0, 0.1, 0.25, 0.45, 0.65]):
            self.assertAlmostEqual(a, b)

    def test_recovers_the_parameters_of_a_generated_fan_out(self):
        truth = (7, 0.05, 0.004, 0.12)
        burst, first, growth, cap, sse = fan_out.fit(fan_out.offsets(*truth, 40))
        self.assertEqual((burst, first, growth, cap), truth)
        self.assertAlmostEqual(sse, 0, places=12)


class CommandLine(unittest.TestCase):
    def test_a_repository_without_the_commit_is_exit_2(self):
        r = subprocess.run([sys.executable, SCRIPT, "--repo", "/nonexistent"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--repo /nonexistent", r.stderr)


class ShippedProfile(unittest.TestCase):
    def test_the_profile_holds_the_shipped_fit(self):
        with open(os.path.join(ROOT, "calibration", "kernels", "step_functions_fan_out.txt")) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        fit = next(r for r in rows if r["file"] == "all")
        sizes = [r for r in rows if r["file"] != "all"]
        with open(os.path.join(ROOT, "platforms", "aws_us_east_1.xml")) as f:
            element = re.search(r"<workflow_service([^>]*)/>", f.read()).group(1)
        attributes = dict(re.findall(r'(\w+)="([^"]*)"', element))
        self.assertEqual(int(attributes["parallel_burst_branches"]), int(fit["burst"]))
        for name, column in (("parallel_first_interval_s", "first_interval_s"),
                             ("parallel_interval_growth_s", "interval_growth_s"),
                             ("parallel_max_interval_s", "max_interval_s")):
            self.assertAlmostEqual(float(attributes[name]), float(fit[column]))
        caps = [float(r["max_interval_s"]) for r in sizes]
        self.assertAlmostEqual(float(attributes["parallel_max_interval_s_p10"]), min(caps))
        self.assertAlmostEqual(float(attributes["parallel_max_interval_s_p90"]), max(caps))
        # The sizes' other fits agree with the pooled one: no spread to give them.
        for column in ("burst", "first_interval_s", "interval_growth_s"):
            self.assertEqual({r[column] for r in sizes}, {fit[column]})


if __name__ == "__main__":
    unittest.main()
