"""The result tables' columns and the phases as p2psim writes them (result_schema.json beside this file: the output
of `p2psim schema`, which writes it from the lists the tables are written with; a test keeps the two equal).

The analysis layer takes its column groups and the phases' order from here instead of typing them again, and
names any other column through `column()`, which fails at import on a name p2psim does not write."""
import json
import os

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "result_schema.json"), encoding="utf-8") as _f:
    SCHEMA = json.load(_f)

RESULT_COLUMNS = [c["name"] for c in SCHEMA["result.csv"]]
GROUP_COLUMNS = [c["name"] for c in SCHEMA["groups.csv"]]
TRACE_COLUMNS = [c["name"] for c in SCHEMA["trace.csv"]]
ACCURACY_COLUMNS = [c["name"] for c in SCHEMA["accuracy.csv"]]
VALIDATION_COLUMNS = [c["name"] for c in SCHEMA["validation.csv"]]
SCENARIO_ID = SCHEMA["results.csv"]["first"]
# Every phase, in the order a reader meets them in an iteration (the timeline's order and colours).
PHASES = [p["name"] for p in SCHEMA["phases"]]
# The cloud mechanisms a run records in result.csv's `mechanisms` ({name: label}, in their own order).
MECHANISMS = {m["name"]: m["label"] for m in SCHEMA["mechanisms"]}


def column(name, table="result.csv"):
    """`name`, a column of `table` (or a sweep's scenario id); a KeyError naming it when p2psim writes no such."""
    names = [c["name"] for c in SCHEMA[table]] + ([SCENARIO_ID] if table == "result.csv" else [])
    if name not in names:
        raise KeyError(f"{table} has no column '{name}' (notebooks/result_schema.json)")
    return name


def columns_of(part):
    """The columns of result.csv in `part` (e.g. "configuration"), in the table's order."""
    return [c["name"] for c in SCHEMA["result.csv"] if c.get("part") == part]


def labelled(part):
    """(label, column) of result.csv's columns in `part` ("iteration_part", "cost_by_service"), in their rank."""
    entries = sorted((c for c in SCHEMA["result.csv"] if c.get("part") == part), key=lambda c: c["rank"])
    return [(c["label"], c["name"]) for c in entries]
