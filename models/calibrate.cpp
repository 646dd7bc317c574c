#include "calibrate.hpp"

#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <malloc.h>
#include <signal.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>

#include "batches.hpp"
#include "compression.hpp"
#include "sample_timing.hpp"
#include "zoo.hpp"

namespace p2psim::models {

const char* const kKernelCsvHeader =
    "kernel,model,num_classes,input_shape,batch_size,threads,n_tensors,elements,payload_bytes,repeat,seconds,"
    "foreign_cpu_share,peak_rss_bytes,runtime_rss_bytes,cpu_s,system_cpu_s,minor_faults,major_faults,core_round_trip_ns";

namespace {

// A run's temporary files, removed when it leaves them behind: on an exception (the guard's destructor, after the
// renames found nothing to remove) or on SIGINT/SIGTERM (the handler, with unlink, then the signal's default action).
class PartialFiles {
 public:
  PartialFiles(const std::string& csv, const std::string& meta) {
    std::snprintf(paths_[0], sizeof paths_[0], "%s", csv.c_str());
    std::snprintf(paths_[1], sizeof paths_[1], "%s", meta.c_str());
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~PartialFiles() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    for (const char* path : paths_) ::unlink(path);  // nothing there once renamed into place
  }
  PartialFiles(const PartialFiles&) = delete;
  PartialFiles& operator=(const PartialFiles&) = delete;

 private:
  static void on_signal(int signal) {
    for (const char* path : paths_) ::unlink(path);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
  static inline char paths_[2][4096] = {};
  struct sigaction old_int_ {}, old_term_ {};
};

constexpr int kMaxAttempts = 10;  // tries per sample before keeping the least disturbed one

// A field of /proc/self/status in bytes ("VmRSS", "VmHWM"), or -1.
long long proc_status_bytes(const std::string& key) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1)) * 1024;
  return -1;
}

// Returns freed heap to the system, then resets the peak-RSS mark (Linux: "5" to clear_refs), so that the next
// peak is this run's own. False when the kernel refuses the reset.
bool reset_peak_rss() {
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

std::string shape_text(const InputShape& s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
}

std::string first_line_of_file_matching(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown";
}

// The BLAS actually mapped into this process (torch resolves libblas.so.3 through Debian's alternatives).
std::string loaded_blas() {
  std::ifstream maps("/proc/self/maps");
  std::regex blas(R"((/\S*(openblas|blas|mkl)\S*\.so\S*))");
  std::string found;
  for (std::string line; std::getline(maps, line);) {
    std::smatch m;
    if (std::regex_search(line, m, blas)) {
      auto real = std::filesystem::weakly_canonical(m[1].str()).string();
      if (found.find(real) == std::string::npos) found += (found.empty() ? "" : ";") + real;
    }
  }
  return found.empty() ? "none mapped" : found;
}

// The CPU as the processor itself names it. /proc/cpuinfo's "model name" can be a hypervisor's placeholder
// (Firecracker reports every AMD host as "AMD EPYC"); CPUID's brand string and family/model/stepping are what
// a reader needs to look the CPU up.
std::string cpu_identity() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned regs[12] = {};
  for (unsigned leaf = 0; leaf < 3; ++leaf) __get_cpuid(0x80000002 + leaf, &regs[4 * leaf], &regs[4 * leaf + 1],
                                                        &regs[4 * leaf + 2], &regs[4 * leaf + 3]);
  std::string brand(reinterpret_cast<const char*>(regs), sizeof regs);
  brand = brand.substr(0, brand.find('\0'));
  brand.erase(brand.find_last_not_of(' ') + 1);
  brand.erase(0, brand.find_first_not_of(' '));
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  __get_cpuid(1, &eax, &ebx, &ecx, &edx);
  const unsigned family = ((eax >> 8) & 0xf) + ((eax >> 20) & 0xff), model = ((eax >> 4) & 0xf) | ((eax >> 12) & 0xf0);
  std::ostringstream out;
  out << brand << " (family 0x" << std::hex << family << ", model 0x" << model << ", stepping " << std::dec << (eax & 0xf)
      << ")";
  return out.str();
#else
  return first_line_of_file_matching("/proc/cpuinfo", "model name");
#endif
}

// Which malloc served LibTorch's CPU tensors: a preloaded jemalloc/tcmalloc shows in the mappings; glibc's
// behaviour depends on its tunables. PyTorch's CPU allocator calls posix_memalign, so this shapes the page
// faults of large activations (see calibration/README.md, "Allocator").
std::string allocator_in_use() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    for (const char* lib : {"libjemalloc", "libtcmalloc", "libmimalloc"})
      if (line.find(lib) != std::string::npos) return std::string(lib).substr(3) + " (preloaded)";
  std::string glibc = "glibc malloc";
  std::string tuned;
  for (const char* var : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                          "MALLOC_ARENA_MAX"})
    if (const char* v = std::getenv(var)) tuned += std::string(tuned.empty() ? "" : ", ") + var + "=" + v;
  return glibc + (tuned.empty() ? ", default settings" : ", " + tuned);
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

double load_average_1min() {
  double l = -1;
  std::ifstream("/proc/loadavg") >> l;
  return l;
}

struct Row {
  std::string kernel, model;
  int64_t num_classes = 0;
  std::string input_shape;
  int64_t batch_size = 0;
  int threads = 0;
  int64_t n_tensors = 0, elements = 0, payload_bytes = 0;
};

class Sampler {
 public:
  Sampler(const CalibrateOptions& o, std::ostream& csv, std::ostream& progress, int total, long long runtime_rss)
      : o_(o), csv_(csv), progress_(progress), total_(total), runtime_rss_bytes_(runtime_rss) {}

  /// Warm up, then time `fn` repeatedly; one CSV row per timed sample, each the last run of a window of at least
  /// contention_window_s whose contention is judged (sample_timing.hpp). For training steps, one more untimed run
  /// measures the peak memory (after returning freed heap to the system, which would slow a timed run), and
  /// every row of the configuration records it. With memory_only, that run is the only one after the warm-up,
  /// written as a `train_step_memory` row.
  void sample(const Row& row, const std::function<void()>& fn, const std::string& label) {
    const double first = time_once(fn);
    for (int i = 1; i < o_.warmup && first * o_.warmup < o_.budget_s; ++i) fn();
    const int fit = static_cast<int>(o_.budget_s / std::max({first, o_.contention_window_s, 1e-9}));
    const int repeats = o_.memory_only ? 0 : std::clamp(fit, o_.min_repeats, o_.repeats);
    const unsigned cpus = std::thread::hardware_concurrency();
    std::vector<TimedSample> samples;
    // On a shared machine, a sample whose window others took the CPU in is measured again; so is a multi-thread
    // sample whose CPUs did not share a cache (the VM's host had put them on different chiplets).
    auto contended = [&](const TimedSample& t) { return t.foreign_cpu_share > o_.max_foreign_cpu; };
    auto split = [&](const TimedSample& t) {
      return o_.max_core_round_trip_ns > 0 && t.core_round_trip_ns > o_.max_core_round_trip_ns;
    };
    auto badness = [&](const TimedSample& t) { return (split(t) ? 1.0 : 0.0) + t.foreign_cpu_share; };
    for (int r = 0; r < repeats; ++r) {
      TimedSample best;
      best.foreign_cpu_share = 2;
      for (int attempt = 0; attempt < kMaxAttempts && (contended(best) || split(best)); ++attempt) {
        const double round_trip_before =
            o_.max_core_round_trip_ns > 0
                ? wait_for_shared_cache(row.threads, o_.max_core_round_trip_ns, o_.max_wait_for_shared_cache_s)
                : widest_round_trip_ns(row.threads);
        TimedSample t = time_after_window(fn, o_.contention_window_s, first, cpus);
        t.core_round_trip_ns = std::max(round_trip_before, widest_round_trip_ns(row.threads));
        if (badness(t) < badness(best)) best = t;
        if (contended(best)) ++retried_;
        else if (split(best)) ++retried_split_;
      }
      if (contended(best)) ++kept_disturbed_;  // flagged by its foreign_cpu_share
      else if (split(best)) ++kept_split_;     // flagged by its core_round_trip_ns
      samples.push_back(best);
    }
    long long peak = -1;
    Row written = row;
    if (row.kernel == "train_step") {
      const bool reset = reset_peak_rss();
      const TimedSample t = time_after_window(fn, 0, first, cpus);
      peak = reset ? proc_status_bytes("VmHWM") : -1;
      if (o_.memory_only) samples.push_back(t), written.kernel = "train_step_memory";
    }
    for (size_t r = 0; r < samples.size(); ++r)
      csv_ << written.kernel << ',' << row.model << ',' << row.num_classes << ',' << row.input_shape << ','
           << row.batch_size << ',' << row.threads << ',' << row.n_tensors << ',' << row.elements << ','
           << row.payload_bytes << ',' << r << ',' << std::setprecision(9) << samples[r].seconds << ','
           << std::setprecision(3) << samples[r].foreign_cpu_share << ',' << peak << ',' << runtime_rss_bytes_
           << ',' << std::setprecision(6) << samples[r].used.cpu_s << ',' << samples[r].used.system_cpu_s << ','
           << samples[r].used.minor_faults << ','
           << samples[r].used.major_faults << ',' << std::setprecision(4) << samples[r].core_round_trip_ns << '\n';
    csv_.flush();
    std::vector<double> seconds;
    for (const auto& t : samples) seconds.push_back(t.seconds);
    std::sort(seconds.begin(), seconds.end());
    progress_ << "[" << ++done_ << "/" << total_ << "] " << label << ": median " << std::setprecision(4)
              << (seconds.empty() ? 0.0 : seconds[seconds.size() / 2]) << " s over " << seconds.size()
              << " samples";
    if (peak > 0) progress_ << ", peak memory " << std::setprecision(4) << peak / 1048576.0 << " MiB";
    progress_ << '\n' << std::flush;
  }

 private:
  const CalibrateOptions& o_;
  std::ostream& csv_;
  std::ostream& progress_;
  int total_, done_ = 0;
  int retried_ = 0;         // samples measured again because of contention
  int kept_disturbed_ = 0;  // samples still above the contention limit after every attempt
  int retried_split_ = 0;   // multi-thread samples measured again because their CPUs shared no cache
  int kept_split_ = 0;      // ... and still so after every attempt
  long long runtime_rss_bytes_;  // this process with LibTorch loaded, before any model was built

 public:
  int retried() const { return retried_; }
  int kept_disturbed() const { return kept_disturbed_; }
  int retried_split() const { return retried_split_; }
  int kept_split() const { return kept_split_; }
};

void time_train_steps(const CalibrateOptions& o, Sampler& sampler) {
  for (const auto& spec : o.models) {
    auto net = build_model(spec.name, o.num_classes, spec.input);
    const int64_t params = parameter_count(*net);
    for (int64_t b : o.batch_sizes) {
      auto batch = synthetic_batch(b, spec.input, o.num_classes, o.seed);
      for (int t : o.threads) {
        torch::set_num_threads(t);
        Row row{"train_step", spec.name, o.num_classes, shape_text(spec.input), b, t, 0, params, params * 4};
        sampler.sample(row, [&] {
          net->zero_grad();
          torch::nn::functional::cross_entropy(net->forward(batch.inputs), batch.targets).backward();
        }, spec.name + " " + row.input_shape + " batch " + std::to_string(b) + " threads " + std::to_string(t));
      }
    }
  }
}

void time_tensor_ops(const CalibrateOptions& o, Sampler& sampler) {
  std::vector<std::pair<std::string, int64_t>> sizes;  // model -> gradient elements, each size once
  for (const auto& spec : o.models) {
    int64_t n = parameter_count(*build_model(spec.name, o.num_classes, spec.input));
    if (std::none_of(sizes.begin(), sizes.end(), [&](auto& s) { return s.first == spec.name; }))
      sizes.emplace_back(spec.name, n);
  }
  auto gen = at::detail::createCPUGenerator(o.seed);
  for (const auto& [model, elements] : sizes) {
    for (int t : o.threads) {
      torch::set_num_threads(t);
      const std::string what = model + " gradient (" + std::to_string(elements) + " floats) threads " + std::to_string(t);
      for (int n : o.serialization_only ? std::vector<int>{} : o.average_counts) {
        std::vector<torch::Tensor> grads;
        for (int i = 0; i < n; ++i) grads.push_back(torch::randn({elements}, gen));
        Row row{"average", model, o.num_classes, "", 0, t, n, elements, elements * 4};
        // As the paper's peers do: a running sum, then one division.
        sampler.sample(row, [&] {
          auto acc = grads[0].clone();
          for (int i = 1; i < n; ++i) acc.add_(grads[i]);
          acc.div_(n);
        }, "average of " + std::to_string(n) + " x " + what);
      }
      auto g = torch::randn({elements}, gen);
      // A gradient crossing a process boundary: torch.save and torch.load (LibTorch's own, the same archive
      // format as Python's) of the flat float32 tensor, to and from memory. On one thread: they use one.
      if (o.serialization && t == o.threads.front()) {
        std::string blob;
        Row ser{"serialize", model, o.num_classes, "", 0, t, 1, elements, elements * 4};
        sampler.sample(ser, [&] {
          std::ostringstream out;
          torch::save(g, out);
          blob = out.str();
        }, "serialize " + what);
        Row des = ser;
        des.kernel = "deserialize";
        sampler.sample(des, [&] {
          std::istringstream in(blob);
          torch::Tensor back;
          torch::load(back, in);
        }, "deserialize " + what);
      }
      for (const auto& name : o.serialization_only ? std::vector<std::string>{} : o.codecs) {
        Codec codec = parse_codec(name);
        Encoded msg = encode(codec, g, o.topk_ratio, gen);
        Row enc{name + "_encode", model, o.num_classes, "", 0, t, 1, elements, msg.payload_bytes()};
        sampler.sample(enc, [&] { msg = encode(codec, g, o.topk_ratio, gen); }, name + " encode " + what);
        Row dec = enc;
        dec.kernel = name + "_decode";
        sampler.sample(dec, [&] { decode(codec, msg, elements); }, name + " decode " + what);
      }
    }
  }
}

void write_metadata(const CalibrateOptions& o, const std::string& path, double seconds, const Sampler& sampler) {
  nlohmann::ordered_json meta;
  meta["csv"] = std::filesystem::path(o.out_csv).filename().string();
  meta["command"] = o.command;
  meta["date_utc"] = utc_now();
  meta["cpu_model"] = first_line_of_file_matching("/proc/cpuinfo", "model name");
  meta["cpu_identity"] = cpu_identity();
  meta["allocator"] = allocator_in_use();
  meta["logical_cores"] = std::thread::hardware_concurrency();
  meta["torch_version"] = TORCH_VERSION;
  meta["blas"] = loaded_blas();
  meta["load_average_1min_at_end"] = load_average_1min();
  meta["wall_time_s"] = seconds;
  meta["max_foreign_cpu_share"] = o.max_foreign_cpu;
  meta["contention_window_s"] = o.contention_window_s;
  meta["samples_retried_for_contention"] = sampler.retried();
  meta["samples_kept_above_contention_limit"] = sampler.kept_disturbed();
  meta["max_core_round_trip_ns"] = o.max_core_round_trip_ns;
  meta["max_wait_for_shared_cache_s"] = o.max_wait_for_shared_cache_s;
  meta["samples_retried_for_split_cpus"] = sampler.retried_split();
  meta["samples_kept_on_split_cpus"] = sampler.kept_split();
  meta["seed"] = o.seed;
  meta["topk_ratio"] = o.topk_ratio;
  meta["warmup"] = o.warmup;
  meta["repeats_max"] = o.repeats;
  meta["repeats_min"] = o.min_repeats;
  meta["budget_per_configuration_s"] = o.budget_s;
  meta["columns"] = {
      {"kernel", "train_step (forward, cross-entropy loss, backward), average (running sum of n_tensors "
                 "gradients, then a division), <codec>_encode / <codec>_decode, serialize / deserialize (torch::save / "
                 "torch::load of the flat gradient to and from memory)"},
      {"input_shape", "channels x height x width of one sample (train_step only)"},
      {"elements", "float32 entries of the model's gradient"},
      {"payload_bytes", "bytes of the gradient (train_step, average) or of the encoded message (codecs)"},
      {"seconds", "wall time of one sample (one run of the kernel), steady clock"},
      {"foreign_cpu_share", "share of all CPUs used by other processes during the sample's window: the sample "
                            "and the untimed runs before it that make the window last contention_window_s "
                            "(none when one run lasts that long); a sample above max_foreign_cpu_share was "
                            "measured again, up to 10 times"},
      {"peak_rss_bytes", "peak resident memory of this process during one more, untimed run of the configuration "
                         "(VmHWM after malloc_trim and a reset; model, inputs, activations, gradients and the "
                         "runtime); -1 when unknown or not a training step"},
      {"train_step_memory", "kernel of --memory-only rows: their seconds come from the memory run (after "
                            "malloc_trim, so slower than a timed step) and are not used as timing samples"},
      {"runtime_rss_bytes", "resident memory of this process with LibTorch loaded, before any model was built"},
      {"cpu_s", "CPU seconds (user + system, all threads) this process used during the sample (getrusage)"},
      {"system_cpu_s", "of cpu_s, the kernel's share (page faults, mostly)"},
      {"minor_faults", "minor page faults during the sample (getrusage): pages the allocator took fresh from the "
                       "kernel"},
      {"major_faults", "major page faults during the sample (getrusage): pages read from disk"},
      {"core_round_trip_ns", "samples of 2 or more threads: the widest round trip of a cache line between the "
                             "first allowed CPU and the next threads - 1, the larger of before and after the "
                             "sample (0 for one thread); before each attempt calibrate waits (up to "
                             "max_wait_for_shared_cache_s) for it to be at most max_core_round_trip_ns, and a "
                             "sample above it (its CPUs share no cache: a VM's vCPUs on different chiplets) was "
                             "measured again, up to 10 times"},
      {"samples_kept_on_split_cpus", "multi-thread samples still above max_core_round_trip_ns after 10 attempts: "
                                     "kept and flagged by their core_round_trip_ns"},
      {"samples_kept_above_contention_limit", "samples still disturbed after 10 attempts: kept (the least "
                                              "disturbed attempt) and flagged by their foreign_cpu_share"}};
  std::ofstream(path) << std::setw(2) << meta << '\n';
}

}  // namespace

void calibrate(const CalibrateOptions& o, std::ostream& progress) {
  if (o.out_csv.empty()) throw std::invalid_argument("no output CSV given");
  malloc_trim(0);
  const long long runtime_rss = proc_status_bytes("VmRSS");  // before any model exists
  // Fail before timing: every model builds, and trains on the smallest batch (a batch of 1 cannot train a
  // model that batch-normalises a 1x1 feature map, in LibTorch as in PyTorch).
  const int64_t smallest = *std::min_element(o.batch_sizes.begin(), o.batch_sizes.end());
  for (const auto& spec : o.models) {
    auto net = build_model(spec.name, o.num_classes, spec.input);
    if (!o.train_steps) continue;
    try {
      auto batch = synthetic_batch(smallest, spec.input, o.num_classes, o.seed);
      torch::nn::functional::cross_entropy(net->forward(batch.inputs), batch.targets).backward();
    } catch (const c10::Error& e) {
      throw std::invalid_argument(spec.name + "@" + shape_text(spec.input) + " cannot train on a batch of " +
                                  std::to_string(smallest) + ": " + e.msg().substr(0, e.msg().find('\n')));
    }
  }
  for (const auto& c : o.codecs) parse_codec(c);

  const int configs = static_cast<int>(o.models.size() * o.threads.size());
  int total = o.train_steps ? configs * static_cast<int>(o.batch_sizes.size()) : 0;
  if (o.tensor_ops)
    total += o.serialization_only ? 2 * static_cast<int>(o.models.size())
                                  : configs * static_cast<int>(o.average_counts.size() + 2 * o.codecs.size()) +
                                        (o.serialization ? 2 * static_cast<int>(o.models.size()) : 0);

  // Rows stream to a temporary file that replaces the output only when the run completes; its name is this
  // process's own, so that nothing already at a fixed name (an earlier run's leftover, a folder) stops it, and
  // it is removed when the run fails or is interrupted.
  const std::string partial = "." + std::to_string(::getpid()) + ".partial";
  const std::string tmp = o.out_csv + partial;
  const std::string meta_tmp = o.out_csv + ".meta.json" + partial;
  const PartialFiles cleanup(tmp, meta_tmp);
  std::ofstream csv(tmp);
  if (!csv) throw std::runtime_error("cannot write " + tmp);
  csv << kKernelCsvHeader << '\n';
  Sampler sampler(o, csv, progress, total, runtime_rss);
  const double seconds = time_once([&] {
    if (o.train_steps) time_train_steps(o, sampler);
    if (o.tensor_ops) time_tensor_ops(o, sampler);
  });
  csv.close();
  write_metadata(o, meta_tmp, seconds, sampler);
  std::filesystem::rename(tmp, o.out_csv);
  std::filesystem::rename(meta_tmp, o.out_csv + ".meta.json");
}

}  // namespace p2psim::models
