"""Unittest mixins for a calibration script's bad options. BadOptionCase: `bad_option(*options)` runs the script (the
class's SCRIPT) with them and an --out in a fresh folder, expects exit code 2 and no file written, and returns the
script's stderr. PairedToolOptions: the bad options every paired stand-in tool shares (paired_stand_in.py's
add_common_options), on any class with a `bad_option`."""
import os
import subprocess
import sys
import tempfile


class BadOptionCase:
    SCRIPT = None

    def bad_option(self, *options):
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run([sys.executable, self.SCRIPT, "--out", os.path.join(out, "t.txt"), *options],
                                    capture_output=True, text=True, timeout=60)
            self.assertFalse(os.path.exists(os.path.join(out, "t.txt")))
        self.assertEqual(result.returncode, 2, result.stderr)
        return result.stderr


class PairedToolOptions:
    """A --zip-data that is not SeBS's data and fewer than 3 --samples, each refused naming the option. KERNEL_OPTIONS:
    what the tool needs beside them to reach those checks (a --kernel, say)."""
    KERNEL_OPTIONS = ()

    def test_not_the_zip_data(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn(f"--zip-data {data}: not SeBS's", self.bad_option(*self.KERNEL_OPTIONS, "--zip-data", data))

    def test_too_few_samples(self):
        with tempfile.TemporaryDirectory() as data:
            self.assertIn("--samples 2: at least 3",
                          self.bad_option(*self.KERNEL_OPTIONS, "--zip-data", data, "--samples", "2"))
