// The run's random draws, seeded by the experiment, each from a stream named by what it is for and whom it is
// for (a draw's purpose and, say, peer, iteration and invocation), not taken in turn from one shared stream.
// So a draw does not depend on which actor asked first when several act at one simulated instant (SimGrid's
// order, which any change to the simulator may move), nor on how many draws other participants took before it:
// the same invocation of the same experiment draws the same numbers whatever else changes between two runs
// (another memory size, another design beside it, another peer count): common random numbers, so the
// difference between two configurations of a sweep is theirs, not the noise's. A peer that rejoins after a
// crash is another participant (Context::instance_of).
//
// A stream's k-th number is XXH3-64 (libxxhash) of k, seeded by the hash of the stream's name and the
// experiment's seed: every bit of it specified, the same on every platform (unlike std::*_distribution).
#pragma once
#include <xxhash.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string_view>

namespace p2psim::simulation {

/// What a stream's draws are for: two purposes of one participant draw independently.
enum class Draw : std::uint64_t { ColdStart = 1, PeerStep, FunctionStep, FunctionFailure, StorageRequest, Participation };

class Random {
 public:
  explicit Random(std::uint64_t seed) : seed_(seed) {}

  class Stream {
   public:
    explicit Stream(std::uint64_t key) : key_(key) {}
    std::uint64_t next() {
      const std::uint64_t k = count_++;
      return XXH3_64bits_withSeed(&k, sizeof k, key_);
    }
    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Standard normal, by Box-Muller.
    double standard_normal() {
      const double u1 = (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
      const double u2 = uniform();
      return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
    }

   private:
    std::uint64_t key_;
    std::uint64_t count_ = 0;
  };

  /// The stream of `purpose` for the participant `who` (e.g. {peer, iteration, invocation, attempt}) of
  /// `group` (e.g. a function's pool: id_of(its name)).
  Stream stream(Draw purpose, std::initializer_list<std::int64_t> who, std::int64_t group = 0) const {
    std::uint64_t words[8] = {static_cast<std::uint64_t>(purpose), static_cast<std::uint64_t>(group)};
    std::size_t n = 2;
    if (who.size() > 6) throw std::logic_error("a random stream's participant has at most 6 ids");
    for (auto w : who) words[n++] = static_cast<std::uint64_t>(w);
    return Stream(XXH3_64bits_withSeed(words, n * sizeof words[0], seed_));
  }
  /// A name as an id (a function's, for its pool's cold starts).
  static std::int64_t id_of(std::string_view name) {
    return static_cast<std::int64_t>(XXH3_64bits(name.data(), name.size()));
  }

 private:
  std::uint64_t seed_;
};

}  // namespace p2psim::simulation
