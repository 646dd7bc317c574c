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
// Memory per trace record (its row in the child, the JSON that carries it to the parent, the parsed copy and
// the CSV line): measured as peak RSS over records on the paper's VGG-11 at 4 peers x 500 iterations
// (71 MB, 102,057 records, 2026-12-01), rounded up.
constexpr double kBytesPerRecord = 600;
constexpr double kBaseBytes = 64e6;  // the process, the profile and the calibration

/// Trace records (phases) and gradient deliveries one system of the scenario may write: an upper estimate.
double estimated_records(const Scenario& s);
double estimated_peak_bytes(const Scenario& s);
/// The memory this machine can still give (MemAvailable), in bytes; 0 when unknown.
double available_memory_bytes();

/// Throws InputError naming the experiment's workload when the run would need more memory than the machine
/// has available, with the estimate.
void check_fits_in_memory(const Scenario& s);

}  // namespace limits
}  // namespace p2psim
