"""sebs_image_preprocess.py refuses an image that is not SeBS's input, with exit code 2 and the option named."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sebs_image_preprocess.py")


class BadImage(unittest.TestCase):
    def run_script(self, image):
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run([sys.executable, SCRIPT, "--image", image, "--out", os.path.join(out, "t.txt"),
                                     "--samples", "1"], capture_output=True, text=True, timeout=60)
            self.assertFalse(os.path.exists(os.path.join(out, "t.txt")))
        return result

    def test_missing_file(self):
        result = self.run_script("/nonexistent/porsche.jpg")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--image /nonexistent/porsche.jpg", result.stderr)

    def test_another_image(self):
        with tempfile.NamedTemporaryFile(suffix=".jpg") as f:
            f.write(b"\xff\xd8" + b"\0" * 100)
            f.flush()
            result = self.run_script(f.name)
        self.assertEqual(result.returncode, 2)
        self.assertIn("not SeBS's 61,010-byte input image", result.stderr)


if __name__ == "__main__":
    unittest.main()
