"""The stand-in steps of the validation cases timed by paired_stand_in.py are what their timing files say: each
csv's seconds = the file's median ratio (kernel over zip) x the zip's time on the calibration CPU
(calibration/kernels/lambda_x86_cpu_speed.txt), to the csv's four decimals. The csvs are written by hand from the
files; this keeps the two from drifting apart when a file is measured again."""
import csv
import os
import re
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KERNELS = os.path.join(ROOT, "calibration", "kernels")
# timing file -> the csv of the cases' stand-in steps, and the model whose rows are the stand-in
PAIRED = {
    "sebs_graph_bfs.txt": ("validation/sebs/graph_bfs_stand_in_steps.csv", "sebs_graph_bfs"),
    "classifaas_gemm.txt": ("validation/classifaas/stand_in_steps.csv", "classifaas_gemm"),
    "cebert_memory_sort.txt": ("validation/cebert/stand_in_steps.csv", "cebert_memory_sort"),
}


def last_line(path):
    with open(path) as f:
        return f.read().splitlines()[-1]


def zip_on_calibration_cpu_s():
    with open(os.path.join(KERNELS, "lambda_x86_cpu_speed.txt")) as f:
        line = next(l for l in f if l.startswith("calibration CPU:"))
    return float(re.search(r"= ([0-9.]+) s$", line.strip()).group(1))


class StandInSteps(unittest.TestCase):
    def test_each_csv_is_its_files_ratio_times_the_zip(self):
        zip_s = zip_on_calibration_cpu_s()
        for timing_file, (steps_csv, model) in PAIRED.items():
            ratio = float(re.search(r"over zip \(median of \d+ pairs\) ([0-9.]+)$",
                                    last_line(os.path.join(KERNELS, timing_file))).group(1))
            with open(os.path.join(ROOT, steps_csv)) as f:
                rows = [r for r in csv.DictReader(f) if r["model"] == model]
            self.assertTrue(rows, steps_csv)
            for row in rows:
                self.assertAlmostEqual(float(row["seconds"]), ratio * zip_s, delta=0.00005 + 1e-12,
                                       msg=f"{steps_csv}: {row['seconds']} s against {ratio} x {zip_s} s")


if __name__ == "__main__":
    unittest.main()
