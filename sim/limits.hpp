// What one run may ask for: bounds checked before anything is simulated, so that an input that would never
// finish, or exhaust the machine, gets a clear error with an estimate instead (docs/limits.md).
#pragma once
#include <string>

namespace p2psim {

struct Scenario;

namespace limits {

constexpr double kMaxSimulatedSeconds = 365.0 * 24 * 3600;  // a run stops, infeasible, past a simulated year
constexpr double kMaxSlowdown = 1000;                       // a straggler at most 1,000 times slower
constexpr long long kMaxParameters = 1'000'000'000'000;     // a 4 TB float32 gradient
// Memory per trace record (its row in the child, its bytes on the way to the parent, the parent's copy and the
// CSV line): peak RSS over trace rows on the paper's VGG-11, both systems, 4 t2.large peers x 10,000 iterations,
// batch 1,024: 567 MB for 2.04 M rows, 278 B each (2026-12-01), rounded up by half.
constexpr double kBytesPerTraceRecord = 450;
// Memory per gradient delivery (and the staleness beside it): the all-to-all at 1,024 t2.large peers x 10
// iterations peaked at 813 MB with 10.5 M deliveries and 133 k trace rows: 68 B each once the base and the rows
// are taken off (2026-12-01), rounded up by half.
constexpr double kBytesPerDelivery = 100;
constexpr double kBaseBytes = 64e6;  // the process, the profile and the calibration

/// Trace records (phases) one system of the scenario may write: an upper estimate.
double estimated_trace_records(const Scenario& s);
/// Gradient deliveries one system may record (the all-to-all records every one): an upper estimate.
double estimated_deliveries(const Scenario& s);
double estimated_peak_bytes(const Scenario& s);
/// The memory this machine can still give (MemAvailable), in bytes; 0 when unknown.
double available_memory_bytes();

/// Throws InputError naming the experiment's workload when the run would need more memory than the machine
/// has available, with the estimate.
void check_fits_in_memory(const Scenario& s);

}  // namespace limits
}  // namespace p2psim
