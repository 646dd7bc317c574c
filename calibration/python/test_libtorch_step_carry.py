"""libtorch_step_carry.py: a configuration's line compares the shipped step (the median of its one-thread samples at
that batch) with the zip's carry of it, computed by hand here; the summary is the median over configurations with
inclusive deciles; bad options get exit 2 naming the option before anything is timed; and every configuration names a
step the shipped files hold."""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "libtorch_step_carry.py")
sys.path.insert(0, HERE)

from bad_option_case import BadOptionCase  # noqa: E402

import libtorch_step_carry  # noqa: E402
import paired_stand_in  # noqa: E402  (after the path: the script's folder is not a package)


class Lines(unittest.TestCase):
    def test_a_configuration_against_the_shipped_step(self):
        # train_steps_paper.csv's five one-thread vgg11_cifar samples at batch 64: 0.3203, 0.3152, 0.3229, 0.3248 and
        # 0.3243 s; their median is 0.322885 s. A ratio of 2 over a 0.1779 s zip carries it to 0.3558 s.
        correction, line = libtorch_step_carry.carry_line(
            ("vgg11_cifar", "3x32x32", 64, "train_steps_paper.csv"), 2.0, 0.1779)
        self.assertAlmostEqual(correction, 0.32288531 / 0.3558, places=6)
        self.assertIn("step over zip 2.000000, carried 0.355800 s, calibration CPU 0.322885 s", line)
        self.assertIn("measured over carried 0.9075", line)

    def test_a_step_the_files_do_not_hold_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no one-thread step of vgg11_cifar@3x32x32 at batch 3"):
            libtorch_step_carry.carry_line(("vgg11_cifar", "3x32x32", 3, "train_steps_paper.csv"), 2.0, 0.1779)

    def test_every_configuration_is_in_the_shipped_files(self):
        for model, shape, batch, timing_file in libtorch_step_carry.CONFIGURATIONS:
            self.assertGreater(libtorch_step_carry.shipped_step_s(timing_file, model, shape, batch), 0)

    def test_a_missing_step_or_file_is_found_before_timing(self):
        self.assertIsNone(libtorch_step_carry.input_error(libtorch_step_carry.CONFIGURATIONS))
        self.assertIn("no one-thread step of mnist_cnn@1x28x28 at batch 3", libtorch_step_carry.input_error(
            [("mnist_cnn", "1x28x28", 3, "train_steps_mnist_cnn.csv")]))
        self.assertIn("train_steps_none.csv", libtorch_step_carry.input_error(
            [("mnist_cnn", "1x28x28", 64, "train_steps_none.csv")]))

    def test_summary_is_the_median_with_inclusive_deciles(self):
        # 1..9 sorted: median 5; inclusive deciles at 1 + 0.8 = 1.8 and 9 - 0.8 = 8.2
        line = libtorch_step_carry.summary_line([9, 1, 8, 2, 7, 3, 6, 4, 5])
        self.assertEqual(line, "LibTorch steps, measured over the zip's carry: median 5.0000 (p10 1.8000, "
                               "p90 8.2000, 9 configurations)")


class ShippedFile(unittest.TestCase):
    """calibration/kernels/libtorch_step_carry.txt agrees with the files it was compared with and with itself: each
    configuration's calibration-CPU step is the shipped one, its correction is that step over its carry, its carry the
    ratio times the zip's time there, and the last line the median and deciles of the corrections, each to the
    precision the file prints (the shipped file's ratios have four decimals, the tool now writes six)."""
    LINE = re.compile(r"^(\S+)@(\S+) batch (\d+): step over zip ([0-9.]+), carried ([0-9.]+) s, calibration CPU "
                      r"([0-9.]+) s \((\S+)\), measured over carried ([0-9.]+)$")

    def test_the_file_is_its_lines_and_the_shipped_steps(self):
        with open(os.path.join(libtorch_step_carry.KERNELS, "libtorch_step_carry.txt")) as f:
            text = f.read().splitlines()
        zip_s = paired_stand_in.zip_on_calibration_cpu_s(libtorch_step_carry.KERNELS)
        matches = [m for m in map(self.LINE.match, text) if m]
        self.assertEqual(len(matches), len(libtorch_step_carry.CONFIGURATIONS))
        corrections = []
        for m in matches:
            model, shape, batch, ratio, carried, measured, timing_file, correction = m.groups()
            shipped = libtorch_step_carry.shipped_step_s(timing_file, model, shape, int(batch))
            # half a unit of each printed number's last digit, carried through the division
            half = {name: 0.5 * 10 ** -len(value.split(".")[1]) for name, value in
                    (("ratio", ratio), ("carried", carried), ("measured", measured))}
            self.assertAlmostEqual(float(measured), shipped, delta=half["measured"], msg=m.group(0))
            self.assertAlmostEqual(float(carried), float(ratio) * zip_s, delta=half["carried"] + half["ratio"] * zip_s,
                                   msg=m.group(0))
            expected = shipped / (float(ratio) * zip_s)
            self.assertAlmostEqual(float(correction), expected, delta=expected * half["ratio"] / float(ratio) + 0.00005,
                                   msg=m.group(0))
            corrections.append(float(correction))
        expected = libtorch_step_carry.summary_line(corrections)
        summary = re.findall(r"[0-9]+\.[0-9]+", text[-1])
        for got, want in zip(summary, re.findall(r"[0-9]+\.[0-9]+", expected)):
            self.assertAlmostEqual(float(got), float(want), delta=0.0002, msg=text[-1])


class Options(BadOptionCase, unittest.TestCase):
    SCRIPT = SCRIPT

    def test_missing_zip_data(self):
        self.assertIn("--zip-data /nonexistent: not SeBS's 10,063,841-byte",
                      self.bad_option("--zip-data", "/nonexistent", "--p2psim", sys.executable))

    def test_no_p2psim(self):
        self.assertIn("--p2psim /nonexistent/p2psim: not an executable",
                      self.bad_option("--zip-data", "/nonexistent", "--p2psim", "/nonexistent/p2psim"))


if __name__ == "__main__":
    unittest.main()
