"""sebs_graph_bfs.py: bad options get exit code 2 naming the option, before python-igraph is imported (a stub
igraph that exits 99 on import stands in for it); a missing python-igraph gets its own message; and the stand-in's
ratio is the median of the pairs' ratios, not the ratio of the medians."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "sebs_graph_bfs.py")
sys.path.insert(0, HERE)

from bad_option_case import PairedToolOptions  # noqa: E402

import sebs_graph_bfs  # noqa: E402  (after the path: the script's folder is not a package)


class Options(PairedToolOptions, unittest.TestCase):
    def run_script(self, igraph_stub, *options):
        """Runs the script with a stub `igraph` module first on the path; returns the process."""
        with tempfile.TemporaryDirectory() as stub, tempfile.TemporaryDirectory() as out:
            with open(os.path.join(stub, "igraph.py"), "w") as f:
                f.write(igraph_stub)
            env = dict(os.environ, PYTHONPATH=stub)
            result = subprocess.run([sys.executable, SCRIPT, "--out", os.path.join(out, "t.txt"), *options],
                                    capture_output=True, text=True, timeout=60, env=env)
            self.assertFalse(os.path.exists(os.path.join(out, "t.txt")))
        return result

    def bad_option(self, *options):
        result = self.run_script("import sys\nsys.exit(99)\n", *options)  # imported: exit 99, not 2
        self.assertEqual(result.returncode, 2, result.stderr)
        return result.stderr

    def test_missing_zip_data(self):
        self.assertIn("--zip-data /nonexistent/acmart-master: not SeBS's 10,063,841-byte",
                      self.bad_option("--zip-data", "/nonexistent/acmart-master"))

    def test_another_directory(self):
        with tempfile.TemporaryDirectory() as data:
            with open(os.path.join(data, "a.tex"), "w") as f:
                f.write("not acmart")
            self.assertIn(f"--zip-data {data}: not SeBS's", self.bad_option("--zip-data", data))

    def test_empty_graph(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn("--size 0: at least 1 vertex", self.bad_option("--zip-data", data, "--size", "0"))

    def test_missing_out_directory(self):
        with tempfile.TemporaryDirectory() as data:
            with open(os.path.join(data, "sparse.bin"), "wb") as f:
                f.truncate(10063841)
            self.assertIn("--out /nonexistent/t.txt: no such directory",
                          self.bad_option("--zip-data", data, "--out", "/nonexistent/t.txt"))

    def test_missing_igraph(self):
        with tempfile.TemporaryDirectory() as data:
            with open(os.path.join(data, "sparse.bin"), "wb") as f:
                f.truncate(10063841)  # the data's size, all the check reads
            result = self.run_script("raise ImportError('no igraph')\n", "--zip-data", data)
        self.assertEqual(result.returncode, 2)
        self.assertIn("python-igraph is missing (Debian: apt-get install python3-igraph)", result.stderr)


class PairsFile(unittest.TestCase):
    def test_the_median_of_the_ratios_is_the_last_line(self):
        # Ratios 0.1, 0.5 and 0.6: their median is 0.5, where the medians, 2 and 5, would give 0.4.
        pairs = [(1, 10, 0.01, 0), (2, 4, 0, 0.02), (3, 5, 0, 0)]
        with tempfile.TemporaryDirectory() as out:
            path = os.path.join(out, "pairs.txt")
            line = sebs_graph_bfs.write_pairs_file(path, 10000, "0.10.2", pairs, retried=1)
            with open(path) as f:
                lines = f.read().splitlines()
        self.assertEqual(line, "bfs median 2.0000 s, zip median 5.0000 s, bfs over zip (median of 3 pairs) 0.5000")
        self.assertEqual(lines[-1], line)
        self.assertEqual(lines[4:7], ["1.0000 10.0000 0.010 0.000", "2.0000 4.0000 0.000 0.020",
                                      "3.0000 5.0000 0.000 0.000"])
        self.assertIn("1 samples measured again", lines[2])


if __name__ == "__main__":
    unittest.main()
