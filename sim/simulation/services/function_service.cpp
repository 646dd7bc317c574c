#include "function_service.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace p2psim::simulation {

FunctionService::FunctionService(const p2psim::FunctionServiceParams& params, const sg::Platform& platform,
                                 double speed_factor, double import_speed_factor,
                                 const p2psim::StorageClientRate& client, Ledger& ledger, const Random& random)
    : params_(params),
      platform_(platform),
      speed_factor_(speed_factor),
      import_speed_factor_(import_speed_factor),
      client_(client),
      ledger_(ledger),
      random_(random) {
  for (int k = static_cast<int>(platform.function_slots.size()) - 1; k >= 0; --k) free_slots_.push_back(k);
}

sg::PrivateRoute function_storage_route(const p2psim::FunctionServiceParams& params, double one_way_latency_s,
                                        int memory_mb, const p2psim::StorageClientRate& client) {
  const auto rates = params.storage_rates(memory_mb, client);
  return {one_way_latency_s, rates.all_streams_bps, rates.stream_bps, rates.sustained_bps, rates.burst_bytes,
          rates.refill_bps};
}

sg::PrivateRoute FunctionService::route(int memory_mb) const {
  return function_storage_route(params_, platform_.one_way_latency_s, memory_mb, client_);
}

void FunctionService::take_slot(Container& c, int slot) {
  c.slot = slot;
  c.host = platform_.function_slots[static_cast<size_t>(slot)];
  c.route = route(c.memory_mb);
  sg::set_function_slot_network(platform_, slot, c.route.nic_bps, c.route.flow_cap_bps);
}

FunctionService::Container FunctionService::start(const std::string& function, int memory_mb,
                                                  std::initializer_list<std::int64_t> invocation,
                                                  std::int64_t instance) {
  // A count rather than a SimGrid semaphore: under the limit (always, in the paper grid) nothing waits, and an
  // acquire that cannot block would still cost each invocation an actor switch to SimGrid's kernel and back.
  if (queued_.empty() && running_ < params_.concurrency_limit) {
    ++running_;
  } else {
    const auto place = std::make_shared<sg::Semaphore>(0);  // held here: finish() drops it from the queue
    queued_.push_back(place);
    place->acquire();  // released by the finish() that hands this invocation its place
  }
  const double now = sg::now();
  reclaim_expired(now);
  Container c;
  c.function = function;
  c.memory_mb = memory_mb;
  if (take_warm(c)) return c;
  // More containers alive than the design expected (e.g. a rejoined peer's functions beside its old ones): it
  // waits for a slot.
  slot_freed_.wait_for([this] { return free_a_slot(); });
  cold_start(c, now, invocation, instance);
  sg::sleep_for(c.init_s);
  return c;
}

FunctionService::Container FunctionService::take_now(const std::string& function, int memory_mb,
                                                     std::initializer_list<std::int64_t> invocation,
                                                     std::int64_t instance, double now_s) {
  if (!queued_.empty() || running_ >= params_.concurrency_limit)
    throw std::logic_error("take_now: the concurrency limit is reached (a computed invocation would have to wait)");
  ++running_;
  reclaim_expired(now_s);
  Container c;
  c.function = function;
  c.memory_mb = memory_mb;
  if (take_warm(c)) return c;
  if (!free_a_slot()) throw std::logic_error("take_now: no function slot is free (a computed invocation would have to wait)");
  cold_start(c, now_s, invocation, instance);
  return c;
}

void FunctionService::reclaim_expired(double now_s) {
  // Containers idle past the keep-alive are gone; in each pool they are the oldest, at the front.
  for (auto& [name, pool] : idle_)
    while (!pool.empty() && now_s - pool.front().since_s > params_.keep_alive_s) {
      free_slots_.push_back(pool.front().slot);
      pool.pop_front();
      --alive_;
    }
}

bool FunctionService::take_warm(Container& c) {
  auto& pool = idle_[c.function];
  if (pool.empty()) return false;
  const int slot = pool.back().slot;  // newest warm container first
  c.bucket = pool.back().bucket;
  pool.pop_back();  // before take_slot, which may yield (see cold_start)
  take_slot(c, slot);
  ++warm_starts_;
  return true;
}

bool FunctionService::free_a_slot() {
  // A new container needs a network slot: a free one, else the oldest idle container of another function
  // gives its up (the platform has as many slots as the design expects containers alive at once).
  if (!free_slots_.empty()) return true;
  std::deque<Idle>* oldest = nullptr;
  for (auto& [name, other] : idle_)
    if (!other.empty() && (!oldest || other.front().since_s < oldest->front().since_s)) oldest = &other;
  if (!oldest) return false;
  free_slots_.push_back(oldest->front().slot);
  oldest->pop_front();
  --alive_;
  return true;
}

void FunctionService::cold_start(Container& c, double now_s, std::initializer_list<std::int64_t> invocation,
                                 std::int64_t instance) {
  // Taken from the free ones before take_slot sets its network: setting a link's bandwidth is a SimGrid call that
  // lets other actors run, and one starting a container meanwhile took the same slot (two reducers shared a NIC
  // at half its rate, another slot stayed empty).
  const int slot = free_slots_.back();
  free_slots_.pop_back();
  take_slot(c, slot);
  if (c.route.sustained_bps > 0) c.bucket = std::make_shared<sg::RouteBucket>(c.route.burst_bytes, now_s);
  max_alive_ = std::max(max_alive_, ++alive_);
  c.cold = true;
  c.init_started_s = now_s;
  // The image's time is the invocation's own draw; the function's name keeps two pools' invocations apart, and
  // the caller's instance a rejoined peer's from its first life's.
  auto draws = random_.stream(Draw::ColdStart, invocation, Random::id_of(c.function) ^ instance);
  const double image_s = params_.cold_start_image_median_s * std::exp(params_.cold_start_image_sigma * draws.standard_normal());
  // The import is work measured on the calibration CPU: at this CPU's scalar speed (unmarshalling Python's modules,
  // loading and relocating extensions: no vector kernels), on at most one vCPU. It is the INIT the provider bills;
  // the platform's start before it (the image's time) is not billed.
  c.billed_init_s = compute_s(params_.runtime_import_s_on_reference_cpu, import_speed_factor_) /
                    std::min(1.0, vcpus(c.memory_mb));
  c.init_s = image_s + c.billed_init_s;
  ++cold_starts_;
}

void FunctionService::compute(const Container&, double reference_s) const {
  sg::sleep_for(compute_s(reference_s));
}

void FunctionService::finish(const Container& c, double run_s, const std::string& arch, bool died) {
  finish_at(c, run_s, arch, died, sg::now());
}

void FunctionService::finish_at(const Container& c, double run_s, const std::string& arch, bool died, double now_s) {
  ledger_.function_runs.push_back({c.memory_mb, arch, c.init_s, c.billed_init_s, run_s});
  if (died) {
    free_slots_.push_back(c.slot);
    --alive_;
  } else {
    idle_[c.function].push_back({c.slot, now_s, c.bucket});
  }
  if (queued_.empty()) {
    --running_;
  } else {  // the place goes to the oldest queued invocation: running_ stays
    // Dequeued before the release, a SimGrid call that lets other actors run: a finish at the same date used to
    // release the same place again, and the next queued invocation waited for ever (SPIRT's identical peers).
    const auto place = queued_.front();
    queued_.pop_front();
    place->release();
  }
  slot_freed_.notify_all();
}

}  // namespace p2psim::simulation
