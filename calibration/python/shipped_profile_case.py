"""Unittest helper for a --derive tool: the shipped profile's element holds, to 0.05 %, the constants the tool derives
from the shipped kernel files (each `name: value` or `name: value (p10 a, p90 b)` line after the first)."""
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def derived_constants(lines):
    """{name: [value] or [value, p10, p90]} from a derive()'s lines, its first (the zip's time) left out."""
    derived = {}
    for line in lines[1:]:
        name, rest = line.split(": ", 1)
        derived[name] = [float(v) for v in re.findall(r"[0-9.e+-]+", rest.replace("p10", "").replace("p90", ""))]
    return derived


def assert_profile_holds(test, lines, element):
    """Fails `test` unless platforms/aws_us_east_1.xml's <`element` .../> has each derived constant, with its p10 and
    p90 where derived; returns the derived constants (derived_constants)."""
    derived = derived_constants(lines)
    with open(os.path.join(REPO, "platforms", "aws_us_east_1.xml")) as f:
        found = re.search(rf"<{element}([^>]*)/>", f.read())
    test.assertIsNotNone(found, f"no <{element}> in the shipped profile")
    attributes = dict(re.findall(r'(\w+)="([^"]*)"', found.group(1)))
    for name, values in derived.items():
        with test.subTest(name=name):
            test.assertAlmostEqual(float(attributes[name]) / values[0], 1, delta=5e-4)
            for suffix, value in zip(("_p10", "_p90"), values[1:]):
                test.assertAlmostEqual(float(attributes[name + suffix]) / value, 1, delta=5e-4)
    return derived
