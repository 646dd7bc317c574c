// S3-like object storage. A request waits for its first byte (a draw of the service's first-byte latency, GET
// and PUT each their own), then its bytes cross the platform's routes at most one stream's rate each (the
// client's NIC, the service's aggregate link). A client moves an object as boto3's transfer manager does
// (TransferConfig): in one request below a threshold (a download after a HEAD where max_streams > 1), else in parts
// on several streams at once (ranged GETs after a HEAD, or after the first part alone for a client that learns the
// size from it; a multipart upload's parts between its create and complete requests). A function's network is a
// token bucket each way (sg::RouteBucket): a transfer that empties it moves the rest at its sustained rate. A LIST
// and a DELETE carry no object: a first byte each (a LIST's then its keys). Counts every billed request in the
// ledger by S3's price classes (GET-class: GET and HEAD; PUT-class: PUT, create, upload part, complete, LIST;
// DELETE is free, https://aws.amazon.com/s3/pricing/).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../inputs/cloud_profile.hpp"
#include "../../records/ledger.hpp"
#include "../random.hpp"
#include "../sg/adapter.hpp"
#include "../sg/storage_link_watch.hpp"
#include "request_admission.hpp"

namespace p2psim::sg {
struct Platform;
}  // namespace p2psim::sg

namespace p2psim::simulation {

/// How a client moves an object (boto3's s3transfer TransferConfig, https://boto3.amazonaws.com/v1/
/// documentation/api/latest/reference/customizations/s3.html): objects of `threshold_bytes` or more go in parts
/// of `part_bytes` on up to `max_streams` streams at once; smaller ones, or any with max_streams 1, in one
/// request (get_object / put_object), a smaller download with max_streams above 1 after a HEAD, as boto3's
/// download_file does it. A download that learns the size from its first part (size_from_first_part, the Go
/// downloader) goes in parts on any number of streams, one stream taking them in turn.
struct TransferConfig {
  int max_streams = 1;
  double part_bytes = 8.0 * 1024 * 1024;       // boto3's multipart_chunksize: 8 MiB
  double threshold_bytes = 8.0 * 1024 * 1024;  // boto3's multipart_threshold: 8 MiB
  int prefixes = 1;  // key prefixes the design spreads its objects over, each served at S3's request rate
  /// How a download in parts learns the object's size: false, a HEAD request first (boto3's s3transfer); true, the
  /// first part's ranged GET, alone, before the other parts start (the AWS SDK for Go's downloader:
  /// https://github.com/aws/aws-sdk-go-v2/blob/01df8b2ebe11581e9367882d28fdd9fc1a7608b6/feature/s3/manager/download.go,
  /// download(): getChunk() before its workers), whatever the object's size: that downloader has no threshold.
  bool size_from_first_part = false;
  /// Whether a download may go in steps, its first part and then the rest (ObjectStorage::steps()).
  bool downloads_in_steps() const { return size_from_first_part; }
  /// How a function's client reads and writes (a <storage_client name> of the profile, which sets the CPU it spends
  /// per byte); empty: boto3's transfer manager where objects go in parts on several streams, else get_object.
  std::string client;
  std::string client_or_default() const {
    return !client.empty() ? client : max_streams > 1 ? "transfer_manager" : "get_object";
  }
};

/// Who makes requests: a host (or a virtual function slot), its own stream of first-byte latency draws (named by
/// the participant: the same requests draw the same latencies whatever else happens in the run), how it moves
/// objects, and the network it reaches storage with when it is a function slot.
struct StorageClient {
  sg::Host* host = nullptr;
  Random::Stream draws{0};
  TransferConfig transfers;
  int slot = -1;                 // a function slot's index, for the storage link's watch; -1 otherwise
  sg::PrivateRoute route;        // a function slot's own route, where its transfers are computed
  /// A function slot's platform, whose NIC a simulated transfer sets to the sustained rate once the route's token
  /// bucket is empty (sg::bucket_phases); null for other clients.
  const sg::Platform* platform = nullptr;
  /// Its container's network buckets, where its route has them (shared by the container's clients); else null.
  std::shared_ptr<sg::RouteBucket> bucket;
};

/// One request sequence as planned: per stream, the first-byte latencies of its requests and their number (each
/// also pays its route's latency), and the bytes it carries; how many GET- and PUT-class requests it makes.
struct StoragePlan {
  struct PlannedStream {
    double first_bytes_s = 0;
    int requests = 0;
    double bytes = 0;
  };
  std::vector<PlannedStream> streams;
  long long get_requests = 0, put_requests = 0;
  bool by_function = false;  // its client is a function (a slot's), not an instance
  long long throttled_requests = 0;  // requests served after the one-second window they were asked in
  double throttle_wait_s = 0;         // their waits, summed
  /// The flows, each starting after its requests' first bytes and every route latency but its own flow's
  /// (`latency_paid_s` each: sg::route_latency_paid_s).
  std::vector<sg::Stream> flows(double latency_paid_s) const;
};

/// One step of a get() or put(), carried out after the one before it ends: the whole transfer, or, where the client
/// learns an object's size from its first part, that part alone (FirstPart) and then the rest of the object (Rest).
/// A request that moves no object (a LIST, a DELETE) is one request (OneRequest): no HEAD, no parts.
struct TransferStep {
  enum class Section { Whole, FirstPart, Rest, OneRequest } section = Section::Whole;
  double bytes_each = 0;
  int count = 1;
};

class ObjectStorage {
 public:
  /// The steps of moving `count` objects of `bytes_each` with `transfers`: one, or two an object where a download in
  /// parts begins with its first part (TransferConfig::size_from_first_part).
  static std::vector<TransferStep> steps(const TransferConfig& transfers, bool upload, double bytes_each, int count);
  /// Every transfer is shown to `watch` (an optimistic platform's check of the storage link).
  /// Requests are served at the profile's rate per prefix times `prefixes` (request_admission.hpp).
  ObjectStorage(const p2psim::ObjectStorageParams& params, int prefixes, sg::Host* host, sg::StorageLinkWatch& watch,
                Ledger& ledger)
      : params_(params), host_(host), watch_(watch), ledger_(ledger),
        gets_(params.get_requests_per_prefix_per_s * prefixes), puts_(params.put_requests_per_prefix_per_s * prefixes) {}
  /// `count` objects of `bytes_each`, one after another (a client's loop), to or from `client`; returns when the
  /// last byte has arrived. Parts of one object move on parallel streams as the client's TransferConfig says;
  /// a loop's objects are one request sequence per stream: each stream's requests' first bytes and route
  /// latencies, then its bytes as one flow. Exact while a flow's bandwidth share stays the same; when a shared
  /// link binds meanwhile, a sequence leaves no gaps on it (docs/architecture.md, "Scale").
  void get(StorageClient& client, double bytes_each, int count = 1);
  void put(StorageClient& client, double bytes_each, int count = 1);
  /// A LIST of a bucket by `client`: admitted with the GET class (a GET on the bucket) and answered after a GET's
  /// first byte; `keys_listed` is asked then, when S3 (strongly consistent) lists what is there, and returns how
  /// many keys the bucket holds: the answer carries at most list_max_keys of them (one page), each taking the
  /// profile's list_per_key_s; then the answer crosses the route.
  void list(StorageClient& client, const std::function<int()>& keys_listed);
  /// A DELETE (or a multi-object delete) by `client`: admitted with the PUT class, answered after a PUT's first
  /// byte, not billed.
  void remove(StorageClient& client);
  /// The requests and streams of get() or put() begun at `start_s`, their first-byte latencies drawn from the
  /// client's stream, each request after its admission (request_admission.hpp) at the time it would be asked:
  /// `start_s` plus its stream's first bytes before it (the bytes of a stream's earlier parts are not counted).
  /// The throttled requests go into the ledger here, whichever way the plan is carried out (record() counts the
  /// requests when they end, which prices a run up to a moment; the throttling is a total).
  /// `step` says which part of the objects it plans (steps()): a first part is one request, the rest of an object
  /// its other parts on the streams, with no HEAD; OneRequest is one request that moves no object.
  StoragePlan plan(StorageClient& client, bool upload, double bytes_each, int count, double start_s,
                   TransferStep::Section step = TransferStep::Section::Whole);
  /// A computed transfer, for a client whose route to storage is its own (sg::function_routes_private): when
  /// its flows begin (the first) and when the last ends, requested at `start_s`. The caller records the requests
  /// (record()) once the clock reaches the end (PendingRecords).
  struct Computed {
    double first_flow_s = 0, end_s = 0;
    bool bucket_emptied = false;  // the client's network bucket ran dry during it (then at its sustained rate)
  };
  Computed compute(const StorageClient& client, const StoragePlan& plan, double start_s) const;
  /// A get() or put() of one object of `bytes` computed step after step (steps(), each planned and computed when
  /// the one before it ends), each spending the client's network bucket before the next finds it.
  struct ComputedStep {
    StoragePlan plan;
    Computed transfer;
  };
  std::vector<ComputedStep> compute_steps(StorageClient& client, bool upload, double bytes, double start_s);
  /// What a transfer of `plan` that moved from `begin_s` to `end_s` leaves in the client's network bucket.
  static void spend_bucket(StorageClient& client, bool upload, const StoragePlan& plan, double begin_s, double end_s,
                           bool emptied);
  void record(const StoragePlan& plan) {
    ledger_.storage_gets += plan.get_requests;
    ledger_.storage_puts += plan.put_requests;
    if (plan.by_function) ledger_.function_storage_requests += plan.get_requests + plan.put_requests;
  }

 private:
  void move(StorageClient& client, bool upload, double bytes_each, int count);
  void move_step(StorageClient& client, bool upload, const TransferStep& step);
  /// A transfer's flows split where the client's network bucket, as it stands when they begin at `begin_s`, runs
  /// dry (sg::bucket_phases): one split for the simulated and the computed transfer alike.
  static sg::BucketPhases bucket_phases(const StorageClient& client, bool upload, const std::vector<sg::Stream>& flows,
                                        double begin_s);
  /// The route once its bucket is dry: its NIC at the sustained rate.
  static sg::PrivateRoute sustained_route(sg::PrivateRoute route);
  const p2psim::ObjectStorageParams& params_;
  sg::Host* host_;
  sg::StorageLinkWatch& watch_;
  Ledger& ledger_;
  RequestAdmission gets_, puts_;  // GET-class and PUT-class requests
};

}  // namespace p2psim::simulation
