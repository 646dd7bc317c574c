"""slapp_kernels.py: bad options get exit code 2 naming the option, each timed child computes what SLAppMdlOpt's
function computes, and its timing file names the kernel in its columns and last line."""
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "slapp_kernels.py")
sys.path.insert(0, HERE)

from bad_option_case import BadOptionCase, PairedToolOptions  # noqa: E402

import slapp_kernels  # noqa: E402  (after the path: the script's folder is not a package)


class Options(PairedToolOptions, BadOptionCase, unittest.TestCase):
    SCRIPT = SCRIPT
    KERNEL_OPTIONS = ('--kernel', 'factorial')

    def test_an_unknown_kernel(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn("--kernel: invalid choice: 'pbkdf2'", self.bad_option("--zip-data", data, "--kernel", "pbkdf2"))


class Kernels(unittest.TestCase):
    def run_child(self, kernel):
        return subprocess.run([sys.executable, "-c", slapp_kernels.CHILDREN[kernel]], capture_output=True, text=True,
                              timeout=60, check=True).stdout.split()

    def test_the_factorial_is_28000s(self):
        out = self.run_child("factorial")
        self.assertGreater(float(out[0]), 0)
        self.assertEqual(int(out[1]), math.factorial(28000).bit_length())

    def test_pi_to_10000_digits(self):
        out = self.run_child("decimal_pi")
        self.assertGreater(float(out[0]), 0)
        self.assertEqual(out[1:], ["3.1415926535", "10001"])  # "3." and 9,999 more digits: prec 10,000


class PairsFile(unittest.TestCase):
    def test_columns_and_last_line_name_the_kernel(self):
        pairs = [(0.16, 0.2, 0, 0), (0.18, 0.2, 0, 0), (0.17, 0.25, 0, 0)]  # ratios 0.8, 0.9, 0.68
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "pairs.txt")
            line = slapp_kernels.write_pairs_file(path, "factorial", pairs, retried=0)
            with open(path) as f:
                lines = f.read().splitlines()
        self.assertEqual(line, "factorial median 0.1700 s, zip median 0.2000 s, factorial over zip (median of 3 pairs) "
                               "0.8000")
        self.assertEqual(lines[3], "# factorial_seconds zip_seconds factorial_foreign_cpu_share zip_foreign_cpu_share")
        self.assertIn("28,000", lines[0])


if __name__ == "__main__":
    unittest.main()
