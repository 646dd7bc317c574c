"""classifaas_gemm.py: bad options get exit code 2 naming the option before Node.js is looked for, a missing Node.js
gets its own message, and its timing file names the kernel in its columns and last line."""
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "classifaas_gemm.py")
sys.path.insert(0, HERE)

from bad_option_case import PairedToolOptions  # noqa: E402

import classifaas_gemm  # noqa: E402  (after the path: the script's folder is not a package)
import paired_stand_in  # noqa: E402


def zip_data_of_the_right_size(directory):
    with open(os.path.join(directory, "sparse.bin"), "wb") as f:
        f.truncate(10063841)  # the data's size, all the check reads


class Options(PairedToolOptions, unittest.TestCase):
    def run_script(self, path, *options):
        """Runs the script with PATH = `path`; returns the process. It writes no file."""
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run([sys.executable, SCRIPT, "--out", os.path.join(out, "t.txt"), *options],
                                    capture_output=True, text=True, timeout=60, env=dict(os.environ, PATH=path))
            self.assertFalse(os.path.exists(os.path.join(out, "t.txt")))
        return result

    def bad_option(self, *options):
        with tempfile.TemporaryDirectory() as no_node:  # found Node.js: the check came too late
            result = self.run_script(no_node, *options)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertNotIn("Node.js is missing", result.stderr)
        return result.stderr

    def test_missing_zip_data(self):
        self.assertIn("--zip-data /nonexistent/acmart-master: not SeBS's 10,063,841-byte",
                      self.bad_option("--zip-data", "/nonexistent/acmart-master"))

    def test_empty_matrices(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn("--size 0: at least 1", self.bad_option("--zip-data", data, "--size", "0"))

    def test_quiet_zip_time_not_positive(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn("--quiet-zip-s 0.0: a time in seconds above 0",
                          self.bad_option("--zip-data", data, "--quiet-zip-s", "0"))

    def test_missing_out_directory(self):
        with tempfile.TemporaryDirectory() as data:
            zip_data_of_the_right_size(data)
            self.assertIn("--out /nonexistent/t.txt: no such directory",
                          self.bad_option("--zip-data", data, "--out", "/nonexistent/t.txt"))

    def test_missing_node(self):
        with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as no_node:
            zip_data_of_the_right_size(data)
            result = self.run_script(no_node, "--zip-data", data)
        self.assertEqual(result.returncode, 2)
        self.assertIn("Node.js is missing (Debian: apt-get install nodejs)", result.stderr)


@unittest.skipUnless(shutil.which("node"), "needs Node.js")
class Kernel(unittest.TestCase):
    def run_kernel(self, order):
        return subprocess.run(["node", "-e", classifaas_gemm.GEMM_JS, order], capture_output=True, text=True, timeout=60)

    def test_it_multiplies_the_benchmarks_matrices(self):
        n = 10
        seconds, last = self.run_kernel(str(n)).stdout.split()
        # The product's entry (n-1, n-1): the sum over k of (n (k+1) + 42) ((k+1) n + 99), by hand.
        self.assertEqual(float(last), sum((n * (k + 1) + 42) * ((k + 1) * n + 99) for k in range(n)))
        self.assertGreaterEqual(float(seconds), 0)

    def test_a_bad_order_fails_rather_than_timing_nothing(self):
        for order in ("0", "ten", "2.5"):
            result = self.run_kernel(order)
            self.assertNotEqual(result.returncode, 0, order)
            self.assertIn("must be a positive integer", result.stderr)


class Contention(unittest.TestCase):
    def test_a_run_counts_only_when_the_zip_ran_as_fast_as_on_a_quiet_host(self):
        def pairs(zip_median):
            return [(1.0, zip_median - 0.01, 0, 0), (1.0, zip_median, 0, 0), (1.0, zip_median + 0.05, 0, 0)]
        self.assertIsNone(paired_stand_in.contention(pairs(0.2236), 0.2171))  # 3.0 % above: quiet enough
        self.assertIn("3% above its quiet 0.2171 s", paired_stand_in.contention(pairs(0.2240), 0.2171))
        self.assertIsNone(paired_stand_in.contention(pairs(0.3), None))  # not asked

    def test_a_busy_run_exits_3_after_its_file_is_written(self):
        busy = [(1.0, 0.30, 0, 0), (1.0, 0.31, 0, 0), (1.0, 0.32, 0, 0)]
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "pairs.txt")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                code = paired_stand_in.finish(classifaas_gemm.write_pairs_file(path, 400, "v20", busy, 0), busy, 0.2171)
            self.assertEqual(code, 3)
            self.assertIn("run again", err.getvalue())
            self.assertTrue(os.path.exists(path))  # what was measured is kept
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(paired_stand_in.finish("line", busy, 0.31), 0)  # the zip within 3 % of quiet


class PairsFile(unittest.TestCase):
    def test_columns_and_last_line_name_the_kernel(self):
        pairs = [(0.3, 0.2, 0.01, 0), (0.33, 0.22, 0, 0.02), (0.36, 0.2, 0, 0)]  # ratios 1.5, 1.5, 1.8
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "pairs.txt")
            line = classifaas_gemm.write_pairs_file(path, 400, "v20.0.0", pairs, retried=0)
            with open(path) as f:
                lines = f.read().splitlines()
        self.assertEqual(line, "gemm median 0.3300 s, zip median 0.2000 s, gemm over zip (median of 3 pairs) 1.5000")
        self.assertEqual(lines[3], "# gemm_seconds zip_seconds gemm_foreign_cpu_share zip_foreign_cpu_share")
        self.assertEqual(lines[-1], line)
        self.assertIn("400 x 400", lines[0])
        self.assertIn("Node.js v20.0.0", lines[2])


if __name__ == "__main__":
    unittest.main()
