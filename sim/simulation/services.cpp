// Object storage, broker and function pool: the cloud services as timed operations.
#include <cmath>

#include "world.hpp"

namespace p2psim::simulation {

World::World(const Scenario& scenario, Architecture a, int function_slots)
    : s(scenario),
      arch(a),
      rng(scenario.experiment.seed),
      pool(scenario.profile.functions.concurrency_limit, scenario.profile.functions.keep_alive_s, function_slots) {
  const auto iterations = static_cast<size_t>(scenario.experiment.workload.iterations);
  board.progress.assign(scenario.experiment.peers, 0);
  next_to_fetch.assign(scenario.experiment.peers, std::vector<int>(scenario.experiment.peers, 0));
  presumed_dead.assign(scenario.experiment.peers, std::vector<bool>(scenario.experiment.peers, false));
  down.assign(scenario.experiment.peers, false);
  barrier_arrivals.assign(iterations, 0);
  credits.assign(scenario.experiment.peers, CpuCredits(scenario.peer_type));
}

double World::step_noise() {
  double factor = 1.0;
  if (s.experiment.workload.measured_variability)
    factor = s.compute.draw_step_noise(s.experiment.workload.model, s.experiment.workload.input_shape, rng);
  const auto& st = s.experiment.stragglers;
  if (st.tail_probability > 0) {
    const double hit = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    if (hit < st.tail_probability) {  // Pareto(shape, scale 1) by inversion
      const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
      factor *= std::pow(1.0 - u, -1.0 / st.tail_shape);
    }
  }
  return factor;
}

double World::standard_normal() {
  // Box-Muller on two uniforms built from the generator's exact 64-bit output.
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;          // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

void storage_get(World& w, sg4::Host* to, double bytes) {
  sg4::this_actor::sleep_for(w.s.profile.storage.first_byte_latency_s);
  sg4::Comm::sendto(w.hosts.storage, to, static_cast<uint64_t>(bytes));
  ++w.out.ledger.storage_gets;
}

void storage_put(World& w, sg4::Host* from, double bytes) {
  sg4::this_actor::sleep_for(w.s.profile.storage.first_byte_latency_s);
  sg4::Comm::sendto(from, w.hosts.storage, static_cast<uint64_t>(bytes));
  ++w.out.ledger.storage_puts;
}

// A broker operation that starts while the broker is unreachable waits for it to come back (clients retry).
void wait_for_broker(World& w) {
  const auto& e = w.s.experiment;
  const double t = sg4::Engine::get_clock();
  if (t >= e.broker_outage_from_s && t < e.broker_outage_to_s) sg4::this_actor::sleep_until(e.broker_outage_to_s);
}

void broker_request(World& w) {
  wait_for_broker(w);
  sg4::this_actor::sleep_for(w.s.profile.broker.request_latency_s);
}

void broker_process_message(World& w) {
  wait_for_broker(w);
  std::unique_lock<sg4::Mutex> cpu(*w.broker_cpu);
  sg4::this_actor::sleep_for(w.s.profile.broker.per_message_cpu_s);
}

FunctionPool::FunctionPool(int concurrency_limit, double keep_alive_s, int slots)
    : running_(sg4::Semaphore::create(concurrency_limit)), keep_alive_s_(keep_alive_s) {
  for (int k = slots - 1; k >= 0; --k) free_slots_.push_back(k);
}

FunctionPool::Lease FunctionPool::acquire() {
  running_->acquire();
  const double now = sg4::Engine::get_clock();
  // Containers idle past the keep-alive are gone; they are the oldest, at the front.
  while (!idle_.empty() && now - idle_.front().since_s > keep_alive_s_) {
    free_slots_.push_back(idle_.front().slot);
    idle_.pop_front();
    --alive_;
  }
  if (!idle_.empty()) {  // newest warm container first
    const int slot = idle_.back().slot;
    idle_.pop_back();
    return {slot, false};
  }
  if (free_slots_.empty()) throw std::logic_error("function pool: no network slot left for a new container");
  const int slot = free_slots_.back();
  free_slots_.pop_back();
  max_alive_ = std::max(max_alive_, ++alive_);
  return {slot, true};
}

void FunctionPool::discard(int slot) {
  free_slots_.push_back(slot);
  --alive_;
  running_->release();
}

void FunctionPool::release(int slot) {
  idle_.push_back({slot, sg4::Engine::get_clock()});
  running_->release();
}

}  // namespace p2psim::simulation
