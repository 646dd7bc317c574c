"""A unittest mixin for a calibration script's bad options: `bad_option(*options)` runs the script (the class's SCRIPT)
with them and an --out in a fresh folder, expects exit code 2 and no file written, and returns the script's stderr."""
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
