"""Running experiments and sweeps with the CLI's own commands (in a child process of the C++ core), and reading
what they write as DataFrames."""
import json
import os
import re
import shutil
import sys
import tempfile
import time
import warnings

import pandas as pd

from . import InputError, _core
from ._analysis import module
from .experiment import Experiment

_tables = module("p2psim_tables")

# The columns a summary shows, of result.csv's (the rest stay in Result.table).
SUMMARY = ["system", "strategy", "status", "total_s", "iteration_s", "total_usd", "cost_ratio_vs_baseline",
           "total_time_speedup_vs_baseline", "total_s_p10", "total_s_p90", "total_usd_p10", "total_usd_p90"]
SERVICES = module("p2psim_schema").columns_of("cost_by_service")  # in result.csv's order


def _error(command, code, log):
    """The child's error as the CLI printed it: InputError for exit code 2, RuntimeError otherwise."""
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read().strip()
    message = text.splitlines()[-1] if text else f"exit code {code}"
    message = re.sub(rf"^p2psim {command}: (error|internal error): ", "", message)
    if code == 2:
        where = re.match(r"^(.+?):(\d+)?:? (?:field '([^']*)': )?(.*)$", message)
        if where:
            return InputError(where.group(1), int(where.group(2) or 0), where.group(3) or "", where.group(4), message)
        return InputError("", 0, "", message, message)
    return RuntimeError(f"p2psim {command} failed ({message})")


def _warn_of(command, log):
    """What a child that succeeded warned of (a setting the experiment leaves idle, a deprecated one, a calibration
    outlier), as Python warnings: the CLI prints them to stderr, which the log holds."""
    prefix = f"p2psim {command}: warning: "
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(prefix):
                warnings.warn(line[len(prefix):].rstrip(), stacklevel=3)


def _experiment(experiment):
    return experiment if isinstance(experiment, Experiment) else Experiment(experiment)


class Result:
    """One run's files as DataFrames: `table` (result.csv: a row per system), `summary` (its main columns),
    `costs` (system, service, usd), `phases` (system, phase, seconds: mean per occurrence), `groups` (groups.csv:
    a row per system and peer group, empty when the peers are of one kind), `trace` (trace.csv: every phase of
    every peer), `json` (result.json) and `dir` (where they are)."""

    def __init__(self, folder):
        self.dir = folder
        self.table = _tables.load_results(folder)
        with open(os.path.join(folder, "result.json"), encoding="utf-8") as f:
            self.json = json.load(f)
        groups = os.path.join(folder, "groups.csv")  # read now, as the table: a run's folder may be temporary
        self.groups = (pd.read_csv(groups, dtype={"system": str, "group": str}) if os.path.exists(groups)
                       else pd.DataFrame(columns=["system", "group"]))  # one kind of peer: no groups.csv
        self._trace = None

    @property
    def summary(self):
        """A row per system; the bands' columns only when the run had replicates (empty columns left out, not the
        times, which an infeasible system has none of)."""
        columns = self.table[[c for c in SUMMARY if c in self.table.columns]].set_index("system")
        # Empty columns left out, but for the times: an infeasible system's are empty, and stay so.
        empty = [c for c in columns.columns if columns[c].isna().all() and c not in ("total_s", "iteration_s")]
        return columns.drop(columns=empty)

    @property
    def costs(self):
        present = [c for c in SERVICES if c in self.table.columns]
        long = self.table.melt(id_vars="system", value_vars=present, var_name="service", value_name="usd")
        long["service"] = long["service"].str.removesuffix("_usd")
        return long

    @property
    def phases(self):
        present = [c for c in self.table.columns if c.startswith("phase_") and c.endswith("_s")]
        long = self.table.melt(id_vars="system", value_vars=present, var_name="phase", value_name="seconds")
        long["phase"] = long["phase"].str.removeprefix("phase_").str.removesuffix("_s")
        return long[long["seconds"] > 0].reset_index(drop=True)

    @property
    def trace(self):
        if self._trace is None:
            self._trace = pd.read_csv(os.path.join(self.dir, "trace.csv"), dtype={"system": str})
        return self._trace

    def _repr_html_(self):
        return self.summary.to_html(float_format=lambda v: f"{v:.6g}", na_rep="")

    def __repr__(self):
        return f"<p2psim.Result of {self.json.get('experiment', '?')}>\n{self.summary.to_string()}"


def run(experiment, replicates=None, out=None):
    """Simulates the experiment's systems, as `p2psim run EXPERIMENT --out OUT` (a temporary folder when `out` is
    None, kept by the Result until it goes), and returns its Result."""
    experiment = _experiment(experiment)
    if experiment.has_sweep:
        raise InputError(experiment.path or "<string>", 0, "sweep", "this experiment declares a sweep: use p2psim.sweep")
    work = tempfile.mkdtemp(prefix="p2psim-run-")
    try:
        folder = os.path.abspath(out) if out else os.path.join(work, "out")
        args = [experiment.file(work), "-q", "--out", folder]
        if not experiment.path:
            args += ["--provenance-base", experiment.base_dir]
        if replicates is not None:
            args += ["--replicates", str(replicates)]
        log = os.path.join(work, "stderr")
        pid = _core.start_run(args, log)
        try:
            _, code = _core.wait(pid)
        except KeyboardInterrupt:
            _core.interrupt(pid)
            _core.wait(pid)
            raise
        if code != 0:
            raise _error("run", code, log)
        _warn_of("run", log)
        result = Result(folder)
        result.trace  # read now: a temporary folder goes with this function
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


class _Progress:
    """Finished scenarios of a sweep, shown in a notebook (a display updated in place) or on a terminal."""

    def __init__(self, total):
        self.total, self.shown, self.start = total, None, time.monotonic()
        self.handle = None
        if "ipykernel" in sys.modules:
            try:
                from IPython.display import display
                self.handle = display(self._text(0, 0), display_id=True)
            except ImportError:
                pass

    def _text(self, done, failed):
        return f"p2psim sweep: {done + failed}/{self.total} scenarios ({failed} failed), {time.monotonic() - self.start:.0f} s"

    def update(self, done, failed, final=False):
        if (done, failed) == self.shown and not final:
            return
        self.shown = (done, failed)
        text = self._text(done, failed)
        if self.handle is not None:
            self.handle.update(text)
        else:
            sys.stderr.write("\r" + text + ("\n" if final else ""))
            sys.stderr.flush()


def _count(folder, sub, suffix=""):
    path = os.path.join(folder, sub)
    if not os.path.isdir(path):
        return 0
    return sum(1 for name in os.listdir(path) if not name.startswith(".") and name.endswith(suffix))


def sweep(experiment, axes=None, jobs=None, out=None, replicates=None, progress=True):
    """Runs every scenario of the experiment's <sweep> (or of `axes`: {"peers/@count": [4, 8], ...}), as
    `p2psim sweep --out OUT -j JOBS`, and returns results.csv as a DataFrame. With `out`, an interrupted sweep
    (Ctrl-C) keeps its finished scenarios, and the same call resumes it."""
    experiment = _experiment(experiment)
    text = experiment.to_xml()
    if axes:
        values = {select: " ".join(str(v) for v in vals) for select, vals in axes.items()}
        axis_xml = "".join(f'<axis select="{_attr(s)}" values="{_attr(v)}"/>' for s, v in values.items())
        if "<sweep" in text:
            text = text.replace("</sweep>", axis_xml + "</sweep>", 1)
        else:
            text = text.replace("</experiment>", f"<sweep>{axis_xml}</sweep>\n</experiment>", 1)
        experiment = Experiment(xml=text, base_dir=experiment.base_dir)
    work = tempfile.mkdtemp(prefix="p2psim-sweep-")
    try:
        folder = os.path.abspath(out) if out else os.path.join(work, "out")
        file = experiment.file(work)
        total = len(_core.expand(file))
        args = [file, "--out", folder]
        if jobs:
            args += ["-j", str(jobs)]
        if replicates is not None:
            args += ["--replicates", str(replicates)]
        log = os.path.join(work, "stderr")
        pid = _core.start_sweep(args, log)
        bar = _Progress(total) if progress else None
        try:
            while True:
                finished, code = _core.wait(pid, block=False)
                if bar:
                    bar.update(_count(folder, "runs"), _count(folder, "failed", ".json"), final=finished)
                if finished:
                    break
                time.sleep(0.2)
        except KeyboardInterrupt:
            _core.interrupt(pid)  # the sweep stops its workers; what they finished stays in `out`
            _core.wait(pid)
            raise
        if code not in (0, 1):  # 1: some scenarios failed (their rows say why)
            raise _error("sweep", code, log)
        return _tables.load_results(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _attr(value):
    return str(value).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def load(folder):
    """The results of any run or sweep folder (result.csv or results.csv) as a DataFrame."""
    return _tables.load_results(os.fspath(folder))
