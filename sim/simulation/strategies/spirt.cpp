// SPIRT (Barrak et al., "SPIRT: A Fault-Tolerant and Reliable Peer-to-Peer Serverless ML Training
// Architecture", IEEE QRS 2023, https://arxiv.org/abs/2309.14148; code
// https://github.com/AmineBarrak/TrainingML_P2P_Serverless, SPIRT/): every peer has an in-memory database
// (RedisAI) — on the peer instance itself or on an instance of its own. Each iteration the peer's workflow fans
// its minibatches out to functions, which pull the parameters from the peer's database, compute, and push
// their gradients into it. As the Parallel state ends, the state machine goes on (no poll) into its averaging
// Task (SPIRT's Trigger_Average_Gradient_sync): a function opens an SSH tunnel to the database (sshtunnel over
// paramiko, as SPIRT's does), has the database average them (a kernel inside it) and
// then runs the barrier, billed through it: post to a queue, ask its count back to back until it equals the number
// of peers, sleep a settle time, ask once more; rank 0 purges the queue. The peers then copy every other peer's averaged gradient from the other
// databases into their own, and average and update the model inside the database (RedisAI's AI.ModelUpdate).
// Its gradients are JSON text by default (gradient_format="json", SPIRT's code: json.dumps(tensor.tolist()) into a
// Redis list, averaged by a Lua script inside Redis whose reply the averaging function parses and writes back as a
// tensor; json_gradient.hpp), or binary tensors averaged by a tensor kernel (gradient_format="tensor": RedisAI, as
// SPIRT's paper describes its in-database operations).
// Simplifications: the queue (SQS in SPIRT) is the profile's broker; the settle time defaults to SPIRT's 5 s; the
// states after the barrier (heartbeat, aggregation, update, convergence check, next epoch: functions in SPIRT's
// state machine) are the peer's copies and the database's update (docs/designs.md).
#include <fmt/core.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "gradient.hpp"
#include "json_gradient.hpp"
#include "scalar_work.hpp"
#include "strategy.hpp"

namespace p2psim::simulation {
namespace {

class Spirt : public Strategy {
 public:
  Spirt(const SystemSpec& system, const Scenario& s);
  PlatformNeeds needs() const override {
    // Inside the database, each peer's averaging function holds a container of its own.
    PlatformNeeds n = gradient_needs(s_, GradientCompute::Functions, in_database_ ? s_.experiment.peers : 0);
    n.functions_only_gradient_tasks = false;  // its functions read and write a database
    n.broker = true;  // also the barrier's queue
    n.database = true;
    n.peer_to_peer = on_peers_;  // databases on the peers copy between peers
    n.functions_reach_peers = on_peers_;
    // The database's script or the peer parses the texts; sshd on the database's host opens the averaging
    // function's tunnel.
    const auto& tunnel = s_.profile.kv_store.ssh_tunnel;
    n.instances_do_scalar_work = json_ || (in_database_ && tunnel && tunnel->server_cpu_s > 0);
    if (!on_peers_)
      for (int i = 0; i < s_.experiment.peers; ++i)  // each peer's own type, unless database_type says one
        n.servers.push_back({"db-" + std::to_string(i), database_host_type(i).name});
    return n;
  }
  Footprint footprint(bool /*exact_participants*/) const override {
    const double P = s_.experiment.peers, T = s_.experiment.workload.iterations;
    const double PI = static_cast<double>(s_.invocations_per_iteration());  // every peer's invocations
    Footprint f;
    f.actors = PI + P + 1;
    // Each invocation's 4 phases; inside the database, the peer's 5 and the averaging function's cold start (and
    // with JSON its parse); outside it, the peer's 6, its collect, every function's gradient, the peers' averages
    // and the model deserialised one by one, the average and the model serialised.
    f.trace_rows = T * (P * (in_database_ ? 5 + (json_ ? 2 : 1) : 6 + P + 4) + (in_database_ ? 4 : 5) * PI) + PI;
    f.max_peers = 256;
    f.max_peers_why = "every peer's database copies every gradient to every other peer: P^2 flows at once, and a "
                      "simulation's time grows about as P^4 (128 peers: 8 s an iteration, 2026-12-03)";
    return f;
  }
  void launch(Context& c) override;
  std::string transport() const override { return "database"; }

 private:
  /// With JSON gradients: the profile prices them (kv_store/json_codec) and the CPUs that parse them (every
  /// database's host, or with aggregation="peer" every peer) have a scalar speed. Throws InputError.
  void check_json_costed(StrategyParams& params) const;
  /// Inside the database: the profile prices the averaging function's SSH tunnel (kv_store/ssh_tunnel), every
  /// database's host has a scalar speed for sshd's part, and every peer's averaging function can wait at the barrier
  /// while the others' gradient functions still run. Throws InputError.
  void check_averaging_function(StrategyParams& params) const;
  /// Every database's host (`in_database`) or every peer has a scalar speed for `work`. Throws InputError on `field`.
  void check_scalar_speed(StrategyParams& params, const char* field, bool in_database, const std::string& work) const;
  /// The instance type peer `peer`'s database runs on: database_type, else the peer's own.
  const InstanceType& database_host_type(int peer) const {
    return database_type_.empty() ? s_.peer_type(peer) : s_.profile.instance_types.at(database_type_);
  }
  void peer(Context& c, int peer);
  /// SPIRT's averaging Task, entered as the Parallel state ends: its function opens an SSH tunnel to peer `peer`'s
  /// database, has it average the functions' gradients and waits for it (traced as the peer's local average); with
  /// JSON it reads the
  /// average back as text, parses it and writes it back as a tensor. The function then runs the barrier: the
  /// caller finishes it when the barrier ends, which bills it until then.
  struct AveragingFunction {
    FunctionService::Container container;
    double run_start_s = 0;
  };
  AveragingFunction average_in_database(Context& c, int peer, int iteration, KvStore& database);
  enum class Direction { Download, Upload };  // the database's reply to the function, or what the function writes
  /// `bytes` between the averaging function and the database through its SSH tunnel (kv_store/ssh_tunnel's per-MB
  /// CPU on each side, as the bytes cross).
  void through_tunnel(Context& c, int peer, const FunctionService::Container& container, KvStore& database,
                      double bytes, Direction direction);
  bool barrier(Context& c, int peer, int iteration);
  const Scenario& s_;
  bool on_peers_ = true;
  std::string database_type_;
  bool in_database_ = true;  // aggregation="database": averages and the model update run inside the database
  bool json_ = true;         // gradient_format="json": the functions' gradients are JSON text (SPIRT's code)
  double settle_s_ = 5;
  std::vector<std::unique_ptr<KvStore>> databases_;  // per peer
  std::vector<int> arrivals_;                        // per iteration: peers that posted to the barrier queue
  sg::Signal barrier_changed_;                       // a peer posted, or a peer's workflow failed
};

Spirt::Spirt(const SystemSpec& system, const Scenario& s) : s_(s) {
  StrategyParams params(system);
  on_peers_ = params.choice("database", {"peer", "instance"}, "peer") == "peer";
  std::vector<std::string> types;
  for (const auto& [name, type] : s.profile.instance_types) types.push_back(name);
  database_type_ = params.choice("database_type", types, "");  // "": each database its peer's type
  if (on_peers_ && params.has("database_type"))
    throw params.error("database_type", "a database on the peer runs on the peer's own instance: set database=\"instance\"");
  // SPIRT's barrier sleeps 5 s once the count is complete (its code, SPIRT/).
  settle_s_ = params.number("settle_s", 0, 3600, 5);
  in_database_ = params.choice("aggregation", {"database", "peer"}, "database") == "database";
  json_ = params.choice("gradient_format", {"json", "tensor"}, "json") == "json";
  if (json_) check_json_costed(params);
  if (in_database_) check_averaging_function(params);
  read_gradient_compute(params, s, "functions");  // checks the function timeout
  if (params.has("compute") && system.params.at("compute") != "functions")
    throw params.error("compute", "SPIRT's gradients are computed by functions: set compute=\"functions\"");
  params.reject_unread();
  const auto& e = s.experiment;
  refuse_unmodelled(params, e, "spirt", kAsync | kCrash | kCompression);
  arrivals_.assign(static_cast<size_t>(e.workload.iterations), 0);
}

void Spirt::check_json_costed(StrategyParams& params) const {
  const auto& s = s_;
  if (!s.profile.kv_store.json)
    throw params.error("gradient_format", "\"json\" (SPIRT's code) needs <kv_store><json_codec> in " + s.profile.path +
                                              ", which prices JSON gradients; or set gradient_format=\"tensor\"");
  // The texts are parsed where they are averaged: by the database's script, or by the peer.
  check_scalar_speed(params, "gradient_format", in_database_, "\"json\" is scalar work");
}

void Spirt::check_scalar_speed(StrategyParams& params, const char* field, bool in_database,
                               const std::string& work) const {
  for (int i = 0; i < s_.experiment.peers; ++i) {
    const auto& type = in_database ? database_host_type(i) : s_.peer_type(i);
    if (type.cpu_scalar_speed_factor <= 0)
      throw params.error(field, work + " on the " + (in_database ? "databases'" : "peers'") + " CPUs: instance type '" +
                                    type.name + "' in " + s_.profile.path +
                                    " must give cpu_scalar_score or cpu_scalar_speed_factor");
  }
}

void Spirt::check_averaging_function(StrategyParams& params) const {
  const auto& tunnel = s_.profile.kv_store.ssh_tunnel;
  if (!tunnel)
    throw params.error("aggregation", "\"database\" (SPIRT's averaging Task) needs <kv_store><ssh_tunnel> in " +
                                          s_.profile.path + ", which prices the tunnel its function opens to the "
                                          "database; or set aggregation=\"peer\"");
  if (tunnel->server_cpu_s > 0)
    check_scalar_speed(params, "aggregation", true, "\"database\": the averaging function's SSH tunnel is scalar work");
  // Each peer's averaging function holds its place in the account's concurrency through the barrier: with fewer
  // places than peers, those waiting there could leave none for a late peer's gradient functions, for ever.
  if (s_.profile.functions.concurrency_limit < s_.experiment.peers)
    throw params.error("aggregation",
                       fmt::format("\"database\" (SPIRT's averaging Task): {} peers' averaging functions, each waiting "
                                   "at the barrier, cannot all run within the function service's concurrency limit "
                                   "of {}; or set aggregation=\"peer\"",
                                   s_.experiment.peers, s_.profile.functions.concurrency_limit));
}

void Spirt::launch(Context& c) {
  const auto& json = s_.profile.kv_store.json;
  if (json_ && json_gradient_bytes(s_, *json) > static_cast<double>(json->max_value_bytes)) {
    // Redis refuses the functions' RPUSH: the system cannot run.
    c.out.failure = fmt::format("a function's {} gradient as JSON text is {:.0f} bytes, above the database's largest "
                                "value ({} bytes): SPIRT's RPUSH fails (gradient_format=\"tensor\" writes {} bytes)",
                                s_.experiment.workload.model, json_gradient_bytes(s_, *json), json->max_value_bytes,
                                s_.gradient_bytes);
    return;
  }
  for (int i = 0; i < c.peers(); ++i) {
    databases_.push_back(std::make_unique<KvStore>(s_.profile.kv_store, on_peers_ ? c.hosts.peers[i] : c.hosts.servers[i],
                                                   database_host_type(i)));
    if (json_) databases_.back()->hold_json(*json);
  }
  for (int i = 0; i < c.peers(); ++i) sg::spawn("peer-" + std::to_string(i), c.hosts.peers[i], [this, &c, i] { peer(c, i); });
}

Spirt::AveragingFunction Spirt::average_in_database(Context& c, int peer, int iteration, KvStore& database) {
  const double start = sg::now();
  const auto container = c.functions.start("average", s_.experiment.functions.memory_mb, {peer, iteration},
                                           c.instance_of(peer));
  if (container.cold) c.trace(peer, iteration, Phase::ColdStart, container.init_started_s);
  const double run_start = sg::now();
  // The tunnel: its handshake's CPU on each side, its waits, and its round trips.
  const auto& tunnel = *s_.profile.kv_store.ssh_tunnel;
  c.functions.compute(container, function_scalar_work_s(s_, tunnel.client_cpu_s));
  database_cpu(c, peer, database, instance_scalar_work_s(s_, database.host_type(), tunnel.server_cpu_s));
  sg::sleep_for(tunnel.wait_s);
  // Exchanges of short messages over an open connection: the route's latency both ways, with the latency factor
  // the profile fits to such a ping-pong.
  sg::sleep_for(2.0 * tunnel.round_trips * sg::route_latency_paid_s(container.host, database.host()));
  const int gradients = static_cast<int>(s_.group_of_peer_data(peer).invocations.size());
  if (const auto* json = database.json()) {
    database_cpu(c, peer, database, database_json_average_s(s_, *json, gradients, database.host_type()));  // EVALSHA
    through_tunnel(c, peer, container, database, json_average_bytes(s_, *json), Direction::Download);  // its reply
    const double parse_start = sg::now();
    c.functions.compute(container, function_json_decode_average_s(s_, *json));
    c.trace(peer, iteration, Phase::Deserialize, parse_start);
    through_tunnel(c, peer, container, database, static_cast<double>(s_.gradient_bytes), Direction::Upload);  // TENSORSET
  } else {  // RedisAI's tensor kernel
    database_cpu(c, peer, database, s_.average_seconds(static_cast<double>(s_.parameters), gradients));
  }
  c.trace(peer, iteration, Phase::LocalAverage, start);
  return {container, run_start};
}

void Spirt::through_tunnel(Context& c, int peer, const FunctionService::Container& container, KvStore& database,
                           double bytes, Direction direction) {
  const auto& tunnel = *s_.profile.kv_store.ssh_tunnel;
  const bool download = direction == Direction::Download;
  const double megabytes = bytes / 1e6;
  const double client_s = c.functions.compute_s(function_scalar_work_s(
      s_, megabytes * (download ? tunnel.download_client_cpu_s_per_mb : tunnel.upload_client_cpu_s_per_mb)));
  const double server_reference_s = instance_scalar_work_s(
      s_, database.host_type(),
      megabytes * (download ? tunnel.download_server_cpu_s_per_mb : tunnel.upload_server_cpu_s_per_mb));
  // The relay forwards the bytes as they arrive: the transfer and each side's CPU run at once, and the bytes are
  // through when the last of the three ends. sshd's part shares the database host's CPU, so it runs as work there.
  const double start = sg::now();
  auto server_done = std::make_shared<sg::Counter>();
  if (server_reference_s > 0)
    sg::run_task("tunnel", database.host(), [&c, peer, &database, server_reference_s, server_done] {
      database_cpu(c, peer, database, server_reference_s);
      server_done->add();
    });
  else
    server_done->add();
  if (download)
    database.read(container.host, bytes);
  else
    database.write(container.host, bytes);
  sg::sleep_until(std::max(sg::now(), start + client_s));
  server_done->wait_for(1);
}

/// Returns false when the system failed meanwhile (a peer's workflow failed: it will never post).
bool Spirt::barrier(Context& c, int peer, int iteration) {
  const double start = sg::now();
  c.broker.request();  // post to the queue
  ++arrivals_[iteration];
  barrier_changed_.notify_all();
  // SPIRT asks the queue's count back to back, without sleeping: the request that sees every peer's post is the
  // first after the last one.
  barrier_changed_.wait_for([&] { return arrivals_[iteration] >= c.peers() || !c.out.failure.empty(); });
  if (arrivals_[iteration] < c.peers()) return false;
  c.broker.request();  // its approximate message count
  sg::sleep_for(settle_s_);
  c.broker.request();  // the count once more, after the settle
  if (peer == 0) c.broker.request();  // rank 0 purges the queue
  c.trace(peer, iteration, Phase::Barrier, start);
  return true;
}

void Spirt::peer(Context& c, int peer) {
  const int n = c.peers();
  const double e = static_cast<double>(s_.parameters);
  const double bytes = static_cast<double>(s_.gradient_bytes);
  KvStore& mine = *databases_[peer];
  for (int it = 0; it < s_.experiment.workload.iterations; ++it) {
    if (!compute_gradient(c, peer, it, GradientCompute::Functions, &mine, in_database_)) {
      barrier_changed_.notify_all();  // the others leave the barrier
      break;
    }
    std::optional<AveragingFunction> averaging;  // SPIRT's averaging function, which runs the barrier too
    if (in_database_) averaging = average_in_database(c, peer, it, mine);
    const bool met = barrier(c, peer, it);
    if (averaging)
      c.functions.finish(averaging->container, sg::now() - averaging->run_start_s, s_.experiment.functions.arch, false);
    if (!met) break;
    // Every other peer's averaged gradient, copied from its database into ours, all at once.
    const double receive_start = sg::now();
    std::vector<sg::Transfer> copies;
    for (int j = 0; j < n; ++j)
      if (j != peer) {
        sg::compute(databases_[j]->host(), s_.profile.kv_store.per_request_cpu_s);  // the GET on their server
        copies.push_back({databases_[j]->host(), mine.host(), bytes});
      }
    sg::transfer_all(copies);
    c.trace(peer, it, Phase::Receive, receive_start);
    const double update_start = sg::now();
    if (in_database_) {
      database_cpu(c, peer, mine, s_.average_seconds(e, n) + s_.average_seconds(e, 2));  // average, AI.ModelUpdate
    } else {  // the averages and the model out to the peer, deserialised, averaged and applied there, and back
      for (int j = 0; j <= n; ++j) {  // the n peers' averages and the model
        mine.read(c.hosts.peers[peer], bytes);
        deserialize(c, peer, it, bytes);
      }
      peer_cpu(c, peer, s_.average_seconds(e, n) + s_.average_seconds(e, 2));
      serialize(c, peer, it, bytes);
      mine.write(c.hosts.peers[peer], bytes);  // the updated model, for the functions of the next iteration
    }
    c.trace(peer, it, Phase::AggregateUpdate, update_start);
    c.complete_iteration(peer, it);
  }
  c.out.peer_end_s[peer] = sg::now();
}

}  // namespace

std::unique_ptr<Strategy> make_spirt(const SystemSpec& system, const Scenario& s) {
  return std::make_unique<Spirt>(system, s);
}

}  // namespace p2psim::simulation
