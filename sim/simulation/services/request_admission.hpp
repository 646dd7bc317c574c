// S3's request rate per partitioned key prefix: at least 3,500 PUT-class and 5,500 GET-class requests a second
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/optimizing-performance.html); beyond, it answers 503
// Slow Down and the SDK retries later. A bucket starts as one partition and S3 splits it under sustained load at
// a pace it does not publish, so the model holds the documented rate per prefix, times the prefixes a design
// spreads its keys over (`storage_prefixes`, 1 unless the system says): a fresh bucket's, pessimistic for one S3
// has long since split.
//
// Requests are admitted in one-second windows of the run's clock: a request asked for at t takes t's window when
// it has room, else the next window with room, from that window's start (what waiting for the SDK's retry
// amounts to, without the retries' own round trips). A request computed ahead of the clock (computed transfers)
// takes its room when it is planned, so rooms go in the order requests are planned, not always in time order:
// a window is never over its rate either way.
#pragma once
#include <unordered_map>

namespace p2psim::simulation {

class RequestAdmission {
 public:
  /// `per_s` requests a second (a whole number of them per window; 0: no limit).
  explicit RequestAdmission(double per_s);
  /// When a request asked for at `at_s` is served: `at_s`, or the start of the first later window with room.
  double admit(double at_s);

 private:
  long long free_window(long long window);  // the first window at or after `window` with room

  long long per_window_;
  std::unordered_map<long long, long long> taken_;  // per window: requests admitted
  std::unordered_map<long long, long long> next_;   // a full window: a window at or after it to look from
};

}  // namespace p2psim::simulation
