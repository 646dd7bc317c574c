"""gumeter_flops.py: bad options get exit code 2 naming the option, the timed child multiplies what gumeter's function
multiplies, and its timing file names the kernel in its columns and last line."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "gumeter_flops.py")
sys.path.insert(0, HERE)

from bad_option_case import BadOptionCase, PairedToolOptions  # noqa: E402

import gumeter_flops  # noqa: E402  (after the path: the script's folder is not a package)


class Options(PairedToolOptions, BadOptionCase, unittest.TestCase):
    SCRIPT = SCRIPT


class Kernel(unittest.TestCase):
    def test_the_loop_multiplies_gumeters_matrices(self):
        out = subprocess.run([sys.executable, "-c", gumeter_flops.CHILD], capture_output=True, text=True, timeout=60,
                             check=True).stdout.split()
        self.assertGreater(float(out[0]), 0)
        self.assertEqual(out[1:3], ["1024", "10"])
        # With A = B = arange(n^2).reshape(n, n), entry (i, j) = i n + j: the sum of AB is (A's column sums) . (B's
        # row sums), column j summing to n^2 (n - 1) / 2 + n j and row i to i n^2 + n (n - 1) / 2, in integers here.
        n = 1024
        column = [n * n * (n - 1) // 2 + n * j for j in range(n)]
        row = [i * n * n + n * (n - 1) // 2 for i in range(n)]
        # Exact here under every OpenBLAS core type tried; a relative 1e-12 leaves room for another summation order.
        self.assertAlmostEqual(float(out[3]) / sum(c * r for c, r in zip(column, row)), 1.0, delta=1e-12)


class PairsFile(unittest.TestCase):
    def test_columns_and_last_line_name_the_kernel(self):
        pairs = [(0.4, 0.2, 0, 0), (0.5, 0.2, 0, 0), (0.45, 0.25, 0, 0)]  # ratios 2.0, 2.5, 1.8
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "pairs.txt")
            line = gumeter_flops.write_pairs_file(path, pairs, retried=0)
            with open(path) as f:
                lines = f.read().splitlines()
        self.assertEqual(line, "dgemm median 0.4500 s, zip median 0.2000 s, dgemm over zip (median of 3 pairs) 2.0000")
        self.assertEqual(lines[3], "# dgemm_seconds zip_seconds dgemm_foreign_cpu_share zip_foreign_cpu_share")
        self.assertEqual(lines[-1], line)


if __name__ == "__main__":
    unittest.main()
