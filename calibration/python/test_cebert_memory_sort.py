"""cebert_memory_sort.py: bad options get exit code 2 naming the option, the timed child sorts the array it was asked
for, and its timing file names the kernel in its columns and last line."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "cebert_memory_sort.py")
sys.path.insert(0, HERE)

from bad_option_case import BadOptionCase, PairedToolOptions  # noqa: E402

import cebert_memory_sort  # noqa: E402  (after the path: the script's folder is not a package)


class Options(PairedToolOptions, BadOptionCase, unittest.TestCase):
    SCRIPT = SCRIPT

    def test_an_empty_array(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn("--mib 0: at least 1", self.bad_option("--zip-data", data, "--mib", "0"))


class Kernel(unittest.TestCase):
    def test_it_sorts_the_benchmarks_array(self):
        out = subprocess.run([sys.executable, "-c", cebert_memory_sort.CHILD.format(mib=1)], capture_output=True,
                             text=True, timeout=60, check=True).stdout.split()
        self.assertGreaterEqual(float(out[0]), 0)
        self.assertEqual(out[1:], ["131072", "True"])  # 1 MiB of 8-byte integers, the first 1,000 in order


class PairsFile(unittest.TestCase):
    def test_columns_and_last_line_name_the_kernel(self):
        pairs = [(8.0, 0.2, 0, 0), (9.0, 0.2, 0, 0), (8.4, 0.21, 0, 0)]  # ratios 40, 45, 40
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "pairs.txt")
            line = cebert_memory_sort.write_pairs_file(path, 100, pairs, retried=0)
            with open(path) as f:
                lines = f.read().splitlines()
        self.assertEqual(line, "sort median 8.4000 s, zip median 0.2000 s, sort over zip (median of 3 pairs) 40.0000")
        self.assertEqual(lines[3], "# sort_seconds zip_seconds sort_foreign_cpu_share zip_foreign_cpu_share")
        self.assertIn("100 MiB", lines[0])


if __name__ == "__main__":
    unittest.main()
