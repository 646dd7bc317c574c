"""Names a reader understands: each results column's label (with its unit) for axes and table headers, and a
short form of a value for configuration labels ("vgg11, 12 peers, 3008 MB" rather than a scenario hash or
`workload/@batch_size=1024`).

Sweep columns are XPaths into the experiment (docs/experiment_schema.md); the common ones are listed here, and
any other reads as its element and attribute ("synchronization/@mode" -> "synchronization mode")."""
import math
import re

import pandas as pd

# column: (axis or header label with its unit, short form of a value; None: the value itself)
COLUMNS = {
    "system": ("system", None),
    "strategy": ("design", None),
    "model": ("model", None),
    "input_shape": ("input shape", None),
    "dataset": ("dataset", None),
    "peers": ("peers", "{} peers"),
    "instance_type": ("instance type", None),
    "function_memory_mb": ("function memory (MB)", "{} MB"),
    "function_arch": ("function architecture", "{} functions"),
    "iterations": ("iterations", "{} iterations"),
    "transport": ("transport", "{} transport"),
    "batch_size": ("batch size", "batch {}"),
    "total_s": ("total training time (s)", "{} s"),
    "total_usd": ("total cost (USD)", "{} USD"),
    "time_to_target_s": ("time to the target accuracy (s)", "{} s"),
    "cost_to_target_usd": ("cost to the target accuracy (USD)", "{} USD"),
    "final_test_accuracy": ("final test accuracy", None),
    "iteration_s": ("seconds per peer and iteration", "{} s"),
    "scenario_id": ("scenario", None),
    "workload": ("workload", None),
}
# Sweep axes (XPaths) that set a configuration column: the same label.
XPATHS = {
    "workload/@model": "model",
    "workload/@input_shape": "input_shape",
    "workload/@dataset": "dataset",
    "workload/@batch_size": "batch_size",
    "workload/@iterations": "iterations",
    "peers/@count": "peers",
    "peers/@instance_type": "instance_type",
    "functions/@memory_mb": "function_memory_mb",
    "functions/@arch": "function_arch",
}
# Other sweep axes often met (experiments/*.xml), named as a reader would.
AXES = {
    "synchronization/@mode": ("synchronization", None),
    "exchange/@compression": ("compression", "compression {}"),
    "exchange/@topk_ratio": ("top-k ratio", "top-k {}"),
    "synchronization/@staleness_bound": ("staleness bound", "staleness {}"),
}


def _entry(column):
    column = XPATHS.get(column, column)
    if column in COLUMNS:
        return COLUMNS[column]
    if column in AXES:
        return AXES[column]
    for prefix in ("profile:", "prices:"):  # an override of the platform or the price book: read as its XPath
        if column.startswith(prefix):
            column = column[len(prefix):]
    if "/@" in column:  # element/@attribute -> "element attribute"
        element, attribute = column.rsplit("/@", 1)
        return (f"{_element_name(element)} {attribute}".replace("_", " "), None)
    return (column.replace("_", " "), None)


def _element_name(element):
    """The last step of an XPath as a reader names it: "group[2]" -> "group 2",
    "instance[@type='t2.large']" -> "instance t2.large"."""
    last = element.rsplit("/", 1)[-1]
    match = re.fullmatch(r"""([\w-]+)\[(?:@[\w-]+=['"]([^'"]*)['"]|(\d+))\]""", last)
    return f"{match.group(1)} {match.group(2) or match.group(3)}" if match else last


def label(column):
    """The axis or table-header label of a column, with its unit."""
    return _entry(column)[0]


def plain(value):
    """A value as a reader writes it: 3008 not 3008.0, names as they are."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def value_label(column, value):
    """The short form of one value, e.g. ("peers", 12) -> "12 peers"."""
    short = _entry(column)[1]
    text = plain(value)
    return short.format(text) if short else text


def is_missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA or value == ""


def used_columns(row, columns):
    """The columns that mean something for this row's design: function settings are left out of a system that
    invoked no function, the experiment's function memory out of one whose functions all ran at sizes of their own
    (sharded reducers, tree aggregators: `function_memory_used_mb`), and empty cells are left out."""
    if row.get("function_invocations", 1) == 0:
        columns = [c for c in columns if "function" not in XPATHS.get(c, c)]
    used = row.get("function_memory_used_mb")
    if used is not None and not is_missing(used) and "function_memory_mb" in row.index:
        if plain(row["function_memory_mb"]) not in plain(used).split("/"):
            columns = [c for c in columns if c != "function_memory_mb"]
    return [c for c in columns if c in row.index and not is_missing(row[c])]


def unused_note(rows, column):
    """Why none of these rows (one system's) depends on `column`, in a few words ("no functions", "functions at
    280 MB", "" when neither says it), or None when some row uses it (used_columns). Where it is not None, the
    column's values change nothing for that system."""
    if rows.empty or any(column in used_columns(row, [column]) for _, row in rows.iterrows()):
        return None
    sizes = sorted({float(size) for cell in rows.get("function_memory_used_mb", pd.Series(dtype=object)).dropna()
                    for size in plain(cell).split("/") if size})
    if "function_invocations" in rows and rows["function_invocations"].eq(0).all():
        return "no functions"
    if sizes and column == "function_memory_mb":
        span = plain(sizes[0]) if len(sizes) == 1 else f"{plain(sizes[0])}-{plain(sizes[-1])}"
        return f"functions at {span} MB"
    return ""


def config_label(row, columns):
    """A configuration in words, e.g. "vgg11, 12 peers, 3008 MB", from the given columns of one row."""
    return ", ".join(value_label(c, row[c]) for c in used_columns(row, columns))


def describe(row, columns):
    """A configuration with its field names, e.g. "system: serverless, peers: 12, function memory (MB): 3008"."""
    return ", ".join(f"{label(c)}: {plain(row[c])}" for c in used_columns(row, columns))
