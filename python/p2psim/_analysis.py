"""The analysis layer (notebooks/p2psim_*.py: tables, figures, report), imported from the data folder, so that
the package and `p2psim report` draw with one code."""
import importlib
import os
import sys

from . import DATA_DIR

_NOTEBOOKS = os.path.join(DATA_DIR, "notebooks")
if _NOTEBOOKS not in sys.path:
    sys.path.insert(0, _NOTEBOOKS)


def module(name):
    return importlib.import_module(name)
