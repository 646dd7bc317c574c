"""The stand-in steps of the validation cases are what their sources say. Those timed by paired_stand_in.py: each
csv's seconds = the file's median ratio (kernel over zip) x the zip's time on the calibration CPU
(calibration/kernels/lambda_x86_cpu_speed.txt), to the csv's four decimals. FaaSdom's and
faas-parallelism-benchmark's, whose speed their own calls at 2,048 MB set: each model's seconds = its calibration
case's measured median x the profile's Lambda x86 speed factor, to five decimals. The csvs are written by hand; this
keeps them from drifting apart from their sources when a file is measured again or the factor moves. SeBS's
ResNet-50 stand-in, timed unpaired on another host: its LibTorch forward pass carried to the calibration CPU by the zip
and by LibTorch's own steps' correction to the zip (libtorch_step_carry.txt), its image work by the zip alone; gumeter's
GEMM, paired with the zip, carried by the zip and the same correction."""
import csv
import os
import re
import unittest
import xml.etree.ElementTree as ElementTree

import libtorch_step_carry
import paired_stand_in

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KERNELS = os.path.join(ROOT, "calibration", "kernels")
# timing file -> the csv of the cases' stand-in steps, and the model whose rows are the stand-in
PAIRED = {
    "sebs_graph_bfs.txt": ("validation/sebs/graph_bfs_stand_in_steps.csv", "sebs_graph_bfs"),
    "classifaas_gemm.txt": ("validation/classifaas/stand_in_steps.csv", "classifaas_gemm"),
    "cebert_memory_sort.txt": ("validation/cebert/stand_in_steps.csv", "cebert_memory_sort"),
    "slapp_factorial.txt": ("validation/slappmdlopt/stand_in_steps.csv", "slapp_factorial"),
    "slapp_decimal_pi.txt": ("validation/slappmdlopt/stand_in_steps.csv", "slapp_decimal_pi"),
}
# the stand-ins of vector work, carried by LibTorch's steps' correction
VECTOR = {"sebs_resnet50_inference", "gumeter_dgemm_kernel"}
# the csv of the cases' stand-in steps, the model, and the calibration case whose calls at 2,048 MB set its speed
SET_AT_2048MB = [("validation/faasdom/stand_in_steps.csv", f"faasdom_factors_{runtime}",
                  f"faasdom_factors_{runtime}_2048mb.case.xml") for runtime in ("python", "node", "go", "dotnet")] + [
    ("validation/faas_parallelism/stand_in_steps.csv", "faas_parallelism_mc_pi", "faas_parallelism_mc_pi_2048mb.case.xml")]


def median_s(path, prefix="median"):
    """The seconds of a timing file's `median S s ...` line, or of its `<prefix> median S s ...` line."""
    with open(path) as f:
        line = next(l for l in f if l.startswith(prefix + " "))
    return float(re.match(re.escape(prefix) + r" (?:median )?([0-9.]+) s", line).group(1))


class StandInSteps(unittest.TestCase):
    def test_resnet50_stand_in_is_its_parts_carried_each_by_its_own_kind(self):
        zip_ratio = paired_stand_in.zip_on_calibration_cpu_s(KERNELS) / median_s(
            os.path.join(KERNELS, "sebs_zip_compression_resnet50_host.txt"))
        libtorch_correction = libtorch_step_carry.read_summary_line(os.path.join(KERNELS, "libtorch_step_carry.txt"))[0]
        image_s = median_s(os.path.join(KERNELS, "sebs_image_preprocess.txt"))
        with open(os.path.join(ROOT, "validation/sebs/resnet50_inference_stand_in_steps.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual({r["threads"] for r in rows}, {"1", "2"})
        for row in rows:
            forward_s = median_s(os.path.join(KERNELS, "sebs_resnet50_inference.txt"), f"threads {row['threads']}")
            expected = (forward_s * libtorch_correction + image_s) * zip_ratio
            self.assertAlmostEqual(float(row["seconds"]), expected, delta=0.00005 + 1e-12,
                                   msg=f"threads {row['threads']}: {row['seconds']} s against {expected:.5f}")

    def test_gumeters_gemm_is_its_ratio_times_the_zip_and_libtorchs_correction(self):
        # Vector work: the zip brings it to the calibration CPU as scalar work, LibTorch's steps' correction the rest.
        ratio = paired_stand_in.pairs_file_ratio(os.path.join(KERNELS, "gumeter_flops.txt"))
        correction = libtorch_step_carry.read_summary_line(os.path.join(KERNELS, "libtorch_step_carry.txt"))[0]
        expected = ratio * paired_stand_in.zip_on_calibration_cpu_s(KERNELS) * correction
        with open(os.path.join(ROOT, "validation/calibration/gumeter_stand_in_steps.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual({r["threads"] for r in rows}, {"1", "2"})
        for row in rows:
            self.assertAlmostEqual(float(row["seconds"]), expected, delta=0.00005 + 1e-12,
                                   msg=f"{row['seconds']} s against {ratio} x zip x {correction}")

    def test_each_csv_is_its_files_ratio_times_the_zip(self):
        zip_s = paired_stand_in.zip_on_calibration_cpu_s(KERNELS)
        for timing_file, (steps_csv, model) in PAIRED.items():
            ratio = paired_stand_in.pairs_file_ratio(os.path.join(KERNELS, timing_file))
            with open(os.path.join(ROOT, steps_csv)) as f:
                rows = [r for r in csv.DictReader(f) if r["model"] == model]
            self.assertTrue(rows, steps_csv)
            for row in rows:
                self.assertAlmostEqual(float(row["seconds"]), ratio * zip_s, delta=0.00005 + 1e-12,
                                       msg=f"{steps_csv}: {row['seconds']} s against {ratio} x {zip_s} s")

    def test_steps_set_by_their_own_2048mb_calls_are_those_calls_times_the_x86_scalar_factor(self):
        # Their kernels are scalar code and their experiments say cpu_work="scalar": they run at this factor.
        profile = ElementTree.parse(os.path.join(ROOT, "platforms", "aws_us_east_1.xml"))
        factor = float(profile.find("function_service").get("cpu_scalar_speed_factor_x86"))
        for steps_csv, model, calibration_case in SET_AT_2048MB:
            case = ElementTree.parse(os.path.join(ROOT, "validation", "calibration", calibration_case))
            measured_s = float(case.find("metric").get("measured"))
            with open(os.path.join(ROOT, steps_csv)) as f:
                rows = [r for r in csv.DictReader(f) if r["model"] == model]
            self.assertTrue(rows, f"{steps_csv}: no rows of {model}")
            for row in rows:
                self.assertAlmostEqual(float(row["seconds"]), measured_s * factor, delta=0.000005 + 1e-12,
                                       msg=f"{steps_csv}, {model}: {row['seconds']} s against {measured_s} x {factor}")


class StandInKinds(unittest.TestCase):
    """A stand-in carried to the calibration CPU by the zip (scalar work), or set by its own Lambda calls at the x86
    scalar factor, is scalar code: every experiment that runs it says cpu_work="scalar", so that its CPUs run it at
    their scalar speeds. SeBS's ResNet-50 and gumeter's GEMM, carried by LibTorch's steps, are vector work and say
    nothing."""

    def test_every_experiment_of_a_scalar_stand_in_says_scalar(self):
        scalar = {model for _, model in PAIRED.values()} | {model for _, model, _ in SET_AT_2048MB} | {"sebs_zip_kernel"}
        seen = {}
        for folder, _, files in os.walk(os.path.join(ROOT, "validation")):
            for name in files:
                if not name.endswith(".xml") or name.endswith(".case.xml"):
                    continue
                # By pattern, not by an XML parser: some comments hold "--" (iperf's options), which pugixml
                # reads and Python's expat refuses.
                with open(os.path.join(folder, name)) as f:
                    workload = re.search(r"<workload\b[^>]*>", re.sub(r"<!--.*?-->", "", f.read(), flags=re.S))
                if workload is None:
                    continue
                attributes = dict(re.findall(r'(\w+)="([^"]*)"', workload.group(0)))
                model = attributes.get("model")
                kind = attributes.get("cpu_work", "vector")
                if model in scalar or model in VECTOR:
                    seen[model] = seen.get(model, 0) + 1
                    self.assertEqual(kind, "scalar" if model in scalar else "vector", os.path.join(folder, name))
        self.assertEqual(set(seen), scalar | VECTOR)  # every one of them has experiments
        self.assertEqual(sum(n for m, n in seen.items() if m in scalar), 69)


if __name__ == "__main__":
    unittest.main()
