"""The layers of sim/ and what each may include (docs/architecture.md, "Layers and what each may know").

The linker checks that no layer calls into one above it (sim/CMakeLists.txt: each layer's check links it with
what it declares it uses, and nothing else). Headers the linker never sees: an include of a layer above for a
type or an inline function. This test reads what each layer uses from sim/CMakeLists.txt (its USES, and theirs in
turn) and holds every quoted #include under sim/ to it; and keeps SimGrid inside sim/simulation/sg/ and LibTorch
out of sim/."""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIM = os.path.join(ROOT, "sim")


def declared_uses():
    """{layer: set of the layers it uses directly}, from sim/CMakeLists.txt's p2psim_layer() calls."""
    text = read(os.path.join(SIM, "CMakeLists.txt"))
    uses = {}
    for name, body in re.findall(r"^p2psim_layer\((\w+)(.*?)\)\s*$", text, re.S | re.M):
        used = re.search(r"USES(.*)", body, re.S)
        uses[name] = set(re.findall(r"p2psim_(\w+)", used.group(1))) if used else set()
    return uses


def reachable(uses, layer):
    seen, todo = set(), [layer]
    while todo:
        for below in uses[todo.pop()]:
            if below not in seen:
                seen.add(below)
                todo.append(below)
    return seen


def read(path):
    with open(path) as f:
        return f.read()


def sources():
    for folder, _, files in os.walk(SIM):
        for f in files:
            if f.endswith((".cpp", ".hpp")):
                yield os.path.join(folder, f)


def layer_of(path):
    return os.path.relpath(path, SIM).split(os.sep)[0]


class Layers(unittest.TestCase):
    def test_every_source_is_in_a_declared_layer(self):
        uses = declared_uses()
        self.assertGreaterEqual(len(uses), 8)
        for path in sources():
            layer = layer_of(path)
            self.assertIn(layer, uses, f"{path}: its folder is not a layer of sim/CMakeLists.txt")

    def test_includes_stay_within_what_a_layer_uses(self):
        uses = declared_uses()
        wrong = []
        for path in sources():
            layer = layer_of(path)
            allowed = reachable(uses, layer) | {layer}
            for n, line in enumerate(read(path).splitlines(), start=1):
                m = re.match(r'\s*#include "([^"]+)"', line)
                if not m:
                    continue
                target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
                self.assertTrue(os.path.exists(target), f"{path}:{n}: {m.group(1)} does not resolve from its folder")
                if not target.startswith(SIM + os.sep) or layer_of(target) not in allowed:
                    wrong.append(f"{os.path.relpath(path, ROOT)}:{n}: {layer} includes {os.path.relpath(target, ROOT)}")
        self.assertEqual(wrong, [])

    def test_simgrid_only_in_the_adapter_and_torch_nowhere(self):
        for path in sources():
            text = read(path)
            rel = os.path.relpath(path, SIM)
            if re.search(r"#include\s*<simgrid/s4u", text):
                self.assertTrue(rel.startswith(os.path.join("simulation", "sg") + os.sep), rel)
            self.assertIsNone(re.search(r"#include\s*<torch/", text), rel)

    def test_the_check_reads_the_layers_it_should(self):
        # Its own premise: the table is read as written, and an include of a layer above is caught.
        uses = declared_uses()
        self.assertIn("util", reachable(uses, "cli"))
        self.assertNotIn("simulation", reachable(uses, "results"))
        self.assertNotIn("scenario", reachable(uses, "records"))


if __name__ == "__main__":
    unittest.main()
