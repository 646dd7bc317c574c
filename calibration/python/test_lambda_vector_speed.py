"""calibration/python/lambda_vector_speed.py on a small artifact built here, with expectations computed by hand."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lambda_vector_speed.py")


def write_replica(directory, index, seconds, cold=(), order=2, loops=1):
    """A gumeter flops file: one warm call per value of `seconds`, one cold call per value of `cold` (to be left out),
    each call's flops = 2 order^3 loops / its seconds."""
    work = 2 * order ** 3 * loops
    calls = [(s, False) for s in seconds] + [(s, True) for s in cold]
    with open(os.path.join(directory, f"flops_aws_lambda_replica{index}.json"), "w") as f:
        json.dump({"MATN": order, "loopcount": loops, "results": [{"flops": work / s} for s, _ in calls],
                   "worker_stats": [{"worker_cold_start": c} for _, c in calls]}, f)


class LambdaVectorSpeed(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results = os.path.join(self.tmp.name, "results")
        self.kernels = os.path.join(self.tmp.name, "kernels")
        os.mkdir(self.results)
        os.mkdir(self.kernels)
        # 11 warm calls over two replicas, 1.0 ... 2.0 s: median 1.5, inclusive deciles 1.1 and 1.9; a cold 100 s.
        write_replica(self.results, 0, [1.0, 1.1, 1.2, 1.3, 1.4], cold=[100.0])
        write_replica(self.results, 1, [1.5, 1.6, 1.7, 1.8, 1.9, 2.0])
        self.write("gumeter_flops.txt", "# pairs\n0.5 0.25 0 0\n"
                   "dgemm median 0.5000 s, zip median 0.2500 s, dgemm over zip (median of 1 pairs) 2.0000\n")
        self.write("lambda_x86_cpu_speed.txt", "calibration CPU: median 0.2500 s\ncpu_scalar_speed_factor_x86 0.1 (p10 0.1, p90 0.1)\n")
        self.write("libtorch_step_carry.txt",
                   "LibTorch steps, measured over the zip's carry: median 0.8000 (p10 0.6400, p90 1.0000, 9 configurations)\n")
        self.out = os.path.join(self.tmp.name, "out.txt")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        with open(os.path.join(self.kernels, name), "w") as f:
            f.write(text)

    def run_script(self):
        return subprocess.run([sys.executable, SCRIPT, "--gumeter-results", self.results, "--kernels", self.kernels,
                               "--out", self.out], capture_output=True, text=True, timeout=60)

    def assert_refused(self, message):
        """The script exits 2 with `message` on stderr and writes no file."""
        done = self.run_script()
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn(message, done.stderr)
        self.assertFalse(os.path.exists(self.out))

    def edit_replica(self, index, change):
        """Replica `index`'s file with `change` applied to its JSON."""
        path = os.path.join(self.results, f"flops_aws_lambda_replica{index}.json")
        with open(path) as f:
            data = json.load(f)
        change(data)
        with open(path, "w") as f:
            json.dump(data, f)

    def test_factor_is_the_gemm_brought_to_the_calibration_cpu_over_lambdas_median(self):
        done = self.run_script()
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.out) as f:
            lines = f.read().splitlines()
        self.assertIn("lambda 1769 MB (one vCPU's share), 11 warm calls of 2 replicas: median 1.5000 s "
                      "(p10 1.1000, p90 1.9000)", lines)
        # 2.0 x 0.25 x 0.8 = 0.4 s there; 0.4 / 1.5 = 0.2667. The band: log half-widths ln(1.9/1.5) = 0.2364 and
        # ln(0.8/0.64) = 0.2231 below, ln(1.5/1.1) = 0.3102 and ln(1/0.8) = 0.2231 above, in quadrature 0.3251 and
        # 0.3821: 0.2667 x e^-0.3251 = 0.1927, 0.2667 x e^0.3821 = 0.3908.
        self.assertIn("= 0.4000 s", lines[-2])
        self.assertEqual(lines[-1], "cpu_speed_factor_x86 0.2667 (p10 0.1927, p90 0.3908)")

    def test_results_and_worker_stats_of_different_lengths_are_refused(self):
        self.edit_replica(1, lambda data: data["worker_stats"].pop())
        self.assert_refused("6 results against 5 worker_stats")

    def test_a_rate_of_zero_or_none_is_refused_naming_the_call(self):
        for flops in (0, None):
            write_replica(self.results, 1, [1.5, 1.6, 1.7, 1.8, 1.9, 2.0])
            self.edit_replica(1, lambda data: data["results"][2].update(flops=flops))
            self.assert_refused(f"replica1.json: results[2].flops is {flops!r}")

    def test_a_kernel_file_without_its_last_line_is_refused_naming_it(self):
        self.write("gumeter_flops.txt", "# pairs\n0.5 0.25 0 0\n")
        self.assert_refused("gumeter_flops.txt: its last line is not '... over zip (median of N pairs) R'")

    def test_a_replica_without_its_order_is_refused_naming_the_field(self):
        with open(os.path.join(self.results, "flops_aws_lambda_replica0.json"), "w") as f:
            json.dump({"loopcount": 1, "results": [], "worker_stats": []}, f)
        self.assert_refused("replica0.json: no 'MATN' field")

    def test_too_few_warm_calls_are_refused(self):
        os.remove(os.path.join(self.results, "flops_aws_lambda_replica1.json"))
        self.assert_refused("5 warm calls in 1 files")


class ShippedFiles(unittest.TestCase):
    """The shipped derivation against the shipped files it was derived from (gumeter's raw files are not in the
    repository): its calibration-CPU line is the kernel files' product, its factor and band follow from its own lines,
    and the calibration case measures its median (tests/test_cpu_targets.cpp holds the profile to its factor)."""

    ROOT = os.path.normpath(os.path.join(os.path.dirname(SCRIPT), "..", ".."))
    KERNELS = os.path.join(ROOT, "calibration", "kernels")

    def test_the_derivation_file_follows_from_the_kernel_files(self):
        sys.path.insert(0, os.path.dirname(SCRIPT))
        import lambda_vector_speed as lvs
        import libtorch_step_carry
        import paired_stand_in
        with open(os.path.join(self.KERNELS, "lambda_x86_vector_speed.txt")) as f:
            text = f.read()
        median, p10, p90 = (float(v) for v in re.search(
            r"median ([0-9.]+) s \(p10 ([0-9.]+), p90 ([0-9.]+)\)", text).groups())
        ratio = paired_stand_in.pairs_file_ratio(os.path.join(self.KERNELS, "gumeter_flops.txt"))
        correction, c10, c90 = libtorch_step_carry.read_summary_line(os.path.join(self.KERNELS, "libtorch_step_carry.txt"))
        here_s = ratio * paired_stand_in.zip_on_calibration_cpu_s(self.KERNELS) * correction
        self.assertIn(f"= {here_s:.4f} s", text)
        factor = here_s / median
        low, high = lvs.combined_band(factor, (median / p90, 1.0, median / p10), (c10 / correction, 1.0, c90 / correction))
        # From the file's four-decimal times, so to within a unit of the fourth decimal of the factor.
        shipped = [float(v) for v in re.fullmatch(r"cpu_speed_factor_x86 ([0-9.]+) \(p10 ([0-9.]+), p90 ([0-9.]+)\)",
                                                  text.splitlines()[-1]).groups()]
        for got, expected in zip(shipped, (factor, low, high)):
            self.assertAlmostEqual(got, expected, delta=0.00015)
        case = ElementTree.parse(os.path.join(self.ROOT, "validation", "calibration", "gumeter_dgemm_1769mb.case.xml"))
        metric = case.find("metric")
        self.assertEqual(float(metric.get("measured")), median)
        self.assertAlmostEqual(float(metric.get("spread")), (p90 - p10) / 2, delta=0.00005 + 1e-12)


if __name__ == "__main__":
    unittest.main()
