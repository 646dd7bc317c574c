// Effective clock of one core: a chain of dependent integer adds retires one add per cycle on every x86 core
// since the P6, so adds per second = cycles per second, whatever the CPU reports as its frequency (a VM's
// /proc/cpuinfo shows a nominal or a hypervisor's value). The calibration CPU's Geekbench score, measured on an AWS
// part of the same core, is scaled by this clock (platforms/aws_us_east_1.xml, <cpu_reference>;
// docs/research/cpu_speed_factors.md, section 7).
//
// Usage: effective_clock [runs=15]. Prints each run's GHz and their median. x86-64 only.
#if !defined(__x86_64__)
#error "effective_clock measures an x86-64 core: one dependent add per cycle is an x86 property"
#endif
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr long kAddsPerBlock = 1000;
constexpr long kBlocks = 400000;  // 4e8 adds: about 0.1 s at 4 GHz

double run_ghz() {
  unsigned long x = 0;
  const unsigned long one = 1;
  const auto t0 = std::chrono::steady_clock::now();
  for (long b = 0; b < kBlocks; ++b)
    asm volatile(".rept 1000\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (x != static_cast<unsigned long>(kBlocks * kAddsPerBlock)) std::abort();
  return static_cast<double>(kBlocks * kAddsPerBlock) / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  run_ghz();  // let the core leave any idle state
  std::vector<double> ghz;
  for (int i = 0; i < runs; ++i) {
    ghz.push_back(run_ghz());
    std::printf("run %d: %.3f GHz\n", i + 1, ghz.back());
  }
  std::sort(ghz.begin(), ghz.end());
  std::printf("median %.3f GHz (min %.3f, max %.3f, %d runs)\n", ghz[ghz.size() / 2], ghz.front(), ghz.back(), runs);
}
