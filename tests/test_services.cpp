// Services on their own, on a hand-built platform through the S4U adapter: what a strategy composes.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>

#include "inputs/cloud_profile.hpp"
#include "simulation/services/function_service.hpp"
#include "simulation/services/kv_store.hpp"
#include "simulation/services/object_storage.hpp"
#include "simulation/services/workflow.hpp"
#include "simulation/sg/platform.hpp"
#include "util/isolate.hpp"

using namespace p2psim;
using namespace p2psim::simulation;

namespace {
// One peer (speed 1, 100 MB/s NIC) and one database server (speed factor 2, 50 MB/s NIC); CM02, no latency.
sg::PlatformSpec small_platform() {
  sg::PlatformSpec spec;
  spec.storage_aggregate_bps = spec.storage_stream_bps = 1e9;
  spec.broker_nic_bps = 1e8;
  spec.peers = {{"peer-0", 1.0, 1e8}};
  spec.servers = {{"db", 2.0, 5e7}};
  spec.function_slots = 2;
  spec.function_nic_bps = 1e8;
  spec.function_stream_bps = 1e9;  // a stream as fast as the NIC allows
  return spec;
}

// Runs `body(functions, platform, out)` in a fresh engine on small_platform(), in a child process, and returns `out`
// once the engine has run every actor the body spawned.
template <class Body>
nlohmann::json run_function_service(const FunctionServiceParams& params, double cpu_speed_factor, Body body,
                                    double import_speed_factor = 0) {  // 0: the CPU's one speed
  return nlohmann::json::parse(run_isolated([&] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    Ledger ledger;
    Random random(1);
    FunctionService functions(params, platform, cpu_speed_factor,
                              import_speed_factor > 0 ? import_speed_factor : cpu_speed_factor,
                              {params.storage_client_bps_per_vcpu, 1}, ledger, random);
    nlohmann::json out;
    body(functions, platform, out);
    if (!engine.run()) out["deadlocked"] = true;  // an actor still waited when nothing else could happen
    return out.dump();
  }));
}
}  // namespace

TEST_CASE("kv store: a write crosses both NICs then costs the server's CPU, kernels share the server's CPU") {
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    KvStoreParams params;
    params.per_request_cpu_s = 0.001;  // reference seconds per request
    const InstanceType server_type;  // its speed is the platform's; the type prices no script here
    KvStore db(params, platform.servers[0], server_type);
    nlohmann::json j;
    sg::spawn("writer", platform.peers[0], [&] {
      db.write(platform.peers[0], 1e7);
      j["write_s"] = sg::now();
      const double start = sg::now();
      db.run_kernel(1.0);  // alone on the server
      j["kernel_alone_s"] = sg::now() - start;
      // Two kernels at once: the second actor's starts at the same instant.
      sg::spawn("other", platform.peers[0], [&] { db.run_kernel(1.0); });
      const double shared_start = sg::now();
      db.run_kernel(1.0);
      j["kernel_shared_s"] = sg::now() - shared_start;
    });
    engine.run();
    return j.dump();
  }));
  // 10 MB through the 50 MB/s server NIC (the narrower), then 0.001 reference s at speed 2.
  CHECK(result["write_s"].get<double>() == doctest::Approx(1e7 / 5e7 + 0.001 / 2).epsilon(1e-9));
  CHECK(result["kernel_alone_s"].get<double>() == doctest::Approx(0.5).epsilon(1e-9));
  CHECK(result["kernel_shared_s"].get<double>() == doctest::Approx(1.0).epsilon(1e-9));  // half the CPU each
}

TEST_CASE("function service: one warm pool per function, each invocation metered at its own memory size") {
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  const auto result = nlohmann::json::parse(run_isolated([&] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    auto fs = profile.functions;
    fs.cold_start_image_sigma = 0;  // no spread: INIT = 0.79 + 0.92 / min(1, memory / 1769) s
    Ledger ledger;
    Random random(1);
    simulation::FunctionService functions(fs, platform, 1.0, 1.0, {fs.storage_client_bps_per_vcpu, 1}, ledger, random);
    nlohmann::json j = nlohmann::json::array();
    sg::spawn("caller", platform.peers[0], [&] {
      std::int64_t invocation = 0;
      for (const auto& [name, mb] : std::vector<std::pair<std::string, int>>{{"gradient", 1769}, {"reducer", 442},
                                                                            {"gradient", 1769}}) {
        const auto c = functions.start(name, mb, {invocation++});
        sg::sleep_for(1.0);
        functions.finish(c, 1.0, "x86", false);
        j.push_back(nlohmann::json::array({c.cold, c.init_s}));
      }
    });
    engine.run();
    nlohmann::json out;
    out["starts"] = j;
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : ledger.function_runs) runs.push_back({r.memory_mb, r.arch});
    out["runs"] = runs;
    return out.dump();
  }));
  const auto& starts = result["starts"];
  CHECK(starts[0][0] == true);  // the first gradient container: cold
  CHECK(starts[0][1].get<double>() == doctest::Approx(0.79 + 0.92).epsilon(1e-9));
  CHECK(starts[1][0] == true);  // the reducer cannot use the gradient function's warm container
  CHECK(starts[1][1].get<double>() == doctest::Approx(0.79 + 0.92 / (442 / 1769.0)).epsilon(1e-9));
  CHECK(starts[2][0] == false);  // the gradient function again: warm
  CHECK(result["runs"] == nlohmann::json::parse(R"([[1769,"x86"],[442,"x86"],[1769,"x86"]])"));
}

TEST_CASE("function service: a function's stream to storage is its own measured rate, not capped again by the "
          "storage's per-stream rate, which was measured from EC2 for instances") {
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  auto fs = profile.functions;
  fs.network = {{128, 1.2e8, 1.0e9}};  // a function's stream measured to storage, faster than the storage's 87.5 MB/s
  fs.storage_client_bps_per_vcpu = 1.6e8;
  REQUIRE(profile.storage.stream_bandwidth_bps == 8.75e7);
  // 1,769 MB is one vCPU: the stream is the function's own, 120 MB/s; all streams the CPU's 160 MB/s.
  auto route = function_storage_route(fs, 2e-5, 1769, {fs.storage_client_bps_per_vcpu, 1});
  CHECK(route.flow_cap_bps == 1.2e8);
  CHECK(route.nic_bps == doctest::Approx(1.6e8));
  CHECK(route.latency_s == 2e-5);
  // Half a vCPU (884.5 MB): its client's CPU binds both, 80 MB/s, below either stream rate.
  route = function_storage_route(fs, 2e-5, 884, {fs.storage_client_bps_per_vcpu, 1});
  CHECK(route.flow_cap_bps == doctest::Approx(1.6e8 * 884 / 1769));
  CHECK(route.nic_bps == doctest::Approx(1.6e8 * 884 / 1769));
}

TEST_CASE("random draws: a stream is named by purpose and participant, and no other stream's draws move it") {
  const Random random(42);
  auto fresh = random.stream(Draw::PeerStep, {1, 2});
  auto other = random.stream(Draw::PeerStep, {2, 1});
  for (int k = 0; k < 3; ++k) other.next();
  auto again = random.stream(Draw::PeerStep, {1, 2});
  std::set<std::uint64_t> firsts;
  for (int k = 0; k < 5; ++k) CHECK(fresh.next() == again.next());
  for (auto s : {random.stream(Draw::PeerStep, {1, 2}), random.stream(Draw::FunctionStep, {1, 2}),
                 random.stream(Draw::PeerStep, {1, 2, 0}), random.stream(Draw::PeerStep, {1, 2}, 9),
                 Random(43).stream(Draw::PeerStep, {1, 2})})
    firsts.insert(s.next());
  CHECK(firsts.size() == 5);  // purpose, ids, group and seed each make another stream
  // Uniform in [0, 1) and standard normal, to sampling error (10,000 draws: 0.003 for the uniform's mean).
  auto u = random.stream(Draw::FunctionFailure, {0});
  auto z = random.stream(Draw::ColdStart, {0});
  double sum_u = 0, sum_z = 0, sum_z2 = 0, min_u = 1, max_u = 0;
  for (int k = 0; k < 10000; ++k) {
    const double x = u.uniform(), y = z.standard_normal();
    sum_u += x, min_u = std::min(min_u, x), max_u = std::max(max_u, x);
    sum_z += y, sum_z2 += y * y;
  }
  CHECK(min_u >= 0);
  CHECK(max_u < 1);
  CHECK(sum_u / 10000 == doctest::Approx(0.5).epsilon(0.03));
  CHECK(std::abs(sum_z / 10000) < 0.05);
  CHECK(sum_z2 / 10000 == doctest::Approx(1.0).epsilon(0.05));
}

TEST_CASE("function service: a cold start draws from its own invocation's stream, whoever else starts before it") {
  // Invocation X = {7, 0} of "gradient" cold-starts alone in one run, and after Y = {3, 1} in another: the
  // same image time both times (one shared stream would hand X the second draw), and the one its stream says.
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  auto fs = profile.functions;
  fs.cold_start_image_sigma = 0.5;
  auto run = [&](bool y_first) {
    return run_function_service(fs, 1.0, [&](FunctionService& functions, const sg::Platform& platform,
                                             nlohmann::json& j) {
      auto invoke = [&functions, &j](const std::string& name, std::int64_t a, std::int64_t b) {
        const auto c = functions.start("gradient", 1769, {a, b});
        j[name] = c.init_s;
        sg::sleep_for(1.0);
        functions.finish(c, 1.0, "x86", false);
      };
      if (y_first) sg::spawn("Y", platform.peers[0], [invoke] { invoke("Y", 3, 1); });
      sg::spawn("X", platform.peers[0], [invoke] { invoke("X", 7, 0); });
    });
  };
  const auto alone = run(false), after_y = run(true);
  CHECK(alone["X"].get<double>() == after_y["X"].get<double>());
  CHECK(after_y["Y"].get<double>() != after_y["X"].get<double>());
  auto draws = Random(1).stream(Draw::ColdStart, {7, 0}, Random::id_of("gradient"));
  const double import_s = fs.runtime_import_s_on_reference_cpu / std::min(1.0, fs.vcpus(1769));
  CHECK(alone["X"].get<double>() ==
        doctest::Approx(fs.cold_start_image_median_s * std::exp(0.5 * draws.standard_normal()) + import_s).epsilon(1e-12));
}

TEST_CASE("function service: a cold start imports the runtime at the function's scalar CPU speed, on at most one vCPU, and bills that") {
  // The import was timed on the calibration CPU and is scalar work. A function CPU at 0.25 of its speed on scalar
  // work (0.4 on vector work, which the import does not use) takes 1 / 0.25 as long; at 512 MB (512/1,769 of a
  // vCPU) 1,769/512 times that again; at 3,538 MB (two vCPUs) no less than on one.
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  auto fs = profile.functions;
  fs.cold_start_image_sigma = 0;  // the image takes its median
  fs.cold_start_image_median_s = 0.8;
  fs.runtime_import_s_on_reference_cpu = 0.5;
  const auto inits = run_function_service(
      fs, 0.4,
      [](FunctionService& functions, const sg::Platform& platform, nlohmann::json& j) {
        sg::spawn("caller", platform.peers[0], [&functions, &j] {
          for (int memory_mb : {512, 3538}) {
            const auto c = functions.start("f" + std::to_string(memory_mb), memory_mb, {memory_mb});
            j[std::to_string(memory_mb)] = {c.init_s, c.billed_init_s};
            functions.finish(c, 1.0, "x86", false);
          }
        });
      },
      0.25);
  CHECK(inits["512"][0].get<double>() == doctest::Approx(0.8 + 0.5 / 0.25 * 1769.0 / 512.0).epsilon(1e-12));
  CHECK(inits["3538"][0].get<double>() == doctest::Approx(0.8 + 0.5 / 0.25).epsilon(1e-12));
  // The provider bills INIT, the import, and not the platform's start before it.
  CHECK(inits["512"][1].get<double>() == doctest::Approx(0.5 / 0.25 * 1769.0 / 512.0).epsilon(1e-12));
  CHECK(inits["3538"][1].get<double>() == doctest::Approx(0.5 / 0.25).epsilon(1e-12));
}

TEST_CASE("function service: beyond the concurrency limit, invocations get their places first come, first served") {
  // A limit of 1. A runs from 0 to INIT + 3 s; B queues at 1 s, C at 2 s; D arrives at INIT + 3 s, when A
  // finishes and, at once, starts again (a retry): both queue behind B and C instead of taking the freed place.
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  const auto result = nlohmann::json::parse(run_isolated([&] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    auto fs = profile.functions;
    fs.cold_start_image_sigma = 0;
    fs.concurrency_limit = 1;
    Ledger ledger;
    Random random(1);
    simulation::FunctionService functions(fs, platform, 1.0, 1.0, {fs.storage_client_bps_per_vcpu, 1}, ledger, random);
    nlohmann::json j = nlohmann::json::array();
    auto invoke = [&](const std::string& name) {
      const auto c = functions.start("gradient", 1769, {Random::id_of(name)});
      j.push_back(nlohmann::json::array({name, sg::now()}));
      sg::sleep_for(name == "A" ? 3.0 : 1.0);
      functions.finish(c, 1.0, "x86", false);
    };
    sg::spawn("A", platform.peers[0], [&] {
      invoke("A");
      invoke("A again");
    });
    sg::spawn("B", platform.peers[0], [&] {
      sg::sleep_for(1.0);
      invoke("B");
    });
    sg::spawn("C", platform.peers[0], [&] {
      sg::sleep_for(2.0);
      invoke("C");
    });
    sg::spawn("D", platform.peers[0], [&] {  // arrives at the very instant A's place frees
      sg::sleep_for(0.79 + 0.92);
      sg::sleep_for(3.0);
      invoke("D");
    });
    engine.run();
    return j.dump();
  }));
  const double init_s = 0.79 + 0.92;  // A's cold start; the others reuse its warm container
  REQUIRE(result.size() == 5);
  // D and A's retry arrive at one instant: either may come first, after B and C.
  const std::vector<std::string> order{"A", "B", "C", "", ""};
  const std::vector<double> at{init_s, init_s + 3, init_s + 4, init_s + 5, init_s + 6};
  for (size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    if (!order[k].empty()) CHECK(result[k][0].get<std::string>() == order[k]);
    CHECK(result[k][1].get<double>() == doctest::Approx(at[k]).epsilon(1e-9));
  }
  CHECK(std::set<std::string>{result[3][0].get<std::string>(), result[4][0].get<std::string>()} ==
        std::set<std::string>{"A again", "D"});
}

TEST_CASE("function service: two places freed at one instant go to the two invocations queued for them") {
  // A limit of 2. A and B run from 0 and finish together, at INIT + 3 s; C and D queued at 1 s. Each must get a
  // place then, from A's and B's warm containers. (The first finish used to release C's place and yield before
  // dequeuing it: the second released it again, and D waited for ever; SPIRT's identical peers hit it.)
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  auto fs = profile.functions;
  fs.cold_start_image_sigma = 0;
  fs.concurrency_limit = 2;
  const auto result = run_function_service(fs, 1.0, [](FunctionService& functions, const sg::Platform& platform,
                                                       nlohmann::json& j) {
    for (const auto& [name, arrive_s] : {std::pair{"A", 0.0}, {"B", 0.0}, {"C", 1.0}, {"D", 1.0}})
      sg::spawn(name, platform.peers[0], [&functions, &j, name = std::string(name), arrive_s = arrive_s] {
        sg::sleep_for(arrive_s);
        const auto c = functions.start("gradient", 1769, {Random::id_of(name)});
        j[name] = sg::now();
        sg::sleep_for(3.0);
        functions.finish(c, 3.0, "x86", false);
      });
  });
  const double init_s = 0.79 + 0.92;  // A's and B's cold starts; C and D reuse their warm containers
  CHECK(!result.contains("deadlocked"));
  REQUIRE(result.size() == 4);
  for (const char* name : {"A", "B"}) CHECK(result[name].get<double>() == doctest::Approx(init_s).epsilon(1e-9));
  for (const char* name : {"C", "D"}) CHECK(result[name].get<double>() == doctest::Approx(init_s + 3).epsilon(1e-9));
}

TEST_CASE("function service: a container's work takes as long slept as computed on its slot, which it has to itself") {
  const auto profile = load_cloud_profile(std::string(P2PSIM_SOURCE_DIR) + "/tests/data/test_profile.xml");
  const auto result = nlohmann::json::parse(run_isolated([&] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    auto spec = small_platform();
    spec.function_speed_factor = 2.5;
    const auto platform = sg::build_platform(spec);
    Ledger ledger;
    Random random(1);
    simulation::FunctionService functions(profile.functions, platform, 2.5, 2.5, {profile.functions.storage_client_bps_per_vcpu, 1},
                                          ledger, random);
    nlohmann::json j;
    sg::spawn("caller", platform.peers[0], [&] {
      const auto c = functions.start("gradient", 1769, {0});
      double start = sg::now();
      functions.compute(c, 3.0);
      j["slept_s"] = sg::now() - start;
      start = sg::now();
      sg::compute(c.host, 3.0);
      j["computed_s"] = sg::now() - start;
    });
    engine.run();
    return j.dump();
  }));
  CHECK(result["slept_s"].get<double>() == doctest::Approx(3.0 / 2.5).epsilon(1e-12));
  CHECK(result["computed_s"].get<double>() == doctest::Approx(result["slept_s"].get<double>()).epsilon(1e-12));
}

namespace {
// A client of `host` whose requests' first bytes take exactly `first_byte_s` (no spread), moving objects with
// `streams` streams (boto3's 8 MiB parts above 8 MiB).
StorageClient exact_client(sg::Host* host, int streams = 1) {
  StorageClient c;
  c.host = host;
  c.transfers.max_streams = streams;
  return c;
}
p2psim::ObjectStorageParams exact_storage(double first_byte_s) {
  p2psim::ObjectStorageParams params;
  params.get = params.put = {first_byte_s, 0};
  params.list_max_keys = 1000;
  return params;
}
// Runs `body(storage, platform, out)` in a child process, on small_platform() as `edit(spec)` changes it (CM02:
// latencies as given) and object storage of `params`; returns `out` with the ledger's GET- and PUT-class requests.
template <class Edit, class Body>
nlohmann::json run_object_storage(const p2psim::ObjectStorageParams& params, Edit edit, Body body) {
  return nlohmann::json::parse(run_isolated([&] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    auto spec = small_platform();
    edit(spec);
    const auto platform = sg::build_platform(spec);
    Ledger ledger;
    sg::StorageLinkWatch unwatched;
    simulation::ObjectStorage storage(params, 1, platform.storage, unwatched, ledger);
    nlohmann::json out;
    body(storage, platform, out);
    engine.run();
    out["puts"] = ledger.storage_puts;
    out["gets"] = ledger.storage_gets;
    out["function_requests"] = ledger.function_storage_requests;
    return out.dump();
  }));
}
// An edit of small_platform(): one peer whose NIC moves `nic_bps`, each of its storage streams at most `stream_bps`,
// `route_s` one way, and a storage link that never binds.
auto peer_with_streams(double route_s, double nic_bps, double stream_bps) {
  return [=](sg::PlatformSpec& spec) {
    spec.one_way_latency_s = route_s;
    spec.peers = {{"peer-0", 1.0, nic_bps}};
    spec.storage_stream_bps = stream_bps;
    spec.storage_aggregate_bps = 1e12;
  };
}
// Runs `body(storage, client, out)` as a function slot's actor in a child process, the slot's route `route` (its
// NIC, stream cap and token bucket, full at 0 s), every first byte `first_byte_s`; returns `out`.
template <class Body>
nlohmann::json run_function_storage(const sg::PrivateRoute& route, double first_byte_s, Body body) {
  auto slot_network = [&](sg::PlatformSpec& spec) {
    spec.function_nic_bps = route.nic_bps;
    spec.function_stream_bps = route.flow_cap_bps;
  };
  return run_object_storage(exact_storage(first_byte_s), slot_network, [&](simulation::ObjectStorage& storage,
                                                                            const sg::Platform& platform,
                                                                            nlohmann::json& out) {
    sg::set_function_slot_network(platform, 0, route.nic_bps, route.flow_cap_bps);
    sg::spawn("function", platform.function_slots[0], [&] {
      auto client = exact_client(platform.function_slots[0]);
      client.slot = 0;
      client.route = route;
      client.platform = &platform;
      client.bucket = std::make_shared<sg::RouteBucket>(route.burst_bytes, 0);
      body(storage, client, out);
    });
  });
}
// A 10 ms route between every two hosts.
void ten_ms_route(sg::PlatformSpec& spec) { spec.one_way_latency_s = 0.01; }
}  // namespace

TEST_CASE("object storage: a sequence of requests takes as long as the same requests one by one, and counts each") {
  // 4 PUTs of 10 MB from a 100 MB/s peer, 0.2 s to first byte, a 10 ms route.
  const auto result = run_object_storage(exact_storage(0.2), ten_ms_route, [](simulation::ObjectStorage& storage,
                                                                  const sg::Platform& platform, nlohmann::json& j) {
    sg::spawn("client", platform.peers[0], [&] {
      auto client = exact_client(platform.peers[0]);
      for (int k = 0; k < 4; ++k) storage.put(client, 1e7);
      j["one_by_one_s"] = sg::now();
      const double start = sg::now();
      storage.put(client, 1e7, 4);
      j["sequence_s"] = sg::now() - start;
      const double get_start = sg::now();
      storage.get(client, 1e7, 1);
      j["single_get_s"] = sg::now() - get_start;
    });
  });
  const double one_put_s = 0.2 + 0.01 + 1e7 / 1e8;
  CHECK(result["one_by_one_s"].get<double>() == doctest::Approx(4 * one_put_s).epsilon(1e-9));
  CHECK(result["sequence_s"].get<double>() == doctest::Approx(4 * one_put_s).epsilon(1e-9));
  CHECK(result["single_get_s"].get<double>() == doctest::Approx(one_put_s).epsilon(1e-9));
  CHECK(result["puts"].get<long long>() == 8);
  CHECK(result["gets"].get<long long>() == 1);
  CHECK(result["function_requests"].get<long long>() == 0);  // a peer's
}

TEST_CASE("object storage: a LIST lists what is there when it is answered, a key at a time, a DELETE is a free PUT-class request") {
  // GETs answer after 0.2 s, PUTs after 0.3 s, 1 ms a listed key, at most 3 keys a LIST, a 10 ms route; another
  // actor adds objects at 0.05, 0.1 and 0.25 s, then two more at 0.6 s.
  auto params = exact_storage(0.2);
  params.put = {0.3, 0};
  params.list_per_key_s = 0.001;
  params.list_max_keys = 3;
  const auto result = run_object_storage(params, ten_ms_route, [](simulation::ObjectStorage& storage,
                                                                  const sg::Platform& platform, nlohmann::json& j) {
    auto objects = std::make_shared<int>(0);  // shared by the two actors, which outlive this body
    sg::spawn("writer", platform.peers[0], [objects] {
      sg::sleep_for(0.05);
      ++*objects;
      sg::sleep_for(0.05);
      ++*objects;
      sg::sleep_for(0.15);
      ++*objects;
      sg::sleep_for(0.35);
      *objects += 2;
    });
    sg::spawn("client", platform.peers[0], [&, objects] {
      auto client = exact_client(platform.peers[0]);
      storage.list(client, [&] {
        j["listed_at_s"] = sg::now();
        j["listed"] = *objects;
        return *objects;
      });
      j["list_s"] = sg::now();
      storage.remove(client);
      j["delete_s"] = sg::now() - j["list_s"].get<double>();
      sg::sleep_for(0.7 - sg::now());  // five objects now: a LIST answers with a page of three
      storage.list(client, [&] { return *objects; });
      j["paged_list_s"] = sg::now() - 0.7;
    });
  });
  // Answered at 0.2 s: two objects are there, the third not yet; two keys, then the route back.
  CHECK(result["listed_at_s"].get<double>() == doctest::Approx(0.2).epsilon(1e-9));
  CHECK(result["listed"].get<int>() == 2);
  CHECK(result["list_s"].get<double>() == doctest::Approx(0.2 + 2 * 0.001 + 0.01).epsilon(1e-9));
  CHECK(result["delete_s"].get<double>() == doctest::Approx(0.3 + 0.01).epsilon(1e-9));
  CHECK(result["paged_list_s"].get<double>() == doctest::Approx(0.2 + 3 * 0.001 + 0.01).epsilon(1e-9));
  CHECK(result["puts"].get<long long>() == 2);  // the LISTs, in S3's PUT, COPY, POST, LIST class; DELETE is free
  CHECK(result["gets"].get<long long>() == 0);
}

TEST_CASE("object storage: an instance's storage client CPU binds its 10 streams together, by hand") {
  // As below (512 MiB in 64 parts of 8 MiB after a HEAD, 10 threads, 0.03 s first bytes, a 2 ms route, 50 MB/s a
  // stream, a 400 MB/s NIC), but the peer's storage client moves 100 MB/s at most, all its streams together (its
  // CPU: sg::PlatformSpec::Machine::storage_client_bps). From the moment the 6-part threads' flows begin, at least
  // two flows are always moving, each allowed 50 MB/s, so the client's 100 MB/s is always full: the last byte
  // arrives 512 MiB / 100 MB/s after the first flow starts, however the flows share it.
  const double part = 8.0 * 1024 * 1024, first_byte = 0.03, route = 0.002, nic = 4e8, cap = 5e7, client_bps = 1e8;
  auto with_client = [&](sg::PlatformSpec& spec) {
    peer_with_streams(route, nic, cap)(spec);
    spec.peers[0].storage_client_bps = client_bps;
  };
  const auto result = run_object_storage(exact_storage(first_byte), with_client,
                                         [&](simulation::ObjectStorage& storage, const sg::Platform& platform,
                                             nlohmann::json& j) {
    sg::spawn("client", platform.peers[0], [&] {
      auto client = exact_client(platform.peers[0], 10);
      storage.get(client, 64 * part);
      j["get_s"] = sg::now();
    });
  });
  const double first_flow_s = 7 * first_byte + 6 * route + route;  // a 6-part thread: HEAD, 6 first bytes, routes
  CHECK(result["get_s"].get<double>() == doctest::Approx(first_flow_s + 64 * part / client_bps).epsilon(1e-9));
  CHECK(result["gets"].get<long long>() == 65);
}

TEST_CASE("network: an instance's storage client's link is on its route to storage alone") {
  // Two peers that reach each other, each with a NIC of 100 MB/s and a storage client of 1 MB/s: 10 MB from one peer
  // to the other crosses the two NICs (CM02, no factors) in 0.1 s plus the route's 2 ms, not 10 s; to storage on one
  // stream of 50 MB/s it takes 10 s.
  const double route = 0.002, nic = 1e8, client_bps = 1e6, bytes = 1e7;
  auto two_peers = [&](sg::PlatformSpec& spec) {
    peer_with_streams(route, nic, 5e7)(spec);
    spec.peers = {{"peer-0", 1.0, nic}, {"peer-1", 1.0, nic}};
    for (auto& m : spec.peers) m.storage_client_bps = client_bps;
    spec.peer_to_peer = true;
  };
  const auto result = run_object_storage(exact_storage(0), two_peers, [&](simulation::ObjectStorage& storage,
                                                                           const sg::Platform& platform,
                                                                           nlohmann::json& j) {
    sg::spawn("sender", platform.peers[0], [&] {
      sg::transfer(platform.peers[0], platform.peers[1], bytes);
      j["peer_s"] = sg::now();
      auto client = exact_client(platform.peers[0]);
      storage.put(client, bytes);
      j["storage_s"] = sg::now() - j["peer_s"].get<double>();
    });
  });
  CHECK(result["peer_s"].get<double>() == doctest::Approx(route + bytes / nic).epsilon(1e-9));
  CHECK(result["storage_s"].get<double>() == doctest::Approx(route + bytes / client_bps).epsilon(1e-9));
}

TEST_CASE("object storage: a 512 MiB multipart GET on 10 streams, each capped at one stream's rate, by hand") {
  // boto3's defaults: 64 parts of 8 MiB after a HEAD, 10 threads taking parts in turn (4 threads 7 parts, 6
  // threads 6). Each request waits 0.03 s for its first byte and pays the 2 ms route; a stream carries at most
  // 50 MB/s, the client's NIC 400 MB/s (CM02: no factors). While all 10 move they share the NIC: 40 MB/s each;
  // the 6 threads with 6 parts end first, then the 4 others get 50 MB/s each (capped).
  const double part = 8.0 * 1024 * 1024, first_byte = 0.03, route = 0.002, nic = 4e8, cap = 5e7;
  const auto result = run_object_storage(exact_storage(first_byte), peer_with_streams(route, nic, cap),
                                         [&](simulation::ObjectStorage& storage, const sg::Platform& platform,
                                             nlohmann::json& j) {
    sg::spawn("client", platform.peers[0], [&] {
      auto client = exact_client(platform.peers[0], 10);
      storage.get(client, 64 * part);
      j["get_s"] = sg::now();
      // The same plan computed, on the same route alone (a function slot's way).
      client.route = {route, nic, cap};
      j["computed_s"] = storage.compute(client, storage.plan(client, false, 64 * part, 1, 0), 0).end_s;
    });
  });
  // A thread with q parts starts its flow after the HEAD (one request), its q first bytes and q route latencies
  // but its flow's own (paid by the flow): 1 + q requests, q + 1 first bytes.
  auto flow_start = [&](int q) { return (q + 1) * first_byte + q * route; };
  const double s6 = flow_start(6), s7 = flow_start(7);  // 6-part threads start earlier
  // 6 threads x 6 parts begin at s6, 4 threads x 7 parts at s7 (each flow pays its route latency first).
  const double b6 = 6 * part, b7 = 7 * part;
  const double t6 = s6 + route, t7 = s7 + route;  // when their bytes begin to move
  // From t6 to t7 six flows share the NIC (400/6 = 66.7 > 50: capped at 50 MB/s each); from t7 all ten: 40 each.
  double moved6 = (t7 - t6) * cap;
  const double end6 = t7 + (b6 - moved6) / (nic / 10);
  const double moved7 = (end6 - t7) * (nic / 10);
  const double end7 = end6 + (b7 - moved7) / cap;  // alone at last: 4 x 50 MB/s, under the NIC
  CHECK(result["get_s"].get<double>() == doctest::Approx(end7).epsilon(1e-9));
  CHECK(result["computed_s"].get<double>() == doctest::Approx(end7).epsilon(1e-9));
  CHECK(result["gets"].get<long long>() == 65);  // the HEAD and 64 ranged GETs
}

TEST_CASE("object storage: a GET that learns its object's size from its first part GETs it alone, then the rest, "
          "by hand") {
  // 40 MiB in 8 MiB parts on 4 streams; each request waits 0.03 s for its first byte and pays the 2 ms route; a
  // stream carries at most 50 MB/s, the NIC 400 MB/s (CM02: no factors), so the streams never share it.
  const double part = 8.0 * 1024 * 1024, first_byte = 0.03, route = 0.002, nic = 4e8, cap = 5e7;
  const auto result = run_object_storage(exact_storage(first_byte), peer_with_streams(route, nic, cap),
                                         [&](simulation::ObjectStorage& storage, const sg::Platform& platform,
                                             nlohmann::json& j) {
    sg::spawn("client", platform.peers[0], [&] {
      auto client = exact_client(platform.peers[0], 4);
      client.transfers.size_from_first_part = true;
      storage.get(client, 5 * part);
      j["first_part_s"] = sg::now();
      // The same steps computed, on the same route alone (a function slot's way), one after the other.
      client.route = {route, nic, cap};
      double at_s = 0;
      for (const auto& step : simulation::ObjectStorage::steps(client.transfers, false, 5 * part, 1))
        at_s = storage.compute(client, storage.plan(client, false, step.bytes_each, step.count, at_s, step.section), at_s)
                   .end_s;
      j["computed_s"] = at_s;
      // An object of less than a part: one ranged GET, no HEAD.
      double small_start_s = sg::now();
      storage.get(client, 6e6);
      j["small_s"] = sg::now() - small_start_s;
      // On one stream the Go downloader's one worker GETs the other parts one after another, not in one GET.
      client.transfers.max_streams = 1;
      const double one_stream_start_s = sg::now();
      storage.get(client, 5 * part);
      j["one_stream_s"] = sg::now() - one_stream_start_s;
      client.transfers.max_streams = 4;
      // boto3's way: a HEAD, then the 5 parts in turn on the 4 streams.
      client.transfers.size_from_first_part = false;
      const double head_start_s = sg::now();
      storage.get(client, 5 * part);
      j["head_s"] = sg::now() - head_start_s;
      // boto3's way with an object below its threshold: a HEAD too, then one GET of the whole.
      small_start_s = sg::now();
      storage.get(client, 6e6);
      j["small_head_s"] = sg::now() - small_start_s;
      // A LIST is one request whatever the client's streams: no download's HEAD before it.
      const double list_start_s = sg::now();
      storage.list(client, [] { return 0; });
      j["list_s"] = sg::now() - list_start_s;
      // A DELETE too: one PUT-class request, never a multipart upload's opening and completion, even where every
      // upload would go in parts.
      client.transfers.threshold_bytes = 0;
      const double delete_start_s = sg::now();
      storage.remove(client);
      j["delete_s"] = sg::now() - delete_start_s;
    });
  });
  // The first part alone: its first byte, the route, 8 MiB at one stream's cap; then the other 4 parts, one a
  // stream, no HEAD: the same again.
  const double one_part_s = first_byte + route + part / cap;
  CHECK(result["first_part_s"].get<double>() == doctest::Approx(2 * one_part_s).epsilon(1e-9));
  CHECK(result["computed_s"].get<double>() == doctest::Approx(2 * one_part_s).epsilon(1e-9));
  // One stream: each of the 5 parts pays its own first byte and route, in turn.
  CHECK(result["one_stream_s"].get<double>() == doctest::Approx(5 * one_part_s).epsilon(1e-9));
  // With a HEAD: stream 0 takes parts 0 and 4 (the HEAD's, two first bytes and two routes but its flow's own
  // before its 16 MiB), the others one part each and end earlier.
  const double head_s = 3 * first_byte + 2 * route + route + 2 * part / cap;
  CHECK(result["head_s"].get<double>() == doctest::Approx(head_s).epsilon(1e-9));
  CHECK(result["small_s"].get<double>() == doctest::Approx(first_byte + route + 6e6 / cap).epsilon(1e-9));
  CHECK(result["small_head_s"].get<double>() == doctest::Approx(2 * (first_byte + route) + 6e6 / cap).epsilon(1e-9));
  CHECK(result["list_s"].get<double>() == doctest::Approx(first_byte + route).epsilon(1e-9));
  CHECK(result["delete_s"].get<double>() == doctest::Approx(first_byte + route).epsilon(1e-9));
  CHECK(result["gets"].get<long long>() == 5 + 1 + 5 + 6 + 2);  // 5 ranged GETs; 1; 5 on one stream; a HEAD and 5; a HEAD and 1
}

TEST_CASE("object storage: only a download in parts begins with its first part, and an object of one part is only that") {
  TransferConfig t;
  t.max_streams = 8;
  t.part_bytes = t.threshold_bytes = 8.0 * 1024 * 1024;
  using Section = TransferStep::Section;
  auto sections = [&](bool upload, double bytes, int count) {
    std::vector<Section> out;
    for (const auto& step : ObjectStorage::steps(t, upload, bytes, count)) out.push_back(step.section);
    return out;
  };
  CHECK(sections(false, 40e6, 1) == std::vector<Section>{Section::Whole});  // a HEAD first: boto3's way
  t.size_from_first_part = true;
  const auto steps = ObjectStorage::steps(t, false, 40e6, 2);
  REQUIRE(steps.size() == 4);  // per object its first part, then the rest
  CHECK(steps[0].section == Section::FirstPart);
  CHECK(steps[0].bytes_each == t.part_bytes);
  CHECK(steps[1].section == Section::Rest);
  CHECK(steps[1].bytes_each == doctest::Approx(40e6 - t.part_bytes));
  CHECK(steps[3].section == Section::Rest);
  CHECK(sections(true, 40e6, 1) == std::vector<Section>{Section::Whole});            // an upload: its create request
  CHECK(sections(false, t.part_bytes, 1) == std::vector<Section>{Section::FirstPart});  // one part: one GET, no HEAD
  // Below boto3's threshold too: the Go downloader has none, and its first part is all of a small object.
  CHECK(sections(false, 4e6, 1) == std::vector<Section>{Section::FirstPart});
  CHECK(ObjectStorage::steps(t, false, 6e6, 1)[0].bytes_each == 6e6);
  CHECK(sections(false, 6e6, 3) ==
        std::vector<Section>{Section::FirstPart, Section::FirstPart, Section::FirstPart});  // a loop of them
  t.max_streams = 1;  // one stream too: its one worker takes the parts in turn (aws-sdk-go-v2's download())
  CHECK(sections(false, 40e6, 1) == std::vector<Section>{Section::FirstPart, Section::Rest});
  t.size_from_first_part = false;
  CHECK(sections(false, 40e6, 1) == std::vector<Section>{Section::Whole});  // get_object, the designs' one stream: one GET
}

TEST_CASE("object storage: a function's network bucket runs dry mid-GET, then its sustained rate, idle, it refills, "
          "simulated and computed alike, by hand") {
  // A function slot's NIC 400 MB/s, one stream at most 100 MB/s, a token bucket of 100 MB over 50 MB/s each way,
  // refilling at 50 MB/s while idle (CM02: no factors, no latency), 0.03 s to each first byte. A 1 GB GET moves at 100 MB/s, spending 50 MB of
  // credit a second: dry after 2 s and 200 MB; the other 800 MB at 50 MB/s take 16 s. The upload direction has its
  // own bucket: a PUT right after the GET bursts as the GET did, and meanwhile the download direction earns its
  // credit back (a GET after it bursts again); after 10 s idle the bucket is full too (500 MB earned, 100 MB held).
  // A GET right after another: the next test.
  const double first_byte = 0.03, gb = 1e9;
  const sg::PrivateRoute route{0, 4e8, 1e8, 5e7, 1e8, 5e7};
  const auto result = run_function_storage(route, first_byte, [&](simulation::ObjectStorage& storage,
                                                                  StorageClient& client, nlohmann::json& j) {
    // Computed first, on a bucket of its own (full): what a virtual slot's GET would take.
    auto computed = client;
    computed.bucket = std::make_shared<sg::RouteBucket>(route.burst_bytes, 0);
    const auto t = storage.compute(computed, storage.plan(computed, false, gb, 1, 0), 0);
    j["computed_s"] = t.end_s;
    j["computed_dry"] = t.bucket_emptied;
    double start = sg::now();
    storage.get(client, gb);
    j["first_s"] = sg::now() - start;
    start = sg::now();
    storage.put(client, gb);
    j["put_s"] = sg::now() - start;
    start = sg::now();
    storage.get(client, gb);
    j["second_s"] = sg::now() - start;
    sg::sleep_for(10);
    start = sg::now();
    storage.get(client, gb);
    j["rested_s"] = sg::now() - start;
  });
  const double with_burst_s = first_byte + 2.0 + 8e8 / 5e7;
  CHECK(result["computed_s"].get<double>() == doctest::Approx(with_burst_s).epsilon(1e-9));
  CHECK(result["computed_dry"].get<bool>());
  CHECK(result["first_s"].get<double>() == doctest::Approx(with_burst_s).epsilon(1e-9));
  CHECK(result["put_s"].get<double>() == doctest::Approx(with_burst_s).epsilon(1e-9));
  // The PUT took 18.03 s: the download direction earned 18 s x 50 MB/s back meanwhile, a full bucket again.
  CHECK(result["second_s"].get<double>() == doctest::Approx(with_burst_s).epsilon(1e-9));
  CHECK(result["rested_s"].get<double>() == doctest::Approx(with_burst_s).epsilon(1e-9));
}

TEST_CASE("object storage: a function's sustained rate under the account's network quota, by default and scaled "
          "with memory, by hand") {
  // A function service made here: one stream at most 100 MB/s, a NIC of 400 MB/s, a token bucket of 100 MB over a
  // sustained 50 MB/s (measured under the default quota), a client that never binds; the quota documented at
  // 50 MB/s at 2,048 MB and 250 MB/s at 10,240 MB, linear between. Asked to scale, a 3,072 MB function's quota is
  // 50 + 200 x 1,024 / 8,192 = 75 MB/s, so its sustained rate is 50 x 75 / 50 = 75 MB/s.
  FunctionServiceParams f;
  f.memory_per_vcpu_mb = 1769;
  f.max_vcpus = 6;
  f.visible_cores = {{10240, 6}};
  f.network = {{128, 1e8, 4e8}};
  f.network_sustained_bps = 5e7;
  f.network_burst_bytes = 1e8;
  f.network_quota = {{2048, 5e7}, {10240, 2.5e8}};
  const StorageClientRate unbound{1e15, std::numeric_limits<double>::infinity()};
  CHECK(f.sustained_bps_at(10240) == 5e7);  // the default quota: the measured rate at every size
  f.network_quota_scalable = true;
  CHECK(f.sustained_bps_at(1024) == 5e7);  // below the first documented size: the default
  CHECK(f.sustained_bps_at(2048) == 5e7);
  CHECK(f.sustained_bps_at(3072) == doctest::Approx(7.5e7).epsilon(1e-12));
  CHECK(f.sustained_bps_at(6144) == doctest::Approx(1.5e8).epsilon(1e-12));
  CHECK(f.sustained_bps_at(10240) == doctest::Approx(2.5e8).epsilon(1e-12));
  CHECK(f.sustained_bps_at(20000) == doctest::Approx(2.5e8).epsilon(1e-12));  // flat beyond the last
  // A 1 GB GET on one stream (100 MB/s), 0.03 s to its first byte, spends the bucket at 100 MB/s less the sustained
  // rate. By default (50): dry after 2 s and 200 MB, the other 800 MB at 50 MB/s take 16 s. Scaled at 3,072 MB (75):
  // dry after 4 s and 400 MB, 600 MB at 75 MB/s take 8 s. Scaled at 10,240 MB (250, above the stream's rate): never
  // dry, 10 s. Scaled at 1,024 MB: the default's.
  const double first_byte = 0.03, gb = 1e9;
  auto get_s = [&](bool scalable, int memory_mb) {
    f.network_quota_scalable = scalable;
    const auto route = function_storage_route(f, 0, memory_mb, unbound);
    const auto result = run_function_storage(route, first_byte, [&](simulation::ObjectStorage& storage,
                                                                    StorageClient& client, nlohmann::json& j) {
      const double start = sg::now();
      storage.get(client, gb);
      j["get_s"] = sg::now() - start;
    });
    return result["get_s"].get<double>();
  };
  CHECK(get_s(false, 3072) == doctest::Approx(first_byte + 2 + 16).epsilon(1e-9));
  CHECK(get_s(true, 3072) == doctest::Approx(first_byte + 4 + 8).epsilon(1e-9));
  CHECK(get_s(true, 10240) == doctest::Approx(first_byte + 10).epsilon(1e-9));
  CHECK(get_s(true, 1024) == doctest::Approx(first_byte + 2 + 16).epsilon(1e-9));
}

TEST_CASE("object storage: a function's download in steps, simulated and computed alike, its bucket spent between "
          "the steps") {
  // 1 GB in parts of 200 MB on 4 streams, the first part alone: a function slot's NIC 400 MB/s, one stream at most
  // 100 MB/s (CM02, no latency), 0.03 s to each first byte. With a bucket that never runs dry: the first part
  // 2 s at 100 MB/s, then the other four at once, 2 s each.
  const double first_byte = 0.03, gb = 1e9;
  auto in_steps = [&](const sg::PrivateRoute& route) {
    return run_function_storage(route, first_byte, [&](simulation::ObjectStorage& storage, StorageClient& client,
                                                       nlohmann::json& j) {
      client.transfers.max_streams = 4;
      client.transfers.part_bytes = 2e8;
      client.transfers.size_from_first_part = true;
      auto computed = client;
      computed.bucket = std::make_shared<sg::RouteBucket>(route.burst_bytes, 0);
      const auto steps = storage.compute_steps(computed, false, gb, 0);
      j["computed_steps"] = steps.size();
      j["computed_s"] = steps.back().transfer.end_s;
      j["computed_gets"] = steps[0].plan.get_requests + steps[1].plan.get_requests;
      storage.get(client, gb);
      j["simulated_s"] = sg::now();
      // Each bucket as its transfer left it, a second later.
      j["computed_credit"] = computed.bucket->credits_at(false, sg::now() + 1, route);
      j["simulated_credit"] = client.bucket->credits_at(false, sg::now() + 1, route);
    });
  };
  const auto roomy = in_steps({0, 4e8, 1e8, 5e7, 1e10, 5e7});
  CHECK(roomy["computed_steps"].get<int>() == 2);
  CHECK(roomy["computed_gets"].get<int>() == 5);  // no HEAD
  CHECK(roomy["computed_s"].get<double>() == doctest::Approx(2 * (first_byte + 2.0)).epsilon(1e-9));
  CHECK(roomy["simulated_s"].get<double>() == doctest::Approx(2 * (first_byte + 2.0)).epsilon(1e-9));
  // A bucket of 100 MB over 50 MB/s: the first part spends it (2 s x 50 MB/s), the rest moves at the sustained
  // rate but for the credit earned over its first byte; both ways alike, and so is what they leave in the bucket.
  const auto dry = in_steps({0, 4e8, 1e8, 5e7, 1e8, 5e7});
  CHECK(dry["simulated_s"].get<double>() > 2 * first_byte + 2.0 + 8e8 / 5e7 - 0.1);
  CHECK(dry["computed_s"].get<double>() == doctest::Approx(dry["simulated_s"].get<double>()).epsilon(1e-9));
  CHECK(dry["computed_credit"].get<double>() == doctest::Approx(dry["simulated_credit"].get<double>()).epsilon(1e-9));
}

TEST_CASE("object storage: a GET right after another finds its function's network bucket empty") {
  // As above: the second of two back-to-back 1 GB GETs has no credit left and moves at 50 MB/s from its start.
  const double first_byte = 0.03, gb = 1e9;
  const sg::PrivateRoute route{0, 4e8, 1e8, 5e7, 1e8, 5e7};
  const auto result = run_function_storage(route, first_byte, [&](simulation::ObjectStorage& storage,
                                                                  StorageClient& client, nlohmann::json& j) {
    storage.get(client, gb);
    const double start = sg::now();
    // What the second GET's flow will find: the bucket as the first left it, refilled over its first byte.
    j["credits_at_second_flow"] = client.bucket->credits_at(false, start + first_byte, route);
    storage.get(client, gb);
    j["second_s"] = sg::now() - start;
    storage.list(client, [] { return 0; });
  });
  CHECK(result["function_requests"].get<long long>() == 3);  // a function's: two GETs and a LIST
  // Its first byte (0.03 s) earns 1.5 MB back: 1.5 MB at 100 MB/s (drained at 50 MB/s: 3 MB moved in 0.03 s),
  // then 997 MB at 50 MB/s.
  CHECK(result["credits_at_second_flow"].get<double>() == doctest::Approx(first_byte * 5e7).epsilon(1e-9));
  const double burst_bytes = std::floor(1e8 * (first_byte * 5e7) / (1e8 - 5e7));
  CHECK(result["second_s"].get<double>() ==
        doctest::Approx(first_byte + burst_bytes / 1e8 + (gb - burst_bytes) / 5e7).epsilon(1e-9));
}

TEST_CASE("object storage: a function's idle network bucket refills at its own rate, slower than it sustains, by hand") {
  // As above, but the bucket refills at 20 MB/s while idle. A 1 GB GET empties it (0.03 + 2 + 16 s); 2 s idle earn
  // 40 MB back, and the next GET's first byte 0.6 MB more: 40.6 MB of credit, spent at 100 - 50 MB/s while the flow
  // moves 81.2 MB at 100 MB/s; the other 918.8 MB at 50 MB/s. After 10 s idle (200 MB earned) the bucket is full.
  const double first_byte = 0.03, gb = 1e9;
  const sg::PrivateRoute route{0, 4e8, 1e8, 5e7, 1e8, 2e7};
  const auto result = run_function_storage(route, first_byte, [&](simulation::ObjectStorage& storage,
                                                                  StorageClient& client, nlohmann::json& j) {
    double start = sg::now();
    storage.get(client, gb);
    j["first_s"] = sg::now() - start;
    sg::sleep_for(2);
    start = sg::now();
    j["credits_at_flow"] = client.bucket->credits_at(false, start + first_byte, route);
    storage.get(client, gb);
    j["after_2_s"] = sg::now() - start;
    sg::sleep_for(10);
    start = sg::now();
    storage.get(client, gb);
    j["after_10_s"] = sg::now() - start;
  });
  const double full_s = first_byte + 2.0 + 8e8 / 5e7;
  CHECK(result["first_s"].get<double>() == doctest::Approx(full_s).epsilon(1e-9));
  CHECK(result["credits_at_flow"].get<double>() == doctest::Approx((2 + first_byte) * 2e7).epsilon(1e-9));
  const double burst_bytes = std::floor(1e8 * ((2 + first_byte) * 2e7) / (1e8 - 5e7));
  CHECK(burst_bytes == doctest::Approx(81.2e6).epsilon(1e-6));
  CHECK(result["after_2_s"].get<double>() ==
        doctest::Approx(first_byte + burst_bytes / 1e8 + (gb - burst_bytes) / 5e7).epsilon(1e-9));
  CHECK(result["after_10_s"].get<double>() == doctest::Approx(full_s).epsilon(1e-9));
}

TEST_CASE("object storage: a transfer slower than the sustained rate earns credit back no faster than idle, by hand") {
  // A bucket of 100 MB over 50 MB/s, refilling at 20 MB/s. A 1 GB GET at 100 MB/s empties it. Right after, a 60 MB
  // GET on a stream capped at 30 MB/s (0.03 + 2 s) moves 41.5 MB less than the sustained rate would have over its
  // 2.03 s, but earns only what 2.03 s idle would: 40.6 MB.
  const double first_byte = 0.03, gb = 1e9;
  const sg::PrivateRoute route{0, 4e8, 1e8, 5e7, 1e8, 2e7};
  const auto result = run_function_storage(route, first_byte, [&](simulation::ObjectStorage& storage,
                                                                  StorageClient& client, nlohmann::json& j) {
    storage.get(client, gb);
    client.route.flow_cap_bps = 3e7;
    sg::set_function_slot_network(*client.platform, 0, client.route.nic_bps, client.route.flow_cap_bps);
    const double start = sg::now();
    storage.get(client, 6e7);
    j["slow_s"] = sg::now() - start;
    j["credits_after"] = client.bucket->credits_at(false, sg::now(), client.route);
  });
  CHECK(result["slow_s"].get<double>() == doctest::Approx(first_byte + 2).epsilon(1e-9));
  CHECK(result["credits_after"].get<double>() == doctest::Approx(2e7 * (first_byte + 2)).epsilon(1e-9));
}

TEST_CASE("network credits: an 'up to' NIC bursts until its balance is spent mid-transfer, then runs at its baseline") {
  // A peer's NIC: 100 MB/s burst, 10 MB/s baseline, 45 MB of credits each way (CM02, no latency, no first byte,
  // a 1 GB/s stream). A 100 MB GET drains the balance at 100 - 10 = 90 MB/s: dry after 0.5 s, having moved 50 MB;
  // the other 50 MB at 10 MB/s take 5 s. After 20 s idle the balance holds 200 MB worth, capped at 45 MB: a second
  // 100 MB GET takes 5.5 s again.
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    auto spec = small_platform();
    spec.servers.clear();
    spec.storage_stream_bps = 1e9;
    spec.peers = {{"peer-0", 1.0, 1e8, 0, 1e7, 4.5e7}};
    const auto platform = sg::build_platform(spec);
    const auto params = exact_storage(0);
    Ledger ledger;
    sg::StorageLinkWatch unwatched;
    simulation::ObjectStorage storage(params, 1, platform.storage, unwatched, ledger);
    nlohmann::json j;
    sg::spawn("client", platform.peers[0], [&] {
      auto client = exact_client(platform.peers[0]);
      storage.get(client, 1e8);
      j["first_s"] = sg::now();
      sg::sleep_for(20);
      const double start = sg::now();
      storage.get(client, 1e8);
      j["second_s"] = sg::now() - start;
    });
    engine.run();
    j["dry_at_s"] = platform.nic_credits->exhausted_at_s().at(0);
    return j.dump();
  }));
  CHECK(result["first_s"].get<double>() == doctest::Approx(0.5 + 5.0).epsilon(1e-6));
  CHECK(result["dry_at_s"].get<double>() == doctest::Approx(0.5).epsilon(1e-6));
  CHECK(result["second_s"].get<double>() == doctest::Approx(0.5 + 5.0).epsilon(1e-6));
}

TEST_CASE("network credits: a dry direction bursts again only once no transfer that began at its baseline crosses it "
          "as cross-traffic") {
  // SimGrid 3.32 shifts the sharing penalty of every flow on a link whose bandwidth changes, also of flows that
  // cross it only as their ACKs' cross-traffic and never counted it: a download that began while its host's
  // upload direction was dry went negative when that direction burst again, and SimGrid aborted
  // (sg/nic_credits.hpp, Bucket::held). Cross-traffic off here, so that the times are the NIC's alone: 100 MB/s
  // burst, 10 MB/s baseline, 45 MB of credits each way (CM02, no latency). An upload of 100 MB at 0 s: dry at
  // 0.5 s, done at 5.5 s. A download of 200 MB at 1 s (its own direction dry at 1.5 s with 50 MB moved, 150 MB at
  // 10 MB/s): done at 16.5 s. The upload direction, idle from 5.5 s, has earned its 45 MB back at 10 s but is held
  // at its baseline until the download ends. A second upload of 100 MB at 11 s begins at the baseline, and a flow
  // keeps the rate bound its route gave it at its start (SimGrid's CM02, comm_action_set_bounds): 100 MB at
  // 10 MB/s, done at 21 s. Not held back, it would have begun bursting on 45 MB of credits: dry after 0.5 s with
  // 50 MB moved, the other 50 MB at 10 MB/s, done at 16.5 s.
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::NetworkSettings network{"CM02"};
    network.cross_traffic = false;
    sg::Engine engine(network);
    auto spec = small_platform();
    spec.servers.clear();
    spec.peers = {{"peer-0", 1.0, 1e8, 0, 1e7, 4.5e7}};
    const auto platform = sg::build_platform(spec);
    nlohmann::json j;
    sg::Host* peer = platform.peers[0];
    sg::spawn("uploads", peer, [&] {
      sg::transfer(peer, platform.storage, 1e8);
      j["first_upload_s"] = sg::now();
      sg::sleep_until(11);
      sg::transfer(peer, platform.storage, 1e8);
      j["second_upload_s"] = sg::now();
    });
    sg::spawn("download", peer, [&] {
      sg::sleep_until(1);
      sg::transfer(platform.storage, peer, 2e8);
      j["download_s"] = sg::now();
    });
    engine.run();
    return j.dump();
  }));
  CHECK(result["first_upload_s"].get<double>() == doctest::Approx(5.5).epsilon(1e-6));
  CHECK(result["download_s"].get<double>() == doctest::Approx(16.5).epsilon(1e-6));
  CHECK(result["second_upload_s"].get<double>() == doctest::Approx(21.0).epsilon(1e-6));
}

TEST_CASE("network credits: a direction that drains slower than it could runs dry at the instant its balance is "
          "spent, and an idle dry one bursts again at the instant it has earned a second's worth back") {
  // Two peers with the same NIC: 100 MB/s burst, 10 MB/s baseline, 180 MB of credits each way; one stream to
  // storage carries at most 55 MB/s (CM02, no latency, no cross-traffic). Each uploads 300 MB at 0 s: 55 MB/s
  // drains 45 MB/s, dry at 4 s with 220 MB moved; the other 80 MB at 10 MB/s: done at 12 s. Idle from then on,
  // each direction earns 10 MB/s and bursts again once it holds a second's worth of burst above the baseline,
  // 90 MB: at 21 s. A 10 MB probe at 20.99 s still runs at the baseline (1 s: done at 21.99 s); one at 21.01 s
  // bursts to the stream's 55 MB/s (done 10/55 s later). The instants are exact: SimGrid stops when a balance
  // is spent at the rates it has just solved, not when a look that assumed the fastest drain comes round.
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::NetworkSettings network{"CM02"};
    network.cross_traffic = false;
    sg::Engine engine(network);
    auto spec = small_platform();
    spec.servers.clear();
    spec.storage_stream_bps = 5.5e7;
    spec.peers = {{"peer-0", 1.0, 1e8, 0, 1e7, 1.8e8}, {"peer-1", 1.0, 1e8, 0, 1e7, 1.8e8}};
    const auto platform = sg::build_platform(spec);
    nlohmann::json j;
    for (int p = 0; p < 2; ++p)
      sg::spawn("uploads", platform.peers[p], [&, p] {
        sg::Host* peer = platform.peers[p];
        sg::transfer(peer, platform.storage, 3e8);
        j["upload_s"][p] = sg::now();
        sg::sleep_until(p == 0 ? 20.99 : 21.01);
        sg::transfer(peer, platform.storage, 1e7);
        j["probe_s"][p] = sg::now();
      });
    engine.run();
    j["dry_at_s"] = platform.nic_credits->exhausted_at_s();
    return j.dump();
  }));
  for (int p = 0; p < 2; ++p) {
    CHECK(result["dry_at_s"][p].get<double>() == doctest::Approx(4.0).epsilon(1e-12));
    CHECK(result["upload_s"][p].get<double>() == doctest::Approx(12.0).epsilon(1e-12));
  }
  CHECK(result["probe_s"][0].get<double>() == doctest::Approx(20.99 + 1.0).epsilon(1e-12));
  CHECK(result["probe_s"][1].get<double>() == doctest::Approx(21.01 + 1e7 / 5.5e7).epsilon(1e-12));
}

TEST_CASE("network credits: an 'up to' NIC with no credits runs at its baseline from the start") {
  // 100 MB/s burst, 10 MB/s baseline, no credits (a profile may say nic_credit_s="0"): a 100 MB upload takes 10 s.
  // (A bucket of nothing once bursted and ran dry at every step of the clock, and the run never ended.)
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    auto spec = small_platform();
    spec.servers.clear();
    spec.peers = {{"peer-0", 1.0, 1e8, 0, 1e7, 0}};
    const auto platform = sg::build_platform(spec);
    nlohmann::json j;
    sg::spawn("upload", platform.peers[0], [&] {
      sg::transfer(platform.peers[0], platform.storage, 1e8);
      j["upload_s"] = sg::now();
    });
    engine.run();
    j["dry_at_s"] = platform.nic_credits->exhausted_at_s().at(0);
    return j.dump();
  }));
  CHECK(result["upload_s"].get<double>() == doctest::Approx(10.0).epsilon(1e-12));
  CHECK(result["dry_at_s"].get<double>() == 0.0);
}

TEST_CASE("network credits: a server's 'up to' NIC bursts and runs dry as a peer's does") {
  // A parameter server's or database's NIC (it had stayed at its baseline): 100 MB/s burst, 10 MB/s baseline,
  // 45 MB of credits each way; the peer's NIC 1 GB/s, no single-flow cap. A 100 MB push into the server drains
  // its receiving direction at 90 MB/s: dry after 0.5 s with 50 MB moved, the other 50 MB at 10 MB/s: 5 s.
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    auto spec = small_platform();
    spec.peers = {{"peer-0", 1.0, 1e9}};
    spec.servers = {{"ps-0", 1.0, 1e8, 0, 1e7, 4.5e7}};
    const auto platform = sg::build_platform(spec);
    nlohmann::json j;
    sg::spawn("pusher", platform.peers[0], [&] {
      sg::transfer_all({{platform.peers[0], platform.servers[0], 1e8}});
      j["push_s"] = sg::now();
    });
    engine.run();
    return j.dump();
  }));
  CHECK(result["push_s"].get<double>() == doctest::Approx(0.5 + 5.0).epsilon(1e-6));
}

TEST_CASE("tasks: reused actors start in the order and at the time new ones would, and idle ones end the run") {
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    nlohmann::json j;
    std::vector<int> started;
    sg::spawn("caller", platform.peers[0], [&] {
      for (int round = 0; round < 2; ++round) {  // the second round's tasks run on the first round's actors
        for (int k = 0; k < 3; ++k)
          sg::run_task("task", platform.peers[0], [&, round, k] {
            started.push_back(10 * round + k);
            sg::sleep_for(1.0 + k);
            j["ended_s"][10 * round + k] = sg::now();
          });
        started.push_back(10 * round + 9);  // the caller goes on only after the tasks it started
        sg::sleep_for(5.0);
      }
    });
    j["end"] = static_cast<int>(engine.run(-1, [](double) {}));
    j["started"] = started;
    return j.dump();
  }));
  CHECK(result["end"].get<int>() == static_cast<int>(sg::Engine::End::Finished));
  CHECK(result["started"].get<std::vector<int>>() == std::vector<int>{0, 1, 2, 9, 10, 11, 12, 19});
  for (int k = 0; k < 3; ++k) {
    CHECK(result["ended_s"][k].get<double>() == doctest::Approx(1.0 + k));
    CHECK(result["ended_s"][10 + k].get<double>() == doctest::Approx(5.0 + 1.0 + k));
  }
}

namespace {
// When each of `branches` branches of a fan-out was handed out and when it starts ({"handed_out_s": [...],
// "start_s": [...]}); with `kill_caller_after_s`, the caller is killed then, the fan-out going on without it.
nlohmann::json fan_out_times(const p2psim::WorkflowServiceParams& params, int branches,
                             std::optional<double> kill_caller_after_s = std::nullopt) {
  return nlohmann::json::parse(run_isolated([&] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    Ledger ledger;
    simulation::WorkflowService workflow(params, ledger);
    nlohmann::json j;
    sg::Actor caller = sg::spawn("caller", platform.peers[0], [&] {
      workflow.fan_out(branches, platform.peers[0], [&](int k, double start_s) {
        j["handed_out_s"][k] = sg::now();
        j["start_s"][k] = start_s;
      });
      if (kill_caller_after_s) sg::sleep_for(100);
    });
    if (kill_caller_after_s)
      sg::spawn("killer", platform.peers[0], [&] {
        sg::sleep_for(*kill_caller_after_s);
        caller.kill();
      });
    engine.run(-1, [](double) {});
    return j.dump();
  }));
}
}  // namespace

TEST_CASE("workflow: branches are handed out a burst's worth at a time, each before its start, also once the caller is gone") {
  // Bursts of 3, then 2 branches/s after a 0.5 s transition: branches 0-2 start at 0.5 s, branch k >= 3 at
  // 0.5 + (k - 2) / 2 s. Groups 0 and 1 are handed out at once, group 2 (6-8) when branch 3 starts (1.0 s),
  // group 3 (9) when branch 6 starts (2.5 s).
  p2psim::WorkflowServiceParams params;
  params.transition_latency_s = 0.5;
  params.parallel_burst_branches = 3;
  params.parallel_first_interval_s = params.parallel_max_interval_s = 0.5;  // 2 branches a second
  const auto result = fan_out_times(params, 10, 0.1);
  for (int k = 0; k < 10; ++k) {
    CAPTURE(k);
    CHECK(result["start_s"][k].get<double>() == doctest::Approx(k < 3 ? 0.5 : 0.5 + (k - 2) / 2.0));
    const double handed_out = k < 6 ? 0 : k < 9 ? 1.0 : 2.5;
    CHECK(result["handed_out_s"][k].get<double>() == doctest::Approx(handed_out));
  }
}

TEST_CASE("workflow: with growing intervals every branch is still handed out before it starts") {
  // Burst 2 after a 0.5 s transition, intervals 0.5, 1.0, 1.5, 2.0: branches 0-1 start at 0.5 s, 2 at 1.0, 3 at 2.0,
  // 4 at 3.5, 5 at 5.5. Groups of 2: 0-1 and 2-3 handed out at once, 4-5 when branch 2 starts (1.0 s).
  p2psim::WorkflowServiceParams params;
  params.transition_latency_s = 0.5;
  params.parallel_burst_branches = 2;
  params.parallel_first_interval_s = 0.5, params.parallel_interval_growth_s = 0.5, params.parallel_max_interval_s = 10;
  const auto result = fan_out_times(params, 6);
  const double start[] = {0.5, 0.5, 1.0, 2.0, 3.5, 5.5}, handed_out[] = {0, 0, 0, 0, 1.0, 1.0};
  for (int k = 0; k < 6; ++k) {
    CAPTURE(k);
    CHECK(result["start_s"][k].get<double>() == doctest::Approx(start[k]));
    CHECK(result["handed_out_s"][k].get<double>() == doctest::Approx(handed_out[k]));
  }
}

TEST_CASE("workflow: after the burst each interval is longer than the one before, up to the cap") {
  // Burst 2 after a 0.1 s transition; intervals 0.2, 0.5, 0.8, then the cap 1.0 (0.2 + 0.3 k would be 1.1): branches
  // 0-1 at 0.1 s, then 0.3, 0.8, 1.6, 2.6, 3.6 s. With no growth every interval is the first (a cap under the
  // first interval is refused by the profile's reader: tests/test_replicates.cpp).
  p2psim::WorkflowServiceParams w;
  w.transition_latency_s = 0.1;
  w.parallel_burst_branches = 2;
  w.parallel_first_interval_s = 0.2, w.parallel_interval_growth_s = 0.3, w.parallel_max_interval_s = 1.0;
  const double expected[] = {0.1, 0.1, 0.3, 0.8, 1.6, 2.6, 3.6};
  for (int i = 0; i < 7; ++i) {
    CAPTURE(i);
    CHECK(w.branch_start_delay_s(i) == doctest::Approx(expected[i]).epsilon(1e-12));
  }
  w.parallel_interval_growth_s = 0;
  CHECK(w.branch_start_delay_s(6) == doctest::Approx(0.1 + 5 * 0.2));
  w.parallel_interval_growth_s = 0.4, w.parallel_max_interval_s = 0.6;  // 0.2, then 0.6 (0.6 exactly, at k = 1)
  CHECK(w.branch_start_delay_s(5) == doctest::Approx(0.1 + 0.2 + 3 * 0.6));
}

TEST_CASE("tasks: an actor left waiting for ever is still a deadlock when idle task actors wait beside it") {
  const auto end = run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    sg::Semaphore never(0);
    sg::run_task("task", platform.peers[0], [] { sg::sleep_for(1.0); });
    sg::spawn("stuck", platform.peers[0], [&] { never.acquire(); });
    return std::to_string(static_cast<int>(engine.run(-1, [](double) {})));
  });
  CHECK(end == std::to_string(static_cast<int>(sg::Engine::End::Deadlocked)));
}

TEST_CASE("storage slices: peers that alone can fill the storage link share it in slices of 32, each its share") {
  // 40 peers with 100 MB/s NICs and connections, a 2 GB/s storage link: they could draw 4 GB/s, so they are cut
  // into slices of 32 and 8 peers, with 2 GB/s x 32/40 = 1.6 GB/s and x 8/40 = 0.4 GB/s of the link.
  REQUIRE(sg::kPeersPerStorageSlice == 32);
  const auto result = nlohmann::json::parse(run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    auto spec = small_platform();
    spec.servers.clear();
    spec.function_slots = 0;
    spec.storage_aggregate_bps = 2e9;
    spec.storage_stream_bps = 1e8;
    spec.peers.clear();
    for (int i = 0; i < 40; ++i) spec.peers.push_back({"peer-" + std::to_string(i), 1.0, 1e8});
    const auto platform = sg::build_platform(spec);
    nlohmann::json j;
    sg::spawn("client", platform.storage, [&] {
      std::vector<sg::Transfer> all, second_slice;
      for (int i = 0; i < 40; ++i) all.push_back({platform.storage, platform.peers[i], 1e8});
      for (int i = 32; i < 40; ++i) second_slice.push_back({platform.storage, platform.peers[i], 1e8});
      sg::transfer_all(all);
      j["all_s"] = sg::now();
      const double start = sg::now();
      sg::transfer_all(second_slice);
      j["second_slice_alone_s"] = sg::now() - start;
    });
    engine.run();
    return j.dump();
  }));
  // All 40 at once: 50 MB/s each, as one shared 2 GB/s link would give them.
  CHECK(result["all_s"].get<double>() == doctest::Approx(1e8 / (2e9 / 40)).epsilon(1e-9));
  // The 8 of the second slice alone: 0.4 GB/s / 8 = 50 MB/s each, where one shared link would let them run at
  // their connections' 100 MB/s: a slice does not take up what the other leaves idle (the stated approximation).
  CHECK(result["second_slice_alone_s"].get<double>() == doctest::Approx(1e8 / (0.4e9 / 8)).epsilon(1e-9));
}

namespace {
// A transfer to or from storage by a function slot or a server of the platform, 10 MB.
struct StorageTransfer {
  bool server;  // else a function slot
  int index;
  bool upload;
};

// All `transfers` at once on the platform of `spec`: whether its storage link is watched, when each ended (-1:
// never), how the run ended and whether the watch saw the link exceeded.
nlohmann::json storage_transfers_at_once(const sg::PlatformSpec& spec, const std::vector<StorageTransfer>& transfers) {
  return nlohmann::json::parse(run_isolated([=] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    auto platform = sg::build_platform(spec);
    const auto params = exact_storage(0);  // no first-byte latency
    Ledger ledger;
    simulation::ObjectStorage storage(params, 1, platform.storage, platform.storage_watch, ledger);
    nlohmann::json j;
    j["watching"] = platform.storage_watch.watching();
    j["ends_s"] = std::vector<double>(transfers.size(), -1.0);
    for (size_t k = 0; k < transfers.size(); ++k) {
      sg::Host* host = transfers[k].server ? platform.servers[transfers[k].index] : platform.function_slots[transfers[k].index];
      sg::spawn("client", host, [&, k, host] {
        auto client = exact_client(host);
        if (transfers[k].upload)
          storage.put(client, 1e7);
        else
          storage.get(client, 1e7);
        j["ends_s"][k] = sg::now();
      });
    }
    j["end"] = static_cast<int>(engine.run(-1, [](double) {}));
    j["exceeded"] = platform.storage_watch.exceeded();
    return j.dump();
  }));
}

// One peer (100 MB/s) and four function slots (100 MB/s each) beside a storage link of `aggregate_bps` (350
// MB/s unless said), of which the peer's 100 MB/s is reserved (under half of it): the slots share the rest.
// The first `downloads` slots each GET 10 MB and the next `uploads` each PUT 10 MB, all at once.
nlohmann::json concurrent_transfers(sg::StorageSharing sharing, int downloads, int uploads = 0,
                                    double aggregate_bps = 3.5e8) {
  auto spec = small_platform();
  spec.servers.clear();
  spec.function_slots = 4;
  spec.storage_aggregate_bps = aggregate_bps;
  spec.storage_sharing = sharing;
  std::vector<StorageTransfer> transfers;
  for (int k = 0; k < downloads + uploads; ++k) transfers.push_back({false, k, k >= downloads});
  return storage_transfers_at_once(spec, transfers);
}
}  // namespace

TEST_CASE("optimistic storage sharing: exact while the functions cannot fill the storage link, abandoned once they could") {
  REQUIRE(sg::storage_link_may_bind([] {
    auto spec = small_platform();
    spec.servers.clear();
    spec.function_slots = 4;
    spec.storage_aggregate_bps = 3.5e8;
    return spec;
  }()));
  const int finished = static_cast<int>(sg::Engine::End::Finished);
  // Two at once: 200 of the 250 MB/s, so each runs at its NIC's 100 MB/s: 0.1 s, with or without the link.
  for (auto sharing : {sg::StorageSharing::Exact, sg::StorageSharing::Optimistic}) {
    const auto two = concurrent_transfers(sharing, 2);
    CHECK(two["watching"] == (sharing == sg::StorageSharing::Optimistic));
    CHECK(two["end"] == finished);
    CHECK_FALSE(two["exceeded"].get<bool>());
    for (double end_s : two["ends_s"]) CHECK(end_s == doctest::Approx(1e7 / 1e8).epsilon(1e-9));
  }
  // Three at once: the link binds, 250 / 3 MB/s each (0.12 s). Exact sees it; the optimistic run stops at the
  // third transfer's start, before anything ends, and says so.
  const auto exact = concurrent_transfers(sg::StorageSharing::Exact, 3);
  CHECK(exact["end"] == finished);
  for (double end_s : exact["ends_s"]) CHECK(end_s == doctest::Approx(1e7 / (2.5e8 / 3)).epsilon(1e-9));
  const auto optimistic = concurrent_transfers(sg::StorageSharing::Optimistic, 3);
  CHECK(optimistic["end"] == static_cast<int>(sg::Engine::End::Abandoned));
  CHECK(optimistic["exceeded"].get<bool>());
  for (double end_s : optimistic["ends_s"]) CHECK(end_s == -1.0);
  // Two GETs and two PUTs at once (on four slots), with 205 MB/s left to the slots: 200 MB/s each way, plus 5 %
  // of the other way's 200 (SimGrid's cross-traffic, the ACKs): 210 MB/s, so the link binds. Exact sees it:
  // 2.1 x the rate = 205 MB/s each way; the optimistic run, counting the ACKs, stops.
  const auto exact_both = concurrent_transfers(sg::StorageSharing::Exact, 2, 2, 3.05e8);
  for (double end_s : exact_both["ends_s"]) CHECK(end_s == doctest::Approx(1e7 / (2.05e8 / 2.1)).epsilon(1e-9));
  const auto optimistic_both = concurrent_transfers(sg::StorageSharing::Optimistic, 2, 2, 3.05e8);
  CHECK(optimistic_both["end"] == static_cast<int>(sg::Engine::End::Abandoned));
  // With 215 MB/s left, 210 fits: the same times, exact and optimistic.
  const auto exact_fit = concurrent_transfers(sg::StorageSharing::Exact, 2, 2, 3.15e8);
  const auto optimistic_fit = concurrent_transfers(sg::StorageSharing::Optimistic, 2, 2, 3.15e8);
  CHECK(optimistic_fit["end"] == finished);
  for (int k = 0; k < 4; ++k) {
    CHECK(exact_fit["ends_s"][k].get<double>() == doctest::Approx(1e7 / 1e8).epsilon(1e-9));
    CHECK(optimistic_fit["ends_s"][k].get<double>() == exact_fit["ends_s"][k].get<double>());
  }
}

TEST_CASE("storage: a user's private path is split duplex, as the shared link is") {
  // A 100 MB/s server uploading and downloading 10 MB at once, beside a 250 MB/s link of which the peer's
  // 100 MB/s is reserved. Each direction of its NIC carries one transfer and 5 % of the other's (SimGrid's
  // cross-traffic, the ACKs): 100 / 1.05 MB/s each, 0.105 s; each direction of the 150 MB/s left of the link
  // carries as much, and does not bind. (A path shared by both directions would carry 2.1 x the rate: 150 / 2.1
  // MB/s each, 0.14 s.) Two 100 MB/s function slots make the link one that may bind: the optimistic platform
  // watches it.
  const double each_way_s = 1e7 / (1e8 / 1.05);
  const std::vector<StorageTransfer> up_and_down{{true, 0, true}, {true, 0, false}};
  auto may_bind = small_platform();
  may_bind.servers = {{"db", 1.0, 1e8}};
  may_bind.storage_aggregate_bps = 2.5e8;
  for (auto sharing : {sg::StorageSharing::Exact, sg::StorageSharing::Optimistic}) {
    may_bind.storage_sharing = sharing;
    const auto j = storage_transfers_at_once(may_bind, up_and_down);
    CHECK(j["watching"] == (sharing == sg::StorageSharing::Optimistic));
    CHECK(j["end"] == static_cast<int>(sg::Engine::End::Finished));
    for (double end_s : j["ends_s"]) CHECK(end_s == doctest::Approx(each_way_s).epsilon(1e-9));
  }
  // The same with a 10 MB/s peer, no function slots and a 150 MB/s aggregate: 110 MB/s in all can never fill it,
  // so the server has a path of its own of all 150 MB/s, each direction carrying 1.05 x the rate as its NIC does
  // (shared by both directions, it would carry 2.1 x: 150 / 2.1 MB/s each, 0.14 s).
  auto never_binds = small_platform();
  never_binds.peers = {{"peer-0", 1.0, 1e7}};
  never_binds.servers = {{"db", 1.0, 1e8}};
  never_binds.function_slots = 0;
  never_binds.storage_aggregate_bps = 1.5e8;
  REQUIRE_FALSE(sg::storage_link_may_bind(never_binds));
  const auto j = storage_transfers_at_once(never_binds, up_and_down);
  CHECK(j["end"] == static_cast<int>(sg::Engine::End::Finished));
  for (double end_s : j["ends_s"]) CHECK(end_s == doctest::Approx(each_way_s).epsilon(1e-9));
}

TEST_CASE("tasks: a run whose last actor is killed, with idle task actors left, has finished") {
  const auto end = run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    sg::Actor last;
    last = sg::spawn("killed", platform.peers[0], [&] {
      sg::run_task("task", platform.peers[0], [] { sg::sleep_for(1.0); });
      sg::sleep_for(2.0);
      last.kill();  // it stops here, without the end an actor's body reaches
    });
    return std::to_string(static_cast<int>(engine.run(-1, [](double) {})));
  });
  CHECK(end == std::to_string(static_cast<int>(sg::Engine::End::Finished)));
}

TEST_CASE("SimGrid started by a parent: its forked simulation runs as usual, a second simulation in one process is refused") {
  const auto result = nlohmann::json::parse(run_isolated([] {
    nlohmann::json j;
    std::signal(SIGINT, SIG_DFL);
    sg::start_simgrid();
    j["sigint_kept"] = std::signal(SIGINT, SIG_DFL) == SIG_DFL;  // SimGrid's own Ctrl-C handler is not left behind
    // A child of this process: 10 MB from the peer to storage through its 100 MB/s NIC (CM02, no latency): 0.1 s.
    j["transfer_end_s"] = std::stod(run_isolated([] {
      sg::Engine engine(sg::NetworkSettings{"CM02"});
      const auto platform = sg::build_platform(small_platform());
      double end_s = -1;
      sg::spawn("sender", platform.peers[0], [&] {
        sg::transfer(platform.peers[0], platform.storage, 1e7);
        end_s = sg::now();
      });
      engine.run();
      return std::to_string(end_s);
    }));
    {
      sg::Engine first(sg::NetworkSettings{"CM02"});
    }
    try {
      sg::Engine second(sg::NetworkSettings{"CM02"});
      j["second"] = "accepted";
    } catch (const std::logic_error& e) {
      j["second"] = e.what();
    }
    return j.dump();
  }));
  CHECK(result["sigint_kept"].get<bool>());
  CHECK(result["transfer_end_s"].get<double>() == doctest::Approx(0.1));
  CHECK(result["second"].get<std::string>().find("second simulation in one process") != std::string::npos);
}

TEST_CASE("platform: a host's transfer to itself crosses SimGrid's loopback (10 GB/s, no latency), not its NIC") {
  // 1 GB from the peer to itself: 0.1 s on the loopback; its 100 MB/s NIC would take 10 s, and a pair left
  // without a route would be an instant, free flow.
  const auto end_s = std::stod(run_isolated([] {
    sg::Engine engine(sg::NetworkSettings{"CM02"});
    const auto platform = sg::build_platform(small_platform());
    double end = -1;
    sg::spawn("self", platform.peers[0], [&] {
      sg::transfer(platform.peers[0], platform.peers[0], 1e9);
      end = sg::now();
    });
    engine.run();
    return std::to_string(end);
  }));
  CHECK(end_s == doctest::Approx(0.1));
}
