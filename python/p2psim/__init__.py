"""p2psim from Python: experiments as objects, runs and sweeps as pandas DataFrames (docs/python.md).

    import p2psim
    e = p2psim.Experiment("experiments/vgg11_cifar.xml").with_(peers=8)
    r = p2psim.run(e)                  # r.summary, r.costs, r.phases, r.trace: DataFrames
    df = p2psim.sweep(e, axes={"peers/@count": [4, 8, 16]}, jobs=2)

An experiment is checked in this process by the simulator's own reader (the CLI's messages, raised as
p2psim.InputError with file, line and field); runs and sweeps are the CLI's own commands, run by the C++ core
in a child process (SimGrid holds one engine per process), so their files are the CLI's, byte for byte.
"""
import os
import sys
import tempfile

import pandas as pd


class InputError(ValueError):
    """Bad input, as the CLI reports it with exit code 2: `file`, `line` (0: none) and `field` ('' : none)."""

    def __init__(self, file, line, field, message, text=None):
        # Worded as the CLI words it ("FILE:LINE: field 'F': MESSAGE") where the error is not the CLI's own text.
        where = f"{file}:{line}" if line else f"{file}"
        super().__init__(text or f"{where}: " + (f"field '{field}': " if field else "") + message)
        self.file, self.line, self.field, self.message = file, line, field, message


from . import _core  # noqa: E402  (its errors are InputErrors: the class exists before it loads)


def _locate():
    """The data folder and the binaries: an install's (PREFIX/lib/p2psim/python/p2psim -> PREFIX/share/p2psim,
    PREFIX/bin), else the build tree's (BUILD/python/p2psim -> BUILD, the source tree)."""
    here = os.path.dirname(os.path.abspath(__file__))
    prefix = os.path.normpath(os.path.join(here, "..", "..", "..", ".."))
    if os.path.isfile(os.path.join(prefix, "share", "p2psim", "experiments", "defaults.xml")):
        return os.path.join(prefix, "share", "p2psim"), os.path.join(prefix, "bin")
    return _core.default_data_dir(), os.path.normpath(os.path.join(here, "..", ".."))


DATA_DIR, BIN_DIR = _locate()
os.environ.setdefault("P2PSIM_DATA_DIR", DATA_DIR)
os.environ.setdefault("P2PSIM_BIN_DIR", BIN_DIR)
__version__ = _core.version()

from .experiment import Experiment  # noqa: E402
from .running import Result, load, run, sweep  # noqa: E402
from . import plots  # noqa: E402
from ._analysis import module as _module  # noqa: E402

analysis = _module("p2psim_plots")  # the report's tables, figures and recommendation (notebooks/p2psim_*.py)

__all__ = ["Experiment", "InputError", "Result", "run", "sweep", "load", "plots", "analysis", "DATA_DIR"]
