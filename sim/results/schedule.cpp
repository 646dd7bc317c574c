#include "schedule.hpp"

#include "../records/accuracy_columns.hpp"

#include <map>

#include "../util/csv_reader.hpp"
#include "../util/input_error.hpp"
#include "../util/parse_number.hpp"

namespace p2psim {

std::string schedule_not_replayable(const Scenario& s, const SystemResult& system) {
  if (!system.run.schedule_unsupported.empty()) return system.run.schedule_unsupported;
  if (system.run.updates.empty()) return "no update was applied";
  const auto& x = s.experiment.exchange;
  if (x.compress_functions && x.compression != "none")
    return "compress_functions: a replay applies the codec to the gradients peers exchange only";
  return "";
}

nlohmann::ordered_json schedule_json(const Result& r) {
  const Scenario& s = *r.scenario;
  const auto& e = s.experiment;
  nlohmann::ordered_json j;
  j["format"] = kScheduleFormat;
  j["experiment"] = e.name;
  j["seed"] = e.seed;
  j["training"] = {{"model", e.workload.model},
                   {"input_shape", e.workload.input_shape},
                   {"dataset", e.workload.dataset},
                   {"classes", e.workload.classes},
                   {"train_samples", e.workload.train_samples},
                   {"peers", e.peers},
                   {"shard_samples", s.peer_groups[0].shard_samples},  // every peer's, unless peer_shards
                   {"minibatch_sizes", s.peer_groups[0].minibatches},
                   {"iterations", e.workload.iterations},
                   {"codec", e.exchange.compression},
                   {"topk_ratio", e.exchange.topk_ratio},
                   {"error_feedback", e.exchange.error_feedback},
                   {"learning_rate", e.accuracy.learning_rate},
                   {"momentum", e.accuracy.momentum},
                   {"eval_every", e.accuracy.eval_every},
                   {"test_samples", e.accuracy.test_samples},
                   {"data_dir", e.accuracy.data_dir},
                   {"target_accuracy", e.accuracy.target}};
  if (!s.uniform_shards())  // groups of peers hold shards of different sizes: each group's, peers in order
    for (size_t g = 0; g < s.peer_groups.size(); ++g)
      j["training"]["peer_shards"].push_back({{"peers", e.peer_groups[g].count},
                                              {"shard_samples", s.peer_groups[g].shard_samples},
                                              {"minibatch_sizes", s.peer_groups[g].minibatches}});
  j["cost_includes_broker"] = e.cost_includes_broker;
  nlohmann::ordered_json systems = nlohmann::ordered_json::array();
  for (const auto& a : r.systems) {
    nlohmann::ordered_json sys;
    sys["name"] = a.name;
    sys["strategy"] = a.strategy;
    const std::string why_not = schedule_not_replayable(s, a);
    sys["replayable"] = why_not.empty();
    sys["why_not"] = why_not;
    // [peer, iteration, time_s, cost_usd, gradients]; gradients "all" (every peer's of that iteration that
    // made this update) or [[producer, iteration], ...], the peer's own first when it computed one (with partial
    // participation, a peer that sat the round out averages the participants' only).
    nlohmann::ordered_json updates = nlohmann::ordered_json::array();
    const CostTimeline costs(a.run.ledger, s.prices);
    for (const auto& u : a.run.updates) {
      nlohmann::ordered_json gradients;
      if (u.whole_iteration) {
        gradients = "all";
      } else {
        gradients = nlohmann::ordered_json::array();
        for (const auto& g : u.gradients) gradients.push_back({g.producer, g.iteration});
      }
      updates.push_back({u.peer, u.iteration, u.time_s, costs.at(u.time_s, u.usage).counted_usd(e.cost_includes_broker),
                         std::move(gradients)});
    }
    sys["updates"] = std::move(updates);
    systems.push_back(std::move(sys));
  }
  j["systems"] = std::move(systems);
  return j;
}

void attach_replay(Result& r, const std::string& accuracy_csv) {
  std::map<std::string, std::vector<AccuracyPoint>> points;
  try {
    CsvReader<8> in(accuracy_csv);
    const auto& c = kAccuracyColumns;  // read in their order
    in.read_header(io::ignore_no_column, c[0].name, c[1].name, c[2].name, c[3].name, c[4].name, c[5].name, c[6].name,
                   c[7].name);
    std::string system, test_loss, test_accuracy;
    AccuracyPoint p;
    int peers_evaluated = 0;
    while (in.read_row(system, p.iteration, p.time_s, p.cost_usd, p.train_loss, test_loss, test_accuracy,
                       peers_evaluated)) {
      p.test_loss = test_loss.empty() ? std::nullopt : parse_real(test_loss);
      p.test_accuracy = test_accuracy.empty() ? std::nullopt : parse_real(test_accuracy);
      if (test_loss.empty() != !p.test_loss.has_value() || test_accuracy.empty() != !p.test_accuracy.has_value())
        throw InputError(accuracy_csv, static_cast<long>(in.get_file_line()), "test_accuracy",
                         "test_loss and test_accuracy must be numbers or empty");
      points[system].push_back(p);
    }
  } catch (const io::error::base& e) {
    throw csv_input_error(accuracy_csv, e);
  }
  for (auto& a : r.systems) {
    AccuracyResult acc;
    acc.not_replayed = schedule_not_replayable(*r.scenario, a);
    if (acc.not_replayed.empty()) acc.points = std::move(points[a.name]);
    a.accuracy = std::move(acc);
  }
}

}  // namespace p2psim
