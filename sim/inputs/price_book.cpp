#include "price_book.hpp"

#include "../util/file_stamp.hpp"
#include "source_keys.hpp"
#include "xml_reader.hpp"

namespace p2psim {
namespace {

const std::string kSource = "source";

BillingRule billing_rule(const XmlFile& xml, const pugi::xml_node& n) {
  return {xml.number(n, "billing_granularity_s", 1e-9, 1e6), xml.number_or(n, "minimum_billed_s", 0, 1e7, 0)};
}

PriceBook parse(XmlFile& xml) {
  auto root = xml.root("price_book");
  xml.check_names(root, {"provider", "region", "currency", "date"},
                  {"instances", "functions", "workflow", "object_storage", "broker", "sources"});
  check_source_keys(xml, root);
  PriceBook b;
  b.path = xml.path();
  b.provider = xml.text(root, "provider");
  b.region = xml.text(root, "region");
  b.date = xml.text(root, "date");
  xml.choice(root, "currency", {"USD"});  // every price's unit is in its name
  auto required = [&](const char* name) {
    auto n = root.child(name);
    if (!n) throw xml.error(root, name, "required element <" + std::string(name) + "> is missing");
    return n;
  };

  auto in = required("instances");
  xml.check_names(in, {"billing_granularity_s", "minimum_billed_s", "surplus_credit_per_vcpu_hour_usd", kSource},
                  {"instance"});
  b.instances.billing = billing_rule(xml, in);
  b.instances.surplus_credit_per_vcpu_hour_usd = xml.number(in, "surplus_credit_per_vcpu_hour_usd", 0, 100);
  for (auto n : in.children("instance")) {
    xml.check_names(n, {"type", "per_hour_usd", kSource});
    const std::string type = xml.text(n, "type");
    if (!b.instances.per_hour_usd.emplace(type, xml.number(n, "per_hour_usd", 0, 1e6)).second)
      throw xml.error(n, "instance/@type", "instance type '" + type + "' is priced twice");
  }
  b.instances_line = xml.line_of(in);

  auto fn = required("functions");
  xml.check_names(fn, {"billing_granularity_s", "minimum_billed_s", "init_billed", "per_request_usd", "free_gb_s",
                       "free_requests", kSource},
                  {"arch"});
  auto& f = b.functions;
  f.billing = billing_rule(xml, fn);
  f.init_billed = xml.boolean(fn, "init_billed");
  f.per_request_usd = xml.number(fn, "per_request_usd", 0, 1);
  f.free_gb_s = xml.number_or(fn, "free_gb_s", 0, 1e12, 0);
  f.free_requests = xml.number_or(fn, "free_requests", 0, 1e15, 0);
  for (auto n : fn.children("arch")) {
    xml.check_names(n, {"name", "per_gb_s_usd", kSource});
    const std::string arch = xml.choice(n, "name", {"x86", "arm"});
    if (!f.per_gb_s_usd.emplace(arch, xml.number(n, "per_gb_s_usd", 0, 1)).second)
      throw xml.error(n, "arch/@name", "architecture '" + arch + "' is priced twice");
  }
  for (const char* arch : {"x86", "arm"})
    if (!f.per_gb_s_usd.count(arch))
      throw xml.error(fn, "functions/arch", std::string("no price per GB-second for the architecture '") + arch + "'");

  auto wf = required("workflow");
  xml.check_names(wf, {"per_transition_usd", kSource});
  b.workflow_per_transition_usd = xml.number(wf, "per_transition_usd", 0, 1);

  auto st = required("object_storage");
  xml.check_names(st, {"per_get_usd", "per_put_usd", kSource});
  b.storage_per_get_usd = xml.number(st, "per_get_usd", 0, 1);
  b.storage_per_put_usd = xml.number(st, "per_put_usd", 0, 1);

  auto br = required("broker");
  xml.check_names(br, {"per_hour_usd", "billing_granularity_s", "minimum_billed_s", kSource});
  b.broker.billing = billing_rule(xml, br);
  b.broker.per_hour_usd = xml.number(br, "per_hour_usd", 0, 1e6);
  return b;
}

PriceBook parse_file(const std::string& path, const std::vector<ProfileOverride>& overrides) {
  XmlFile xml(path);
  apply_overrides(xml, overrides);
  try {
    return parse(xml);
  } catch (const InputError& e) {
    blame_override(e, overrides);
  }
}

// Every instance type of the platform (after its overrides, which may rename one) has a price.
void check_prices_every_type(const PriceBook& b, const CloudProfile& profile) {
  for (const auto& [type, t] : profile.instance_types)
    if (!b.instances.per_hour_usd.count(type))
      throw InputError(b.path, b.instances_line, "instances/instance",
                       "no price for the instance type '" + type + "' of the platform " + profile.path);
}

}  // namespace

PriceBook load_price_book(const std::string& path, const CloudProfile& profile,
                          const std::vector<ProfileOverride>& overrides) {
  // Parsed once per process for each set of overrides (a sweep's scenarios inherit it); checked against each
  // scenario's platform, whose overrides may differ.
  std::vector<std::pair<std::string, std::string>> key;
  for (const auto& o : overrides) key.emplace_back(o.select, o.value);
  static FileMemo<decltype(key), PriceBook> parsed;
  PriceBook book = parsed.get({path}, key, [&] { return parse_file(path, overrides); });
  check_prices_every_type(book, profile);
  return book;
}

}  // namespace p2psim
