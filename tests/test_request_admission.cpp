// S3's request rate per prefix (services/request_admission.hpp, ObjectStorage::plan): requests admitted in
// one-second windows, computed by hand.
#include <doctest/doctest.h>

#include "../sim/simulation/services/object_storage.hpp"
#include "../sim/simulation/services/request_admission.hpp"

using namespace p2psim;
using p2psim::simulation::RequestAdmission;

TEST_CASE("request admission: three a second, a full second sends the next request to the next second with room") {
  RequestAdmission three(3);
  CHECK(three.admit(0.1) == 0.1);
  CHECK(three.admit(0.2) == 0.2);
  CHECK(three.admit(0.3) == 0.3);
  CHECK(three.admit(0.4) == 1.0);  // second 0 is full
  CHECK(three.admit(0.5) == 1.0);
  CHECK(three.admit(1.5) == 1.5);  // second 1's third
  CHECK(three.admit(1.6) == 2.0);
  CHECK(three.admit(0.9) == 2.0);  // asked earlier, planned later: the first second with room
  CHECK(three.admit(5.25) == 5.25);
  CHECK(three.admit(2.5) == 2.5);  // second 2's third
  CHECK(three.admit(2.6) == 3.0);
  RequestAdmission unlimited(0);
  for (int i = 0; i < 100; ++i) CHECK(unlimited.admit(0.5) == 0.5);
}

TEST_CASE("request admission: a burst far over the rate fills one second after another, and later asks go past it") {
  RequestAdmission ten(10);
  double last = 0;
  for (int i = 0; i < 1000; ++i) last = ten.admit(0.0);
  CHECK(last == 99.0);               // 1,000 requests at ten a second: seconds 0 to 99
  CHECK(ten.admit(50.5) == 100.0);   // every second up to 99 is full
  CHECK(ten.admit(150.25) == 150.25);
}

namespace {
// Object storage with a 0.1 s first byte for every request and the given request rates per prefix.
struct RateLimited {
  p2psim::ObjectStorageParams params;
  Ledger ledger;
  sg::StorageLinkWatch unwatched;
  RateLimited(double gets_per_s, double puts_per_s) {
    params.get = params.put = {0.1, 0};
    params.get_requests_per_prefix_per_s = gets_per_s;
    params.put_requests_per_prefix_per_s = puts_per_s;
  }
  simulation::ObjectStorage storage(int prefixes) { return {params, prefixes, nullptr, unwatched, ledger}; }
};
}  // namespace

TEST_CASE("object storage: requests over the rate wait for the next second, in the plan, counted as throttled") {
  // 5 one-request GETs in a loop, 0.1 s to each first byte, 2 GETs a second (one prefix): asked at 0 and 0.1
  // (second 0), the third at 0.2 waits to 1.0 (first byte at 1.1), the fourth at 1.1 (second 1), the fifth at
  // 1.2 waits to 2.0: first bytes end at 2.1; two requests throttled, 0.8 s each.
  RateLimited s3(2, 1);
  auto storage = s3.storage(1);
  simulation::StorageClient client;
  const auto gets = storage.plan(client, false, 1000, 5, 0.0);
  REQUIRE(gets.streams.size() == 1);
  CHECK(gets.streams[0].first_bytes_s == doctest::Approx(2.1).epsilon(1e-12));
  CHECK(gets.get_requests == 5);
  CHECK(gets.throttled_requests == 2);
  CHECK(gets.throttle_wait_s == doctest::Approx(1.6).epsilon(1e-12));
  CHECK(s3.ledger.storage_throttled_requests == 2);  // counted when planned, however the plan is carried out
  CHECK(s3.ledger.storage_throttle_wait_s == doctest::Approx(1.6).epsilon(1e-12));
  // PUTs have their own rate (1 a second), and two prefixes double it: PUTs asked at 10.0 and 10.1 both go in
  // second 10 with two prefixes.
  auto two_prefixes = s3.storage(2);
  const auto puts = two_prefixes.plan(client, true, 1000, 2, 10.0);
  CHECK(puts.streams[0].first_bytes_s == doctest::Approx(0.2).epsilon(1e-12));
  CHECK(puts.throttled_requests == 0);
  const auto third = two_prefixes.plan(client, true, 1000, 1, 10.5);
  CHECK(third.streams[0].first_bytes_s == doctest::Approx(0.5 + 0.1).epsilon(1e-12));  // waits to 11.0
}

TEST_CASE("object storage: a multipart upload's create, parts and complete are each admitted") {
  // 16 MiB in two 8 MiB parts on 2 streams, one PUT a second. The plan puts an upload's create and complete
  // before its parts (requests every stream waits for, in series: object_storage.hpp).
  RateLimited s3(100, 1);
  auto storage = s3.storage(1);
  simulation::StorageClient client;
  client.transfers.max_streams = 2;
  const auto plan = storage.plan(client, true, 16.0 * 1024 * 1024, 1, 0.0);
  REQUIRE(plan.streams.size() == 2);
  CHECK(plan.put_requests == 4);
  // Create at 0 (0.1), complete asked at 0.1 waits to 1.0 (1.1): both streams start their parts at 1.1, the
  // first's part waits to 2.0 (2.1), the second's to 3.0 (3.1).
  CHECK(plan.streams[0].first_bytes_s == doctest::Approx(2.1).epsilon(1e-12));
  CHECK(plan.streams[1].first_bytes_s == doctest::Approx(3.1).epsilon(1e-12));
  CHECK(plan.throttled_requests == 3);
}
