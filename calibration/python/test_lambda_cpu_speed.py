"""calibration/python/lambda_cpu_speed.py on a small artifact built here, with expectations computed by hand."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lambda_cpu_speed.py")


def write_results(directory, kind, memory_mb, seconds, failed=()):
    """A SeBS perf-cost file holding one call per value of `seconds` (and failed calls, which must be ignored)."""
    calls = {}
    for i, s in enumerate(seconds):
        calls[f"{kind}{i}"] = {"stats": {"failure": False},
                               "output": {"result": {"measurement": {"compute_time": s * 1e6}}}}
    for i, s in enumerate(failed):
        calls[f"{kind}-failed{i}"] = {"stats": {"failure": True},
                                      "output": {"result": {"measurement": {"compute_time": s * 1e6}}}}
    with open(os.path.join(directory, f"{kind}_results_{memory_mb}-processed.json"), "w") as f:
        json.dump({"_invocations": {f"311_compression_python_{memory_mb}": calls}}, f)


class LambdaCpuSpeed(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results = self.tmp.name
        # One vCPU: 2,048 and 3,008 MB pool to 1.0 ... 2.0 s (11 calls, median 1.5, inclusive deciles 1.1 and 1.9).
        write_results(self.results, "cold", 2048, [1.0, 1.1, 1.2, 1.3, 1.4], failed=[50.0])
        write_results(self.results, "warm", 2048, [1.5])
        write_results(self.results, "cold", 3008, [1.6, 1.7])
        write_results(self.results, "warm", 3008, [1.8, 1.9, 2.0])
        # Below one vCPU: exactly the CPU share's slowdown at 1,024 MB, 10 % more at the others.
        for memory_mb in (256, 512, 1024, 1536):
            extra = 1.0 if memory_mb == 1024 else 1.1
            for kind in ("cold", "warm"):
                write_results(self.results, kind, memory_mb, [1.5 * 1769 / memory_mb * extra])
        self.local = os.path.join(self.tmp.name, "local.txt")
        with open(self.local, "w") as f:
            f.write("# a timing file\n0.6 0.0\nmedian 0.6000 s (p10 0.59, p90 0.61, 1 samples)\n")
        self.out = os.path.join(self.tmp.name, "out.txt")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *extra):
        return subprocess.run([sys.executable, SCRIPT, "--sebs-results", self.results, "--local", self.local,
                               "--out", self.out, *extra], capture_output=True, text=True)

    def test_factor_is_the_local_median_over_lambdas_with_lambdas_spread(self):
        done = self.run_script()
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = open(self.out).read().splitlines()
        self.assertIn("lambda one vCPU (2048 and 3008 MB, 11 calls): median 1.5000 s (p10 1.1000, p90 1.9000)", lines)
        # 0.6 / 1.5 = 0.4; p10 0.6 / 1.9 = 0.3158; p90 0.6 / 1.1 = 0.5455
        self.assertEqual(lines[-1], "cpu_scalar_speed_factor_x86 0.4000 (p10 0.3158, p90 0.5455)")
        self.assertIn("below one vCPU, 1024 MB: median 2.5913 s, x CPU share / one vCPU's = 1.000", lines)
        self.assertIn("below one vCPU, 512 MB: median 5.7009 s, x CPU share / one vCPU's = 1.100", lines)

    def test_an_import_ratio_scales_the_local_median_before_the_factor(self):
        ratio = os.path.join(self.tmp.name, "ratio.txt")
        with open(ratio, "w") as f:
            f.write("# a ratio file\nratio 0.9000\n")
        done = self.run_script("--import-ratio", ratio)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = open(self.out).read().splitlines()
        self.assertIn(f"calibration CPU: median 0.6000 s x 0.9000 (zipfile's import taken out: {ratio}) = 0.5400 s", lines)
        # 0.54 / 1.5 = 0.36; p10 0.54 / 1.9 = 0.2842; p90 0.54 / 1.1 = 0.4909
        self.assertEqual(lines[-1], "cpu_scalar_speed_factor_x86 0.3600 (p10 0.2842, p90 0.4909)")

    def test_a_ratio_file_without_its_ratio_line_or_above_1_is_refused(self):
        ratio = os.path.join(self.tmp.name, "ratio.txt")
        for text, word in (("0.9\n", "ratio R"), ("ratio 1.2\n", "outside")):
            with open(ratio, "w") as f:
                f.write(text)
            done = self.run_script("--import-ratio", ratio)
            self.assertEqual(done.returncode, 2)
            self.assertIn(word, done.stderr)
            self.assertFalse(os.path.exists(self.out))

    def test_a_missing_size_is_one_error_and_exit_2(self):
        os.remove(os.path.join(self.results, "warm_results_3008-processed.json"))
        done = self.run_script()
        self.assertEqual(done.returncode, 2)
        self.assertIn("warm_results_3008-processed.json", done.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_a_local_file_without_its_median_line_is_refused(self):
        with open(self.local, "w") as f:
            f.write("0.6 0.0\n")
        done = self.run_script()
        self.assertEqual(done.returncode, 2)
        self.assertIn("median", done.stderr)


class ShippedFiles(unittest.TestCase):
    """The shipped files that repeat a measured number agree with the file it comes from."""
    ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def test_the_zip_cases_stand_in_step_is_the_zip_kernels_median_here_without_zipfiles_import(self):
        with open(os.path.join(self.ROOT, "calibration/kernels/sebs_zip_compression.txt")) as f:
            median_s = float(f.read().splitlines()[-1].split()[1])
        with open(os.path.join(self.ROOT, "calibration/kernels/sebs_zip_lazy_import.txt")) as f:
            median_s = round(median_s * float(f.read().splitlines()[-1].split()[1]), 4)
        with open(os.path.join(self.ROOT, "validation/sebs/zip_stand_in_steps.csv")) as f:
            rows = f.read().splitlines()[1:]
        self.assertEqual(len(rows), 4)
        for row in rows:
            self.assertEqual(float(row.split(",")[-1]), median_s, row)


if __name__ == "__main__":
    unittest.main()
