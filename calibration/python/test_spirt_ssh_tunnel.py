"""spirt_ssh_tunnel.py: bad options get exit code 2, --derive splits a tunnel's CPU on the calibration CPU into the
client's and the servers' and keeps its waits, as computed here by hand, refuses a file without the client's share
and the waits, and the shipped profile's kv_store/ssh_tunnel is what --derive gives on the shipped file."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "spirt_ssh_tunnel.py")
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from bad_option_case import BadOptionCase, PairedToolOptions  # noqa: E402

import paired_stand_in  # noqa: E402
from shipped_profile_case import assert_profile_holds  # noqa: E402
import spirt_ssh_tunnel  # noqa: E402  (after the path: the script's folder is not a package)


class Options(PairedToolOptions, BadOptionCase, unittest.TestCase):
    SCRIPT = SCRIPT


def write_kernel(folder, ratios, share="0.2500", zip_s="0.2"):
    """The tunnel's file, whose pairs have the given CPU-over-zip ratios (the zip always 0.2 s), the client's share
    `share` and waits of 0.11 s (p10 0.1, p90 0.13), and the calibration CPU's zip at `zip_s`."""
    with open(os.path.join(folder, "lambda_x86_cpu_speed.txt"), "w") as f:
        f.write(f"calibration CPU: median {zip_s} s\n")
    details = (f"one tunnel; over 21 samples of their own, the client's share of that CPU (median) {share} and the "
               "waits with the core idle 0.1100 s (p10 0.1000, p90 0.1300)") if share else "one tunnel"
    paired_stand_in.write_pairs_file(os.path.join(folder, spirt_ssh_tunnel.KERNEL_FILE), "tunnel", "t",
                                     "spirt_ssh_tunnel.py", details, [(r * 0.2, 0.2, 0, 0) for r in ratios], 0)


class Derive(unittest.TestCase):
    def test_client_and_server_by_hand(self):
        with tempfile.TemporaryDirectory() as folder:
            write_kernel(folder, [0.4, 0.5, 0.6])  # median 0.5: 0.1 s on the calibration CPU's 0.2 s zip
            lines = spirt_ssh_tunnel.derive(folder)
        # A quarter of 0.1 s the client's, three quarters the server's. The p10 and p90 of three ratios a, b, c
        # (linear quantiles) are a + 0.2 (b - a) and c - 0.2 (c - b): 0.42 and 0.58, times 0.2 s and the share.
        self.assertEqual(lines[1], "client_cpu_s_on_reference_cpu: 0.025 (p10 0.021, p90 0.029)")
        self.assertEqual(lines[2], "server_cpu_s_on_reference_cpu: 0.075 (p10 0.063, p90 0.087)")
        self.assertEqual(lines[3], "wait_s: 0.11 (p10 0.1, p90 0.13)")  # as measured: no CPU to carry

    def test_refuses_a_file_without_the_clients_share(self):
        with tempfile.TemporaryDirectory() as folder:
            write_kernel(folder, [1, 1, 1], share=None)
            result = subprocess.run([sys.executable, SCRIPT, "--derive", "--kernels", folder], capture_output=True,
                                    text=True, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertIn("spirt_ssh_tunnel.txt: no client share and waits", result.stderr)


class ShippedProfile(unittest.TestCase):
    def test_ssh_tunnel_is_what_the_shipped_file_gives(self):
        derived = assert_profile_holds(self, spirt_ssh_tunnel.derive(os.path.join(REPO, "calibration", "kernels")),
                                       "ssh_tunnel")
        self.assertEqual(set(derived), {"client_cpu_s_on_reference_cpu", "server_cpu_s_on_reference_cpu", "wait_s"})
        self.assertTrue(all(len(values) == 3 for values in derived.values()), derived)  # each with its p10 and p90

if __name__ == "__main__":
    unittest.main()
