// accuracy.csv's columns: what `p2psim-torch replay` writes (models/replay_command.cpp) and `p2psim run` reads back
// (results/schedule.cpp), a row per system and replayed iteration. Listed once, here; the result schema
// (`p2psim schema`) carries them to the analysis layer.
#pragma once
#include <array>
#include <string>

namespace p2psim {

struct NamedColumn {
  const char* name;
  const char* meaning;
};

constexpr std::array<NamedColumn, 8> kAccuracyColumns{{
    {"system", "the system's name"},
    {"iteration", "the iteration (from 0)"},
    {"time_s", "when its last update was applied in the simulated run, s"},
    {"cost_usd", "the run's cost then, USD"},
    {"train_loss", "the mean training loss of its updates"},
    {"test_loss", "the test loss, where evaluated (every few iterations); empty elsewhere"},
    {"test_accuracy", "the test accuracy, where evaluated; empty elsewhere"},
    {"peers_evaluated", "the peers whose models were evaluated"},
}};

/// The names joined by commas, and a newline.
inline std::string accuracy_csv_header() {
  std::string line;
  for (const auto& c : kAccuracyColumns) line += (line.empty() ? "" : ",") + std::string(c.name);
  return line + "\n";
}

}  // namespace p2psim
