"""spirt_tunnel_bytes.py: bad options get exit code 2, --derive splits the tunnel's CPU per MB on the calibration CPU
into its four parts by their shares, as computed here by hand, refuses a file without every part's share, and the
shipped profile's kv_store/ssh_tunnel per-MB attributes are what --derive gives on the shipped file."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "spirt_tunnel_bytes.py")
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from bad_option_case import BadOptionCase, PairedToolOptions  # noqa: E402

import paired_stand_in  # noqa: E402
from shipped_profile_case import assert_profile_holds  # noqa: E402
import spirt_tunnel_bytes  # noqa: E402  (after the path: the script's folder is not a package)

# A folder with an sshtunnel.py, so that the shared options' checks are reached.
SSHTUNNEL_DIR = tempfile.mkdtemp()
open(os.path.join(SSHTUNNEL_DIR, "sshtunnel.py"), "w").close()
atexit.register(shutil.rmtree, SSHTUNNEL_DIR)


class Options(PairedToolOptions, BadOptionCase, unittest.TestCase):
    SCRIPT = SCRIPT
    KERNEL_OPTIONS = ("--sshtunnel", SSHTUNNEL_DIR)

    def test_no_sshtunnel_in_the_folder(self):
        with tempfile.TemporaryDirectory() as empty:
            self.assertIn(f"--sshtunnel {empty}: no sshtunnel.py in it",
                          self.bad_option("--sshtunnel", empty, "--zip-data", empty))


def write_kernel(folder, ratios, shares="download_client 0.5000, download_server 0.1000, upload_client 0.3000, "
                                       "upload_server 0.1000"):
    """The file, whose pairs have the given CPU-over-zip ratios (the zip always 0.2 s) and the parts' `shares`, and
    the calibration CPU's zip at 0.2 s."""
    with open(os.path.join(folder, "lambda_x86_cpu_speed.txt"), "w") as f:
        f.write("calibration CPU: median 0.2 s\n")
    details = f"per MB; each part's share of it (medians): {shares}"
    paired_stand_in.write_pairs_file(os.path.join(folder, spirt_tunnel_bytes.KERNEL_FILE), "tunnel_bytes_cpu", "t",
                                     "spirt_tunnel_bytes.py", details, [(r * 0.2, 0.2, 0, 0) for r in ratios], 0)


class Derive(unittest.TestCase):
    def test_parts_by_hand(self):
        with tempfile.TemporaryDirectory() as folder:
            write_kernel(folder, [0.4, 0.5, 0.6])  # median 0.5: 0.1 s a MB on the calibration CPU's 0.2 s zip
            lines = spirt_tunnel_bytes.derive(folder)
        # Each part its share of 0.1 s. The p10 and p90 of three ratios a, b, c (linear quantiles) are a + 0.2 (b - a)
        # and c - 0.2 (c - b): 0.42 and 0.58, times 0.2 s and the share.
        self.assertEqual(lines[1:], [
            "download_client_cpu_s_per_mb_on_reference_cpu: 0.05 (p10 0.042, p90 0.058)",
            "download_server_cpu_s_per_mb_on_reference_cpu: 0.01 (p10 0.0084, p90 0.0116)",
            "upload_client_cpu_s_per_mb_on_reference_cpu: 0.03 (p10 0.0252, p90 0.0348)",
            "upload_server_cpu_s_per_mb_on_reference_cpu: 0.01 (p10 0.0084, p90 0.0116)"])

    def test_refuses_a_file_without_every_share(self):
        with tempfile.TemporaryDirectory() as folder:
            write_kernel(folder, [1, 1, 1], shares="download_client 0.5")
            result = subprocess.run([sys.executable, SCRIPT, "--derive", "--kernels", folder], capture_output=True,
                                    text=True, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertIn("spirt_tunnel_bytes.txt: not every part's share", result.stderr)


class ShippedProfile(unittest.TestCase):
    def test_per_mb_attributes_are_what_the_shipped_file_gives(self):
        derived = assert_profile_holds(self, spirt_tunnel_bytes.derive(os.path.join(REPO, "calibration", "kernels")),
                                       "ssh_tunnel")
        self.assertEqual(set(derived), {f"{part}_cpu_s_per_mb_on_reference_cpu" for part in spirt_tunnel_bytes.PARTS})
        self.assertTrue(all(len(values) == 3 for values in derived.values()), derived)  # each with its p10 and p90

if __name__ == "__main__":
    unittest.main()
