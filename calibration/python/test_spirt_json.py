"""spirt_json.py: bad options get exit code 2, the parse child reads back the numbers it was given, --derive turns five
kernel files into per-element constants as computed here by hand, refuses files that do not fit, and the shipped
profile's kv_store/json_codec is what --derive gives on the shipped files."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "spirt_json.py")
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from bad_option_case import BadOptionCase, PairedToolOptions  # noqa: E402

import paired_stand_in  # noqa: E402
from shipped_profile_case import assert_profile_holds  # noqa: E402
import spirt_json  # noqa: E402  (after the path: the script's folder is not a package)


class Options(PairedToolOptions, BadOptionCase, unittest.TestCase):
    SCRIPT = SCRIPT
    KERNEL_OPTIONS = ('--kernel', 'encode')

    def test_no_kernel(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn("--kernel is required", self.bad_option("--zip-data", data))


class ParseChild(unittest.TestCase):
    def test_parses_the_text_cjson_would_write(self):
        import numpy as np
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "g.npy")
            np.save(path, np.array([0.5, -1.25e-05, 0.0, 3.0], dtype=np.float32))
            out = subprocess.run([sys.executable, "-c", spirt_json.child_code("decode_average", path)], capture_output=True,
                                 text=True, timeout=60, check=True).stdout.split()
        self.assertGreater(float(out[0]), 0)
        # 4 elements; the text "[0.5,-1.2500000088103e-05,0,3]": %.14g, no spaces, as Lua's cjson writes it.
        self.assertEqual(out[1:], ["4", str(len("[0.5,-1.2500000088103e-05,0,3]"))])


def write_kernels(folder, ratios, elements=1000, text_bytes=(23000, 23000, 19800, 23000, 23000), zip_s="0.2"):
    """Five kernel files whose pairs have the given kernel-over-zip ratios (the zip always 0.2 s) and the
    calibration CPU's zip at `zip_s`."""
    with open(os.path.join(folder, "lambda_x86_cpu_speed.txt"), "w") as f:
        f.write(f"calibration CPU: median {zip_s} s\n")
    for kernel, kernel_ratios, text in zip(spirt_json.KERNELS, ratios, text_bytes):
        details = f"MobileNetV3-small's gradient, {elements:,} float32 elements; the text {text:,} bytes (x an element)"
        paired_stand_in.write_pairs_file(spirt_json.kernel_file(folder, kernel), kernel, "t", "spirt_json.py",
                                         details, [(r * 0.2, 0.2, 0, 0) for r in kernel_ratios], 0)


class Derive(unittest.TestCase):
    def test_per_element_constants_by_hand(self):
        ratios = [[4, 5, 6], [2, 2, 2], [1, 1, 1], [3, 3.5, 4], [6, 6.5, 7]]  # medians 5, 2, 1, 3.5, 6.5
        with tempfile.TemporaryDirectory() as folder:
            write_kernels(folder, ratios)
            lines = spirt_json.derive(folder)
        # Each ratio times the calibration CPU's zip (0.2 s) over 1,000 elements: 2e-4 s an element a unit of ratio.
        # Four gradients less one: (6.5 - 3.5) / 3 = 1 unit a decode and addition; one gradient's encode 3.5 - 1.
        # The p10 and p90 of three ratios a, b, c (numpy's linear quantiles) are a + 0.2 (b - a) and c - 0.2 (c - b):
        # 4.2 and 5.8 for the encode; for the decode-add (6.1 - 3.5) / 3 and (6.9 - 3.5) / 3, for the encode
        # 3.1 - 1 and 3.9 - 1.
        self.assertEqual(lines[1], "python_encode_s_per_element_on_reference_cpu: 0.001 (p10 0.00084, p90 0.00116)")
        self.assertEqual(lines[2], "python_decode_gradient_s_per_element_on_reference_cpu: 0.0004 (p10 0.0004, p90 0.0004)")
        self.assertEqual(lines[3], "python_decode_average_s_per_element_on_reference_cpu: 0.0002 (p10 0.0002, p90 0.0002)")
        self.assertEqual(lines[4], "lua_decode_add_s_per_element_on_reference_cpu: 0.0002 (p10 0.0001733, p90 0.0002267)")
        self.assertEqual(lines[5], "lua_encode_s_per_element_on_reference_cpu: 0.0005 (p10 0.00042, p90 0.00058)")
        self.assertEqual(lines[6], "python_bytes_per_element: 23.0000")
        self.assertEqual(lines[7], "lua_bytes_per_element: 19.8000")

    def test_refuses_a_missing_file_naming_it(self):
        with tempfile.TemporaryDirectory() as folder:
            write_kernels(folder, [[1, 1, 1]] * 5)
            os.remove(spirt_json.kernel_file(folder, "lua_average_4"))
            result = subprocess.run([sys.executable, SCRIPT, "--derive", "--kernels", folder], capture_output=True,
                                    text=True, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertIn("spirt_json_lua_average_4.txt", result.stderr)

    def test_refuses_gradients_of_different_sizes(self):
        with tempfile.TemporaryDirectory() as folder:
            write_kernels(folder, [[1, 1, 1]] * 5)
            path = spirt_json.kernel_file(folder, "decode_average")
            with open(path) as f:
                text = f.read().replace("1,000 float32", "1,001 float32")
            with open(path, "w") as f:
                f.write(text)
            with self.assertRaisesRegex(ValueError, "gradients of different sizes"):
                spirt_json.derive(folder)


class ShippedProfile(unittest.TestCase):
    def test_json_codec_is_what_the_shipped_files_give(self):
        assert_profile_holds(self, spirt_json.derive(os.path.join(REPO, "calibration", "kernels")), "json_codec")

if __name__ == "__main__":
    unittest.main()
