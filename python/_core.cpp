// p2psim's C++ core for Python (the p2psim package, python/p2psim/): an experiment checked in this process
// (the same reader and the same messages as the CLI, raised as p2psim.InputError with file, line and field),
// and `run` and `sweep` run by the CLI's own commands in a forked child (SimGrid holds one engine per process),
// the GIL released while they work. A child dies with this process.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/child_command.hpp"
#include "cli/commands.hpp"
#include "inputs/experiment.hpp"
#include "scenario/scenario.hpp"
#include "scenario/sweep.hpp"
#include "simulation/simulate.hpp"
#include "util/args.hpp"
#include "util/data_dir.hpp"
#include "util/input_error.hpp"
#include "util/isolate.hpp"
#include "util/read_text.hpp"

namespace py = pybind11;
using namespace p2psim;

namespace {

// Starts `command` (a CLI command with its argv) in a child whose stderr goes to `log`; returns its pid.
pid_t start(int (*command)(int, char**), const std::string& name, std::vector<std::string> args,
            const std::string& log) {
  const pid_t pid = fork_tied_to_parent("cannot start p2psim " + name);
  if (pid > 0) return pid;
  args.insert(args.begin(), name);
  cli::run_command_in_child(command, std::move(args), log);  // Python's signal handlers are the parent's
}

// Waits for `pid`; with block false, returns at once. (finished, exit code: 128 + signal when killed)
std::pair<bool, int> wait_for(pid_t pid, bool block) {
  int status = 0;
  pid_t got;
  {
    py::gil_scoped_release released;
    while ((got = ::waitpid(pid, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
    }
  }
  if (got == 0) return {false, 0};
  if (got < 0) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  return {true, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)};
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "p2psim's C++ core (use the p2psim package)";
  // p2psim.InputError(file, line, field, message, text), defined by the package (python/p2psim/__init__.py).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      py::object error = py::module_::import("p2psim").attr("InputError")(e.file, e.line, e.field, e.message, e.what());
      PyErr_SetObject(error.get_type().ptr(), error.ptr());
    }
  });
  m.def("default_data_dir", [] { return data_dir(); }, "the data folder this build reads");
  m.def("version", [] { return std::string(P2PSIM_VERSION); });
  m.def(
      "absolute_paths",
      [](const std::string& xml, const std::string& base_dir) {
        pugi::xml_document doc;
        if (!doc.load_string(xml.c_str(), pugi::parse_default | pugi::parse_comments))
          throw InputError("<experiment>", 0, "", "malformed XML");
        resolve_relative_paths(doc.document_element(), base_dir);
        std::ostringstream out;
        doc.save(out, "  ", pugi::format_indent);
        return out.str();
      },
      "the experiment's text with every file path made absolute from base_dir");
  m.def(
      "check",
      [](const std::string& path) {
        const Experiment e = load_experiment(path, default_experiment_defaults_path());
        const Scenario s = resolve_scenario(e);
        check_systems(s);
        py::list systems;
        for (const auto& system : e.systems) systems.append(py::make_tuple(system.name, system.strategy));
        return systems;
      },
      "checks an experiment as `p2psim run` does before simulating; returns its systems (name, strategy)");
  m.def(
      "expand",
      [](const std::string& path) {
        py::list out;
        for (const auto& sc : expand_sweep(path)) out.append(py::make_tuple(sc.id, sc.values, sc.experiment_xml));
        return out;
      },
      "the scenarios of an experiment's sweep: (id, [(select, value)], experiment text)");
  m.def(
      "start_run",
      [](const std::vector<std::string>& args, const std::string& log) { return start(cli::cmd_run, "run", args, log); },
      "starts `p2psim run ARGS` in a child process (stderr to LOG); returns its pid");
  m.def(
      "start_sweep",
      [](const std::vector<std::string>& args, const std::string& log) {
        return start(cli::cmd_sweep, "sweep", args, log);
      },
      "starts `p2psim sweep ARGS` in a child process (stderr to LOG); returns its pid");
  m.def("wait", &wait_for, py::arg("pid"), py::arg("block") = true,
        "waits for a child (the GIL released): (finished, exit code)");
  m.def("interrupt", [](pid_t pid) { ::kill(pid, SIGINT); }, "asks a child to stop as Ctrl-C would");
}
