"""mountpoint_s3_ttfb.py on a gh-pages history built here: every run once, cut at the 1-byte object's commit.

Each version of data.js keeps only its latest runs, so a run appears in several versions and some runs in one
only; the summary must count each run once, leave out the runs before the commit that made the object 1 byte, and
refuse a file it cannot read with exit code 2 and the revision's name.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mountpoint_s3_ttfb as tool  # noqa: E402

SCRIPT = os.path.join(HERE, "mountpoint_s3_ttfb.py")


def run_entry(commit, when, ms, unit="milliseconds"):
    date_ms = int(datetime.datetime.fromisoformat(when).replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
    return {"commit": {"id": commit}, "date": date_ms,
            "benches": [{"name": "some_other_benchmark", "value": 999.0, "unit": unit},
                        {"name": tool.METRIC, "value": ms, "unit": unit}]}


class History:
    """A repository whose gh-pages branch commits data.js once for each list of runs given."""

    def __init__(self, versions, raw_texts=()):
        self.dir = tempfile.TemporaryDirectory()
        self.path = self.dir.name
        self.git("init", "-q", "-b", "gh-pages")
        for runs in versions:
            self.commit("window.BENCHMARK_DATA = " + json.dumps({"entries": {"Latency": runs}}) + ";\n")
        for text in raw_texts:
            self.commit(text)

    def git(self, *args):
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        subprocess.run(["git", "-C", self.path, *args], check=True, capture_output=True, env=env)

    def commit(self, text):
        os.makedirs(os.path.join(self.path, os.path.dirname(tool.DATA_FILE)), exist_ok=True)
        with open(os.path.join(self.path, tool.DATA_FILE), "w") as f:
            f.write(text)
        self.git("add", tool.DATA_FILE)
        self.git("commit", "-q", "-m", "data")


OLD_5MB = run_entry("aaaa000", "2024-11-11T10:00:00", 45.0)
CUT = run_entry(tool.ONE_BYTE_OBJECT_COMMIT + "365e01", "2024-11-13T14:00:00", 30.0)
LATER = [run_entry("bbbb%03d" % i, "2025-0%d-01T12:00:00" % (i + 1), ms) for i, ms in enumerate([20.0, 22.0, 24.0])]


class MountpointTtfbTest(unittest.TestCase):
    def history(self, versions, raw_texts=()):
        made = History(versions, raw_texts)
        self.addCleanup(made.dir.cleanup)
        return made

    def test_every_run_counted_once_and_cut_at_the_one_byte_commit(self):
        # the second version repeats CUT and LATER[0], as the real file keeps a window of its latest runs
        history = self.history([[OLD_5MB, CUT, LATER[0]], [CUT, LATER[0], LATER[1], LATER[2]]])
        text = tool.report(history.path)
        summary = text.splitlines()[-1]
        # the runs of the 1-byte object: 30, 20, 22, 24 ms -> sorted 20, 22, 24, 30;
        # p10 = 20 + 0.3 x 2 = 20.6, median = (22 + 24) / 2 = 23, p90 = 24 + 0.7 x 6 = 28.2 (linear interpolation)
        self.assertEqual(summary, "1-byte object, 2024-11-13 to 2025-03-01: runs    4  p10  20.60  median  23.00  "
                                  "p90  28.20 ms")
        months = [" ".join(l.split()[:3]) for l in text.splitlines()[1:-1]]
        # the month of the cut is two lines: the 5 MB object's run before it, the 1-byte object's from it on
        self.assertEqual(months, ["2024-11 5 MB", "2024-11 1 B", "2025-01 1 B", "2025-02 1 B", "2025-03 1 B"])
        self.assertIn("runs    1", text.splitlines()[1])
        self.assertIn("runs    1", text.splitlines()[2])  # the cut's run, once though two versions hold it

    def test_a_value_in_another_unit_is_refused_with_exit_2(self):
        history = self.history([[CUT, run_entry("cccc", "2025-01-01T00:00:00", 0.02, unit="seconds")]])
        done = subprocess.run([sys.executable, SCRIPT, history.path], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("not milliseconds", done.stderr)
        self.assertIn("gh-pages", done.stderr)

    def test_a_file_that_is_not_the_benchmark_format_is_named(self):
        history = self.history([[CUT]], raw_texts=["window.BENCHMARK_DATA = {not json;\n"])
        done = subprocess.run([sys.executable, SCRIPT, history.path], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn(tool.DATA_FILE, done.stderr)
        self.assertIn("not github-action-benchmark's format", done.stderr)

    def test_a_date_that_is_no_number_is_refused_with_exit_2(self):
        bad = run_entry("dddd", "2025-01-01T00:00:00", 21.0)
        bad["date"] = "yesterday"
        history = self.history([[CUT, bad]])
        done = subprocess.run([sys.executable, SCRIPT, history.path], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("not github-action-benchmark's format", done.stderr)

    def test_a_history_without_the_cut_commit_is_refused(self):
        history = self.history([[OLD_5MB]])
        with self.assertRaises(tool.InputError) as caught:
            tool.report(history.path)
        self.assertIn(tool.ONE_BYTE_OBJECT_COMMIT, str(caught.exception))

    def test_a_directory_without_git_history_exits_2(self):
        with tempfile.TemporaryDirectory() as empty:
            done = subprocess.run([sys.executable, SCRIPT, empty], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("git log", done.stderr)


if __name__ == "__main__":
    unittest.main()
