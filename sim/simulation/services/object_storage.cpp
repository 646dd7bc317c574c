#include "object_storage.hpp"

#include "../sg/platform.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace p2psim::simulation {

namespace {
// When the first of a request's flows starts, after the request is made.
double earliest_start_s(const std::vector<sg::Stream>& flows) {
  return std::min_element(flows.begin(), flows.end(), [](const sg::Stream& a, const sg::Stream& b) {
           return a.start_after_s < b.start_after_s;
         })->start_after_s;
}
}  // namespace

std::vector<sg::Stream> StoragePlan::flows(double latency_paid_s) const {
  std::vector<sg::Stream> out;
  out.reserve(streams.size());
  for (const auto& s : streams) out.push_back({s.first_bytes_s + (s.requests - 1) * latency_paid_s, s.bytes});
  return out;
}

std::vector<TransferStep> ObjectStorage::steps(const TransferConfig& transfers, bool upload, double bytes_each, int count) {
  // The Go downloader has no threshold: any object goes in ranged GETs of a part, the first alone.
  if (upload || !transfers.downloads_in_steps()) return {{TransferStep::Section::Whole, bytes_each, count}};
  std::vector<TransferStep> out;
  for (int object = 0; object < count; ++object) {  // an object of one part is its first part: one GET, no HEAD
    out.push_back({TransferStep::Section::FirstPart, std::min(bytes_each, transfers.part_bytes), 1});
    if (bytes_each > transfers.part_bytes)
      out.push_back({TransferStep::Section::Rest, bytes_each - transfers.part_bytes, 1});
  }
  return out;
}

StoragePlan ObjectStorage::plan(StorageClient& client, bool upload, double bytes_each, int count, double start_s,
                                TransferStep::Section step) {
  const auto& first_byte = upload ? params_.put : params_.get;
  auto draw = [&](const p2psim::ObjectStorageParams::FirstByte& fb) {
    return fb.median_s * std::exp(fb.sigma * client.draws.standard_normal());
  };
  StoragePlan plan;
  plan.by_function = client.slot >= 0;
  // A request asked `after_s` into the plan: its wait for admission, then its first byte.
  auto request = [&](bool put, double after_s, const p2psim::ObjectStorageParams::FirstByte& fb) {
    const double asked_s = start_s + after_s;
    const double wait_s = (put ? puts_ : gets_).admit(asked_s) - asked_s;
    if (wait_s > 0) ++plan.throttled_requests, plan.throttle_wait_s += wait_s;
    (put ? plan.put_requests : plan.get_requests) += 1;
    return wait_s + draw(fb);
  };
  const TransferConfig& cfg = client.transfers;
  // The rest of an object whose first part came alone goes in parts whatever its size and however many streams
  // (the Go downloader's one worker takes them one after another), and needs no HEAD.
  const bool rest = step == TransferStep::Section::Rest;
  const bool one_request = step == TransferStep::Section::FirstPart || step == TransferStep::Section::OneRequest;
  const bool multipart = !one_request && (rest || (cfg.max_streams > 1 && bytes_each >= cfg.threshold_bytes));
  const long long parts = multipart ? std::max(1LL, static_cast<long long>(std::ceil(bytes_each / cfg.part_bytes))) : 1;
  const int streams = static_cast<int>(std::min<long long>(cfg.max_streams, parts));
  // boto3's transfer manager asks for a download's size (HEAD) before it reads, a small object's too: s3transfer's
  // DownloadSubmissionTask heads any object whose size it was not given, then GETs it whole below the threshold.
  // The Go downloader learns the size from its first part instead (its downloads come in steps, never whole).
  const bool head_first = !upload && step == TransferStep::Section::Whole && cfg.max_streams > 1;
  plan.streams.resize(static_cast<size_t>(streams));
  for (int object = 0; object < count; ++object) {
    // A download first asks for its size (HEAD), a multipart upload opens its upload and is completed at the end:
    // requests every stream of this object waits for, in series with the objects before and after.
    if (upload ? multipart && !rest : head_first) {
      const double after_s = std::max_element(plan.streams.begin(), plan.streams.end(), [](const auto& a, const auto& b) {
                               return a.first_bytes_s < b.first_bytes_s;
                             })->first_bytes_s;
      double overhead_s = 0;
      int overhead_requests = 0;
      if (upload) {  // CreateMultipartUpload, CompleteMultipartUpload
        overhead_s = request(true, after_s, params_.put);
        overhead_s += request(true, after_s + overhead_s, params_.put);
        overhead_requests = 2;
      } else {
        overhead_s = request(false, after_s, params_.get);  // HeadObject
        overhead_requests = 1;
      }
      for (auto& s : plan.streams) s.first_bytes_s += overhead_s, s.requests += overhead_requests;
    }
    for (long long j = 0; j < parts; ++j) {  // the parts in turn to the streams, as a pool of threads takes them
      auto& s = plan.streams[static_cast<size_t>(j % streams)];
      s.first_bytes_s += request(upload, s.first_bytes_s, first_byte);
      s.requests += 1;
      s.bytes += multipart ? std::min(cfg.part_bytes, bytes_each - static_cast<double>(j) * cfg.part_bytes) : bytes_each;
    }
  }
  ledger_.storage_throttled_requests += plan.throttled_requests;
  ledger_.storage_throttle_wait_s += plan.throttle_wait_s;
  return plan;
}

void ObjectStorage::move(StorageClient& client, bool upload, double bytes_each, int count) {
  for (const auto& step : steps(client.transfers, upload, bytes_each, count)) move_step(client, upload, step);
}

void ObjectStorage::move_step(StorageClient& client, bool upload, const TransferStep& step) {
  const StoragePlan p = plan(client, upload, step.bytes_each, step.count, sg::now(), step.section);
  sg::Host* from = upload ? client.host : host_;
  sg::Host* to = upload ? host_ : client.host;
  auto flows = p.flows(sg::route_latency_paid_s(from, to));
  // In flight, for the storage link's watch, from its first flow on.
  const double first_s = earliest_start_s(flows);
  sg::sleep_for(first_s);
  for (auto& f : flows) f.start_after_s -= first_s;
  {
    const auto in_flight = watch_.start(client.host, upload);
    const double begin_s = sg::now();
    const auto phases = bucket_phases(client, upload, flows, begin_s);
    sg::transfer_streams(from, to, phases.burst);
    if (!phases.after.empty()) {  // the slot's bucket is empty: its NIC at the sustained rate, then back
      if (!client.platform) throw std::logic_error("a client with a network bucket but no platform to slow its NIC on");
      const auto& r = client.route;
      sg::set_function_slot_network(*client.platform, client.slot, sustained_route(r).nic_bps, r.flow_cap_bps);
      sg::transfer_streams(from, to, phases.after);
      sg::set_function_slot_network(*client.platform, client.slot, r.nic_bps, r.flow_cap_bps);
    }
    spend_bucket(client, upload, p, begin_s, sg::now(), !phases.after.empty());
  }
  record(p);
}

sg::BucketPhases ObjectStorage::bucket_phases(const StorageClient& client, bool upload,
                                             const std::vector<sg::Stream>& flows, double begin_s) {
  if (!client.bucket) return {flows, {}};
  return sg::bucket_phases(client.route, flows, client.bucket->credits_at(upload, begin_s, client.route));
}

sg::PrivateRoute ObjectStorage::sustained_route(sg::PrivateRoute route) {
  route.nic_bps = std::min(route.nic_bps, route.sustained_bps);
  return route;
}

void ObjectStorage::spend_bucket(StorageClient& client, bool upload, const StoragePlan& plan, double begin_s,
                                 double end_s, bool emptied) {
  if (!client.bucket) return;
  double bytes = 0;
  for (const auto& s : plan.streams) bytes += std::floor(s.bytes);
  client.bucket->moved(upload, begin_s, end_s, bytes, emptied, client.route);
}

void ObjectStorage::list(StorageClient& client, const std::function<int()>& keys_listed) {
  // Its admission and first byte, as a GET's; one request, never a download's HEAD before it.
  const StoragePlan p = plan(client, false, 0, 1, sg::now(), TransferStep::Section::OneRequest);
  sg::sleep_for(p.streams[0].first_bytes_s);
  sg::sleep_for(std::min(keys_listed(), params_.list_max_keys) * params_.list_per_key_s);
  sg::transfer_streams(host_, client.host, {{0, 0}});  // the answer's way back: the route's latency
  ledger_.storage_puts += 1;                             // S3 bills a LIST with PUT, COPY and POST
  if (p.by_function) ledger_.function_storage_requests += 1;
}

void ObjectStorage::remove(StorageClient& client) {
  // Admitted and answered as a PUT-class request; one request, never a multipart upload's opening and completion.
  const StoragePlan p = plan(client, true, 0, 1, sg::now(), TransferStep::Section::OneRequest);
  sg::sleep_for(p.streams[0].first_bytes_s);
  sg::transfer_streams(client.host, host_, {{0, 0}});
}

void ObjectStorage::get(StorageClient& client, double bytes_each, int count) { move(client, false, bytes_each, count); }
void ObjectStorage::put(StorageClient& client, double bytes_each, int count) { move(client, true, bytes_each, count); }

ObjectStorage::Computed ObjectStorage::compute(const StorageClient& client, const StoragePlan& plan, double start_s) const {
  const auto flows = plan.flows(sg::latency_paid_s(client.route.latency_s));
  Computed c;
  c.first_flow_s = start_s + earliest_start_s(flows);
  const bool upload = plan.put_requests > 0;  // a GET's plan makes GET-class requests only
  const auto phases = bucket_phases(client, upload, flows, c.first_flow_s);
  const auto ends = sg::private_flows_end_s(client.route, phases.burst, start_s);
  c.end_s = *std::max_element(ends.begin(), ends.end());
  if (!phases.after.empty()) {  // the bucket is empty: the rest of each flow at the sustained rate
    const auto rest = sg::private_flows_end_s(sustained_route(client.route), phases.after, c.end_s);
    c.end_s = *std::max_element(rest.begin(), rest.end());
    c.bucket_emptied = true;
  }
  return c;
}

std::vector<ObjectStorage::ComputedStep> ObjectStorage::compute_steps(StorageClient& client, bool upload, double bytes,
                                                                      double start_s) {
  std::vector<ComputedStep> out;
  for (const auto& step : steps(client.transfers, upload, bytes, 1)) {
    auto p = plan(client, upload, step.bytes_each, step.count, start_s, step.section);
    const auto t = compute(client, p, start_s);
    spend_bucket(client, upload, p, t.first_flow_s, t.end_s, t.bucket_emptied);
    start_s = t.end_s;
    out.push_back({std::move(p), t});
  }
  return out;
}

}  // namespace p2psim::simulation
