"""spare_cores_gzip.py: one size's rate is its one-thread gzip level 5 row; a family's median, p10 and p90 are over
its virtualised sizes (bare metal left out); the calibration CPU's score is the reference family's median at the
calibration clock; a repository without the commit exits 2; and the shipped profile's scalar scores are the shipped
file's medians."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "spare_cores_gzip.py")
sys.path.insert(0, HERE)

import spare_cores_gzip  # noqa: E402


def compression_stdout(gzip5_bytes_per_s):
    # As the inspector writes it: every compressor and level, one row a thread count.
    return json.dumps({"gzip": {"1": [{"threads": 1, "compress": 9e9}],
                                "5": [{"threads": 1, "compress": gzip5_bytes_per_s},
                                      {"threads": 2, "compress": 2 * gzip5_bytes_per_s}]},
                       "zstd": {"5": [{"threads": 1, "compress": 1.0}]}})


class Rates(unittest.TestCase):
    def test_the_one_thread_level_5_row(self):
        self.assertAlmostEqual(spare_cores_gzip.gzip5_rate_mb_per_s(compression_stdout(21.5e6)), 21.5)

    def test_two_one_thread_rows_are_an_error(self):
        text = json.dumps({"gzip": {"5": [{"threads": 1, "compress": 1}, {"threads": 1, "compress": 2}]}})
        with self.assertRaisesRegex(ValueError, "found 2"):
            spare_cores_gzip.gzip5_rate_mb_per_s(text)


class FromARepository(unittest.TestCase):
    """A repository laid out as sc-inspector-data, with rates chosen so that every number is easy by hand."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = self.tmp.name
        rates = {"m8a.large": 44.0, "c8a.large": 45.1, "r8a.xlarge": 45.1, "m8a.metal-24xl": 30.0,
                 "t2.micro": 20.0, "t2.large": 22.0, "t2.small": 21.0, "x9.large": 99.0}
        for t, rate in rates.items():
            d = os.path.join(self.repo, "data", "aws", t, "compression_text")
            os.makedirs(d)
            with open(os.path.join(d, "stdout"), "w") as f:
                f.write(compression_stdout(rate * 1e6))
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"start": "2024-06-10T04:44:46"}, f)
        os.makedirs(os.path.join(self.repo, "data", "aws", "t2.nano"))  # no compression_text: skipped
        with open(os.path.join(self.repo, "data", "aws", "t2.nano", "x"), "w") as f:
            f.write("")
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "data"]):
            subprocess.run(["git", "-C", self.repo, *args], check=True, env=env, capture_output=True)
        self.commit = subprocess.run(["git", "-C", self.repo, "rev-parse", "HEAD"], check=True, capture_output=True,
                                     text=True).stdout.strip()

    def tearDown(self):
        self.tmp.cleanup()

    def test_families_their_medians_and_the_factor(self):
        rows = spare_cores_gzip.read_types(self.repo, self.commit)
        self.assertEqual([r[0] for r in rows], ["c8a.large", "m8a.large", "r8a.xlarge", "t2.large", "t2.micro",
                                                "t2.small"])  # no metal, no unknown family, no missing file
        fams = spare_cores_gzip.summary(rows)
        self.assertEqual(fams["t2"][0], 21.0)
        self.assertAlmostEqual(fams["t2"][1], 20.2)  # p10 of 20, 21, 22: 20 + 0.2 x 1
        self.assertAlmostEqual(fams["t2"][2], 21.8)
        self.assertEqual(fams["epyc_9r45"][0], 45.1)
        text = spare_cores_gzip.report(rows, self.commit)
        # 45.1 x 4.46 / 4.51 = 44.6; t2's factor 21 / 44.6 = 0.4709.
        self.assertIn("= 44.60 MB/s (p10 42.70, p90 44.70 at 4.27 and 4.47 GHz)", text)
        self.assertIn("factor t2: 0.4709", text)
        self.assertIn("t2.micro,t2,2024-06-10,20.0000", text)

    def test_a_file_without_the_rate_is_named(self):
        path = os.path.join(self.repo, "data", "aws", "t2.small", "compression_text", "stdout")
        with open(path, "w") as f:
            json.dump({"gzip": {"1": []}}, f)
        subprocess.run(["git", "-C", self.repo, "commit", "-qam", "no level 5"], check=True, capture_output=True,
                       env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                                GIT_COMMITTER_EMAIL="t@t"))
        r = subprocess.run([sys.executable, SCRIPT, "--repo", self.repo, "--commit", "HEAD"], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("data/aws/t2.small/compression_text/stdout: gzip level 5, one thread: no field '5'", r.stderr)

    def test_a_repository_without_the_commit_exits_2(self):
        r = subprocess.run([sys.executable, SCRIPT, "--repo", self.repo, "--commit", "0" * 40],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--repo: %s holds no commit %s" % (self.repo, "0" * 40), r.stderr)


class ShippedProfile(unittest.TestCase):
    def test_the_profiles_scalar_scores_are_the_shipped_medians(self):
        with open(os.path.join(ROOT, "calibration", "kernels", "spare_cores_gzip.txt")) as f:
            text = f.read()
        median = {m.group(1): float(m.group(2)) for m in re.finditer(r"^family (\S+) .*?: median ([\d.]+) MB/s", text, re.M)}
        p10 = {m.group(1): float(m.group(2)) for m in re.finditer(r"^family (\S+) .*?, p10 ([\d.]+),", text, re.M)}
        p90 = {m.group(1): float(m.group(2)) for m in re.finditer(r"^family (\S+) .*?, p90 ([\d.]+),", text, re.M)}
        ref = re.search(r"^calibration CPU: .* = ([\d.]+) MB/s \(p10 ([\d.]+), p90 ([\d.]+)", text, re.M)
        cloud = ET.parse(os.path.join(ROOT, "platforms", "aws_us_east_1.xml")).getroot()
        r = cloud.find("cpu_reference")
        self.assertEqual([float(r.get(a)) for a in ("scalar_score", "scalar_score_p10", "scalar_score_p90")],
                         [float(ref.group(i)) for i in (1, 2, 3)])
        checked = 0
        for n in cloud.find("instance_types").findall("instance"):
            family = n.get("type").split(".")[0]
            with self.subTest(type=n.get("type")):
                self.assertEqual(float(n.get("cpu_scalar_score")), median[family])
                self.assertEqual(float(n.get("cpu_scalar_score_p10")), p10[family])
                self.assertEqual(float(n.get("cpu_scalar_score_p90")), p90[family])
                checked += 1
        self.assertGreaterEqual(checked, 10)
        fn = cloud.find("function_service")
        self.assertEqual([float(fn.get(a)) for a in ("cpu_scalar_score_arm", "cpu_scalar_score_arm_p10",
                                                       "cpu_scalar_score_arm_p90")],
                         [median["graviton2"], p10["graviton2"], p90["graviton2"]])


if __name__ == "__main__":
    unittest.main()
