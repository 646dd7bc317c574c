"""The p2psim Python package (python/) against the CLI: the same files byte for byte, the same rows, the same refusals
(raised as p2psim.InputError with file, line and field), a sweep interrupted and resumed. Run by ctest with
PYTHONPATH=BUILD/python and P2PSIM_BIN=BUILD/p2psim."""
import _thread
import csv
import os
import subprocess
import tempfile
import threading
import time
import unittest

import pandas as pd

import p2psim

CLI = os.environ["P2PSIM_BIN"]
SOURCE = os.environ.get("P2PSIM_SOURCE_DIR", p2psim.DATA_DIR)
VGG = os.path.join(SOURCE, "experiments", "vgg11_cifar.xml")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def small_sweep_xml():
    """A sweep of two designs over four peer counts (mnist_cnn on the hand-made calibration), each scenario
    long enough (a few tenths of a second) to be interrupted before the others."""
    return f"""<experiment name="quick" seed="2">
  <calibration files="{SOURCE}/tests/data/hand_calibration.csv"/>
  <workload model="mnist_cnn" input_shape="1x28x28" dataset="mnist" minibatches_per_peer="2" iterations="500"/>
  <peers count="4" instance_type="t2.large"/>
  <systems>
    <system name="instance" strategy="p2p_all_to_all" compute="peer"/>
    <system name="ring" strategy="ring_allreduce"/>
  </systems>
  <sweep><axis select="peers/@count" values="2 4 8 16"/></sweep>
</experiment>
"""


class Run(unittest.TestCase):
    def test_a_run_writes_the_cli_files_byte_for_byte(self):
        with tempfile.TemporaryDirectory() as d:
            result = p2psim.run(p2psim.Experiment(VGG), out=os.path.join(d, "py"))
            self.assertEqual(cli("run", VGG, "-q", "--out", os.path.join(d, "cli")).returncode, 0)
            for name in ("result.json", "result.csv", "trace.csv"):
                with self.subTest(file=name):
                    self.assertEqual(read(os.path.join(d, "py", name)), read(os.path.join(d, "cli", name)))
            # The DataFrame holds result.csv's columns, in its order (the CSV schema), and a row per system.
            with open(os.path.join(d, "cli", "result.csv"), newline="") as f:
                header = next(csv.reader(f))
            self.assertEqual(list(result.table.columns), header)
            self.assertEqual(list(result.summary.index), ["instance", "serverless"])
            self.assertEqual(set(result.costs["system"]), {"instance", "serverless"})
            self.assertIn("function_compute", set(result.costs["service"]))
            self.assertTrue((result.phases["seconds"] > 0).all())
            self.assertEqual(len(result.trace), sum(1 for _ in open(os.path.join(d, "cli", "trace.csv"))) - 1)
            self.assertIn("<table", result._repr_html_())

    def test_a_run_warns_of_a_setting_it_leaves_idle(self):
        with open(VGG) as f:  # the main job in synchronous mode, with a staleness bound it will not use
            text = f.read()
        end = text.rindex("</experiment>")
        text = text[:end] + '  <synchronization staleness_bound="3"/>\n' + text[end:]
        with self.assertWarnsRegex(UserWarning, r"field 'synchronization/@staleness_bound': has no effect in synchronous"):
            p2psim.run(p2psim.Experiment(xml=text, base_dir=os.path.dirname(VGG)))

    def test_peer_groups_give_a_row_per_system_and_group(self):
        result = p2psim.run(p2psim.Experiment(os.path.join(SOURCE, "experiments", "mixed_peers.xml")))
        self.assertEqual(len(result.groups), 4 * 2)
        self.assertEqual(set(result.groups["group"]), {"t3.medium", "c5.large"})
        ring = result.groups[result.groups["system"] == "ring"].set_index("group")
        self.assertAlmostEqual(ring["end_s"].max(), result.summary.loc["ring", "total_s"], places=6)
        self.assertTrue(p2psim.run(p2psim.Experiment(VGG)).groups.empty)

    def test_replicates_and_an_experiment_from_keywords_changed_with_selectors(self):
        e = p2psim.Experiment(model="mnist_cnn", input_shape="1x28x28", dataset="mnist", batch_size=2000,
                              iterations=2, peers=4, instance_type="t2.large",
                              systems=[{"name": "ring", "strategy": "ring_allreduce"}])
        four = p2psim.run(e, replicates=5).summary
        eight = p2psim.run(e.with_(peers=8)).summary
        self.assertEqual(four.loc["ring", "status"], "ok")
        self.assertLessEqual(four.loc["ring", "total_s_p10"], four.loc["ring", "total_s_p90"])
        self.assertNotEqual(four.loc["ring", "total_s"], eight.loc["ring", "total_s"])
        self.assertIn('count="8"', e.with_({"peers/@count": 8}).to_xml())
        # Every system infeasible (a 512 MB function holds no VGG-11 step of 1,024): its times are empty, and
        # still columns.
        small = p2psim.Experiment(model="vgg11_cifar", input_shape="3x32x32", dataset="cifar10", batch_size=1024,
                                  iterations=1, peers=4, instance_type="t2.large", memory_mb=512,
                                  systems=[{"name": "serverless", "strategy": "p2p_all_to_all", "compute": "functions"}])
        summary = p2psim.run(small).summary
        self.assertEqual(summary.loc["serverless", "status"], "infeasible")
        self.assertTrue(pd.isna(summary.loc["serverless", "total_s"]))
        self.assertGreater(summary.loc["serverless", "total_usd"], 0)


class Refusals(unittest.TestCase):
    def test_bad_input_raises_input_error_with_file_line_and_field(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.xml")
            with open(VGG) as src, open(path, "w") as f:
                f.write(src.read().replace('count="4"', 'count="0"'))  # in its comments too
            with self.assertRaises(p2psim.InputError) as caught:
                p2psim.Experiment(path)
            e = caught.exception
            self.assertEqual((e.file, e.field), (path, "peers/@count"))
            self.assertGreater(e.line, 0)
            # The CLI's message, word for word.
            self.assertIn(str(e), cli("run", path).stderr)
        with self.assertRaises(p2psim.InputError) as caught:
            p2psim.Experiment(VGG).with_({"systems/system[@name='nope']/@x": 1})
        self.assertIn("selects no element", str(caught.exception))
        # A change that makes the experiment bad names the user's file and the field, not a generated text's line.
        with self.assertRaises(p2psim.InputError) as caught:
            p2psim.Experiment(VGG).with_(peers=-1)
        self.assertEqual((caught.exception.file, caught.exception.line, caught.exception.field),
                         (os.path.abspath(VGG) + ", as changed by with_", 0, "peers/@count"))
        self.assertTrue(str(caught.exception).startswith(
            os.path.abspath(VGG) + ", as changed by with_: field 'peers/@count': "), str(caught.exception))
        # A change naming a bad file of its own: that file's error, its line and field, as it is.
        with tempfile.TemporaryDirectory() as d:
            bad_csv = os.path.join(d, "bad.csv")
            with open(bad_csv, "w") as f:
                f.write("a,b\n1,2\n")
            with self.assertRaises(p2psim.InputError) as caught:
                p2psim.Experiment(VGG).with_({"calibration/@files": bad_csv})
            self.assertEqual((caught.exception.file, caught.exception.field), (bad_csv, "kernel"))
        # An error raised here, not by the CLI's reader, is worded as the CLI words it, the file first.
        with self.assertRaises(p2psim.InputError) as caught:
            p2psim.Experiment("no/such/experiment.xml")
        self.assertTrue(str(caught.exception).startswith("no/such/experiment.xml: cannot open file"),
                        str(caught.exception))
        self.assertIs(p2psim.Experiment.SHORTHANDS, p2psim.experiment.SHORTHANDS)
        with self.assertRaises(p2psim.InputError) as caught:
            p2psim.Experiment(model="vgg11", input_shape="3x32x32", peers=4)
        self.assertEqual(caught.exception.file, "<string>")
        self.assertEqual(caught.exception.field, "workload/@dataset")
        with open(VGG) as src:  # the text where its path goes: said so, not "cannot open file"
            text = src.read()
        with self.assertRaises(p2psim.InputError) as caught:
            p2psim.Experiment(text)
        self.assertIn("Experiment(xml=...)", str(caught.exception))


class Sweep(unittest.TestCase):
    def test_the_designs_sweep_gives_the_cli_rows(self):
        designs = os.path.join(SOURCE, "experiments", "designs_compare.xml")
        with tempfile.TemporaryDirectory() as d:
            df = p2psim.sweep(designs, jobs=2, out=os.path.join(d, "py"), progress=False)
            self.assertEqual(cli("sweep", designs, "-j", "2", "--out", os.path.join(d, "cli")).returncode, 0)
            self.assertEqual(read(os.path.join(d, "py", "results.csv")), read(os.path.join(d, "cli", "results.csv")))
            self.assertEqual(len(df), len(p2psim.load(os.path.join(d, "cli"))))

    def test_an_interrupted_sweep_keeps_what_finished_and_resumes(self):
        with tempfile.TemporaryDirectory() as d:
            e = p2psim.Experiment(xml=small_sweep_xml())
            out = os.path.join(d, "out")
            runs = os.path.join(out, "runs")

            def ctrl_c_after_the_first_scenario():
                while not (os.path.isdir(runs) and any(not n.startswith(".") for n in os.listdir(runs))):
                    time.sleep(0.01)
                _thread.interrupt_main()

            threading.Thread(target=ctrl_c_after_the_first_scenario, daemon=True).start()
            with self.assertRaises(KeyboardInterrupt):
                p2psim.sweep(e, jobs=1, out=out, progress=False)
            finished = {n for n in os.listdir(runs) if not n.startswith(".")}
            self.assertGreaterEqual(len(finished), 1)
            self.assertLess(len(finished), 4)
            resumed = p2psim.sweep(e, jobs=1, out=out, progress=False)
            whole = p2psim.sweep(e, jobs=2, out=os.path.join(d, "whole"), progress=False)
            self.assertEqual(len(resumed), 8)  # 4 scenarios x 2 systems
            self.assertEqual(read(os.path.join(out, "results.csv")), read(os.path.join(d, "whole", "results.csv")))
            self.assertEqual(list(resumed.columns), list(whole.columns))


if __name__ == "__main__":
    unittest.main()
