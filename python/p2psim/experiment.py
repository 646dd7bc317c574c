"""An experiment: from a file, an XML string or keywords, changed by the selectors sweep axes use."""
import csv
import os
import tempfile
import xml.etree.ElementTree as ET

from . import DATA_DIR, InputError, _core

# Keywords for the values most often changed, and the selectors they stand for (docs/experiment_schema.md).
SHORTHANDS = {
    "model": "workload/@model", "input_shape": "workload/@input_shape", "dataset": "workload/@dataset",
    "batch_size": "workload/@batch_size", "iterations": "workload/@iterations", "epochs": "workload/@epochs",
    "peers": "peers/@count", "instance_type": "peers/@instance_type", "memory_mb": "functions/@memory_mb",
}


def _default_input_shape(model):
    with open(os.path.join(DATA_DIR, "calibration", "models.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["model"] == model:
                return row["default_input_shape"]
    return None


def _from_keywords(name, seed, systems, values):
    root = ET.Element("experiment", name=name, seed=str(seed))
    model = values.get("model")
    if model and "input_shape" not in values and _default_input_shape(model):
        values = {**values, "input_shape": _default_input_shape(model)}
    for key, value in values.items():
        if key not in SHORTHANDS:
            raise TypeError(f"Experiment: unknown keyword '{key}' (known: {', '.join(sorted(SHORTHANDS))}); "
                            "other values: Experiment(...).with_({'element/@attribute': value})")
        element, attribute = SHORTHANDS[key].split("/@")
        node = root.find(element)
        if node is None:
            node = ET.SubElement(root, element)
        node.set(attribute, str(value))
    if systems:
        group = ET.SubElement(root, "systems")
        for system in systems:
            system = dict(system)
            if "name" not in system or "strategy" not in system:
                raise TypeError("Experiment: each system is a dict with 'name' and 'strategy' (and its parameters)")
            ET.SubElement(group, "system", {k: str(v) for k, v in system.items()})
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


class Experiment:
    """An experiment file's content, checked as `p2psim run` checks it.

    Experiment("experiments/vgg11_cifar.xml")                       a file
    Experiment(xml="<experiment ...>...</experiment>")              a string (paths relative to base_dir)
    Experiment(model="vgg11", peers=16, systems=[{"name": "ring", "strategy": "ring_allreduce"}])
    """

    SHORTHANDS = SHORTHANDS  # the keywords and what each sets, as Experiment.SHORTHANDS (docs/python.md)

    def __init__(self, path=None, *, xml=None, base_dir=None, name="experiment", seed=1, systems=None, **values):
        if sum(x is not None for x in (path, xml)) + bool(values or systems) > 1:
            raise TypeError("Experiment: give a path, xml= or keywords, not several")
        if path is not None:
            path = os.fspath(path)
            if isinstance(path, str) and path.lstrip().startswith("<"):  # an experiment's text where its path goes
                raise InputError("<path>", 0, "", "expected an experiment file's path, got XML text "
                                 f"('{path.strip()[:40]}...'): pass the text as Experiment(xml=...)")
            try:
                with open(path, encoding="utf-8") as f:
                    self.text = f.read()
            except OSError as e:
                raise InputError(path, 0, "", f"cannot open file ({e.strerror})") from None
            self.path, self.base_dir = os.path.abspath(path), os.path.dirname(os.path.abspath(path))
        elif xml is not None:
            self.text, self.path, self.base_dir = xml, None, os.path.abspath(base_dir or os.getcwd())
        else:
            self.text = _from_keywords(name, seed, systems, values)
            self.path, self.base_dir = None, os.path.abspath(base_dir or DATA_DIR)
        if not self.has_sweep:  # a sweep's scenarios are checked by the sweep, each at its axis line
            self.systems = self._check()

    @property
    def has_sweep(self):
        return "<sweep" in self.text

    def to_xml(self):
        """The experiment file's text."""
        return self.text

    def with_(self, selections=None, **values):
        """A copy with values changed: {"peers/@count": 8, "systems/system[@name='s']/@shards": 4,
        "profile:function_service/@keep_alive_s": 60} (the selectors of sweep axes), or keywords (peers=8,
        memory_mb=2048, ...: Experiment.SHORTHANDS)."""
        changes = dict(selections or {})
        for key, value in values.items():
            if key not in SHORTHANDS:
                raise TypeError(f"with_: unknown keyword '{key}' (known: {', '.join(sorted(SHORTHANDS))})")
            changes[SHORTHANDS[key]] = value
        root = ET.fromstring(self.text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
        kept_sweep = root.find("sweep")
        if kept_sweep is not None:
            root.remove(kept_sweep)
        sweep = ET.SubElement(root, "sweep")
        for select, value in changes.items():
            if not str(value).strip() or len(str(value).split()) != 1:
                raise InputError("<with_>", 0, select, f"one value without spaces, got '{value}'")
            ET.SubElement(sweep, "axis", select=select, values=str(value))
        with tempfile.TemporaryDirectory(prefix="p2psim-") as d:
            file = os.path.join(d, "experiment.xml")
            with open(file, "w", encoding="utf-8") as f:
                f.write(_core.absolute_paths(ET.tostring(root, encoding="unicode"), self.base_dir))
            try:
                (_, _, text), = _core.expand(file)
            except InputError as e:
                raise _renamed(e, file, "<with_>") from None
        if kept_sweep is not None:  # the sweep the experiment had goes on
            root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
            root.append(kept_sweep)
            text = ET.tostring(root, encoding="unicode")
        try:
            return Experiment(xml=text, base_dir=self.base_dir)
        except InputError as e:
            if e.file != "<string>":  # another file's error (a calibration CSV the change names): as it is
                raise
            # A line of the generated text, which the user never sees, would mislead: the file changed instead.
            raise InputError(f"{self.path or '<string>'}, as changed by with_", 0, e.field, e.message) from None

    def file(self, folder):
        """A file `p2psim run` can read: the user's own when unchanged (so provenance names it as the CLI
        does), else the text with absolute paths, written into `folder`."""
        if self.path:
            return self.path
        file = os.path.join(folder, "experiment.xml")
        with open(file, "w", encoding="utf-8") as f:
            f.write(_core.absolute_paths(self.text, self.base_dir))
        return file

    def _check(self):
        with tempfile.TemporaryDirectory(prefix="p2psim-") as d:
            file = self.file(d)
            try:
                return _core.check(file)
            except InputError as e:
                raise (e if self.path else _renamed(e, file, "<string>")) from None

    def __repr__(self):
        where = self.path or "from a string"
        return f"<p2psim.Experiment {where}>"


def _renamed(error, file, name):
    """The same error with a temporary file's path replaced by what the user wrote."""
    return InputError(name if error.file == file else error.file, error.line, error.field, error.message,
                      str(error).replace(file, name))

