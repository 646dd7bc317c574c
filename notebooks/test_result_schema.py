"""The analysis layer names only columns p2psim writes (notebooks/result_schema.json, `p2psim schema`)."""
import glob
import os
import re
import unittest

import p2psim_labels
import p2psim_schema as schema
import p2psim_tables
import p2psim_timeline

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Columns the analysis layer derives itself (not in any file p2psim writes), and why.
DERIVED = {
    "improvement_percent", "paper_improvement_percent",  # a comparison table's columns (p2psim_tables.comparison)
    "slack_s", "slack_usd",  # recommend: how far an answer is within the deadline or budget
    "workload", "batch_size",  # a configuration's label and a sweep axis's short name (p2psim_labels)
    "memory_mb",  # an attribute of <functions> in an experiment (python/p2psim/experiment.py), not a column
}
# String literals shaped like a column name with its unit.
COLUMN_LIKE = re.compile(r"""["']([a-z][a-z0-9_]*_(?:s|usd|mb|percent|per_iteration|accuracy))["']""")


def written_columns():
    names = {schema.SCENARIO_ID}
    for table in ("result.csv", "groups.csv", "trace.csv", "accuracy.csv", "validation.csv", "accuracy_by_design.csv"):
        names |= {c["name"] for c in schema.SCHEMA[table]}
    return names


class ResultSchema(unittest.TestCase):
    def test_every_column_like_name_in_the_analysis_layer_is_written_by_p2psim(self):
        known = written_columns() | DERIVED
        unknown = []
        sources = glob.glob(os.path.join(HERE, "p2psim_*.py")) + glob.glob(os.path.join(ROOT, "python", "p2psim", "*.py"))
        self.assertGreater(len(sources), 10)
        for path in sources:
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, start=1):
                    for m in COLUMN_LIKE.finditer(line):
                        if m.group(1) not in known and not m.group(1).startswith(("fig_", "test_")):
                            unknown.append(f"{os.path.relpath(path, ROOT)}:{n}: {m.group(1)}")
        self.assertEqual(unknown, [])

    def test_labelled_columns_are_written_or_derived(self):
        for name in p2psim_labels.COLUMNS:
            self.assertIn(name, written_columns() | DERIVED)

    def test_groups_and_phases_come_from_the_schema(self):
        self.assertEqual([c for _, c in p2psim_tables.PHASES],
                         ["gradient_s_per_iteration", "communication_s_per_iteration",
                          "aggregate_update_s_per_iteration", "barrier_s_per_iteration"])
        self.assertEqual(len(p2psim_tables.SERVICES), 7)
        self.assertEqual(p2psim_tables.SERVICES[0], ("instances", "instances_usd"))
        self.assertIn("peers", p2psim_tables.CONFIG_COLUMNS)
        self.assertEqual(p2psim_timeline.PHASE_ORDER[0], "data_fetch")
        self.assertEqual(len(set(p2psim_timeline.PHASE_ORDER)), len(schema.SCHEMA["phases"]))
        # Every result.csv phase column is a phase's.
        phase_columns = [c for c in schema.RESULT_COLUMNS if c.startswith("phase_")]
        self.assertEqual(sorted(phase_columns), sorted(f"phase_{p}_s" for p in schema.PHASES))

    def test_an_unknown_column_is_refused_by_name(self):
        self.assertEqual(schema.column("total_s"), "total_s")
        with self.assertRaisesRegex(KeyError, "no column 'total_seconds'"):
            schema.column("total_seconds")


if __name__ == "__main__":
    unittest.main()
